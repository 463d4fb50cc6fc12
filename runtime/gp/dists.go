package gp

import (
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/internal/sqdist"
	"github.com/kml-lang/kml/runtime/linalg"
)

// distsMax bounds the rows whose squared distances Dists keeps: n² floats,
// 32 MB at 2048 (the exact path's n stays below 3000, gp()'s switch to
// inducing points).
const distsMax = 2048

// Dists keeps the squared distances ‖xᵢ − xⱼ‖² between the rows of one
// input matrix, for the evaluations of one optimiser run (Settings.Dists,
// kept by stdlib/gp in model.Eval.Local). They do not depend on the
// kernel's hyperparameters, and an isotropic stationary kernel's matrix
// and its gradient's contraction (fastKernel) need only them scaled by
// 1/ℓ², while each evaluation recomputed them twice, D multiply-adds per
// pair: at examples/gp_classify.kml's D = 64, 15% of an ML-II fit's
// processor time. ARD terms still compute theirs on scaled coordinates.
// A Dists is not safe for concurrent use.
type Dists struct {
	x    *mat.Dense
	bits []float64 // a copy of x's numbers, to notice a matrix changed in place
	d    []float64 // n × n, row-major
}

// of returns the n × n squared distances between x's rows, computed at
// the first call for x (or when x's numbers changed), or nil when x has
// more than distsMax rows or c is nil.
func (c *Dists) of(x *mat.Dense) []float64 {
	if c == nil {
		return nil
	}
	n, d := x.Dims()
	if n == 0 || n > distsMax {
		return nil
	}
	xr := linalg.RowMajor(x)
	if c.x == x && c.d != nil && linalg.SameBits(c.bits, xr) {
		return c.d
	}
	xt := make([]float64, d*n) // column-major, sqdist's layout
	for i := range n {
		for j := range d {
			xt[j*n+i] = xr[i*d+j]
		}
	}
	if cap(c.d) < n*n {
		c.d = make([]float64, n*n)
	}
	c.d = c.d[:n*n]
	for i := range n {
		sqdist.Row(c.d[i*n:(i+1)*n], xt, n, xr[i*d:(i+1)*d])
		c.d[i*n+i] = 0
	}
	c.x, c.bits = x, append(c.bits[:0], xr...)
	return c.d
}
