package gp

import (
	"fmt"
	"math"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/lang/model/dists"
	rgp "github.com/kml-lang/kml/runtime/gp"
)

// knownNoise reads normal's sigma when it is a vector of n standard
// deviations, one per observation: known (data: measurement errors
// reported with the data) or given by parameters (heteroscedastic noise,
// an *eval.ADVec such as exp(b0 + b1 * x)); it returns their squares at
// their current values. ok is false when sigma is not a vector (a number
// or a scalar parameter, read by scalarParam). A length other than n, or
// an sd that is not a positive finite number, is an error.
func knownNoise(lik *dists.DistVal, n int) (variances []float64, ok bool, err error) {
	v := lik.Params[1]
	switch v.(type) {
	case *eval.Vec, *eval.ADVec:
	default:
		return nil, false, nil
	}
	sd, _ := eval.ToFloats(v)
	if len(sd) != n {
		return nil, false, fmt.Errorf("normal's sigma has %d standard deviations for %d observations of the latent GP", len(sd), n)
	}
	variances = make([]float64, n)
	for i, s := range sd {
		if !(s > 0) || math.IsInf(s, 0) {
			return nil, false, fmt.Errorf("normal's sigma[%d] is %s; noise standard deviations must be positive finite numbers", i+1, eval.FormatNumber(s))
		}
		variances[i] = s * s
	}
	return variances, true, nil
}

// knownNoiseLogLik is the exact log marginal likelihood log N(y | 0, K +
// diag(s²)) with per-observation noise standard deviations s (sd, the
// value knownNoise read; noise holds s² at its current values), with its
// gradient on the tape in the kernel's hyperparameters and, when sd
// depends on parameters, in each sᵢ: ∂/∂sᵢ = 2sᵢ ∂/∂sᵢ², the latter
// ½[C⁻¹yyᵀC⁻¹ − C⁻¹]ᵢᵢ from LogMarginalNoise, which the tape carries on
// to the parameters s is made of.
func (g *gpLatent) knownNoiseLogLik(ev *model.Eval, sd eval.Value, noise, y []float64) (eval.Value, error) {
	what := "known noise"
	adv, byParams := sd.(*eval.ADVec)
	if byParams {
		what = "noise given by parameters"
	}
	if g.lowRank() {
		return nil, fmt.Errorf(`a vector of noise standard deviations needs the exact GP (inducing: "exact", at most %d rows by default)`, lowRankAbove)
	}
	if obj := ev.Objective(); obj.Name != model.ObjUnset && obj.Name != model.ObjMLM && obj.Name != model.ObjVB {
		return nil, fmt.Errorf("a vector of noise standard deviations is for the marginal likelihood (objective: \"ml\"); objective %q needs one sigma", obj.Name)
	}
	k := g.kernel.K
	nk := k.NumHyper()
	if !g.HasAD() && !byParams {
		lp, err := rgp.LogMarginalNoise(k, g.x, y, noise, nil)
		if err != nil {
			return nil, &ast.Error{Pos: g.pos, Msg: fmt.Sprintf("gp: %v (kernel %s, %s)", bare(err), k, what)}
		}
		return eval.Num(lp), nil
	}
	params := append([]eval.Value(nil), g.kernel.Hyper...)
	if byParams {
		for _, v := range adv.Vs {
			params = append(params, &eval.ADNum{T: adv.T, V: v})
		}
	}
	full := make([]float64, nk+len(noise))
	vars := append([]float64(nil), noise...)
	var recErr error
	out := eval.FuncNode(params, func(x, d []float64) float64 {
		kk, err := k.WithHyper(x[:nk])
		if err != nil {
			return math.NaN()
		}
		if byParams {
			for i, s := range x[nk:] {
				if !(s > 0) || math.IsInf(s, 0) {
					return math.NaN()
				}
				vars[i] = s * s
			}
		}
		lp, err := rgp.LogMarginalNoise(kk, g.x, y, vars, full)
		if recErr = err; err != nil {
			return math.NaN()
		}
		copy(d, full[:nk])
		if byParams {
			for i, s := range x[nk:] {
				d[nk+i] = 2 * s * full[nk+i]
			}
		}
		return lp
	})
	if recErr != nil {
		return nil, &ast.Error{Pos: g.pos, Msg: fmt.Sprintf("gp: %v (kernel %s, %s)", bare(recErr), k, what)}
	}
	return out, nil
}
