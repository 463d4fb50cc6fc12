package causal

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Whitened is Prewhiten's output: the residuals (rows MaxOrder.. of the
// input), and per column the autoregression's order and coefficients
// (intercept first, then lags 1..order).
type Whitened struct {
	Resid    *mat.Dense
	MaxOrder int
	Orders   []int
	Coef     [][]float64
}

// Prewhiten removes temporal autocorrelation from each column of x (rows in
// time order): the residuals of the autoregression
//
//	x_t = c + a₁x_{t−1} + … + a_p x_{t−p} + e_t
//
// by least squares on the rows t = maxOrder..n−1, the same rows for every
// order and column so the residuals stay paired. order ≥ 0 fixes p = order
// (and maxOrder = order); order < 0 chooses p ∈ 0..maxOrder per column by
// AIC, m·log(RSS/m) + 2(p + 1) with m = n − maxOrder rows.
func Prewhiten(x *mat.Dense, order, maxOrder int) (Whitened, error) {
	n, d := x.Dims()
	if order >= 0 {
		maxOrder = order
	}
	if maxOrder < 0 {
		return Whitened{}, fmt.Errorf("the largest order must be ≥ 0, got %d", maxOrder)
	}
	m := n - maxOrder
	if m < 2*(maxOrder+1)+2 {
		return Whitened{}, fmt.Errorf("%d rows are too few for an autoregression of order %d", n, maxOrder)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return Whitened{}, fmt.Errorf("row %d, column %d is not finite (%v)", i+1, j+1, v)
			}
		}
	}
	w := Whitened{Resid: mat.NewDense(m, d, nil), MaxOrder: maxOrder, Orders: make([]int, d), Coef: make([][]float64, d)}
	for j := 0; j < d; j++ {
		col := mat.Col(nil, j, x)
		lo, hi := maxOrder, maxOrder
		if order < 0 {
			lo = 0
		}
		best := math.Inf(1)
		for p := lo; p <= hi; p++ {
			coef, resid, rss, err := arFit(col, p, maxOrder)
			if err != nil {
				return Whitened{}, fmt.Errorf("column %d, order %d: %w", j+1, p, err)
			}
			aic := float64(m)*math.Log(rss/float64(m)) + 2*float64(p+1)
			if rss == 0 {
				aic = math.Inf(-1)
			}
			if aic < best || p == lo {
				best = aic
				w.Orders[j], w.Coef[j] = p, coef
				w.Resid.SetCol(j, resid)
			}
		}
	}
	return w, nil
}

// arFit fits x_t on 1, x_{t−1}..x_{t−p} over t = start..n−1.
func arFit(x []float64, p, start int) ([]float64, []float64, float64, error) {
	m := len(x) - start
	a := mat.NewDense(m, p+1, nil)
	b := mat.NewVecDense(m, x[start:])
	for r := 0; r < m; r++ {
		a.Set(r, 0, 1)
		for k := 1; k <= p; k++ {
			a.Set(r, k, x[start+r-k])
		}
	}
	var coef mat.VecDense
	if err := coef.SolveVec(a, b); err != nil {
		return nil, nil, 0, fmt.Errorf("the least-squares problem is singular (a constant column?)")
	}
	var fit mat.VecDense
	fit.MulVec(a, &coef)
	resid := make([]float64, m)
	var rss float64
	for r := range resid {
		resid[r] = x[start+r] - fit.AtVec(r)
		rss += resid[r] * resid[r]
	}
	return mat.Col(nil, 0, &coef), resid, rss, nil
}
