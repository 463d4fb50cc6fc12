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

// knownNoise reads normal's sigma when it is a vector of n known standard
// deviations, one per observation (measurement errors reported with the
// data), and returns their squares; ok is false when sigma is not a
// vector (a number or a scalar parameter, read by scalarParam). A vector
// holding parameters, a length other than n, or an sd that is not a
// positive finite number is an error.
func knownNoise(lik *dists.DistVal, n int) (variances []float64, ok bool, err error) {
	v := lik.Params[1]
	switch v.(type) {
	case *eval.Vec:
	case *eval.ADVec:
		return nil, false, fmt.Errorf("with a latent GP, normal's sigma may be a vector of known standard deviations (data), not of parameters")
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
			return nil, false, fmt.Errorf("normal's sigma[%d] is %s; known noise standard deviations must be positive finite numbers", i+1, eval.FormatNumber(s))
		}
		variances[i] = s * s
	}
	return variances, true, nil
}

// knownNoiseLogLik is the exact log marginal likelihood log N(y | 0, K +
// diag(noise)) with known per-observation noise variances, with its
// gradient in the kernel's hyperparameters on the tape.
func (g *gpLatent) knownNoiseLogLik(ev *model.Eval, noise, y []float64) (eval.Value, error) {
	if g.lowRank() {
		return nil, fmt.Errorf(`a vector of known noise standard deviations needs the exact GP (inducing: "exact", at most %d rows by default)`, lowRankAbove)
	}
	if obj := ev.Objective(); obj.Name != model.ObjUnset && obj.Name != model.ObjMLM && obj.Name != model.ObjVB {
		return nil, fmt.Errorf("a vector of known noise standard deviations is for the marginal likelihood; objective %q needs one sigma", obj.Name)
	}
	k := g.kernel.K
	nk := k.NumHyper()
	if !g.HasAD() {
		lp, err := rgp.LogMarginalNoise(k, g.x, y, noise, nil)
		if err != nil {
			return nil, &ast.Error{Pos: g.pos, Msg: fmt.Sprintf("gp: %v (kernel %s, known noise)", err, k)}
		}
		return eval.Num(lp), nil
	}
	full := make([]float64, nk+len(noise))
	var recErr error
	out := eval.FuncNode(g.kernel.Hyper, func(x, d []float64) float64 {
		kk, err := k.WithHyper(x[:nk])
		if err != nil {
			return math.NaN()
		}
		lp, err := rgp.LogMarginalNoise(kk, g.x, y, noise, full)
		if recErr = err; err != nil {
			return math.NaN()
		}
		copy(d, full[:nk])
		return lp
	})
	if recErr != nil {
		return nil, &ast.Error{Pos: g.pos, Msg: fmt.Sprintf("gp: %v (kernel %s, known noise)", recErr, k)}
	}
	return out, nil
}
