package gp

import (
	"math"
	"testing"
)

// gk15 are the Gauss–Kronrod 7–15 nodes on [−1, 1] (QUADPACK's qk15):
// the Kronrod nodes ±gk15x[i] with weights gk15w[i], the Gauss nodes among
// them (odd i, and 0) with weights gk7w.
var (
	gk15x = [8]float64{0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
		0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
		0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
		0.207784955007898467600689403773245, 0}
	gk15w = [8]float64{0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
		0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
		0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
		0.204432940075298892414161999234649, 0.209482141084727828012999174891714}
	gk7w = [4]float64{0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
		0.381830050505118944950369775488975, 0.417959183673469387755102040816327}
)

// gk15 is ∫_a^b of the three components of fn by the 15-point Kronrod rule,
// with the difference from the 7-point Gauss rule as its error estimate.
func gk15(fn func(t float64) [3]float64, a, b float64) (k, err [3]float64) {
	mid, half := (a+b)/2, (b-a)/2
	var g [3]float64
	for i := 0; i < 8; i++ {
		pts := []float64{mid - half*gk15x[i], mid + half*gk15x[i]}
		if i == 7 {
			pts = pts[:1]
		}
		for _, t := range pts {
			f := fn(t)
			for c := range k {
				k[c] += gk15w[i] * f[c]
				if i%2 == 1 {
					g[c] += gk7w[i/2] * f[c]
				} else if i == 7 {
					g[c] += gk7w[3] * f[c]
				}
			}
		}
	}
	for c := range k {
		k[c] *= half
		err[c] = math.Abs(k[c] - g[c]*half)
	}
	return k, err
}

// adaptGK is ∫_a^b fn by adaptive Gauss–Kronrod, bisecting until each
// piece's error estimate is below tol[c] or its own rounding for every
// component (or 40 levels deep).
func adaptGK(fn func(t float64) [3]float64, a, b float64, tol [3]float64, depth int) [3]float64 {
	k, err := gk15(fn, a, b)
	ok := true
	for c := range k {
		// The estimate cannot fall below the sum's own rounding.
		ok = ok && err[c] <= math.Max(tol[c], 1e-15*math.Abs(k[c]))
	}
	if ok || depth >= 40 {
		return k
	}
	m := (a + b) / 2
	half := [3]float64{tol[0] / 2, tol[1] / 2, tol[2] / 2}
	l := adaptGK(fn, a, m, half, depth+1)
	r := adaptGK(fn, m, b, half, depth+1)
	return [3]float64{l[0] + r[0], l[1] + r[1], l[2] + r[2]}
}

