package gp

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/lang/model/dists"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
)

var _ model.LatentSampler = (*gpLatent)(nil)

// DrawLatent draws f at the rows of x for forward sampling: from the GP
// prior N(0, K) when data is nil; else from its posterior given data
// observed through lik — exact for normal noise (mean K(K + σ²I)⁻¹y,
// covariance K − K(K + σ²I)⁻¹K), otherwise the Gaussian q(f) that approx
// settles on at these hyperparameters (VB's, Laplace's or EP's). The
// Cholesky factor takes runtime/gp's jitter rule (rgp.DrawGaussian). The
// Nyström path and a multi-class GP are refused: their draws would not be
// those of the model the fit used.
func (g *gpLatent) DrawLatent(r *rand.Rand, lik *dists.DistVal, loc int, data eval.Value, approx rgp.Approx) ([]float64, string, error) {
	if g.classes > 0 {
		return nil, "", fmt.Errorf("a multi-class latent GP (classes: %d) has no forward draws in this version", g.classes)
	}
	if g.lowRank() {
		return nil, "", fmt.Errorf("a latent GP on the Nyström path (inducing points) has no forward draws in this version; give inducing: \"exact\"")
	}
	K, err := kernels.Gram(g.kernel.K, g.x)
	if err != nil {
		return nil, "", fmt.Errorf("gp: %v (kernel %s)", bare(err), g.kernel.K)
	}
	n, _ := g.x.Dims()
	mean, cov, method := make([]float64, n), K, "prior"
	if data != nil {
		if mean, cov, method, err = g.posteriorJoint(K, lik, loc, data, approx); err != nil {
			return nil, "", err
		}
	}
	f, _, err := rgp.DrawGaussian(r, mean, cov)
	if err != nil {
		return nil, "", fmt.Errorf("gp: %v (kernel %s)", bare(err), g.kernel.K)
	}
	return f, method, nil
}

// posteriorJoint is f's posterior (or its approximation) at the inputs
// given y through lik: a mean and a full covariance, and the method's name.
func (g *gpLatent) posteriorJoint(K *mat.SymDense, lik *dists.DistVal, loc int, data eval.Value, approx rgp.Approx) (mean []float64, cov *mat.SymDense, method string, err error) {
	y, err := g.observations(data)
	if err != nil {
		return nil, nil, "", err
	}
	if lik.Family.Name() == "normal" {
		if loc != 0 {
			return nil, nil, "", fmt.Errorf("the latent GP must be normal's mean, the first argument")
		}
		sigma, err := scalarParam(lik, 1)
		if err != nil {
			return nil, nil, "", err
		}
		mean, cov, err := rgp.SitesJoint(K, y, []float64{sigma * sigma})
		return mean, cov, "exact", err
	}
	l, _, err := nonGaussianLik(lik, loc, y)
	if err != nil {
		return nil, nil, "", err
	}
	info, err := approx.For(l.Kind).Info()
	if err != nil {
		return nil, nil, "", err
	}
	if info.Refuse != nil {
		if err := info.Refuse(l.Kind); err != nil {
			return nil, nil, "", err
		}
	}
	post, err := info.New().Fit(K, y, l, rgp.Needs{Predictive: true})
	if err != nil {
		return nil, nil, "", fmt.Errorf("gp: %v (kernel %s)", bare(err), g.kernel.K)
	}
	mean, cov, err = post.Joint(K)
	return mean, cov, string(info.Name), err
}
