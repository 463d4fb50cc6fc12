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
// samples follows (mmdFromForms), so a block of permutations costs one
// matrix product.
type gramForms interface {
	size() int
	// forms sets s[b] = e_bᵀKe_b and r[b] = 1ᵀKe_b for the rows e_b of the
	// rows×N matrix e (row-major), using buf (bufLen(rows) values).
	forms(e []float64, rows int, buf, s, r []float64)
	bufLen(rows int) int
	total() float64
	diag() []float64
}

// exactForms holds the full Gram matrix: a block costs the product E·K,
// N²·m multiply-adds (the BLAS kernel skips the zeros of E).
type exactForms struct {
	g      []float64 // N×N, both triangles
	n      int
	rowSum []float64
	tot    float64
	dg     []float64
}

func newExactForms(g []float64, n int) *exactForms {
	f := &exactForms{g: g, n: n, rowSum: make([]float64, n), dg: make([]float64, n)}
	for i := 0; i < n; i++ {
		f.rowSum[i] = floats.Sum(g[i*n : (i+1)*n])
		f.dg[i] = g[i*n+i]
	}
	f.tot = floats.Sum(f.rowSum)
	return f
}

func (f *exactForms) size() int           { return f.n }
func (f *exactForms) bufLen(rows int) int { return rows * f.n }
func (f *exactForms) total() float64      { return f.tot }
func (f *exactForms) diag() []float64     { return f.dg }

func (f *exactForms) forms(e []float64, rows int, buf, s, r []float64) {
	n := f.n
	blas64.Implementation().Dgemm(blas.NoTrans, blas.NoTrans, rows, n, n, 1, e, n, f.g, n, 0, buf, n)
	for b := 0; b < rows; b++ {
		eb := e[b*n : (b+1)*n]
		s[b] = floats.Dot(buf[b*n:(b+1)*n], eb)
		r[b] = floats.Dot(f.rowSum, eb)
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
