package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/lang/model/dists"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
)

// observations reads the data observed through the latent function: n
// finite numbers.
func (g *gpLatent) observations(data eval.Value) ([]float64, error) {
	ys, ok := eval.ToFloats(data)
	y := append([]float64(nil), ys...) // labels may be rewritten; data is shared
	n, _ := g.x.Dims()
	if !ok {
		return nil, fmt.Errorf("the observations of a latent GP must be a vector, got %s", eval.Describe(data))
	}
	if len(y) != n {
		return nil, fmt.Errorf("%d observations for a latent GP at %d input rows", len(y), n)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("observation %d is %v; a latent GP needs finite observations", i+1, v)
		}
	}
	return y, nil
}

// scalarParam is a likelihood parameter that must be one number (or one
// model parameter) rather than a vector.
func scalarParam(lik *dists.DistVal, i int) (float64, error) {
	switch v := lik.Params[i].(type) {
	case eval.Num, *eval.ADNum:
		x, _ := eval.PeekFloat(v) // the node that uses it recomputes it
		return x, nil
	}
	return 0, fmt.Errorf("with a latent GP, %s's %s must be a number or a scalar parameter, got %s",
		lik.Family.Name(), lik.Family.ParamNames()[i], eval.Describe(lik.Params[i]))
}

// gpSettings turns the model objective into runtime/gp's settings: the
// objective's kind and, for the marginal likelihood, the approximation's
// Inference from runtime/gp's table; the MKL and RR regulariser's weights
// when weights is set.
func (g *gpLatent) gpSettings(obj model.Objective, weights bool) (rgp.Settings, error) {
	s := rgp.Settings{P: obj.P, Lambda: obj.Lambda}
	switch obj.Name {
	case model.ObjUnset, model.ObjMLM, model.ObjVB:
		s.Kind = rgp.MLM
		info, err := obj.Approx.Info()
		if err != nil {
			return s, err
		}
		s.Approx = info.New()
	case model.ObjMAP:
		s.Kind = rgp.MAP
	case model.ObjMKL, model.ObjRR:
		s.Kind = rgp.MKL
		if obj.Name == model.ObjRR {
			s.Kind = rgp.RR
		}
		if !weights {
			break
		}
		s.Weights = rgp.Weights(g.kernel.K)
		if len(s.Weights) == 0 {
			return s, fmt.Errorf("objective %q learns the weights θ of a kernel θ₁k₁ + ... + θ_M k_M, but %s has no weights; write them as parameters, e.g. t1 * rbf(ell) + t2 * linear()", obj.Name, g.kernel.K)
		}
	default:
		return s, fmt.Errorf("unknown objective %q for a latent GP", obj.Name)
	}
	return s, nil
}

