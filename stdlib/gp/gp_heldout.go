package gp

import (
	"fmt"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/lang/model/dists"
	rgp "github.com/kml-lang/kml/runtime/gp"
)

// Predictive gives kfold each held-out point's log predictive density
// given the training points at the run's hyperparameters, log p(yⱼ |
// y_train, θ): runtime/gp's HeldOutNormal for normal observations, and
// HeldOutLatent (the approximation's Gaussian predictive integrated
// against the likelihood) for laplace, student_t and bernoulli_logit. It
// makes the latent GP an infer.HeldOutLatent.
func (g *gpLatent) Predictive(obj model.Objective, lik *dists.DistVal, loc int, data eval.Value, train, test []int) ([]float64, error) {
	if g.classes > 0 {
		return nil, fmt.Errorf("kfold of a multi-class latent GP is not yet available")
	}
	if g.lowRank() {
		return nil, fmt.Errorf("kfold with inducing points (the Nyström path) is not yet available; use inducing: \"exact\"")
	}
	y, err := g.observations(data)
	if err != nil {
		return nil, err
	}
	k := g.kernel.K
	if lik.Family.Name() == "normal" {
		if loc != 0 {
			return nil, fmt.Errorf("the latent GP must be normal's mean, the first argument")
		}
		sigma, err := scalarParam(lik, 1)
		if err != nil {
			return nil, err
		}
		lp, err := rgp.HeldOutNormal(k, g.x, y, sigma*sigma, train, test)
		if err != nil {
			return nil, fmt.Errorf("gp: %v (kernel %s, sigma %g)", bare(err), k, sigma)
		}
		return lp, nil
	}
	inf, l, err := g.looApprox(obj, lik, loc, y)
	if err != nil {
		return nil, err
	}
	lp, err := rgp.HeldOutLatent(inf, k, g.x, y, l, train, test)
	if err != nil {
		return nil, fmt.Errorf("gp: %v (kernel %s)", bare(err), k)
	}
	return lp, nil
}

var _ infer.HeldOutLatent = (*gpLatent)(nil)
