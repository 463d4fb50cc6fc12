package kernels

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	vec "github.com/kml-lang/kml/runtime/internal/sqdist" // median.go has a func sqdist
)

// expandMinDim is the input dimension from which a block's squared
// distances come from ‖x‖² + ‖y‖² − 2xᵀy, the products by one matrix
// product per row block (gonum's Gemm), when the direct loops are not
// vectorised (useExpansion). BenchmarkDistancePaths places it: on the
// 2-core amd64 machine, against scalar direct loops, the expansion was 2–5×
// slower at D = 8 to 16, about even at 32 to 64 and 2× faster at 128;
// against the vectorised direct loops (package sqdist) it is 4–40× slower
// at every D from 4 to 256, so there it is never used.
const expandMinDim = 64

// useExpansion reports whether squared distances in dimension d come from
// the expansion.
func useExpansion(d int) bool { return d >= expandMinDim && vec.Vectorised() == "none" }

// cancelTol is the relative threshold below which an expanded squared
// distance is recomputed directly. The expansion's rounding error is about
// (D + 3)·2⁻⁵³·(‖x‖² + ‖y‖²); a result s kept has s ≥ cancelTol·(‖x‖² +
// ‖y‖²), so its relative error is at most (D + 3)·2⁻⁵³/cancelTol (2e-13 at
// D = 10). Smaller results, negative ones included, are cancellation: the
// direct sum replaces them, so nothing is clamped silently.
const cancelTol = 1.0 / 64

// points is a grid's points divided by the lengthscales and, for the
// expansion, centred on x's mean (distances do not change; the norms, and
// with them the cancellation, shrink) with their squared norms.
type points struct {
	xs, ys []float64
	nx, ny []float64 // for the expansion
	yt     []float64 // for the direct rows: ys by coordinate, D×m
}

// prepare scales the grid's points and, with expand (callers pass
// useExpansion(g.dim)), centres them and takes their norms; without, it
// lays ys out by coordinate for the direct rows (sqdist.Row).
func (g *grid) prepare(ell []float64, expand bool) *points {
	xs, ys := g.scaled(ell)
	p := &points{xs: xs, ys: ys}
	d := g.dim
	if !expand {
		p.yt = make([]float64, d*g.m)
		for j := 0; j < g.m; j++ {
			for c := 0; c < d; c++ {
				p.yt[c*g.m+j] = ys[j*d+c]
			}
		}
		return p
	}
	mean := make([]float64, d)
	for i := 0; i < g.n; i++ {
		for c := range mean {
			mean[c] += xs[i*d+c]
		}
	}
	for c := range mean {
		mean[c] /= float64(g.n)
	}
	centre := func(s []float64) {
		for i := range s {
			s[i] -= mean[i%d]
		}
	}
	centre(xs)
	if !g.sym {
		centre(ys)
	}
	p.nx = norms(xs, g.n, d)
	p.ny = p.nx
	if !g.sym {
		p.ny = norms(ys, g.m, d)
	}
	return p
}

// sqDistBlock writes the squared distances of rows i0 to i1 (from jStart)
// by whichever path prepare chose.
func (g *grid) sqDistBlock(p *points, out []float64, i0, i1 int) {
	if p.yt != nil {
		d := g.dim
		for i := i0; i < i1; i++ {
			j0 := g.jStart(i)
			vec.Row(out[i*g.m+j0:(i+1)*g.m], p.yt[j0:], g.m, p.xs[i*d:(i+1)*d])
		}
		return
	}
	g.sqDistExpandRows(p, out, i0, i1)
}

// sqDistExpandRows is sqDistBlock by the expansion: −2xᵀy for the block
// by one matrix product (in a symmetric grid from column i0, so a few
// entries of the lower triangle inside the block are written too, which
// the readers of the upper triangle ignore), then the norms added and
// cancelled entries recomputed.
func (g *grid) sqDistExpandRows(p *points, out []float64, i0, i1 int) {
	d := g.dim
	j0 := g.jStart(i0)
	a := blas64.General{Rows: i1 - i0, Cols: d, Stride: d, Data: p.xs[i0*d : i1*d]}
	b := blas64.General{Rows: g.m - j0, Cols: d, Stride: d, Data: p.ys[j0*d:]}
	c := blas64.General{Rows: i1 - i0, Cols: g.m - j0, Stride: g.m, Data: out[i0*g.m+j0:]}
	blas64.Gemm(blas.NoTrans, blas.Trans, -2, a, b, 0, c)
	for i := i0; i < i1; i++ {
		row := out[i*g.m : (i+1)*g.m]
		x := p.xs[i*d : (i+1)*d]
		nxi := p.nx[i]
		for j := g.jStart(i); j < g.m; j++ {
			sum := nxi + p.ny[j]
			s := sum + row[j]
			if s < cancelTol*sum {
				s = sqDist(x, p.ys[j*d:(j+1)*d])
			}
			row[j] = s
		}
	}
}

// sqDist is Σ_c (x_c − y_c)².
func sqDist(x, y []float64) float64 {
	y = y[:len(x)]
	s := 0.0
	for c, v := range x {
		t := v - y[c]
		s += t * t
	}
	return s
}