// LogLik is the objective's log likelihood term for data observed through
// lik, with its gradient on the tape.
func (g *gpLatent) LogLik(ev *model.Eval, lik *dists.DistVal, loc int, data eval.Value) (eval.Value, error) {
	if g.classes > 0 {
		return nil, fmt.Errorf("a latent GP with classes: %d is observed as labels through categorical_logit(f), not %s", g.classes, lik.Family.Name())
	}
	if ev.Objective().ResolveOnly {
		return eval.Num(0), nil
	}
	y, err := g.observations(data)
	if err != nil {
		return nil, err
	}
	if g.zAD != nil && (lik.Family.Name() != "normal" || g.sparse != "vfe" || ev.Objective().Loss != model.LossLikelihood) {
		return nil, fmt.Errorf(`inducing points that are model parameters are learned on Titsias' bound (sparse: "vfe") for normal observations; give them as a matrix of numbers here`)
	}
	if ev.Objective().Loss != model.LossLikelihood {
		return g.svmLogLik(ev, y)
	}
	if lik.Family.Name() == "normal" {
		return g.normalLogLik(ev, lik, loc, y)
	}
	if g.lowRank() && !g.auto {
		return nil, fmt.Errorf("inducing points (the Nyström path) are for normal observations in this version; %s observations need inducing: \"exact\"", lik.Family.Name())
	}
	l, idx, err := nonGaussianLik(lik, loc, y)
	if err != nil {
		return nil, err
	}
	obj := ev.Objective()
	obj.Approx = obj.Approx.For(l.Kind)
	s, err := g.gpSettings(obj, true)
	if err != nil {
		return nil, err
	}
	switch s.Kind {
	case rgp.MLM:
		info, _ := obj.Approx.Info() // gpSettings has read it
		if info.Refuse != nil {
			if err := info.Refuse(l.Kind); err != nil {
				return nil, &ast.Error{Pos: g.pos, Msg: fmt.Sprintf("%v", err)}
			}
		}
		if ev.Checking && obj.Name != model.ObjVB {
			ev.WarnOnce("gp: approximate", g.pos, fmt.Sprintf("gp: with %s observations the marginal likelihood of the hyperparameters is %s", lik.Family.Name(), info.Says))
		}
		if info.Warm != nil {
			// One state per term and optimiser run: each evaluation
			// starts where this term's last one ended (rgp.LaplaceWarm).
			if w := ev.Local(warmKey{g.pos, info.Name}, func() any { return info.Warm() }); w != nil {
				s.Approx = w.(rgp.Inference)
			}
		}
	case rgp.RR:
		return nil, fmt.Errorf(`objective "rr" (eq. 9) is for Gaussian noise; with %s observations use "mkl"`, lik.Family.Name())
	}
	if d := ev.Local(distsKey{g.pos}, func() any { return &rgp.Dists{} }); d != nil {
		s.Dists = d.(*rgp.Dists) // the inputs' distances, once per optimiser run
	}
	k := g.kernel.K
	params := append([]eval.Value(nil), g.kernel.Hyper...)
	for _, i := range idx {
		params = append(params, lik.Params[i])
	}
	ad := false
	for _, p := range params {
		ad = ad || eval.IsAD(p)
	}
	if !ad {
		lp, err := rgp.NonGaussian(s, k, g.x, y, l, nil)
		if err != nil {
			return nil, &ast.Error{Pos: g.pos, Msg: fmt.Sprintf("gp: %v (kernel %s)", bare(err), k)}
		}
		return eval.Num(lp), nil
	}
	// One replayable node: the closure rebuilds the kernel and the
	// likelihood from its parents' values at every replay (NaN, and so a
	// walk that reports, where either refuses them).
	nk := k.NumHyper()
	var recErr error
	var last *lastEval
	if m := ev.Local(lastKey{g.pos}, func() any { return &lastEval{} }); m != nil {
		last = m.(*lastEval)
	}
	out := eval.FuncNode(params, func(x, d []float64) float64 {
		if v, ok := last.get(x, d, g.x, y); ok {
			return v
		}
		kk, err := k.WithHyper(x[:nk])
		if err != nil {
			return math.NaN()
		}
		ll := l
		ll.Params = x[nk:]
		lp, err := rgp.NonGaussian(s, kk, g.x, y, ll, d)
		if recErr = err; err != nil {
			return math.NaN()
		}
		last.put(x, d, g.x, y, lp)
		return lp
	})
	if recErr != nil {
		return nil, &ast.Error{Pos: g.pos, Msg: fmt.Sprintf("gp: %v (kernel %s)", bare(recErr), k)}
	}
	return out, nil
}

// warmKey keys a latent GP term's warm-started approximation in
// model.Eval.Local: the gp() call's position and the approximation.
type warmKey struct {
	pos    ast.Pos
	approx rgp.Approx
}

// lastKey and distsKey key a latent GP term's lastEval and rgp.Dists in
// model.Eval.Local.
type (
	lastKey  struct{ pos ast.Pos }
	distsKey struct{ pos ast.Pos }
)

// nonGaussianLik reads a non-Gaussian likelihood's parameters (idx: their
// positions in lik.Params) and turns {0, 1} labels into {−1, 1} in y.
func nonGaussianLik(lik *dists.DistVal, loc int, y []float64) (l rgp.Lik, idx []int, err error) {
	name := lik.Family.Name()
	want := map[string]int{"laplace": 0, "student_t": 1, "bernoulli_logit": 0, "poisson_log": 0, "neg_binomial_2_log": 0}
	w, ok := want[name]
	switch {
	case name == "poisson" || name == "neg_binomial_2":
		return l, nil, fmt.Errorf("a latent GP is observed as counts through the log link: write %s_log(f) for %s(exp(f))", name, name)
	case !ok:
		return l, nil, fmt.Errorf("a latent GP can be observed through normal, laplace, student_t, bernoulli_logit, poisson_log or neg_binomial_2_log, not %s", name)
	}
	if loc != w {
		return l, nil, fmt.Errorf("the latent GP must be %s's location %s", name, lik.Family.ParamNames()[w])
	}
	for i := range lik.Params {
		if i == loc {
			continue
		}
		v, err := scalarParam(lik, i)
		if err != nil {
			return l, nil, err
		}
		l.Params = append(l.Params, v)
		idx = append(idx, i)
	}
	switch name {
	case "laplace":
		l.Kind = rgp.Laplace
	case "student_t":
		l.Kind = rgp.StudentT
	case "poisson_log":
		l.Kind = rgp.Poisson
	case "neg_binomial_2_log":
		l.Kind = rgp.NegBinomial
	default:
		l.Kind = rgp.Logit
		if err := signLabels(y); err != nil {
			return l, nil, err
		}
	}
	return l, idx, nil
}

// signLabels maps labels in {0, 1} to {−1, 1} in place; labels already in
// {−1, 1} stay. Anything else is an error naming the first bad label.
func signLabels(y []float64) error {
	zeroOne := true
	for _, v := range y {
		if v == -1 {
			zeroOne = false
		}
	}
	for i, v := range y {
		switch {
		case v == 1:
		case v == 0 && zeroOne:
			y[i] = -1
		case v == -1 && !zeroOne:
		default:
			return fmt.Errorf("label %d is %v; bernoulli_logit labels must be all in {0, 1} or all in {−1, 1}", i+1, eval.FormatNumber(v))
		}
	}
	return nil
}

