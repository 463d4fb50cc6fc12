package ktest

import (
	"context"

	"fmt"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
	"github.com/kml-lang/kml/runtime/rng"
)

// Approx chooses between the exact Gram matrix and a low-rank feature map
// for the permutation null. Like Estimator it is a string type validated
// where it is used.
type Approx string

// The approximations.
const (
	// Auto is Exact up to ExactMax rows (pooled for MMD, pairs for HSIC)
	// and Nystrom above.
	Auto Approx = "auto"
	// Exact computes the full Gram matrix once: a permutation costs O(N²).
	Exact Approx = "exact"
	// Nystrom approximates K by the Nyström features on Rank rows of the
	// data chosen at random (seeded): a permutation costs O(N·Rank).
	Nystrom Approx = "nystrom"
	// RFF approximates K by Rank random Fourier features (rbf, laplacian
	// and matern kernels only).
	RFF Approx = "rff"
)

// ExactMax is the largest number of rows for which Auto uses the exact
// Gram matrix (800 MB at ExactMax rows); above it the n×n matrix would not
// fit comfortably in memory and Nyström features are used.
const ExactMax = 10000

// DefaultRank is the default rank of a low-rank approximation.
const DefaultRank = 200

// resolve turns Auto into Exact or Nystrom for n rows, and validates.
func (a Approx) resolve(n int) (Approx, error) {
	switch a {
	case "", Auto:
		if n > ExactMax {
			return Nystrom, nil
		}
		return Exact, nil
	case Exact, Nystrom, RFF:
		return a, nil
	}
	return "", fmt.Errorf("approx must be %q, %q, %q or %q, got %q", Auto, Exact, Nystrom, RFF, a)
}

// features returns Φ (n×r, row-major) with k(z_i, z_j) ≈ Φ_iᵀΦ_j: the
// Nyström features on rank rows of z (seeded), or rank random Fourier
// features. A rank of at least n gives Nyström on every row, which is
// exact up to the jitter.
func features(k kernels.Kernel, z *mat.Dense, approx Approx, rank int, seed uint64) ([]float64, int, error) {
	n, d := z.Dims()
	if rank <= 0 {
		rank = DefaultRank
	}
	switch approx {
	case RFF:
		rf, err := kernels.NewRFF(k, d, rank, seed)
		if err != nil {
			return nil, 0, err
		}
		phi, err := rf.Features(z)
		if err != nil {
			return nil, 0, err
		}
		return linalg.RowMajor(phi), rank, nil
	case Nystrom:
		rank = min(rank, n)
		rows := make([]int, n)
		shuffledRows(seed, rows)
		lm := mat.NewDense(rank, d, nil)
		for i, r := range rows[:rank] {
			lm.SetRow(i, z.RawRowView(r))
		}
		phi, err := kernels.Nystrom(k, z, lm)
		if err != nil {
			return nil, 0, err
		}
		return linalg.RowMajor(phi), rank, nil
	}
	return nil, 0, fmt.Errorf("ktest: no features for approx %q", approx)
}

func shuffledRows(seed uint64, rows []int) {
	for i := range rows {
		rows[i] = i
	}
	rnd := rng.New(seed, rng.Landmarks)
	rnd.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
}

// hsicLowRank is HSICTest's permutation null on feature maps Φ (x) and Ψ
// (y): with Φ's columns centred, n²·HSIC_b = tr(HKH·L) ≈ ‖Φᵀ Ψ‖²_F, and
// permuting y permutes Ψ's rows, so a permutation costs n·r_x·r_y.
func hsicLowRank(ctx context.Context, kx, ky kernels.Kernel, x, y *mat.Dense, approx Approx, s Settings, res Result) (Result, error) {
	n, _ := x.Dims()
	phi, rx, err := features(kx, x, approx, s.Rank, s.Seed)
	if err != nil {
		return Result{}, fmt.Errorf("x: %w", err)
	}
	psi, ry, err := features(ky, y, approx, s.Rank, s.Seed)
	if err != nil {
		return Result{}, fmt.Errorf("y: %w", err)
	}
	for c := 0; c < rx; c++ {
		mean := 0.0
		for i := 0; i < n; i++ {
			mean += phi[i*rx+c]
		}
		mean /= float64(n)
		for i := 0; i < n; i++ {
			phi[i*rx+c] -= mean
		}
	}
	res.Approx, res.Rank, res.Permutations = approx, max(rx, ry), s.Permutations
	newStat := func() func(perm []int) float64 {
		psiP := make([]float64, n*ry)
		prod := make([]float64, rx*ry)
		return func(perm []int) float64 {
			for i, p := range perm {
				copy(psiP[i*ry:(i+1)*ry], psi[p*ry:(p+1)*ry])
			}
			blas64.Implementation().Dgemm(blas.Trans, blas.NoTrans, rx, ry, n, 1, phi, rx, psiP, ry, 0, prod, ry)
			return floats.Dot(prod, prod) / float64(n*n)
		}
	}
	res.Statistic = newStat()(identity(n))
	null := make([]float64, s.Permutations)
	err = permutationsVec(ctx, n, s, func() func(b int, perm []int) {
		stat := newStat()
		return func(b int, perm []int) { null[b] = stat(perm) }
	})
	if err != nil {
		return Result{}, err
	}
	res.PValue = pValue(res.Statistic, null)
	return res, nil
}
