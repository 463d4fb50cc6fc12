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
// Zhang and Visweswaran (2019) in the form of their R package's RCoT, for
// data the caller has standardised (causal.Standardise): random Fourier
// features of the rbf kernel at the median heuristic of each variable
// (features of z, featuresXY each of x and y; seeded), each feature
// standardised, the partial cross-covariance
// C_xy|z = C_xy − C_xz (C_zz + 10⁻¹⁰I)⁻¹ C_zy of the features, the
// statistic T = n‖C_xy|z‖²_F, and its null Σ λ_k χ²₁ with λ the
// eigenvalues of (1/n) RᵀR, R the products r_x,i · r_y,j of the x and y
// feature residuals (after regression on the z features), approximated by
// approx: LPB4 (the package's default, "lpd4"; HBE when it fails, as
// there), HBE or the gamma with mean Σλ and variance 2Σλ²
// (weightedChiSqSurvival). With z nil or empty it is RIT, the
// unconditional test (no regression). Cost O(n·F²) and no n×n matrix, so
// it scales to large n. A cancelled ctx stops it between its stages and
// it returns ctx.Err().
func RCITTest(ctx context.Context, x, y, z *mat.Dense, features, featuresXY int, approx ChiSqApprox, seed uint64) (CIResult, error) {
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
	if approx == "" {
		approx = LPB4
	}
	res.Statistic, res.NullMean, res.NullVar = stat, s1, 2*s2
	p, used, err := weightedChiSqSurvival(stat, lambda, approx)
	if err != nil {
		return CIResult{}, err
	}
	if math.IsNaN(p) {
		return CIResult{}, fmt.Errorf("the %s approximation is not defined for these data (constant features?)", used)
	}
	res.PValue, res.Approx = p, used
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

// standardiseCols centres the columns of m in place and scales each to
// sd 1 (the n − 1 form, as R's sd); a constant column is only centred.
func standardiseCols(m *mat.Dense) {
	centreCols(m)
	n, d := m.Dims()
	for j := 0; j < d; j++ {
		s2 := 0.0
		for i := 0; i < n; i++ {
			s2 += m.At(i, j) * m.At(i, j)
		}
		if sd := math.Sqrt(s2 / float64(n-1)); sd > 0 {
			for i := 0; i < n; i++ {
				m.Set(i, j, m.At(i, j)/sd)
			}
		}
	}
}

// rcitFromFeatures returns RCIT's statistic n‖C_xy|z‖²_F and the
// eigenvalues of its null's covariance from the features (fz nil: RIT),
// each feature standardised first.
func rcitFromFeatures(fx, fy, fz *mat.Dense) (float64, []float64, error) {
	n, px := fx.Dims()
	_, py := fy.Dims()
	rx, ry := mat.DenseCopyOf(fx), mat.DenseCopyOf(fy)
	standardiseCols(rx)
	standardiseCols(ry)
	// C_xy|z = C_xy − C_xz (C_zz + 10⁻¹⁰I)⁻¹ C_zy with C = ΦᵀΦ/(n−1), as
	// R's cov; written so, not as the covariance of the residuals, which
	// differs from it when C_zz is near singular (many features of a
	// low-dimensional z) and the ridge makes the projection inexact.
	var c mat.Dense
	c.Mul(rx.T(), ry)
	c.Scale(1/float64(n-1), &c)
	if fz != nil {
		cz := mat.DenseCopyOf(fz)
		standardiseCols(cz)
		_, pz := cz.Dims()
		czz := mat.NewSymDense(pz, nil)
		czz.SymOuterK(1/float64(n-1), cz.T())
		for i := 0; i < pz; i++ {
			czz.SetSym(i, i, czz.At(i, i)+1e-10)
		}
		var ch mat.Cholesky
		if !ch.Factorize(czz) {
			return 0, nil, fmt.Errorf("the covariance of z's features is not positive definite")
		}
		// β_f = (C_zz + 10⁻¹⁰I)⁻¹ C_zf and the residuals r = f − Φ_z β_f
		// of the x and y features on the z features.
		resid := func(f *mat.Dense) (*mat.Dense, error) {
			var czf, beta, fit mat.Dense
			czf.Mul(cz.T(), f)
			czf.Scale(1/float64(n-1), &czf)
			if err := ch.SolveTo(&beta, &czf); err != nil {
				return nil, err
			}
			fit.Mul(cz, &beta)
			f.Sub(f, &fit)
			return &beta, nil
		}
		var cxz mat.Dense
		cxz.Mul(rx.T(), cz)
		cxz.Scale(1/float64(n-1), &cxz)
		if _, err := resid(rx); err != nil {
			return 0, nil, err
		}
		betaY, err := resid(ry)
		if err != nil {
			return 0, nil, err
		}
		var corr mat.Dense
		corr.Mul(&cxz, betaY)
		c.Sub(&c, &corr)
	}
	stat := 0.0
	for _, v := range c.RawMatrix().Data {
		stat += v * v
	}
	stat *= float64(n)
	// The products r_x,i · r_y,j of each row, and (1/n) RᵀR, as the R
	// package computes it (uncentred: under H0 the products have mean 0).
	prod := mat.NewDense(n, px*py, nil)
	for t := 0; t < n; t++ {
		row := prod.RawRowView(t)
		for i := 0; i < px; i++ {
			for j := 0; j < py; j++ {
				row[i*py+j] = rx.At(t, i) * ry.At(t, j)
			}
		}
	}
	cov := mat.NewSymDense(px*py, nil)
	cov.SymOuterK(1/float64(n), prod.T())
	var eig mat.EigenSym
	if !eig.Factorize(cov, false) {
		return 0, nil, fmt.Errorf("the eigendecomposition of the null's covariance failed")
	}
	return stat, eig.Values(nil), nil
}
