package causal

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/inference"
	"github.com/kml-lang/kml/runtime/kernels"
)

// Regression is a Gaussian-noise GP regression of a variable y on the rows
// of z, fitted by ML-II: its kernel (on the standardised z), noise
// variance (on the standardised y), log marginal likelihood, and the
// residuals y − E[f(z) | y] on y's own scale.
type Regression struct {
	Kernel    kernels.Kernel
	Noise     float64
	LogML     float64
	Converged bool
	Resid     []float64
	// Posterior is RegressBayes's report (nil for ML-II); Kernel, Noise
	// and LogML are then those at the posterior mode.
	Posterior *RegressionPosterior
}

// noiseFloor keeps ML-II's noise variance (standardised scale) away from
// 0, where the GP would interpolate and leave no residual.
const noiseFloor = 1e-4

// Regress fits y on z (n rows each) with the kernel s·rbf(ℓ₁, …, ℓ_d) (one
// lengthscale per column of z) plus noise σ², both standardised to mean 0
// and variance 1, by maximising gp.LogMarginal over (log s, log ℓ,
// log(σ² − 1e−4)) with L-BFGS (inference.Maximize) from s = 1, ℓ = 1,
// σ² = 0.1 + 1e−4. The residuals are sd(y)·σ²·C⁻¹y, C = K + σ²I (the
// posterior mean at the data is y − σ²C⁻¹y).
func Regress(ctx context.Context, z *mat.Dense, y []float64) (Regression, error) {
	p, err := prepareRegression(z, y)
	if err != nil {
		return Regression{}, err
	}
	n, _ := p.zs.Dims()
	zs, ys, sd, base := p.zs, p.ys, p.sd, p.base
	res, err := inference.Maximize(ctx, func() (inference.Model, error) {
		return &mlObjective{k: base, x: zs, y: ys}, nil
	}, inference.Settings{Init: p.init, Workers: 1, MaxIterations: 200, GradTol: 1e-5})
	if err != nil {
		return Regression{}, fmt.Errorf("ML-II: %w", err)
	}
	k, noise, err := (&mlObjective{k: base}).params(res.X)
	if err != nil {
		return Regression{}, err
	}
	ch, _, _, err := gp.Factor(k, zs, []float64{noise})
	if err != nil {
		return Regression{}, err
	}
	var alpha mat.VecDense
	if err := ch.SolveVecTo(&alpha, mat.NewVecDense(n, ys)); err != nil {
		return Regression{}, err
	}
	r := make([]float64, n)
	for i := range r {
		r[i] = sd * noise * alpha.AtVec(i)
	}
	return Regression{Kernel: k, Noise: noise, LogML: res.Value, Converged: res.Converged, Resid: r}, nil
}

// prepared is a regression's standardised data, y's sd, the kernel
// s·rbf(ℓ) at s = 1, ℓ = 1 and the starting point of the optimisation.
type prepared struct {
	zs   *mat.Dense
	ys   []float64
	sd   float64
	base kernels.Kernel
	init []float64
}

func prepareRegression(z *mat.Dense, y []float64) (prepared, error) {
	n, d := z.Dims()
	if len(y) != n {
		return prepared{}, fmt.Errorf("%d values to regress on %d rows", len(y), n)
	}
	if n < 5 {
		return prepared{}, fmt.Errorf("GP regression needs at least 5 rows, got %d", n)
	}
	zs, err := Standardise(z)
	if err != nil {
		return prepared{}, fmt.Errorf("the conditioning set: %w", err)
	}
	ys, sd, err := standardiseVec(y)
	if err != nil {
		return prepared{}, err
	}
	ell := make([]float64, d)
	for i := range ell {
		ell[i] = 1
	}
	rbf, err := kernels.NewRBF(ell)
	if err != nil {
		return prepared{}, err
	}
	base, _ := kernels.NewScaled(1, rbf)
	init := make([]float64, d+2)
	init[d+1] = math.Log(0.1)
	return prepared{zs: zs, ys: ys, sd: sd, base: base, init: init}, nil
}

// mlObjective is the log marginal likelihood on the log scale of the
// kernel's hyperparameters and of the noise above its floor, plus, when
// priorSD > 0, independent normal log priors N(priorMean_i, priorSD²) on
// those coordinates (RegressBayes's posterior).
type mlObjective struct {
	k         kernels.Kernel
	x         *mat.Dense
	y         []float64
	grad      []float64
	priorMean []float64
	priorSD   float64
}

// logPrior returns the log prior at q (0 without a prior) and adds its
// gradient to grad when grad is not nil.
func (o *mlObjective) logPrior(q, grad []float64) float64 {
	if o.priorSD <= 0 {
		return 0
	}
	var v float64
	v2 := o.priorSD * o.priorSD
	for i, x := range q {
		d := x - o.priorMean[i]
		v -= d*d/(2*v2) + math.Log(o.priorSD) + 0.5*math.Log(2*math.Pi)
		if grad != nil {
			grad[i] -= d / v2
		}
	}
	return v
}

func (o *mlObjective) Dim() int { return o.k.NumHyper() + 1 }

func (o *mlObjective) params(q []float64) (kernels.Kernel, float64, error) {
	nh := o.k.NumHyper()
	h := make([]float64, nh)
	for i := range h {
		h[i] = math.Exp(q[i])
	}
	k, err := o.k.WithHyper(h)
	return k, noiseFloor + math.Exp(q[nh]), err
}

func (o *mlObjective) LogDensity(grad, q []float64) (float64, error) {
	k, noise, err := o.params(q)
	if err != nil {
		return math.Inf(-1), err
	}
	if o.grad == nil {
		o.grad = make([]float64, len(q))
	}
	v, err := gp.LogMarginal(k, o.x, o.y, noise, o.grad)
	if err != nil {
		return math.Inf(-1), err
	}
	nh := len(q) - 1
	for i := 0; i < nh; i++ {
		grad[i] = o.grad[i] * math.Exp(q[i])
	}
	grad[nh] = o.grad[nh] * (noise - noiseFloor)
	return v + o.logPrior(q, grad), nil
}

// Standardise returns z with each column centred and scaled to unit
// (population) standard deviation; a constant column is an error.
func Standardise(z *mat.Dense) (*mat.Dense, error) {
	n, d := z.Dims()
	out := mat.NewDense(n, d, nil)
	for j := 0; j < d; j++ {
		c, _, err := standardiseVec(mat.Col(nil, j, z))
		if err != nil {
			return nil, fmt.Errorf("column %d: %w", j+1, err)
		}
		out.SetCol(j, c)
	}
	return out, nil
}

func standardiseVec(y []float64) ([]float64, float64, error) {
	var m, v float64
	for _, x := range y {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, 0, fmt.Errorf("a value is not finite (%v)", x)
		}
		m += x
	}
	m /= float64(len(y))
	for _, x := range y {
		v += (x - m) * (x - m)
	}
	sd := math.Sqrt(v / float64(len(y)))
	if sd == 0 {
		return nil, 0, fmt.Errorf("the values are constant")
	}
	out := make([]float64, len(y))
	for i, x := range y {
		out[i] = (x - m) / sd
	}
	return out, sd, nil
}