// tiltedLogitRef is the logistic's tilted log Ẑ, mean and variance by
// adaptive Gauss–Kronrod, independently of tiltedLogitRule: the tilted log
// density h(f) = log σ(yf) − (f − m)²/2v (log σ by log1p) is concave with
// h” ≤ −1/v, so its mass lies within 15 cavity sds of its mode f̂ (found
// by bisection on h') to e^−110; that range is cut at y·{0, ±1, ..., ±64}
// and into pieces at most one sd long, each integrated adaptively to 10⁻¹⁶
// of a first estimate of each moment's scale.
func tiltedLogitRef(y, m, v float64) (logZ, mean, vr float64) {
	sd := math.Sqrt(v)
	logSig := func(t float64) float64 {
		if t >= 0 {
			return -math.Log1p(math.Exp(-t))
		}
		return t - math.Log1p(math.Exp(t))
	}
	dh := func(f float64) float64 { return y/(1+math.Exp(y*f)) - (f-m)/v }
	a, b := m-1, m+1
	for dh(a) <= 0 {
		a -= 2 * (m - a)
	}
	for dh(b) >= 0 {
		b += 2 * (b - m)
	}
	for range 400 {
		c := (a + b) / 2
		if c <= a || c >= b {
			break
		}
		if dh(c) > 0 {
			a = c
		} else {
			b = c
		}
	}
	mode := (a + b) / 2
	dm := mode - m
	top := logSig(y*mode) - dm*dm/(2*v)
	// The integrand at offset o from the mode (f − m = dm + o keeps its
	// digits at narrow cavities far from 0).
	fn := func(o float64) [3]float64 {
		r := dm + o
		e := math.Exp(logSig(y*(mode+o)) - r*r/(2*v) - top)
		return [3]float64{e, e * o, e * o * o}
	}
	lo, hi := -15*sd, 15*sd
	cuts := []float64{lo}
	for _, g := range []float64{-64, -32, -16, -8, -4, -2, -1, 0, 1, 2, 4, 8, 16, 32, 64} {
		if g -= mode; g > lo && g < hi {
			cuts = append(cuts, g)
		}
	}
	cuts = append(cuts, hi)
	// A first estimate of each moment's scale, then the adaptive sums.
	scale := [3]float64{}
	var pieces [][2]float64
	for i := 0; i+1 < len(cuts); i++ {
		k := int(math.Ceil((cuts[i+1] - cuts[i]) / sd))
		h := (cuts[i+1] - cuts[i]) / float64(k)
		for j := 0; j < k; j++ {
			pa := cuts[i] + h*float64(j)
			pieces = append(pieces, [2]float64{pa, pa + h})
			s, _ := gk15(fn, pa, pa+h)
			scale[0] += math.Abs(s[0])
			scale[1] += math.Abs(s[1])
			scale[2] += math.Abs(s[2])
		}
	}
	tol := [3]float64{1e-16 * scale[0], 1e-16 * scale[1], 1e-16 * scale[2]}
	var tot [3]float64
	for _, p := range pieces {
		s := adaptGK(fn, p[0], p[1], tol, 0)
		for c := range tot {
			tot[c] += s[c]
		}
	}
	mu := tot[1] / tot[0]
	vr = tot[2]/tot[0] - mu*mu
	return top + math.Log(tot[0]) - 0.5*math.Log(2*math.Pi*v), mode + mu, vr
}

// tiltedErr is how far (lz, mn, vr) is from the reference (lz0, mn0, vr0):
// log Ẑ absolute, the mean in tilted sds, the variance relative.
func tiltedErr(lz, mn, vr, lz0, mn0, vr0 float64) (ez, em, ev float64) {
	return math.Abs(lz - lz0), math.Abs(mn-mn0) / math.Sqrt(vr0), math.Abs(vr-vr0) / vr0
}

// tiltedCavities are the cavities the tests and studies/tiltquad try: means
// from 50 below to 50 above 0 and variances 10⁻⁴ to 10⁴, and the very wide
// cavities of EP's ML-II fit of examples/gp_classify.kml (variances up to
// 10¹³, means −1.2 to 6 sds on the label's side).
func tiltedCavities() (cs [][2]float64) {
	for _, m := range []float64{-50, -20, -5, -1, -0.3, 0, 0.7, 3, 10, 25, 50} {
		for _, v := range []float64{1e-4, 0.01, 0.1, 1, 4, 25, 100, 1e3, 1e4} {
			cs = append(cs, [2]float64{m, v})
		}
	}
	for _, v := range []float64{1e5, 1e7, 1e9, 1e11, 1e13} {
		for _, z := range []float64{-1.2, 0, 1, 3, 6} {
			cs = append(cs, [2]float64{z * math.Sqrt(v), v})
		}
	}
	return cs
}

