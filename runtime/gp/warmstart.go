package gp

import "math"

// warmStarts is the start rule that LaplaceWarm and MultiWarm share, for
// a mode of type T (α: []float64; a: C vectors, [][]float64). It keeps
// the last two modes found and the start of the last one:
//
//   - for the problem the last fit solved (the same fingerprint of K, the
//     observations and the likelihood), the last fit's mode when it passed
//     Newton's gradient test (a fixed point: no step is taken) and
//     otherwise the last fit's own start, so that the same steps are taken
//     again and the result is the last one to the bit;
//   - for another problem, whichever of the last two modes has the higher
//     Ψ under the new K, when that Ψ is at least Ψ at zero;
//   - zero otherwise, and again from zero when a warm fit fails.
type warmStarts[T any] struct {
	// alpha is the last fit's mode, from the start it began at (empty:
	// zero) and prev the mode of the fit before; fixed says alpha passed
	// the gradient test; key fingerprints the last fit's problem.
	alpha, from, prev T
	fixed             bool
	key               uint64
	// Warm and Cold count the fits started from a previous mode and from
	// zero.
	Warm, Cold int
}

// warmFit runs fit from the start w's rule picks for the problem with
// fingerprint key and records its mode. psi gives Ψ at a candidate under
// the problem's K and whether it is a start (false for an empty one or
// one below Ψ(0)); fit returns the posterior, its mode and whether the
// mode passed the gradient test; copyTo copies a mode into dst's storage
// (an empty one for the zero T).
func warmFit[T, P any](w *warmStarts[T], key uint64, psi func(T) (float64, bool),
	fit func(start T) (P, T, bool, error), copyTo func(dst, src T) T) (P, error) {
	var zero, start T
	warm := false
	if key == w.key {
		start = w.alpha
		if !w.fixed {
			start = w.from
		}
		_, warm = psi(start)
	} else {
		best := math.Inf(-1)
		for _, c := range []T{w.alpha, w.prev} {
			if v, ok := psi(c); ok && v > best {
				start, best, warm = c, v, true
			}
		}
	}
	if !warm {
		start = zero
	}
	p, mode, fixed, err := fit(start)
	if err != nil && warm {
		// The warm start led nowhere: from zero, as a cold fit would.
		start, warm = zero, false
		p, mode, fixed, err = fit(start)
	}
	if warm {
		w.Warm++
	} else {
		w.Cold++
	}
	if err != nil {
		w.alpha, w.from, w.prev = copyTo(w.alpha, zero), copyTo(w.from, zero), copyTo(w.prev, zero)
		w.key = 0
		return p, err
	}
	w.from = copyTo(w.from, start)
	if key != w.key {
		w.prev, w.alpha = w.alpha, w.prev
	}
	w.alpha = copyTo(w.alpha, mode)
	w.fixed, w.key = fixed, key
	return p, nil
}
