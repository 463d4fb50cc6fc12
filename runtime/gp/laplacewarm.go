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
// point near the earlier ones starts from their mode, not the far one.
// An optimiser's next point is close to its last, so the mode moves
// little and a warm start saves most of the Newton steps: on
// examples/gp_classify.kml's data a cold mode takes 6–10 steps, each a
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
// bits) returns the first's numbers to the bit (warmStarts). That is what
// lets a model's replay at a point its walk has just evaluated agree with
// the walk (lang/model's replay check). A LaplaceWarm belongs to one
// optimiser run and is not safe for concurrent use; a sequence of Fits
// from a fresh LaplaceWarm gives the same numbers every time.
type LaplaceWarm struct {
	warmStarts[[]float64]
}

// Fit is LaplaceApprox.Fit from the start the rule picks among the last
// two modes (warmStarts).
func (w *LaplaceWarm) Fit(K *mat.SymDense, y []float64, l Lik, needs Needs) (*Posterior, error) {
	return warmFit(&w.warmStarts, fingerprint(K, y, l),
		func(a []float64) (float64, bool) { return laplaceStartPsi(K, y, l, a) },
		func(start []float64) (*Posterior, []float64, bool, error) {
			p, fixed, err := laplaceFitFrom(K, y, l, needs, start)
			if err != nil {
				return nil, nil, false, err
			}
			return p, p.Alpha, fixed, nil
		},
		func(dst, src []float64) []float64 { return append(dst[:0], src...) })
}

// laplaceStartPsi returns Ψ(alpha) under K and whether alpha is a start
// for it: a log-concave likelihood, an α of the right length and
// Ψ(α) ≥ Ψ(0).
func laplaceStartPsi(K *mat.SymDense, y []float64, l Lik, alpha []float64) (float64, bool) {
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
