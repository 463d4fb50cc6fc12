package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// Held-out points. K-fold cross-validation of a GP scores each held-out
// observation by its predictive density given the training rows at the
// hyperparameters θ, log p(yⱼ | y_train, θ), one point at a time (the
// marginal predictive of each held-out point, as loo's points are): for
// Gaussian noise N(yⱼ | μ*ⱼ, σ*ⱼ² + σ²) with the GP posterior of f at xⱼ
// given the training rows (Rasmussen and Williams 2006, eqs. 2.25–2.26);
// for a non-Gaussian likelihood the approximation's Gaussian predictive
// q(fⱼ | y_train) = N(μ*ⱼ, σ*ⱼ²) integrated against p(yⱼ | fⱼ) by the
// tilted integral's Simpson rule (the approximate predictive of R&W §3.4
// and §3.6 for a new observation). With train equal to every row, the same
// functions give the in-sample predictive log p(yⱼ | y, θ) that kfold's
// lpd uses.

// rowsOf returns the rows idx of x and the entries idx of y.
func rowsOf(x *mat.Dense, y []float64, idx []int) (*mat.Dense, []float64) {
	_, d := x.Dims()
	xs := mat.NewDense(max(len(idx), 1), d, nil)
	ys := make([]float64, len(idx))
	for j, i := range idx {
		xs.SetRow(j, x.RawRowView(i))
		ys[j] = y[i]
	}
	if len(idx) == 0 {
		return nil, ys
	}
	return xs, ys
}

// latentAt is the posterior mean and variance of f at the rows test given
// the observations at the rows train, by predict on the training rows; with
// no training rows it is the prior, N(0, k(x, x)).
func latentAt(k kernels.Kernel, x *mat.Dense, y []float64, train, test []int,
	predict func(xt *mat.Dense, yt []float64, xs *mat.Dense) (mean, fvar []float64, err error)) (mean, fvar []float64, err error) {
	if len(test) == 0 {
		return nil, nil, nil
	}
	xs, _ := rowsOf(x, y, test)
	if len(train) == 0 {
		mean, fvar = make([]float64, len(test)), make([]float64, len(test))
		for j := range test {
			row := xs.RawRowView(j)
			fvar[j] = k.Eval(row, row)
		}
		return mean, fvar, nil
	}
	xt, yt := rowsOf(x, y, train)
	return predict(xt, yt, xs)
}

// HeldOutNormal returns log p(yⱼ | y_train, θ) for each row j of test, for
// GP regression with kernel k on the rows of x, observations y and noise
// variance noise, given the rows train: log N(yⱼ | μ*ⱼ, σ*ⱼ² + noise).
func HeldOutNormal(k kernels.Kernel, x *mat.Dense, y []float64, noise float64, train, test []int) ([]float64, error) {
	mean, fvar, err := latentAt(k, x, y, train, test, func(xt *mat.Dense, yt []float64, xs *mat.Dense) ([]float64, []float64, error) {
		return SitesPredict(k, xt, yt, []float64{noise}, xs)
	})
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(test))
	for j, i := range test {
		v := fvar[j] + noise
		r := y[i] - mean[j]
		out[j] = -0.5*math.Log(2*math.Pi*v) - 0.5*r*r/v
	}
	return out, nil
}

// HeldOutLatent returns log ∫ p(yⱼ | fⱼ) q(fⱼ | y_train) dfⱼ for each row j
// of test: the approximation inf fitted to the rows train of a latent GP
// with kernel k on the rows of x observed through l, its Gaussian
// predictive at xⱼ integrated against the likelihood.
func HeldOutLatent(inf Inference, k kernels.Kernel, x *mat.Dense, y []float64, l Lik, train, test []int) ([]float64, error) {
	if err := l.check(y); err != nil {
		return nil, err
	}
	mean, fvar, err := latentAt(k, x, y, train, test, func(xt *mat.Dense, yt []float64, xs *mat.Dense) ([]float64, []float64, error) {
		K, err := kernels.Gram(k, xt)
		if err != nil {
			return nil, nil, err
		}
		p, err := inf.Fit(K, yt, l, Needs{Predictive: true})
		if err != nil {
			return nil, nil, err
		}
		return p.Predict(k, xt, xs)
	})
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(test))
	for j, i := range test {
		if !(fvar[j] > 0) {
			return nil, fmt.Errorf("gp: the predictive variance of held-out row %d is %g, not positive", i+1, fvar[j])
		}
		out[j], _, _ = l.tilted(nil, y[i], mean[j], fvar[j])
	}
	return out, nil
}
