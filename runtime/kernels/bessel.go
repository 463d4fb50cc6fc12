package kernels

import "math"

// besselIve writes the exponentially scaled modified Bessel functions of
// the first kind e^(−a)·I_j(a), j = 0..len(dst)−1, into dst, for a > 0
// (finite). The periodic kernel's cosine series (periodicWeights) needs
// them: exp(a cos θ) = I_0(a) + 2 Σ_{j≥1} I_j(a) cos(jθ) (Abramowitz and
// Stegun 9.6.34), so that e^(−a)(I_0(a) + 2 Σ_{j≥1} I_j(a)) = 1.
//
// For a ≤ 1 the power series e^(−a) Σ_k (a/2)^(2k+j)/(k!(k+j)!) (A&S
// 9.6.10), each term from the last, the first in logarithms so that large j
// underflow to 0 rather than overflow on the way. For a > 1 Miller's
// backward recurrence I_(j−1) = (2j/a) I_j + I_(j+1) (A&S 9.6.26), the
// stable direction for I, started at N = J + 20 + a + √(80a) from
// (I_(N+1), I_N) = (0, 1) (by then e^(−a)I_j < e^(−40) of its largest
// value, as e^(−a)I_j ≈ exp(−j²/2a)/√(2πa) for large a), rescaled when the
// values grow past 10²⁵⁰, and normalised by the identity above — which
// makes the scaled values exact where e^a alone would overflow.
func besselIve(a float64, dst []float64) {
	J := len(dst) - 1
	if J < 0 {
		return
	}
	if !(a > 0) || math.IsInf(a, 0) {
		panic("kernels: besselIve needs a positive finite argument")
	}
	if a <= 1 {
		h := a / 2
		for j := range dst {
			lg, _ := math.Lgamma(float64(j + 1))
			term := math.Exp(float64(j)*math.Log(h) - lg - a)
			s := term
			for k := 1; k < 40 && term > 1e-18*s; k++ {
				term *= h * h / (float64(k) * float64(k+j))
				s += term
			}
			dst[j] = s
		}
		return
	}
	N := J + 20 + int(a) + int(math.Sqrt(80*a))
	for j := range dst {
		dst[j] = 0
	}
	next, cur := 0.0, 1.0 // I_(j+1), I_j up to a common factor, from j = N
	sum := 0.0            // Σ over the computed j ≥ 1 of I_j, same factor
	for j := N; j >= 1; j-- {
		if j <= J {
			dst[j] = cur
		}
		sum += cur
		prev := 2*float64(j)/a*cur + next
		next, cur = cur, prev
		if cur > 1e250 {
			const f = 1e-250
			next *= f
			cur *= f
			sum *= f
			for i := j; i <= J; i++ {
				dst[i] *= f
			}
		}
	}
	dst[0] = cur
	norm := 1 / (cur + 2*sum)
	for j := range dst {
		dst[j] *= norm
	}
}
