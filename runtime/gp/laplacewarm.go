package gp

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// LaplaceWarm is Laplace's approximation (laplace.go) with GPML's warm
// start (infLaplace's persistent alpha): each Fit starts Newton's method
// from the α̂ the previous Fit converged to when Ψ(α) = log P(y | Kα) −
// ½αᵀKα, under the new kernel matrix, is at least its value at α = 0, and
// from zero otherwise. It also keeps the α̂ before that one and starts
// from whichever of the two has the higher Ψ: after a far trial point (a
// line search's overshoot, the check at infinity after a fit) the next
// point near the earlier ones starts from their mode, not the far one. An optimiser's next point is close to its last, so
// the mode moves little and a warm start saves most of the Newton steps:
// on examples/gp_classify.kml's data a cold mode takes 6–10 steps, each a
// Cholesky factor of B = I + W^½KW^½.
//
// Newton's stopping rule is unchanged, so a warm Fit returns a mode that
// satisfies the same test as a cold one, and the log marginal likelihood,
// stationary in f at the mode, agrees with a cold Fit's to within
// rounding (TestLaplaceWarm). It starts warm only for the log-concave
// likelihoods (logistic, Poisson, negative binomial), whose Ψ has one
// maximum; with Student-t observations Ψ can have several and a start
// could choose among them, so those Fits are cold.
//
// A second Fit at the same K, y and likelihood (a fingerprint of their
// bits) returns the first's numbers to the bit: it starts from the first
// Fit's α̂ when that passed Newton's gradient test (a fixed point: no
// step is taken), and otherwise from where the first Fit started, so that
// the same steps are taken again. That is what lets a model's replay at a
// point its walk has just evaluated agree with the walk (lang/model's
// replay check). A LaplaceWarm belongs to one sequence of evaluations
// (one optimiser run, one chain) and is not safe for concurrent use; a
// sequence of Fits from a fresh LaplaceWarm gives the same numbers every
// time.
type LaplaceWarm struct {
	// alpha is the last Fit's α̂, from the α it started at (empty: zero)
	// and prev the α̂ of the Fit before; fixed says alpha passed the
	// gradient test; key fingerprints the last Fit's K, y and likelihood.
	alpha, from, prev []float64
	fixed             bool
	key               uint64
	// Warm and Cold count the Fits that started from a previous mode and
	// from zero.
	Warm, Cold int
}

// Fit is LaplaceApprox.Fit from the start GPML's rule picks among the
// last two modes (the same start as the last Fit for the same problem).
func (w *LaplaceWarm) Fit(K *mat.SymDense, y []float64, l Lik, needs Needs) (*Posterior, error) {
	key := fingerprint(K, y, l)
	var start []float64
	if key == w.key {
		// The same problem: from the fixed point, or the same steps again.
		start = w.alpha
		if !w.fixed {
			start = w.from
		}
		if _, ok := w.psi(K, y, l, start); !ok {
			start = nil
		}
	} else {
		best := math.Inf(-1)
		for _, c := range [][]float64{w.alpha, w.prev} {
			if v, ok := w.psi(K, y, l, c); ok && v > best {
				start, best = c, v
			}
		}
	}
	if start != nil {
		w.Warm++
	} else {
		w.Cold++
	}
	p, fixed, err := laplaceFitFrom(K, y, l, needs, start)
	if err != nil && start != nil {
		// The warm start led nowhere: from zero, as a cold Fit would.
		w.Warm--
		w.Cold++
		start = nil
		p, fixed, err = laplaceFitFrom(K, y, l, needs, nil)
	}
	if err != nil {
		w.alpha, w.from, w.prev, w.key = w.alpha[:0], w.from[:0], w.prev[:0], 0
		return nil, err
	}
	w.from = append(w.from[:0], start...)
	if key != w.key {
		w.prev, w.alpha = w.alpha, w.prev
	}
	w.alpha = append(w.alpha[:0], p.Alpha...)
	w.fixed, w.key = fixed, key
	return p, nil
}

// psi returns Ψ(alpha) under K and whether alpha is a start for it: a
// log-concave likelihood, an α of the right length and Ψ(α) ≥ Ψ(0).
func (w *LaplaceWarm) psi(K *mat.SymDense, y []float64, l Lik, alpha []float64) (float64, bool) {
	n := K.SymmetricDim()
	if len(alpha) != n || n == 0 {
		return 0, false
	}
	if !l.logConcave() {
		return 0, false
	}
	kf := fullSymTo(square(n), K)
	defer release(kf)
	f := make([]float64, n)
	symVec(f, kf, alpha)
	warm, zero := 0.0, 0.0
	for i := range f {
		lp, _, _, _ := l.derivs(y[i], f[i])
		l0, _, _, _ := l.derivs(y[i], 0)
		warm += lp - 0.5*alpha[i]*f[i]
		zero += l0
	}
	return warm, warm >= zero
}

// fingerprint hashes the bits of K's upper triangle, y and l (FNV-1a over
// 64-bit words): equal problems have equal fingerprints, and different
// ones collide with probability about 2⁻⁶⁴ (a collision would only pick
// another start, which the rule above still checks).
func fingerprint(K *mat.SymDense, y []float64, l Lik) uint64 {
	h := fnvUpper(fnvOffset, K)
	for _, v := range y {
		h = fnvMix(h, math.Float64bits(v))
	}
	h = fnvMix(h, uint64(l.Kind))
	for _, v := range l.Params {
		h = fnvMix(h, math.Float64bits(v))
	}
	return h
}

// FNV-1a's offset basis and prime, mixing one 64-bit word at a time.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

func fnvMix(h, v uint64) uint64 { return (h ^ v) * fnvPrime }

// fnvUpper mixes the bits of K's upper triangle into h.
func fnvUpper(h uint64, K *mat.SymDense) uint64 {
	raw := K.RawSymmetric()
	for i := 0; i < raw.N; i++ {
		for _, v := range raw.Data[i*raw.Stride+i : i*raw.Stride+raw.N] {
			h = fnvMix(h, math.Float64bits(v))
		}
	}
	return h
}

// logConcave says whether log P(y | f) is concave in f, so that Laplace's
// Ψ has one maximum and EP is not known to have several fixed points: the
// logistic, Poisson, negative binomial (log link) and Laplace
// likelihoods, not the Student-t. The warm starts are for these alone.
func (l Lik) logConcave() bool {
	switch l.Kind {
	case Logit, Poisson, NegBinomial, Laplace:
		return true
	}
	return false
}
