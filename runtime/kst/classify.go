package kst

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Classify reconstructs a label from features with a density fitted to rows
// of features followed by a one-hot code of k labels (the paper's §4.2):
// for each row it evaluates the joint density with each of the k one-hot
// codes, renormalises over them, and returns the index (0..k−1) of the most
// probable label and the n×k matrix of probabilities. All n·k points go
// through one parallel LogPDF call.
func Classify(d Density, features *mat.Dense, k int) ([]int, *mat.Dense, error) {
	if features == nil || features.IsEmpty() {
		return nil, nil, fmt.Errorf("no features given")
	}
	n, p := features.Dims()
	if k < 2 {
		return nil, nil, fmt.Errorf("needs at least 2 labels, got %d", k)
	}
	if p+k != d.Dim() {
		return nil, nil, fmt.Errorf("the density has %d dimensions but %d feature columns and %d labels make %d", d.Dim(), p, k, p+k)
	}
	aug := mat.NewDense(n*k, p+k, nil)
	for i := 0; i < n; i++ {
		row := features.RawRowView(i)
		for l := 0; l < k; l++ {
			dst := aug.RawRowView(i*k + l)
			copy(dst, row)
			dst[p+l] = 1
		}
	}
	lp := make([]float64, n*k)
	if err := d.LogPDF(lp, aug); err != nil {
		return nil, nil, err
	}
	labels := make([]int, n)
	probs := mat.NewDense(n, k, nil)
	for i := 0; i < n; i++ {
		row := lp[i*k : (i+1)*k]
		best := 0
		for l, v := range row {
			if v > row[best] {
				best = l
			}
		}
		labels[i] = best
		top := row[best]
		out := probs.RawRowView(i)
		if math.IsInf(top, -1) { // every label impossible: uniform
			for l := range out {
				out[l] = 1 / float64(k)
			}
			continue
		}
		s := 0.0
		for l, v := range row {
			out[l] = math.Exp(v - top)
			s += out[l]
		}
		for l := range out {
			out[l] /= s
		}
	}
	return labels, probs, nil
}
