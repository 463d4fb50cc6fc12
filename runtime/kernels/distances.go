package kernels

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/linalg"
)

// Distances holds the hyperparameter-independent part of a stationary
// kernel's matrix between two point sets: the squared differences per input
// dimension (for ARD lengthscales) and their sums (for isotropic ones). A
// model that evaluates the same kernel family at many hyperparameters
// computes them once and calls (*Stationary).FromDistances.
type Distances struct {
	N, M   int
	Sq     []float64   // Σ_d (x_id − y_jd)², row-major N×M
	PerDim [][]float64 // (x_id − y_jd)² for each d; nil unless asked for
}

// NewDistances computes the squared distances between the rows of x and y
// (x itself when y is nil), and the per-dimension parts when perDim is set.
func NewDistances(x, y *mat.Dense, perDim bool) (*Distances, error) {
	if y == nil {
		y = x
	}
	probe := &Stationary{kind: profRBF, Ell: []float64{1}}
	if err := checkInputs(probe, x, y); err != nil {
		return nil, err
	}
	n, d := x.Dims()
	m, _ := y.Dims()
	dist := &Distances{N: n, M: m, Sq: make([]float64, n*m)}
	xs, ys := linalg.RowMajor(x), linalg.RowMajor(y)
	if perDim {
		dist.PerDim = make([][]float64, d)
		for c := range dist.PerDim {
			dist.PerDim[c] = make([]float64, n*m)
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			s := 0.0
			for c := 0; c < d; c++ {
				t := xs[i*d+c] - ys[j*d+c]
				t *= t
				s += t
				if perDim {
					dist.PerDim[c][i*m+j] = t
				}
			}
			dist.Sq[i*m+j] = s
		}
	}
	return dist, nil
}

// FromDistances returns the kernel's N×M matrix from precomputed distances.
// An ARD kernel needs the per-dimension parts.
func (k *Stationary) FromDistances(dist *Distances) (*mat.Dense, error) {
	out := make([]float64, len(dist.Sq))
	if len(k.Ell) == 1 {
		inv := 1 / (k.Ell[0] * k.Ell[0])
		for i, s := range dist.Sq {
			out[i] = k.value(s * inv)
		}
		return mat.NewDense(dist.N, dist.M, out), nil
	}
	if len(dist.PerDim) != len(k.Ell) {
		return nil, fmt.Errorf("%s needs per-dimension distances for %d dimensions, have %d", k, len(k.Ell), len(dist.PerDim))
	}
	for c, l := range k.Ell {
		inv := 1 / (l * l)
		for i, t := range dist.PerDim[c] {
			out[i] += t * inv
		}
	}
	for i, u := range out {
		out[i] = k.value(u)
	}
	return mat.NewDense(dist.N, dist.M, out), nil
}
