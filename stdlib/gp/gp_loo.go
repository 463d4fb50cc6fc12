package gp

import (
	"fmt"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/lang/model/dists"
	rgp "github.com/kml-lang/kml/runtime/gp"
)

// Pointwise gives loo and waic each observation's log density given the
// others at the run's hyperparameters, log p(yᵢ | y₋ᵢ, θ): f is integrated
// out, so the points are not independent given θ and their own densities
// would not be leave-one-out ones. For normal observations it is
// runtime/gp's closed form (Rasmussen and Williams 2006, §5.4.2); PSIS then
// mixes it over the posterior draws of θ. It makes the latent GP a
// model.PointwiseLatent.
func (g *gpLatent) Pointwise(ev *model.Eval, lik *dists.DistVal, loc int, data eval.Value) ([]float64, error) {
	if g.classes > 0 {
		return nil, fmt.Errorf("leave-one-out of a multi-class latent GP is not yet available")
	}
	if lik.Family.Name() != "normal" {
		return nil, fmt.Errorf("leave-one-out of a latent GP observed through %s (the approximations of Vehtari et al. 2016: EP's cavities, Laplace's) is not yet available; normal observations have the exact one", lik.Family.Name())
	}
	if g.lowRank() {
		return nil, fmt.Errorf("leave-one-out with inducing points (the Nyström path) is not yet available; use inducing: \"exact\"")
	}
	if loc != 0 {
		return nil, fmt.Errorf("the latent GP must be normal's mean, the first argument")
	}
	y, err := g.observations(data)
	if err != nil {
		return nil, err
	}
	sigma, err := scalarParam(lik, 1)
	if err != nil {
		return nil, err
	}
	lp, err := rgp.LOO(g.kernel.K, g.x, y, sigma*sigma)
	if err != nil {
		return nil, fmt.Errorf("gp: %v (kernel %s, sigma %g)", err, g.kernel.K, sigma)
	}
	return lp, nil
}

var _ model.PointwiseLatent = (*gpLatent)(nil)
