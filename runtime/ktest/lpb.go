package ktest

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// The null of RCIT's statistic is a weighted sum of chi-squares,
// Q = Σ_k λ_k χ²₁,k, whose distribution has no closed form. Three
// approximations match its moments, as the R package momentchi2 computes
// them (Bodenham and Adams 2016 compare them against Imhof's exact
// inversion): the gamma with Q's mean and variance; Hall–Buckley–Eagleson,
// a shifted and scaled χ²_ν matching three moments; and Lindsay, Pilla and
// Basak (2000), a mixture of p gammas with a common shape matching the
// first 2p moments (p = 4: "lpb4", RCIT's default), accurate far into the
// tail where the gamma is not.

// ChiSqApprox names an approximation to the distribution of a weighted sum
// of chi-squares.
type ChiSqApprox string

// The approximations.
const (
	// LPB4 is Lindsay–Pilla–Basak with four support points; with fewer
	// than four positive weights, or when its mixture is not a
	// distribution, it falls back to HBE, as RCIT's R package does.
	LPB4 ChiSqApprox = "lpb4"
	// HBE is Hall–Buckley–Eagleson's three-moment approximation.
	HBE ChiSqApprox = "hbe"
	// GammaChiSq is the two-moment gamma approximation.
	GammaChiSq ChiSqApprox = "gamma"
)

// weightedChiSqSurvival returns P(Σ λ_k χ²₁,k > t) under approximation a
// (the positive λ only), and the approximation used: LPB4 may fall back to
// HBE.
func weightedChiSqSurvival(t float64, lambda []float64, a ChiSqApprox) (float64, ChiSqApprox, error) {
	var pos []float64
	for _, l := range lambda {
		if l > 0 {
			pos = append(pos, l)
		}
	}
	if len(pos) == 0 {
		return math.NaN(), a, fmt.Errorf("the null's weights are all zero (constant features?)")
	}
	// Every approximation is scale-equivariant; with the weights summing
	// to 1 the moments LPB needs stay near 1.
	c := 0.0
	for _, l := range pos {
		c += l
	}
	for i := range pos {
		pos[i] /= c
	}
	t /= c
	switch a {
	case GammaChiSq:
		var s2 float64
		for _, l := range pos {
			s2 += l * l
		}
		return gammaSurvival(t, 1, 2*s2), a, nil
	case HBE:
		return hbeSurvival(t, pos), a, nil
	case LPB4:
		if p, ok := lpbSurvival(t, pos, 4); ok {
			return p, a, nil
		}
		return hbeSurvival(t, pos), HBE, nil
	}
	return math.NaN(), a, fmt.Errorf(`the null's approximation must be "lpb4", "hbe" or "gamma", got %q`, a)
}

// hbeSurvival is the Hall–Buckley–Eagleson approximation: with cumulants
// κ₁ = Σλ, κ₂ = 2Σλ², κ₃ = 8Σλ³ and ν = 8κ₂³/κ₃², Q is approximately
// κ₁ + (χ²_ν − ν)·√(κ₂/(2ν)).
func hbeSurvival(t float64, lambda []float64) float64 {
	var k1, k2, k3 float64
	for _, l := range lambda {
		k1 += l
		k2 += 2 * l * l
		k3 += 8 * l * l * l
	}
	nu := 8 * k2 * k2 * k2 / (k3 * k3)
	u := math.Sqrt(2*nu/k2)*(t-k1) + nu
	if u <= 0 {
		return 1
	}
	return distuv.ChiSquared{K: nu}.Survival(u)
}

// weightedChiSqMoments returns the raw moments m₁ … m_k of Σ λ_i χ²₁,i
// from its cumulants κ_r = 2^{r−1}(r − 1)! Σ λ_i^r by
// m_n = κ_n + Σ_{j=1}^{n−1} C(n−1, j−1) κ_j m_{n−j}.
func weightedChiSqMoments(lambda []float64, k int) []float64 {
	kappa := make([]float64, k+1)
	for r := 1; r <= k; r++ {
		s := 0.0
		for _, l := range lambda {
			s += math.Pow(l, float64(r))
		}
		kappa[r] = math.Pow(2, float64(r-1)) * math.Gamma(float64(r)) * s
	}
	m := make([]float64, k+1)
	m[0] = 1
	for n := 1; n <= k; n++ {
		m[n] = kappa[n]
		for j := 1; j < n; j++ {
			m[n] += binomial(n-1, j-1) * kappa[j] * m[n-j]
		}
	}
	return m[1:]
}

