package causal

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// FisherZ returns the linear-Gaussian test of i ⟂ j | s on the columns of
// data: the partial correlation r from the inverse of the correlation
// submatrix of {i, j} ∪ s, and the two-sided p-value of Fisher's
// z = atanh(r)·√(n − |s| − 3) against N(0, 1).
func FisherZ(data *mat.Dense) (CITest, error) {
	n, p := data.Dims()
	if n < p+4 {
		return nil, fmt.Errorf("Fisher's z needs more rows (%d) than columns (%d) plus 3", n, p)
	}
	corr := mat.NewSymDense(p, nil)
	stat.CorrelationMatrix(corr, data, nil)
	for i := 0; i < p; i++ {
		if math.IsNaN(corr.At(i, i)) {
			return nil, fmt.Errorf("column %d is constant", i+1)
		}
	}
	return func(_ context.Context, i, j int, s []int) (float64, error) {
		vars := append([]int{i, j}, s...)
		m := len(vars)
		sub := mat.NewSymDense(m, nil)
		for a, u := range vars {
			for b, v := range vars {
				sub.SetSym(a, b, corr.At(u, v))
			}
		}
		var inv mat.Dense
		if err := inv.Inverse(sub); err != nil {
			return 0, fmt.Errorf("the correlation matrix of %v is singular", vars)
		}
		r := -inv.At(0, 1) / math.Sqrt(inv.At(0, 0)*inv.At(1, 1))
		r = math.Max(-1+1e-15, math.Min(1-1e-15, r))
		z := math.Atanh(r) * math.Sqrt(float64(n-len(s)-3))
		return 2 * distuv.UnitNormal.Survival(math.Abs(z)), nil
	}, nil
}
