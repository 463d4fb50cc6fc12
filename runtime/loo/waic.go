package loo

import (
	"fmt"
	"math"
)

// WAIC is the widely applicable information criterion of a model
// (Watanabe 2010) as R's loo computes it: elpd_waic = lpd − p_waic, with
// p_waic_i the variance of the log likelihood over the draws, and
// waic = −2 elpd_waic; pointwise values one per observation.
type WAIC struct {
	Elpd, P, IC    Estimate
	ElpdI, PI, ICI []float64
	S, N           int
	// Large counts the p_waic_i above 0.4.
	Large int
}

// Warnings is R's warning when some p_waic_i exceed 0.4.
func (w *WAIC) Warnings() []string {
	if w.Large == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d (%.1f%%) p_waic estimates greater than 0.4. We recommend trying loo instead.", w.Large, 100*float64(w.Large)/float64(w.N))}
}

// ComputeWAIC is WAIC of the pointwise log likelihood ll (one slice of S
// draws per observation).
func ComputeWAIC(ll [][]float64) (*WAIC, error) {
	n := len(ll)
	if n == 0 {
		return nil, fmt.Errorf("no observations")
	}
	S := len(ll[0])
	if S < 2 {
		return nil, fmt.Errorf("%d draws; WAIC needs at least 2", S)
	}
	w := &WAIC{S: S, N: n, ElpdI: make([]float64, n), PI: make([]float64, n), ICI: make([]float64, n)}
	for i, x := range ll {
		if len(x) != S {
			return nil, fmt.Errorf("observation %d has %d draws, the first %d", i+1, len(x), S)
		}
		lpd := logSumExp(x) - math.Log(float64(S))
		mean := 0.0
		for _, v := range x {
			mean += v
		}
		mean /= float64(S)
		ss := 0.0
		for _, v := range x {
			ss += (v - mean) * (v - mean)
		}
		p := ss / float64(S-1)
		if math.IsNaN(lpd) || math.IsNaN(p) || math.IsInf(p, 0) {
			return nil, fmt.Errorf("observation %d: its log likelihood is not finite at every draw", i+1)
		}
		w.ElpdI[i], w.PI[i], w.ICI[i] = lpd-p, p, -2*(lpd-p)
		if p > 0.4 {
			w.Large++
		}
	}
	w.Elpd, w.P, w.IC = estimate(w.ElpdI), estimate(w.PI), estimate(w.ICI)
	return w, nil
}
