package kernels

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// CheckData returns an error naming the first bad row of data x (rows are
// observations): empty, NaN or infinite values.
func CheckData(x *mat.Dense, what string) error {
	if x == nil || x.IsEmpty() {
		return fmt.Errorf("%s is empty", what)
	}
	r, c := x.Dims()
	if r == 0 || c == 0 {
		return fmt.Errorf("%s is empty", what)
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			v := x.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s has %v in row %d, column %d", what, v, i+1, j+1)
			}
		}
	}
	return nil
}

// checkInputs validates data for kernel k and, when y is not nil, that x
// and y have the same number of columns.
func checkInputs(k Kernel, x, y *mat.Dense) error {
	if err := CheckData(x, "the data"); err != nil {
		return err
	}
	_, dx := x.Dims()
	if y != nil {
		if err := CheckData(y, "the second data set"); err != nil {
			return err
		}
		if _, dy := y.Dims(); dy != dx {
			rx, _ := x.Dims()
			ry, _ := y.Dims()
			return fmt.Errorf("the data sets have different numbers of columns: %d×%d and %d×%d", rx, dx, ry, dy)
		}
	}
	if d := k.Dim(); d != 0 && d != dx {
		return fmt.Errorf("%s has %d lengthscales but the data has %d columns", k, d, dx)
	}
	return nil
}
