package gp

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/progress"
	"github.com/kml-lang/kml/runtime/rng"
)

var _ model.SVGPFitter = (*gpLatent)(nil)

// svgpGreedyRows is the most rows greedy selection chooses SVGP's
// inducing points among: above it, a seeded random sample of this many
// rows (the selection's memory is O(rows·m)).
const svgpGreedyRows = 20000

// SVGPParams returns the kernel's hyperparameters then the likelihood's
// parameters (normal: sigma; student_t: nu, sigma; neg_binomial_2_log:
// phi; bernoulli_logit and poisson_log: none),
// as o resolved them.
func (g *gpLatent) SVGPParams(o model.LatentObservation) ([]float64, error) {
	var p []float64
	for _, h := range g.kernel.Hyper {
		v, _ := eval.PeekFloat(h)
		p = append(p, v)
	}
	if g.classes > 0 {
		return p, nil // categorical_logit has no parameters
	}
	switch o.Lik.Family.Name() {
	case "normal", "student_t", "bernoulli_logit", "poisson_log", "neg_binomial_2_log":
	default:
		name, way := o.Lik.Family.Name(), ""
		if name == "laplace" {
			way = `; for laplace observations use the default L-BFGS with approx: "ep" or "vb"`
		}
		return nil, fmt.Errorf(`method: "svgp" takes normal, student_t, bernoulli_logit, poisson_log or neg_binomial_2_log observations (a log-density twice differentiable in f), not %s%s`, name, way)
	}
	for i := range o.Lik.Params {
		if i == o.Loc {
			continue
		}
		v, err := scalarParam(o.Lik, i)
		if err != nil {
			return nil, err
		}
		p = append(p, v)
	}
	return p, nil
}

// SVGP fits runtime/gp's SVGP from start through the inducing points gp()
// describes: the given matrix; else m = inducing (512 when not given, at
// most n) points, k-means centres of X (select: "kmeans", seeded by gp's
// seed) or greedy conditional-variance selection at the starting kernel
// (select: "greedy") among the rows of X, or a seeded sample of 20,000
// of them when X has more.
func (g *gpLatent) SVGP(ctx context.Context, o model.LatentObservation, learn []bool, start []float64, set model.SVGPSettings) (*model.SVGPRun, error) {
	if g.classes > 0 {
		return g.svgpClasses(ctx, o, learn, start, set)
	}
	y, err := g.observations(o.Data)
	if err != nil {
		return nil, err
	}
	nh := g.kernel.K.NumHyper()
	var lik rgp.Lik
	switch o.Lik.Family.Name() {
	case "normal":
		if o.Loc != 0 {
			return nil, fmt.Errorf("the latent GP must be normal's mean, the first argument")
		}
		if _, ok, err := knownNoise(o.Lik, len(y)); err != nil || ok {
			if err != nil {
				return nil, err
			}
			return nil, fmt.Errorf(`method: "svgp" takes normal's sigma as one number or parameter, not a vector of known noise`)
		}
		lik = rgp.Lik{Kind: rgp.Normal}
	default:
		if lik, _, err = nonGaussianLik(o.Lik, o.Loc, y); err != nil {
			return nil, err
		}
	}
	var s *rgp.SVGP
	if set.Resume != nil {
		prev, ok := set.Resume.(*rgp.SVGP)
		if !ok || prev.Lik.Kind != lik.Kind {
			return nil, errNotResumable
		}
		s = prev.Clone()
	} else {
		lik.Params = append([]float64(nil), start[nh:]...)
		k, err := g.kernel.K.WithHyper(start[:nh])
		if err != nil {
			return nil, err
		}
		z, err := g.chooseInducing(ctx, k)
		if err != nil {
			return nil, err
		}
		if s, err = rgp.NewSVGP(k, lik, z); err != nil {
			return nil, err
		}
	}
	res, err := s.Fit(ctx, g.x, y, fitSettings(set, learn))
	if err != nil {
		return nil, err
	}
	m, _ := s.Z.Dims()
	return &model.SVGPRun{
		Params: append(s.K.Hyper(nil), s.Lik.Params...), ELBO: res.ELBO,
		Inducing: m, Batch: res.Batch, Quad: rgp.DefaultSVGPQuad, Epochs: res.Epochs, TotalSteps: res.Steps, Fitted: s,
	}, nil
}

// chooseInducing is svgpInducing at kernel k with a progress line of its
// own: the selection (k-means over every row, or greedy) runs before the
// steps' line.
func (g *gpLatent) chooseInducing(ctx context.Context, k kernels.Kernel) (*mat.Dense, error) {
	task := progress.Start(ctx, "choosing inducing points", 0)
	z, err := g.svgpInducing(k)
	task.Done()
	if err != nil {
		return nil, fmt.Errorf("gp: %v (kernel %s)", bare(err), k)
	}
	return z, nil
}

// fitSettings are runtime/gp's settings for optimize's set, learning
// where learn says.
func fitSettings(set model.SVGPSettings, learn []bool) rgp.SVGPSettings {
	return rgp.SVGPSettings{Batch: set.Batch, Steps: set.Steps, Gamma: set.Gamma, LR: set.LR, Seed: set.Seed, Learn: learn, Resume: set.Resume != nil}
}

// errNotResumable is resume:'s error for a fit that is not this model's
// by method "svgp".
var errNotResumable = fmt.Errorf(`resume: takes the result of optimize(..., method: "svgp") on the same model`)

