package ktest

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// The statistics in O(n) memory: the Gram matrices are computed a block of
// rows at a time (rows × N) and reduced to the sums the estimators need, so
// a sample too large for an N×N matrix costs time, not memory. Each block
// is filled in parallel; the sums are taken in a fixed order, so the result
// does not depend on the number of cores.

// MMD2Blocked is MMD2 computed rows rows at a time.
func MMD2Blocked(k kernels.Kernel, x, y *mat.Dense, estimator Estimator, rows int) (float64, error) {
	z, m, err := pool(k, x, y, estimator)
	if err != nil {
		return 0, err
	}
	if estimator == Linear {
		return MMD2(k, x, y, estimator) // O(n) memory already
	}
	nTot, _ := z.Dims()
	n := nTot - m
	var sxx, syy, sxy, dx, dy float64
	err = eachBlock(k, z, rows, func(i0 int, blk []float64) {
		for r := 0; r < len(blk)/nTot; r++ {
			i := i0 + r
			row := blk[r*nTot : (r+1)*nTot]
			var a, b float64 // this row against the first and the second sample
			for _, v := range row[:m] {
				a += v
			}
			for _, v := range row[m:] {
				b += v
			}
			if i < m {
				sxx += a
				sxy += b
				dx += row[i]
			} else {
				syy += b
				dy += row[i]
			}
		}
	})
	if err != nil {
		return 0, err
	}
	fm, fn := float64(m), float64(n)
	if estimator == Biased {
		return sxx/(fm*fm) + syy/(fn*fn) - 2*sxy/(fm*fn), nil
	}
	return (sxx-dx)/(fm*(fm-1)) + (syy-dy)/(fn*(fn-1)) - 2*sxy/(fm*fn), nil
}

// HSICBlocked is HSIC computed rows rows at a time, from
// Σᵢⱼ KᵢⱼLᵢⱼ, the row sums of K and L, and their diagonals.
func HSICBlocked(kx, ky kernels.Kernel, x, y *mat.Dense, estimator Estimator, rows int) (float64, error) {
	if err := checkPaired(x, y, estimator); err != nil {
		return 0, err
	}
	n, _ := x.Dims()
	kRow := make([]float64, n)
	lRow := make([]float64, n)
	kDiag := make([]float64, n)
	lDiag := make([]float64, n)
	var kl, klDiag float64
	lBlk := mat.NewDense(min(rows, n), n, nil)
	var lErr error
	err := eachBlock(kx, x, rows, func(i0 int, kb []float64) {
		r := len(kb) / n
		lb := lBlk.Slice(0, r, 0, n).(*mat.Dense)
		if lErr != nil {
			return
		}
		if lErr = kernels.CrossInto(lb, ky, y.Slice(i0, i0+r, 0, y.RawMatrix().Cols).(*mat.Dense), y, 0); lErr != nil {
			return
		}
		lraw := lb.RawMatrix()
		for a := 0; a < r; a++ {
			i := i0 + a
			krow, lrow := kb[a*n:(a+1)*n], lraw.Data[a*lraw.Stride:a*lraw.Stride+n]
			for j, kv := range krow {
				kl += kv * lrow[j]
				kRow[i] += kv
				lRow[i] += lrow[j]
			}
			kDiag[i], lDiag[i] = krow[i], lrow[i]
			klDiag += krow[i] * lrow[i]
		}
	})
	if err != nil {
		return 0, fmt.Errorf("x: %w", err)
	}
	if lErr != nil {
		return 0, fmt.Errorf("y: %w", lErr)
	}
	fn := float64(n)
	if estimator == Biased {
		// tr(KHLH) = Σ KᵢⱼLᵢⱼ − (2/n) Σᵢ (K1)ᵢ(L1)ᵢ + (1ᵀK1)(1ᵀL1)/n².
		var cross, ks, ls float64
		for i := range kRow {
			cross += kRow[i] * lRow[i]
			ks += kRow[i]
			ls += lRow[i]
		}
		return (kl - 2*cross/fn + ks*ls/(fn*fn)) / (fn * fn), nil
	}
	// With zero diagonals: K̃ row sums are the row sums less the diagonal.
	var cross, ks, ls float64
	for i := range kRow {
		kr, lr := kRow[i]-kDiag[i], lRow[i]-lDiag[i]
		cross += kr * lr
		ks += kr
		ls += lr
	}
	// Σ_{i≠j} KᵢⱼLᵢⱼ = Σ KᵢⱼLᵢⱼ − Σᵢ KᵢᵢLᵢᵢ, and 1ᵀK̃L̃1 = Σᵢ (K̃1)ᵢ(L̃1)ᵢ
	// counts the pairs i ≠ j ≠ k around i.
	tr := kl - klDiag
	return (tr + ks*ls/((fn-1)*(fn-2)) - 2/(fn-2)*cross) / (fn * (fn - 3)), nil
}

// eachBlock computes the rows × N blocks of k's Gram matrix on z in order
// and hands each to f with its first row index.
func eachBlock(k kernels.Kernel, z *mat.Dense, rows int, f func(i0 int, blk []float64)) error {
	n, d := z.Dims()
	rows = max(1, min(rows, n))
	buf := mat.NewDense(rows, n, nil)
	for i0 := 0; i0 < n; i0 += rows {
		r := min(rows, n-i0)
		dst := buf
		if r < rows {
			dst = mat.NewDense(r, n, nil)
		}
		if err := kernels.CrossInto(dst, k, z.Slice(i0, i0+r, 0, d).(*mat.Dense), z, 0); err != nil {
			return err
		}
		f(i0, dst.RawMatrix().Data)
	}
	return nil
}
