package kbr

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// Normalise returns w divided by its signed sum Σ_i w_i. Negative weights
// keep their sign, so the result still sums to 1; a signed sum that is
// not positive, or below 1e-8 of Σ_i |w_i|, leaves no meaningful
// normalisation and is an error.
func Normalise(w []float64) ([]float64, error) {
	var s, a float64
	for _, v := range w {
		s += v
		a += math.Abs(v)
	}
	if !(s > 1e-8*a) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("the weights sum to %.3g (their absolute values to %.3g): they cannot be normalised", s, a)
	}
	out := make([]float64, len(w))
	for i, v := range w {
		out[i] = v / s
	}
	return out, nil
}

// Mean returns Σ_i w_i X_i, after Normalise when normalise is set: the
// posterior mean of X when the weights are a posterior's.
func Mean(x *mat.Dense, w []float64, normalise bool) ([]float64, error) {
	n, d := x.Dims()
	if len(w) != n {
		return nil, fmt.Errorf("%d weights for %d points", len(w), n)
	}
	if normalise {
		var err error
		if w, err = Normalise(w); err != nil {
			return nil, err
		}
	}
	out := make([]float64, d)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			out[j] += w[i] * x.At(i, j)
		}
	}
	return out, nil
}

// PreimageSettings control the fixed-point iteration; the zero value
// works.
type PreimageSettings struct {
	// Tol stops the iteration when a step moves x by at most
	// Tol·(1 + ‖x‖); 0 means 1e-8.
	Tol float64
	// MaxIter is the most iterations; 0 means 200.
	MaxIter int
}

// Preimage returns a point x whose feature k(·, x) best matches the kernel
// mean Σ_i w_i k(·, X_i) for a Gaussian kernel k, by the fixed-point
// iteration x ← Σ_i w_i k(X_i, x) X_i / Σ_i w_i k(X_i, x) (a stationary
// point of Σ_i w_i k(X_i, x)), started at the normalised weighted mean.
// When the denominator is not positive (negative weights dominate near x),
// a step is not finite, or MaxIter steps do not meet the tolerance, it
// returns the normalised weighted mean with converged false.
func Preimage(k kernels.Kernel, x *mat.Dense, w []float64, s PreimageSettings) (pt []float64, converged bool, err error) {
	if _, _, ok := kernels.AsRBF(k); !ok {
		return nil, false, fmt.Errorf("the fixed-point pre-image needs a Gaussian (rbf) kernel, got %s", k)
	}
	start, err := Mean(x, w, true)
	if err != nil {
		return nil, false, err
	}
	tol, maxIter := s.Tol, s.MaxIter
	if tol <= 0 {
		tol = 1e-8
	}
	if maxIter <= 0 {
		maxIter = 200
	}
	n, d := x.Dims()
	cur := append([]float64(nil), start...)
	next := make([]float64, d)
	for it := 0; it < maxIter; it++ {
		var den float64
		for j := range next {
			next[j] = 0
		}
		for i := 0; i < n; i++ {
			row := x.RawRowView(i)
			c := w[i] * k.Eval(row, cur)
			den += c
			for j := range next {
				next[j] += c * row[j]
			}
		}
		if !(den > 0) {
			return start, false, nil
		}
		var step, norm float64
		for j := range next {
			next[j] /= den
			step += (next[j] - cur[j]) * (next[j] - cur[j])
			norm += next[j] * next[j]
		}
		if math.IsNaN(step) || math.IsInf(step, 0) {
			return start, false, nil
		}
		cur, next = next, cur
		if math.Sqrt(step) <= tol*(1+math.Sqrt(norm)) {
			return cur, true, nil
		}
	}
	return start, false, nil
}
