package ktest

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// RCIT's defaults (Strobl, Zhang and Visweswaran 2019, and their R
// package): 100 random Fourier features of z, 5 each of x and y.
const (
	RCITFeatures   = 100
	RCITFeaturesXY = 5
)

// RCITTest is the randomized conditional-independence test of Strobl,
// Zhang and Visweswaran (2019), for data the caller has standardised
// (causal.Standardise): random Fourier features of the rbf kernel at the
// median heuristic of each variable (features of z, featuresXY each of x
// and y; seeded), the partial cross-covariance
// C_xy|z = C_xy − C_xz (C_zz + 10⁻¹⁰I)⁻¹ C_zy of the features, the
// statistic T = n‖C_xy|z‖²_F, and its null Σ λ_k χ²₁ with λ the
// eigenvalues of the covariance of the products of the x and y feature
// residuals (after regression on the z features), approximated by the
// gamma distribution with the same mean Σλ and variance 2Σλ² (the R
// package's approx = "gamma"; its default, the Lindsay–Pilla–Basak
// approximation, is not implemented). With z nil or empty it is RIT, the
// unconditional test (no regression). Cost O(n·F²) and no n×n matrix, so
// it scales to large n. A cancelled ctx stops it between its stages and
// it returns ctx.Err().
func RCITTest(ctx context.Context, x, y, z *mat.Dense, features, featuresXY int, seed uint64) (CIResult, error) {
	n, _ := x.Dims()
	if r, _ := y.Dims(); r != n {
		return CIResult{}, fmt.Errorf("x has %d rows but y has %d", n, r)
	}
	if z != nil && z.IsEmpty() {
		z = nil
	}
	if z != nil {
		if r, _ := z.Dims(); r != n {
			return CIResult{}, fmt.Errorf("x has %d rows but z has %d", n, r)
		}
	}
	if features <= 0 {
		features = RCITFeatures
	}
	if featuresXY <= 0 {
		featuresXY = RCITFeaturesXY
	}
	res := CIResult{Features: features, FeaturesXY: featuresXY}
	feat := func(i int, data *mat.Dense, count int) (*mat.Dense, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// The median of the first 500 rows, as the R package.
		sub := data
		if r, _ := data.Dims(); r > 500 {
			sub = data.Slice(0, 500, 0, data.RawMatrix().Cols).(*mat.Dense)
		}
		c, err := Choose(ctx, ChoiceMedian, sub, seed)
		if err != nil {
			return nil, err
		}
		res.Ell[i] = c.Ell[0]
		rf, err := kernels.NewRFF(c.Kernel, data.RawMatrix().Cols, count, seed+uint64(i))
		if err != nil {
			return nil, err
		}
		return rf.Features(data)
	}
	fx, err := feat(0, x, featuresXY)
	if err != nil {
		return CIResult{}, fmt.Errorf("x: %w", err)
	}
	fy, err := feat(1, y, featuresXY)
	if err != nil {
		return CIResult{}, fmt.Errorf("y: %w", err)
	}
	var fz *mat.Dense
	if z != nil {
		if fz, err = feat(2, z, features); err != nil {
			return CIResult{}, fmt.Errorf("z: %w", err)
		}
	} else {
		res.Features = 0
	}
	if err := ctx.Err(); err != nil {
		return CIResult{}, err
	}
	stat, lambda, err := rcitFromFeatures(fx, fy, fz)
	if err != nil {
		return CIResult{}, err
	}
	var s1, s2 float64
	for _, l := range lambda {
		if l > 0 {
			s1 += l
			s2 += l * l
		}
	}
	res.Statistic, res.NullMean, res.NullVar = stat, s1, 2*s2
	res.PValue = gammaSurvival(stat, s1, 2*s2)
	if math.IsNaN(res.PValue) {
		return CIResult{}, fmt.Errorf("the gamma approximation is not defined for these data (constant features?)")
	}
	return res, nil
}

// centreCols centres the columns of m in place.
func centreCols(m *mat.Dense) {
	n, d := m.Dims()
	for j := 0; j < d; j++ {
		s := 0.0
		for i := 0; i < n; i++ {
			s += m.At(i, j)
		}
		s /= float64(n)
		for i := 0; i < n; i++ {
			m.Set(i, j, m.At(i, j)-s)
		}
	}
}

// rcitFromFeatures returns RCIT's statistic n‖C_xy|z‖²_F and the
// eigenvalues of its null's covariance from the features (fz nil: RIT).
func rcitFromFeatures(fx, fy, fz *mat.Dense) (float64, []float64, error) {
	n, px := fx.Dims()
	_, py := fy.Dims()
	rx, ry := mat.DenseCopyOf(fx), mat.DenseCopyOf(fy)
	centreCols(rx)
	centreCols(ry)
	if fz != nil {
		cz := mat.DenseCopyOf(fz)
		centreCols(cz)
		_, pz := cz.Dims()
		// (C_zz + 10⁻¹⁰I) with C = ΦᵀΦ/(n−1), as R's cov.
		czz := mat.NewSymDense(pz, nil)
		czz.SymOuterK(1/float64(n-1), cz.T())
		for i := 0; i < pz; i++ {
			czz.SetSym(i, i, czz.At(i, i)+1e-10)
		}
		var ch mat.Cholesky
		if !ch.Factorize(czz) {
			return 0, nil, fmt.Errorf("the covariance of z's features is not positive definite")
		}
		// Residuals of the x and y features on the z features:
		// r = f − Φ_z C_zz⁻¹ C_zf.
		resid := func(f *mat.Dense) error {
			var czf, beta, fit mat.Dense
			czf.Mul(cz.T(), f)
			czf.Scale(1/float64(n-1), &czf)
			if err := ch.SolveTo(&beta, &czf); err != nil {
				return err
			}
			fit.Mul(cz, &beta)
			f.Sub(f, &fit)
			return nil
		}
		if err := resid(rx); err != nil {
			return 0, nil, err
		}
		if err := resid(ry); err != nil {
			return 0, nil, err
		}
	}
	// C_xy|z = cov(r_x, r_y): the partial cross-covariance.
	var c mat.Dense
	c.Mul(rx.T(), ry)
	c.Scale(1/float64(n-1), &c)
	stat := 0.0
	for _, v := range c.RawMatrix().Data {
		stat += v * v
	}
	stat *= float64(n)
	// The products r_x,i · r_y,j of each row, and their covariance.
	prod := mat.NewDense(n, px*py, nil)
	for t := 0; t < n; t++ {
		row := prod.RawRowView(t)
		for i := 0; i < px; i++ {
			for j := 0; j < py; j++ {
				row[i*py+j] = rx.At(t, i) * ry.At(t, j)
			}
		}
	}
	centreCols(prod)
	cov := mat.NewSymDense(px*py, nil)
	cov.SymOuterK(1/float64(n-1), prod.T())
	var eig mat.EigenSym
	if !eig.Factorize(cov, false) {
		return 0, nil, fmt.Errorf("the eigendecomposition of the null's covariance failed")
	}
	return stat, eig.Values(nil), nil
}