func (g *gpLatent) normalLogLik(ev *model.Eval, lik *dists.DistVal, loc int, y []float64) (eval.Value, error) {
	if loc != 0 {
		return nil, fmt.Errorf("the latent GP must be normal's mean, the first argument")
	}
	if noise, ok, err := knownNoise(lik, len(y)); err != nil || ok {
		if err != nil {
			return nil, err
		}
		return g.knownNoiseLogLik(ev, lik.Params[1], noise, y)
	}
	sigma, err := scalarParam(lik, 1)
	if err != nil {
		return nil, err
	}
	s, err := g.gpSettings(ev.Objective(), true)
	if err != nil {
		return nil, err
	}
	k := g.kernel.K
	var z *mat.Dense
	if g.lowRank() {
		if s.Kind != rgp.MLM {
			return nil, fmt.Errorf("the Nyström path (inducing points) gives the marginal likelihood only; objective %q needs inducing: \"exact\"", ev.Objective().Name)
		}
		if !g.greedy {
			if z, err = g.inducingPoints(ev, k); err != nil {
				return nil, &ast.Error{Pos: g.pos, Msg: fmt.Sprintf("gp: %v (kernel %s, sigma %g)", bare(err), k, sigma)}
			}
		}
	}
	// logLik is the objective at kernel kk and noise sd sig, with its
	// gradient in kk's hyperparameters then σ² written to grad if not nil.
	// Greedy inducing points are chosen afresh for kk: they are a
	// piecewise-constant function of the hyperparameters, so the gradient
	// at fixed points is the objective's almost everywhere.
	logLik := func(kk kernels.Kernel, sig float64, grad []float64) (float64, error) {
		if !g.lowRank() {
			return rgp.Gaussian(s, kk, g.x, y, sig*sig, grad)
		}
		zz := z
		if g.greedy {
			var err error
			if zz, err = g.inducingPoints(ev, kk); err != nil {
				return 0, err
			}
		}
		switch g.sparse {
		case "dtc":
			return rgp.LowRankLogMarginal(kk, g.x, zz, y, sig*sig, grad)
		case "fitc":
			return rgp.FITCLogMarginal(kk, g.x, zz, y, sig*sig, grad)
		}
		return rgp.SGPRLogMarginal(kk, g.x, zz, y, sig*sig, grad)
	}
	if !g.HasAD() && !eval.IsAD(lik.Params[1]) {
		lp, err := logLik(k, sigma, nil)
		if err != nil {
			return nil, &ast.Error{Pos: g.pos, Msg: fmt.Sprintf("gp: %v (kernel %s, sigma %g)", bare(err), k, sigma)}
		}
		return eval.Num(lp), nil
	}
	// One replayable node: the closure rebuilds the kernel from its
	// parents' values at every replay, as the non-Gaussian case does.
	// Learned inducing points follow σ as parents, row by row.
	params := append(append([]eval.Value(nil), g.kernel.Hyper...), lik.Params[1])
	nk := k.NumHyper()
	if g.zAD != nil {
		for _, v := range g.zAD.Vs {
			params = append(params, &eval.ADNum{T: g.zAD.T, V: v})
		}
	}
	var recErr error
	out := eval.FuncNode(params, func(x, d []float64) float64 {
		sig := x[nk]
		kk, err := k.WithHyper(x[:nk])
		if err != nil {
			return math.NaN()
		}
		var lp float64
		if g.zAD != nil {
			lp, err = g.learnedZLogLik(kk, x[nk+1:], y, sig, d[:nk+1], d[nk+1:])
		} else {
			lp, err = logLik(kk, sig, d)
		}
		if recErr = err; err != nil {
			return math.NaN()
		}
		d[nk] *= 2 * sig // σ² → σ
		return lp
	})
	if recErr != nil {
		return nil, &ast.Error{Pos: g.pos, Msg: fmt.Sprintf("gp: %v (kernel %s, sigma %g)", bare(recErr), k, sigma)}
	}
	return out, nil
}

// learnedZLogLik is Titsias' bound at kernel kk, noise sd sig and the
// inducing points zs (row-major, as the model gave them), with its
// gradient in kk's hyperparameters then σ² written to grad and in the
// points to gz. Points that are not finite give ErrNonFinite's NaN.
func (g *gpLatent) learnedZLogLik(kk kernels.Kernel, zs, y []float64, sig float64, grad, gz []float64) (float64, error) {
	for _, v := range zs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("an inducing point is %v", v)
		}
	}
	z := mat.NewDense(g.zAD.Rows, g.zAD.Cols, append([]float64(nil), zs...))
	return rgp.SGPRLogMarginalZ(kk, g.x, z, y, sig*sig, grad, gz)
}