// TestTiltedLogit: the logistic's tilted log Ẑ, mean and variance by
// tiltedLogit's Gauss–Legendre panels equal those of tiltedLogitRef
// (adaptive Gauss–Kronrod, computed here) to 10⁻¹² (log Ẑ absolute, the
// mean in tilted sds, the variance relative) for both labels over
// tiltedCavities; the reference itself is checked by the label's symmetry
// (y = −1 at −m mirrors y = 1 at m) and by Ẑ(1) + Ẑ(−1) = 1.
func TestTiltedLogit(t *testing.T) {
	worst := [3]float64{}
	for _, c := range tiltedCavities() {
		m, v := c[0], c[1]
		z0, m0, v0 := tiltedLogitRef(1, m, v)
		zn, mn, vn := tiltedLogitRef(-1, -m, v)
		if d := math.Abs(z0-zn) + math.Abs(m0+mn)/math.Sqrt(v0) + math.Abs(v0-vn)/v0; !(d <= 1e-13) {
			t.Errorf("reference not symmetric in the label at N(%g, %g): %.16g %.16g %.16g / %.16g %.16g %.16g", m, v, z0, m0, v0, zn, mn, vn)
		}
		if zo, _, _ := tiltedLogitRef(-1, m, v); !(math.Abs(math.Exp(z0)+math.Exp(zo)-1) <= 1e-13) {
			t.Errorf("reference Ẑ(1) + Ẑ(−1) = %.16g at N(%g, %g)", math.Exp(z0)+math.Exp(zo), m, v)
		}
		for _, y := range []float64{-1, 1} {
			zr, mr, vr := z0, m0, v0
			if y < 0 {
				zr, mr, vr = tiltedLogitRef(-1, m, v)
			}
			z1, m1, v1, _ := tiltedLogit(y, m, v)
			ez, em, ev := tiltedErr(z1, m1, v1, zr, mr, vr)
			worst = [3]float64{math.Max(worst[0], ez), math.Max(worst[1], em), math.Max(worst[2], ev)}
			if !(ez <= 1e-12 && em <= 1e-12 && ev <= 1e-12) {
				t.Errorf("y %g, cavity N(%g, %g): log Z %.16g / %.16g, mean %.16g / %.16g, variance %.16g / %.16g", y, m, v, z1, zr, m1, mr, v1, vr)
			}
		}
	}
	t.Logf("largest error against the reference: log Z %.1e, mean %.1e sd, variance %.1e relative", worst[0], worst[1], worst[2])
}

// TestTiltedLogitHuge: at cavity variances far past any in
// tiltedCavities (10²⁰ to 10³³, which L-BFGS's line searches reach when
// EP's evidence keeps rising with the amplitude), the logistic is a step
// on the cavity's scale, so the tilted distribution is the cavity cut at
// 0: with α = y·m/√v and λ = φ(α)/Φ(α), Ẑ = Φ(α), mean m + y√v·λ and
// variance v(1 − λ(λ + α)), to O(1/√v). tiltedLogit must agree to 10⁻⁹
// (log Ẑ absolute, the mean in sds, the variance relative) and end.
func TestTiltedLogitHuge(t *testing.T) {
	for _, v := range []float64{1e20, 1e26, 1e33} {
		sd := math.Sqrt(v)
		for _, a := range []float64{-1, 0, 0.5, 2} {
			for _, y := range []float64{-1, 1} {
				m := y * a * sd
				phi := math.Exp(-a*a/2) / math.Sqrt(2*math.Pi)
				cdf := 0.5 * math.Erfc(-a/math.Sqrt2)
				lam := phi / cdf
				z, mn, vr, _ := tiltedLogit(y, m, v)
				ez, em, ev := tiltedErr(z, mn, vr, math.Log(cdf), m+y*sd*lam, v*(1-lam*(lam+a)))
				if !(ez <= 1e-9 && em <= 1e-9 && ev <= 1e-9) {
					t.Errorf("y %g, cavity N(%g, %g): log Z %.12g, mean %.12g, variance %.12g; cut-off cavity %.12g %.12g %.12g", y, m, v, z, mn, vr, math.Log(cdf), m+y*sd*lam, v*(1-lam*(lam+a)))
				}
			}
		}
	}
}