// svgpClasses is SVGP for gp(..., classes: C) observed through
// categorical_logit: runtime/gp's SVGPMulti, its base normals seeded by
// the fit's seed.
func (g *gpLatent) svgpClasses(ctx context.Context, o model.LatentObservation, learn []bool, start []float64, set model.SVGPSettings) (*model.SVGPRun, error) {
	y, err := g.classLabels(o.Data)
	if err != nil {
		return nil, err
	}
	var s *rgp.SVGPMulti
	if set.Resume != nil {
		prev, ok := set.Resume.(*rgp.SVGPMulti)
		if !ok || prev.C != g.classes {
			return nil, errNotResumable
		}
		s = prev.Clone()
	} else {
		k, err := g.kernel.K.WithHyper(start)
		if err != nil {
			return nil, err
		}
		z, err := g.chooseInducing(ctx, k)
		if err != nil {
			return nil, err
		}
		if s, err = rgp.NewSVGPMulti(k, z, g.classes, 0, set.Seed); err != nil {
			return nil, err
		}
	}
	res, err := s.Fit(ctx, g.x, y, fitSettings(set, learn))
	if err != nil {
		return nil, err
	}
	m, _ := s.Z.Dims()
	draws, _ := s.Eps.Dims()
	return &model.SVGPRun{
		Params: s.K.Hyper(nil), ELBO: res.ELBO,
		Inducing: m, Batch: res.Batch, Draws: draws, Epochs: res.Epochs, TotalSteps: res.Steps, Fitted: s,
	}, nil
}

// svgpPredictClasses is predict after method "svgp" for C classes: each
// class's q(f) at xnew, and the class probabilities E[softmax(f)] under
// them (independent across classes, as q is) by predict's draws Monte
// Carlo draws (default 1000, antithetic, seeded by seed), in the record
// predict gives for Laplace's multi-class fit.
func svgpPredictClasses(a *eval.Args, s *rgp.SVGPMulti, xnew *mat.Dense) (eval.Value, error) {
	if _, d := xnew.Dims(); d != s.Z.RawMatrix().Cols {
		return nil, a.Errorf("xnew", "xnew has %d columns but the GP's inputs have %d", d, s.Z.RawMatrix().Cols)
	}
	if err := kernels.CheckData(xnew, "xnew"); err != nil {
		return nil, a.Errorf("xnew", "%v", err)
	}
	draws := 1000
	if a.Given("draws") {
		var err error
		if draws, err = a.PositiveInt("draws"); err != nil {
			return nil, err
		}
	}
	seed, err := a.Seed()
	if err != nil {
		return nil, err
	}
	fm, fv, err := s.Predict(xnew)
	if err != nil {
		return nil, a.Fail("gp: %v", bare(err))
	}
	C := s.C
	p, _ := xnew.Dims()
	mean, cov := make([][]float64, p), make([][]float64, p)
	for j := range p {
		mean[j], cov[j] = make([]float64, C), make([]float64, C*C)
		for c := range C {
			mean[j][c], cov[j][c*C+c] = fm[c][j], fv[c][j]
		}
	}
	rec := classRecord(mean, cov, C, draws, seed, a.Given("seed"), rng.New(seed, rng.Builtin), "svgp")
	return withX(rec, xnew), nil
}

// svgpInducing returns SVGP's inducing points at kernel k.
func (g *gpLatent) svgpInducing(k kernels.Kernel) (*mat.Dense, error) {
	if g.z != nil {
		return g.z, nil
	}
	n, _ := g.x.Dims()
	m := g.inducing
	if m == 0 {
		m = min(n, lowRankPoints)
	}
	if !g.greedy {
		return kernels.Landmarks(g.x, m, g.seed, kernels.KMeans)
	}
	x := g.x
	if n > svgpGreedyRows {
		var err error
		if x, err = kernels.Landmarks(g.x, svgpGreedyRows, g.seed, kernels.RandomRows); err != nil {
			return nil, err
		}
	}
	return rgp.GreedyVariance(k, x, m, 0)
}

// svgpPredict is predict after optimize's method "svgp": q(f) at xnew
// from the fitted SVGP, and a new observation through its likelihood.
func svgpPredict(a *eval.Args, s *rgp.SVGP, xnew *mat.Dense) (eval.Value, error) {
	if _, d := xnew.Dims(); d != s.Z.RawMatrix().Cols {
		return nil, a.Errorf("xnew", "xnew has %d columns but the GP's inputs have %d", d, s.Z.RawMatrix().Cols)
	}
	if err := kernels.CheckData(xnew, "xnew"); err != nil {
		return nil, a.Errorf("xnew", "%v", err)
	}
	mean, fvar, err := s.Predict(xnew)
	if err != nil {
		return nil, a.Fail("gp: %v", bare(err))
	}
	var dp *drawPred
	if s.Lik.Kind == rgp.Normal {
		sig := s.Lik.Params[0]
		yvar := make([]float64, len(fvar))
		for i, v := range fvar {
			yvar[i] = v + sig*sig
		}
		dp = &drawPred{fmean: mean, fvar: fvar, ymean: mean, yvar: yvar, gaussian: true, sigma: sig}
	} else {
		dp = likPredict(s.Lik, mean, fvar)
	}
	return withX(dp.record(), xnew), nil
}
