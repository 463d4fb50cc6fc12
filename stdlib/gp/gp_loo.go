package gp

import (
	"fmt"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/lang/model/dists"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
)

// Pointwise gives loo and waic each observation's log density given the
// others at the run's hyperparameters, log p(yᵢ | y₋ᵢ, θ): f is integrated
// out, so the points are not independent given θ and their own densities
// would not be leave-one-out ones. For normal observations it is
// runtime/gp's closed form (Rasmussen and Williams 2006, §5.4.2); for
// laplace, student_t and bernoulli_logit observations it is the
// approximation's own (Vehtari et al. 2016: EP's cavities, Laplace's
// LA-LOO, VB's Gaussian sites removed), under the approx the run uses.
// PSIS then mixes it over the posterior draws of θ. It makes the latent GP
// a model.PointwiseLatent.
func (g *gpLatent) Pointwise(ev *model.Eval, lik *dists.DistVal, loc int, data eval.Value) ([]float64, error) {
	if g.classes > 0 {
		return nil, fmt.Errorf("leave-one-out (loo, kfold) of a multi-class latent GP is not yet available")
	}
	if g.lowRank() {
		return nil, fmt.Errorf("leave-one-out (loo, kfold) with inducing points (the Nyström path) is not yet available; use inducing: \"exact\"")
	}
	y, err := g.observations(data)
	if err != nil {
		return nil, err
	}
	if lik.Family.Name() != "normal" {
		return g.latentPointwise(ev, lik, loc, y)
	}
	if loc != 0 {
		return nil, fmt.Errorf("the latent GP must be normal's mean, the first argument")
	}
	sigma, err := scalarParam(lik, 1)
	if err != nil {
		return nil, err
	}
	lp, err := rgp.LOO(g.kernel.K, g.x, y, sigma*sigma)
	if err != nil {
		return nil, fmt.Errorf("gp: %v (kernel %s, sigma %g)", bare(err), g.kernel.K, sigma)
	}
	return lp, nil
}

// latentPointwise is Pointwise for non-Gaussian observations: the LOO
// cavities of the marginal likelihood's approximation (runtime/gp's
// LatentLOO).
func (g *gpLatent) latentPointwise(ev *model.Eval, lik *dists.DistVal, loc int, y []float64) ([]float64, error) {
	inf, l, err := g.looApprox(ev.Objective(), lik, loc, y)
	if err != nil {
		return nil, err
	}
	K, err := kernels.Gram(g.kernel.K, g.x)
	if err != nil {
		return nil, fmt.Errorf("gp: %v (kernel %s)", bare(err), g.kernel.K)
	}
	lp, err := rgp.LatentLOO(inf, K, y, l)
	if err != nil {
		return nil, fmt.Errorf("gp: %v (kernel %s)", bare(err), g.kernel.K)
	}
	return lp, nil
}

// looApprox is the approximation of objective obj whose posterior of f
// leave-one-out and held-out scores use, and the likelihood of lik (y's
// labels made ±1). The joint MAP objectives ("map", "mkl", "rr") and the
// SVM losses have no approximate posterior to leave a point out of.
func (g *gpLatent) looApprox(obj model.Objective, lik *dists.DistVal, loc int, y []float64) (rgp.Inference, rgp.Lik, error) {
	if obj.Loss != model.LossLikelihood || !obj.Name.Marginal() {
		return nil, rgp.Lik{}, fmt.Errorf("leave-one-out of a latent GP observed through %s needs an approximate posterior of f, which objective %q (a joint MAP or SVM objective) does not make: fit with objective: \"ml\" and approx: \"ep\", \"laplace\" or \"vb\"", lik.Family.Name(), obj.Name)
	}
	l, _, err := nonGaussianLik(lik, loc, y)
	if err != nil {
		return nil, rgp.Lik{}, err
	}
	info, err := obj.Approx.For(l.Kind).Info()
	if err != nil {
		return nil, rgp.Lik{}, err
	}
	if info.Refuse != nil {
		if err := info.Refuse(l.Kind); err != nil {
			return nil, rgp.Lik{}, err
		}
	}
	return info.New(), l, nil
}

var _ model.PointwiseLatent = (*gpLatent)(nil)