func binomial(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// lpbDelta is the (N+1)×(N+1) Hankel matrix Δ_N(x) of the moments
// m₀ = 1, m₁, … m_{2N} (m[r−1] = m_r), entry (i, j) = m_{i+j}/Π_{k<i+j}(1 + kx):
// the moments of a gamma mixture's support points when the gammas' common
// shape is 1/x.
func lpbDelta(x float64, m []float64, N int) *mat.Dense {
	d := make([]float64, 2*N+1)
	d[0] = 1
	prod := 1.0
	for r := 1; r <= 2*N; r++ {
		prod *= 1 + float64(r-1)*x
		d[r] = m[r-1] / prod
	}
	out := mat.NewDense(N+1, N+1, nil)
	for i := 0; i <= N; i++ {
		for j := 0; j <= N; j++ {
			out.Set(i, j, d[i+j])
		}
	}
	return out
}

// lpbMixture is the Lindsay–Pilla–Basak mixture Σ_i π_i Gamma(shape
// 1/λ̃, scale μ_i λ̃).
type lpbMixture struct {
	lt     float64 // λ̃
	mu, pi []float64
}

// lpbFit is the Lindsay–Pilla–Basak approximation with p support points
// (momentchi2's lpb4 for p = 4): the mixture of p gammas with a common
// shape 1/λ̃ whose first 2p moments are Q's. λ̃ is the root of
// det Δ_p(x) = 0 found by bisection on (0, λ̃_{p−1}) from
// λ̃₁ = m₂/m₁² − 1; the support points μ_i are the roots of the polynomial
// det [Δ_p(λ̃) without its last row; 1, μ, …, μ^p] and the weights π solve
// the Vandermonde system Σ_i π_i μ_i^r = Δ_p(λ̃)_{r,0}, r < p. ok is false
// when a step fails (fewer than p weights, no sign change, a support point
// not positive).
func lpbFit(lambda []float64, p int) (lpbMixture, bool) {
	if len(lambda) < p {
		return lpbMixture{}, false
	}
	m := weightedChiSqMoments(lambda, 2*p)
	det := func(x float64, n int) float64 { return mat.Det(lpbDelta(x, m, n)) }
	lt := m[1]/(m[0]*m[0]) - 1
	for n := 2; n <= p; n++ {
		lo, hi := 0.0, lt
		flo, fhi := det(lo, n), det(hi, n)
		if flo == 0 || fhi == 0 || (flo > 0) == (fhi > 0) {
			return lpbMixture{}, false
		}
		for range 200 {
			mid := (lo + hi) / 2
			if mid <= lo || mid >= hi {
				break
			}
			fm := det(mid, n)
			if (fm > 0) == (flo > 0) {
				lo, flo = mid, fm
			} else {
				hi = mid
			}
		}
		lt = (lo + hi) / 2
	}
	mp := lpbDelta(lt, m, p)
	// The polynomial's coefficient of μ^i is (−1)^i times the minor of
	// the first p rows without column i.
	coef := make([]float64, p+1)
	minor := mat.NewDense(p, p, nil)
	for i := 0; i <= p; i++ {
		for r := 0; r < p; r++ {
			c2 := 0
			for c := 0; c <= p; c++ {
				if c != i {
					minor.Set(r, c2, mp.At(r, c))
					c2++
				}
			}
		}
		coef[i] = mat.Det(minor)
		if i%2 == 1 {
			coef[i] = -coef[i]
		}
	}
	mu, ok := polyRealRoots(coef)
	if !ok {
		return lpbMixture{}, false
	}
	vdm := mat.NewDense(p, p, nil)
	b := mat.NewVecDense(p, nil)
	for r := 0; r < p; r++ {
		for j := 0; j < p; j++ {
			vdm.Set(r, j, math.Pow(mu[j], float64(r)))
		}
		b.SetVec(r, mp.At(r, 0))
	}
	var pi mat.VecDense
	if err := pi.SolveVec(vdm, b); err != nil {
		return lpbMixture{}, false
	}
	for _, v := range mu {
		if !(v > 0) {
			return lpbMixture{}, false
		}
	}
	return lpbMixture{lt: lt, mu: mu, pi: pi.RawVector().Data}, true
}

// survival is the mixture's upper tail at t; ok is false when it is not a
// probability (the weights π need not be positive).
func (m lpbMixture) survival(t float64) (float64, bool) {
	s := 0.0
	for j, mu := range m.mu {
		// Shape 1/λ̃ and scale μλ̃: rate 1/(μλ̃).
		s += m.pi[j] * distuv.Gamma{Alpha: 1 / m.lt, Beta: 1 / (mu * m.lt)}.Survival(t)
	}
	if math.IsNaN(s) || s < -1e-9 || s > 1+1e-9 {
		return 0, false
	}
	return math.Min(1, math.Max(0, s)), true
}

// lpbSurvival is the upper tail at t of lpbFit's mixture.
func lpbSurvival(t float64, lambda []float64, p int) (float64, bool) {
	m, ok := lpbFit(lambda, p)
	if !ok {
		return 0, false
	}
	return m.survival(t)
}

// polyRealRoots returns the real parts of the roots of Σ_i c_i x^i (as R's
// Re(polyroot(c))), from the eigenvalues of the companion matrix.
func polyRealRoots(c []float64) ([]float64, bool) {
	n := len(c) - 1
	if n < 1 || c[n] == 0 {
		return nil, false
	}
	comp := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		comp.Set(0, i, -c[n-1-i]/c[n])
		if i > 0 {
			comp.Set(i, i-1, 1)
		}
	}
	var e mat.Eigen
	if !e.Factorize(comp, mat.EigenNone) {
		return nil, false
	}
	vals := e.Values(nil)
	out := make([]float64, n)
	for i, v := range vals {
		out[i] = real(v)
	}
	return out, true
}
