package ktest

import (
	"context"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// gramForms is a pooled Gram matrix, exact or as features, from which a
// label permutation's MMD² follows through three forms of the 0/1
// indicator e of the first sample's positions: eᵀKe, 1ᵀKe and Σ e_i K_ii
// (mmdFromForms). labelNull returns the statistic of the samples as given
// and of Settings.Permutations relabellings.
type gramForms interface {
	labelNull(ctx context.Context, m int, s Settings) (float64, []float64, error)
}

// exactForms holds the full Gram matrix (both triangles), its row sums,
// total and diagonal; its null is exactLabelNull.
type exactForms struct {
	g      []float64
	n      int
	tile   int
	rowSum []float64
	tot    float64
	dg     []float64
}

// gramTile is the width of the column tiles of exactLabelNull: a tile's
// subset-sum table (256 × 64 values, 128 kB) and the permutations' column
// bits over the tile (one word each) stay in a core's cache. A multiple of
// groupRows that divides 64 (a tile's bits lie in one word); tests use 16.
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

func (f *exactForms) labelNull(ctx context.Context, m int, s Settings) (float64, []float64, error) {
	return exactLabelNull(ctx, f, m, s)
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

// forms sets s[b] = e_bᵀΦΦᵀe_b and r[b] = 1ᵀΦΦᵀe_b for the rows e_b of the
// rows×N matrix e, with buf (rows×r) for E·Φ.
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
