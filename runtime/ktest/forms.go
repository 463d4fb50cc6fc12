package ktest

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// gramForms is what a label permutation of an MMD test needs from the
// pooled N×N Gram matrix K: for the 0/1 indicator e of the first sample's
// positions, the quadratic form eᵀKe and the linear form 1ᵀKe. With them,
// the total 1ᵀK1 and the diagonal, every MMD² estimator of the relabelled
// samples follows (mmdFromForms), so a block of permutations is one pass
// over K (or one product with the features).
type gramForms interface {
	size() int
	// forms sets s[b] = e_bᵀKe_b and r[b] = 1ᵀKe_b for the rows e_b of the
	// rows×N matrix e (row-major), using buf (bufLen(rows) values).
	forms(e []float64, rows int, buf, s, r []float64)
	bufLen(rows int) int
	total() float64
	diag() []float64
}

// exactForms holds the full Gram matrix. K is symmetric, so
// eᵀKe = 2·Σ_{I≤J} w_IJ Σ_{i∈I, e_i=1} K_{i,J}·e_J over square tiles I, J
// of indices, with w = ½ on the diagonal tiles and 1 above: each term a
// dot product of a row of a tile with the indicator, N²·m/2 multiply-adds
// for a permutation, half of eᵀ(Ke), without branches on e and without
// writing an N-vector. The tiles are visited in a fixed order, and the
// permutations of a block pass over a tile while it is in cache.
type exactForms struct {
	g      []float64 // N×N, both triangles
	n      int
	tile   int
	rowSum []float64
	tot    float64
	dg     []float64
}

// gramTile is the side of the tiles of exactForms: a tile of K (32 kB)
// stays in a core's L1 cache while the block of permutations passes over
// it (64 measured faster than 128 and 256 at N = 4000).
const gramTile = 64

func newExactForms(g []float64, n int) *exactForms {
	f := &exactForms{g: g, n: n, tile: gramTile, rowSum: make([]float64, n), dg: make([]float64, n)}
	for i := 0; i < n; i++ {
		f.rowSum[i] = floats.Sum(g[i*n : (i+1)*n])
		f.dg[i] = g[i*n+i]
	}
	f.tot = floats.Sum(f.rowSum)
	return f
}

func (f *exactForms) size() int           { return f.n }
func (f *exactForms) bufLen(rows int) int { return 0 }
func (f *exactForms) total() float64      { return f.tot }
func (f *exactForms) diag() []float64     { return f.dg }

// forms needs no buffer: it lists each permutation's first-sample indices
// in increasing order, so that tile row I's start in the list only moves
// forward.
func (f *exactForms) forms(e []float64, rows int, buf, s, r []float64) {
	n, t := f.n, f.tile
	idx := make([][]int, rows)
	for b := range idx {
		eb := e[b*n : (b+1)*n]
		for i, v := range eb {
			if v != 0 {
				idx[b] = append(idx[b], i)
			}
		}
		s[b] = 0
	}
	pos := make([]int, rows) // where tile row I starts in idx[b]
	for j0 := 0; j0 < n; j0 += t {
		tj := min(t, n-j0)
		clear(pos)
		for i0 := 0; i0 <= j0; i0 += t {
			w := 1.0
			if i0 == j0 {
				w = 0.5
			}
			for b := 0; b < rows; b++ {
				ej := e[b*n+j0 : b*n+j0+tj]
				acc := 0.0
				k := pos[b]
				for ; k < len(idx[b]) && idx[b][k] < i0+t; k++ {
					i := idx[b][k]
					acc += floats.Dot(f.g[i*n+j0:i*n+j0+tj], ej)
				}
				pos[b] = k
				s[b] += w * acc
			}
		}
	}
	for b := 0; b < rows; b++ {
		s[b] *= 2
		r[b] = floats.Dot(f.rowSum, e[b*n:(b+1)*n])
	}
}

// featureForms holds features Φ (N×r) with K ≈ ΦΦᵀ: eᵀKe = ‖Φᵀe‖² and
// 1ᵀKe = (Φᵀ1)ᵀ(Φᵀe), so a block costs E·Φ, N·r per permutation.
type featureForms struct {
	phi  []float64 // N×r
	n, r int
	col  []float64 // Φᵀ1
	dg   []float64 // ‖Φ_i‖², the diagonal of ΦΦᵀ
	tot  float64
}

func newFeatureForms(phi []float64, n, r int) *featureForms {
	f := &featureForms{phi: phi, n: n, r: r, col: make([]float64, r), dg: make([]float64, n)}
	for i := 0; i < n; i++ {
		row := phi[i*r : (i+1)*r]
		floats.Add(f.col, row)
		f.dg[i] = floats.Dot(row, row)
	}
	f.tot = floats.Dot(f.col, f.col)
	return f
}

func (f *featureForms) size() int           { return f.n }
func (f *featureForms) bufLen(rows int) int { return rows * f.r }
func (f *featureForms) total() float64      { return f.tot }
func (f *featureForms) diag() []float64     { return f.dg }

func (f *featureForms) forms(e []float64, rows int, buf, s, r []float64) {
	blas64.Implementation().Dgemm(blas.NoTrans, blas.NoTrans, rows, f.r, f.n, 1, e, f.n, f.phi, f.r, 0, buf, f.r)
	for b := 0; b < rows; b++ {
		p := buf[b*f.r : (b+1)*f.r]
		s[b] = floats.Dot(p, p)
		r[b] = floats.Dot(f.col, p)
	}
}

// mmdFromForms is MMD² of the samples X (m rows, indicator e) and Y (the
// other n) from sx = eᵀKe, rx = 1ᵀKe, tx = Σ e_i K_ii, the total
// S = 1ᵀK1 and the trace T: 1_XᵀK1_Y = rx − sx and 1_YᵀK1_Y = S − 2rx + sx.
func mmdFromForms(sx, rx, tx, total, trace float64, m, n int, estimator Estimator) float64 {
	sxy := rx - sx
	sy := total - 2*rx + sx
	fm, fn := float64(m), float64(n)
	if estimator == Biased {
		return sx/(fm*fm) + sy/(fn*fn) - 2*sxy/(fm*fn)
	}
	return (sx-tx)/(fm*(fm-1)) + (sy-(trace-tx))/(fn*(fn-1)) - 2*sxy/(fm*fn)
}
