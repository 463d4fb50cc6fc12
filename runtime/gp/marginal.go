package gp

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// ErrNotPD is returned when K + D is not numerically positive definite even
// with the largest jitter of linalg.CholeskyJitter's schedule.
var ErrNotPD = errors.New("the kernel matrix is not positive definite on the data, even with jitter")

// ErrNonFinite is returned when the kernel overflows on the data.
var ErrNonFinite = errors.New("the kernel matrix has entries that are not finite numbers on the data (does the kernel overflow? try scaling the inputs)")

// Factor returns the Cholesky factor of C = K + diag(noise) for the Gram
// matrix K of k on the rows of x (noise has length 1, a common variance,
// or n), adding linalg.CholeskyJitter's jitter when C is not numerically
// positive definite. It returns K too.
func Factor(k kernels.Kernel, x *mat.Dense, noise []float64) (*mat.Cholesky, *mat.SymDense, float64, error) {
	K, err := kernels.Gram(k, x)
	if err != nil {
		return nil, nil, 0, err
	}
	n := K.SymmetricDim()
	for _, v := range K.RawSymmetric().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, 0, ErrNonFinite
		}
	}
	c := mat.NewSymDense(n, nil)
	c.CopySym(K)
	raw := c.RawSymmetric()
	for i := 0; i < n; i++ {
		raw.Data[i*raw.Stride+i] += noise[min(i, len(noise)-1)]
	}
	var ch mat.Cholesky
	jit, ok := linalg.CholeskyJitter(&ch, c, false)
	if !ok || math.IsNaN(ch.LogDet()) || math.IsInf(ch.LogDet(), 0) {
		return nil, nil, 0, ErrNotPD
	}
	return &ch, K, jit, nil
}

// LogMarginal returns the log marginal likelihood of Gaussian-noise GP
// regression (Rasmussen and Williams 2006, eq. 5.8; the paper's eq. 6 is
// −2 times it without the constant),
//
//	log N(y | 0, C) = −½ yᵀC⁻¹y − ½ log|C| − (n/2) log 2π,  C = K + σ²I,
//
// for the Gram matrix K of k on the rows of x and noise variance σ² = noise.
// When grad is not nil (length k.NumHyper()+1) it receives the derivative
// with respect to each kernel hyperparameter, then σ²:
//
//	∂/∂h = ½ tr(W ∂K/∂h),  ∂/∂σ² = ½ tr W,  W = ααᵀ − C⁻¹,  α = C⁻¹y,
//
// by one Cholesky factor and one inverse (O(n³)) and Contract (O(n²)), or
// for sums of scaled RBF, linear, white and constant kernels the fused
// fill and contraction of structured.go.
func LogMarginal(k kernels.Kernel, x *mat.Dense, y []float64, noise float64, grad []float64) (float64, error) {
	return LogMarginalNoise(k, x, y, []float64{noise}, grad)
}

// LogMarginalNoise is LogMarginal with noise variances noise: one common
// σ², or one per observation (known, heteroscedastic noise), C = K +
// diag(σ₁², ..., σₙ²). grad, when not nil (length k.NumHyper() +
// len(noise)), receives the derivatives in k's hyperparameters then in
// each noise variance: ½ tr W for a common one, ½ Wᵢᵢ for σᵢ².
func LogMarginalNoise(k kernels.Kernel, x *mat.Dense, y []float64, noise []float64, grad []float64) (float64, error) {
	n, d := x.Dims()
	if len(y) != n {
		return 0, fmt.Errorf("gp: %d observations for %d input rows", len(y), n)
	}
	if len(noise) != 1 && len(noise) != n {
		return 0, fmt.Errorf("gp: %d noise variances for %d observations", len(noise), n)
	}
	xs := linalg.RowMajor(x)
	terms, fast := structured(k, d)
	buf := getSym(n)
	defer symPool.Put(buf)
	a := *buf
	if fast && grad != nil {
		// The first RBF term and the first scaled linear term keep their
		// values for the contraction.
		rbf, lin := false, false
		for m := range terms {
			t := &terms[m]
			if t.kind == termRBF && !rbf || t.kind == termLinear && t.ci >= 0 && !lin {
				rbf, lin = rbf || t.kind == termRBF, lin || t.kind == termLinear
				cbuf := getSym(n)
				defer symPool.Put(cbuf)
				t.cache = *cbuf
			}
		}
	}
	fill := func() { fillSym(a, terms, xs, n, d, noise) }
	if !fast {
		fill = func() {
			// The generic Gram checks its inputs, which Factor's callers
			// have done already.
			_ = kernels.GramInto(mat.NewSymDense(n, a), k, x, 0)
			for i := 0; i < n; i++ {
				a[i*n+i] += noise[min(i, len(noise)-1)]
			}
		}
	}
	t, err := factorUpper(a, n, fill)
	if err != nil {
		return 0, err
	}
	alpha := append([]float64(nil), y...)
	solveUpper(t, alpha)
	var quad float64
	for i, v := range y {
		quad += v * alpha[i]
	}
	lml := -0.5*quad - 0.5*logDetUpper(t) - 0.5*float64(n)*math.Log(2*math.Pi)
	if grad == nil {
		return lml, nil
	}
	// W = ααᵀ − C⁻¹ in place of the factor (upper triangle).
	if !potri(t) {
		return 0, ErrNotPD
	}
	var tr float64
	for i := 0; i < n; i++ {
		row := a[i*n:]
		for j := i; j < n; j++ {
			row[j] = alpha[i]*alpha[j] - row[j]
		}
		tr += row[i]
	}
	nh := k.NumHyper()
	if fast {
		contractSym(grad[:nh], terms, xs, n, d, a)
	} else {
		Contract(grad[:nh], k, x, mat.NewSymDense(n, a))
	}
	if len(noise) == 1 {
		grad[nh] = 0.5 * tr
	} else {
		for i := 0; i < n; i++ {
			grad[nh+i] = 0.5 * a[i*n+i]
		}
	}
	return lml, nil
}
