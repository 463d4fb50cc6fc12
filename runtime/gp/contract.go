package gp

import (
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// Contract writes into dst (length k.NumHyper()) the derivatives
//
//	dst[h] = ½ Σᵢⱼ Wᵢⱼ ∂k(xᵢ, xⱼ)/∂h
//
// for the symmetric n×n matrix w (of which it reads the upper triangle)
// and the rows xᵢ of x. With W = ∂φ/∂K for a scalar φ of the Gram matrix,
// 2·dst is ∂φ/∂h; the ½ matches the usual W = ααᵀ − C⁻¹ of the marginal
// likelihood. It evaluates k.GradHyper once per pair i ≤ j, in parallel
// over rows, so its cost is O(n² · cost of one kernel derivative) and no
// derivative matrix is stored.
func Contract(dst []float64, k kernels.Kernel, x *mat.Dense, w *mat.SymDense) {
	nh := k.NumHyper()
	clear(dst[:nh])
	if nh == 0 {
		return
	}
	n, d := x.Dims()
	xs := linalg.RowMajor(x)
	raw := w.RawSymmetric()
	rowSums(dst, n, nh, func(i int, buf, acc []float64) {
		xi := xs[i*d : (i+1)*d]
		row := raw.Data[i*raw.Stride:]
		// The diagonal counts once, each pair i < j twice.
		k.GradHyper(buf, xi, xi)
		for h, v := range buf {
			acc[h] += 0.5 * row[i] * v
		}
		for j := i + 1; j < n; j++ {
			wij := row[j]
			k.GradHyper(buf, xi, xs[j*d:(j+1)*d])
			for h, v := range buf {
				acc[h] += wij * v
			}
		}
	})
}

// ContractCross writes into dst (length k.NumHyper()) the derivatives
//
//	dst[h] = Σᵢⱼ Gᵢⱼ ∂k(xᵢ, zⱼ)/∂h
//
// for the n×m matrix g, the rows xᵢ of x and zⱼ of z: the rectangular
// counterpart of Contract (no ½, every pair once), in parallel over rows of
// x with a schedule-independent sum.
func ContractCross(dst []float64, k kernels.Kernel, x, z *mat.Dense, g *mat.Dense) {
	nh := k.NumHyper()
	clear(dst[:nh])
	if nh == 0 {
		return
	}
	n, d := x.Dims()
	m, _ := z.Dims()
	xs, zs := linalg.RowMajor(x), linalg.RowMajor(z)
	rowSums(dst, n, nh, func(i int, buf, acc []float64) {
		xi := xs[i*d : (i+1)*d]
		row := g.RawRowView(i)
		for j := 0; j < m; j++ {
			k.GradHyper(buf, xi, zs[j*d:(j+1)*d])
			for h, v := range buf {
				acc[h] += row[j] * v
			}
		}
	})
}

// rowSums adds into dst (length nh) what row(i, buf, acc) accumulates into
// acc for every row i < n, in parallel: par.Sums over blocks of 16 rows,
// so the result does not depend on the schedule. buf is a worker's
// scratch of length nh.
func rowSums(dst []float64, n, nh int, row func(i int, buf, acc []float64)) {
	newBuf := func() []float64 { return make([]float64, nh) }
	par.Sums(dst[:nh], n, 16, runtime.GOMAXPROCS(0), newBuf, func(buf []float64, i int, acc []float64) {
		row(i, buf, acc)
	})
}
