package gp

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// MultiWarm is the multi-class Laplace mode (MultiLaplaceMode) with
// LaplaceWarm's warm start: each mode starts Newton's method from the
// better, by Ψ under the new K, of the last two modes found, when that Ψ
// is at least Ψ at a = 0 (−n log C), and from zero otherwise; a mode for
// the same K, labels and C as the last one (a fingerprint of their bits)
// starts from the last one's â when that passed the gradient test, and
// otherwise from the last one's start, so that it is the last one to the
// bit. The softmax likelihood is log-concave, so Ψ has one maximum and a
// warm mode equals a cold one to within Newton's tolerance. A MultiWarm
// belongs to one optimiser run; a nil *MultiWarm starts every mode from
// zero.
type MultiWarm struct {
	warmStarts[[][]float64]
}

// mode is MultiLaplaceMode from the start w picks (warmStarts).
func (w *MultiWarm) mode(K *mat.SymDense, y []int, C int) (*MultiPosterior, error) {
	if w == nil {
		return MultiLaplaceMode(K, y, C)
	}
	return warmFit(&w.warmStarts, fingerprintMulti(K, y, C),
		func(a [][]float64) (float64, bool) { return multiStartPsi(K, y, C, a) },
		func(start [][]float64) (*MultiPosterior, [][]float64, bool, error) {
			p, fixed, err := multiLaplaceModeFrom(K, y, C, start)
			if err != nil {
				return nil, nil, false, err
			}
			return p, p.Alpha, fixed, nil
		},
		copyVecs)
}

// multiStartPsi returns Ψ(a) under K (f = Ka) and whether a is a start:
// C vectors of n with Ψ(a) ≥ Ψ(0) = −n log C.
func multiStartPsi(K *mat.SymDense, y []int, C int, a [][]float64) (float64, bool) {
	n := K.SymmetricDim()
	if len(a) != C || n == 0 {
		return 0, false
	}
	f, pi := make([][]float64, C), make([][]float64, C)
	for c := range C {
		if len(a[c]) != n {
			return 0, false
		}
		f[c], pi[c] = make([]float64, n), make([]float64, n)
		mat.NewVecDense(n, f[c]).MulVec(K, mat.NewVecDense(n, a[c]))
	}
	v := multiPsi(f, a, y, pi)
	return v, v >= -float64(n)*math.Log(float64(C))
}

// copyVecs copies src into dst's storage where it fits (nil src: nil).
func copyVecs(dst, src [][]float64) [][]float64 {
	if src == nil {
		return dst[:0]
	}
	if cap(dst) < len(src) {
		dst = make([][]float64, len(src))
	}
	dst = dst[:len(src)]
	for c := range src {
		dst[c] = append(dst[c][:0], src[c]...)
	}
	return dst
}

// fingerprintMulti is fingerprint (laplacewarm.go) for K, the labels and C.
func fingerprintMulti(K *mat.SymDense, y []int, C int) uint64 {
	h := fnvUpper(fnvOffset, K)
	for _, v := range y {
		h = fnvMix(h, uint64(v))
	}
	return fnvMix(h, uint64(C))
}
