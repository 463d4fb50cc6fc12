package linalg

import "gonum.org/v1/gonum/mat"

// RowMajor returns the matrix's elements row by row, without copying when
// they are contiguous (the result then shares x's storage).
func RowMajor(x *mat.Dense) []float64 {
	r, c := x.Dims()
	raw := x.RawMatrix()
	if raw.Stride == c {
		return raw.Data[:r*c]
	}
	out := make([]float64, 0, r*c)
	for i := 0; i < r; i++ {
		out = append(out, raw.Data[i*raw.Stride:i*raw.Stride+c]...)
	}
	return out
}
