package gp

import (
	"math"

	"gonum.org/v1/gonum/integrate/quad"
)

// The logistic's tilted integrals (tiltedLogit) are by the trapezoid rule
// with step min(epTrapStep, epTrapStep·sd) on the line (tiltedLogitTrap)
// when that takes at most epTrapMost nodes, else (cavity variances above
// about 10⁴) by Gauss–Legendre panels (tiltedLogitRule) of epGLNodes nodes,
// at most epGLWidth cavity sds wide and spanning at most epGLDrop nats;
// both over the range where the integrand is within e^−epGLRange of its
// largest value. studies/tiltquad chose them: over cavities with variance
// 10⁻⁴ to 10¹³ and means up to 50 (or 6 sds) either side of the label,
// they agree with an adaptive Gauss–Kronrod reference to 1.1·10⁻¹³ (log Ẑ,
// absolute; the mean, in tilted sds; the variance, relative), where the
// composite Simpson rule they replaced erred by up to 5·10⁻⁶ (variances
// ≤ 10⁴) and 5·10⁻⁴ (wider) with 757 nodes on average (at most 1220),
// against 168 (at most 738) trapezoid nodes, most of them costing a few
// multiplications, or 258 (at most 276) Gauss–Legendre nodes.
const (
	epTrapStep = 0.5
	epTrapMost = 1024
	epGLNodes  = 12
	epGLWidth  = 3.0
	epGLDrop   = 8.0
	epGLRange  = 40.0
	epGLMost   = 200 // panels on either side, a guard
)

// epReset is how many nodes tiltedLogitTrap carries its products across
// before it recomputes them by exp (a relative rounding error of at most
// about epReset²·2⁻⁵³ ≈ 10⁻¹³ in between).
const epReset = 32

// epGLCuts are the logistic's graded cuts: σ(t) has its poles at t = ±iπ,
// ±3iπ, ..., so a panel [2ᵏ, 2ᵏ⁺¹] (or [−1, 1]) is at least 5.8 times its
// own half-width from each, and Gauss–Legendre converges on it like
// 5.8^−2n; beyond 32, σ(−|t|) < 1.3·10⁻¹⁴ and the integrand is the
// Gaussian's alone.
var epGLCuts = [...]float64{-32, -16, -8, -4, -2, -1, 1, 2, 4, 8, 16, 32}

// glRule is the n-node Gauss–Legendre rule on [−1, 1].
type glRule struct{ x, w []float64 }

// glRules[n] is the n-node rule, for n up to 24 (tiltedLogitRule).
var glRules = func() (r [25]glRule) {
	for n := 2; n < len(r); n++ {
		r[n] = glRule{make([]float64, n), make([]float64, n)}
		quad.Legendre{}.FixedLocations(r[n].x, r[n].w, -1, 1)
	}
	return r
}()

// tiltedLogit is tilted for the logistic likelihood (y = ±1): log Ẑ and the
// tilted mean and variance of σ(yf) N(f | m, v), with the likelihood
// evaluations taken, by tiltedLogitTrap or else tiltedLogitRule.
func tiltedLogit(y, m, v float64) (logZ, mean, vr float64, nodes int) {
	h := epTrapStep * math.Min(1, math.Sqrt(v))
	if logZ, mean, vr, nodes, ok := tiltedLogitTrap(y, m, v, h, epGLRange, epTrapMost); ok {
		return logZ, mean, vr, nodes
	}
	return tiltedLogitRule(y, m, v, epGLNodes, epGLWidth, epGLDrop, epGLRange)
}

// tiltedLogitRule is the logistic's tilted integral by Gauss–Legendre
// panels with n nodes each, each panel at most width cavity sds wide and
// spanning at most drop nats of the integrand's log, over the range where
// the integrand is within e^−rng of its largest value; it also returns the
// nodes used. In t = yf (whose moments are f's with the mean's sign flipped
// by y) the integrand is σ(t) N(t | m', v), m' = ym, and with
// log σ(t) = min(t, 0) − log(1 + e^{−|t|}),
//
//	σ(t) N(t | m', v) ∝ exp(u(t)) / (1 + e^{−|t|}),  u(t) = min(t, 0) − (t − m')²/2v.
//
// u is concave, largest at c = m' if m' ≥ 0, m' + v if that is < 0, 0
// otherwise, and on either side of 0 the quadratic u(t) = u(t_v) −
// (t − t_v)²/2v with vertex t_v = m' (t ≥ 0) or m' + v (t ≤ 0); the factor
// 1/(1 + e^{−|t|}) lies in [½, 1], so beyond where u falls to u(c) − rng
// lies at most about e^−rng of Ẑ. The panels step outward from c on each
// side, ending at the graded cuts of epGLCuts and 0 (for σ's poles), the
// width limit (for the Gaussian near its centre) and the drop limit (for
// its tails: a panel's end is where u has fallen by drop from its start,
// in closed form). Nothing overflows: every weight is exp(u − u(c)) ≤ 1,
// and the moments are summed about c.
func tiltedLogitRule(y, m, v float64, n int, width, drop, rng float64) (logZ, mean, vr float64, nodes int) {
	mp := y * m
	sd := math.Sqrt(v)
	c, dc, u := logitCentre(mp, v)
	uc := u(0)
	g := glRules[n]
	var z, s1, s2 float64
	panel := func(a, b float64) {
		mid, half := (a+b)/2, (b-a)/2
		for j, x := range g.x {
			o := mid + half*x
			e := g.w[j] * half * math.Exp(u(o)-uc)
			if at := math.Abs(c + o); at < 37 {
				e /= 1 + math.Exp(-at)
			}
			z += e
			s1 += e * o
			s2 += e * o * o
		}
		nodes += n
	}
	for _, dir := range [2]float64{1, -1} {
		p := 0.0 // offset from c
		for panels := 0; u(p) > uc-rng && panels < epGLMost; panels++ {
			tv := -dc // the vertex of u's quadratic on p's side of 0
			if t := c + p; t < 0 || t == 0 && dir < 0 {
				tv = v - dc
			}
			// Where u has fallen by drop from p, moving away from the
			// vertex: |q − tv|² = |p − tv|² + 2v·drop, the step written
			// without cancellation (at v = 10³⁰ it is about drop/|u'(p)|).
			d := math.Abs(p - tv)
			q := p + dir*2*v*drop/(math.Sqrt(d*d+2*v*drop)+d)
			if w := p + dir*width*sd; (q-w)*dir > 0 {
				q = w
			}
			// The next cut beyond p (0 among them).
			for _, k := range epGLCutsAll {
				if k -= c; (k-p)*dir > 0 && (q-k)*dir > 0 {
					q = k
				}
			}
			if !((q-p)*dir > 0) {
				// c + p has no digits left for a step (|c| past 10¹⁵ at
				// a variance past 10³⁰): the panels end here.
				break
			}
			if dir > 0 {
				panel(p, q)
			} else {
				panel(q, p)
			}
			p = q
		}
	}
	mu := s1 / z
	vr = s2/z - mu*mu
	return uc + math.Log(z) - 0.5*math.Log(2*math.Pi*v), y * (c + mu), vr, nodes
}

// epGLCutsAll are epGLCuts with 0, where u's quadratic changes.
var epGLCutsAll = [...]float64{-32, -16, -8, -4, -2, -1, 0, 1, 2, 4, 8, 16, 32}

// tiltedLogitTrap is the logistic's tilted integral (as tiltedLogitRule,
// in t = yf about c) by the trapezoid rule with step h on the lattice
// through t = 0 (or through c, if 0 lies outside the range), over the
// range where u ≥ u(c) − rng; it returns ok = false, having done nothing,
// if that takes more than most nodes. The integrand is analytic in the
// strip |Im t| < π (σ's poles are at ±iπ) and falls off on both sides, so
// the trapezoid rule on the whole line converges geometrically, with an
// error about e^{−2π²/h} from the poles and e^{−2π²v/h²} from the
// Gaussian; the range's ends cost at most about e^−rng. On the lattice u is
// a quadratic in the node's index on either side of 0 and e^{−|t|} an
// exponential, so exp(u − u(c)) is carried from node to node by its ratio
// (itself multiplied by e^{−h²/v} each step) and e^{−|t|} by e^{∓h}, both
// recomputed exactly every epReset nodes.
func tiltedLogitTrap(y, m, v, h, rng float64, most int) (logZ, mean, vr float64, nodes int, ok bool) {
	mp := y * m
	c, dc, u := logitCentre(mp, v)
	uc := u(0)
	T := uc - rng
	// The ends: on t ≥ 0, u = −(dc + o)²/2v; on t ≤ 0, u has its vertex at
	// o_v = v − dc, where it is m' + v/2.
	ov := v - dc
	dNeg := math.Sqrt(math.Max(0, 2*v*(mp+v/2-T)))
	dPos := math.Sqrt(math.Max(0, -2*v*T))
	hi := -dc + dPos
	if c < 0 && u(-c) <= T {
		hi = ov + dNeg
	}
	lo := ov - dNeg
	if c > 0 && u(-c) <= T {
		lo = -dc - dPos
	}
	if (hi-lo)/h > float64(most) {
		return 0, 0, 0, 0, false
	}
	// The lattice o = phi + kh, through t = 0 (o = −c) if it is in range.
	phi := 0.0
	zero := lo < -c && -c < hi
	if zero {
		phi = -c
	}
	k0, k1 := int(math.Ceil((lo-phi)/h)), int(math.Floor((hi-phi)/h))
	var z, s1, s2 float64
	q := math.Exp(-h * h / v)
	// piece sums the nodes ka..kb (ascending), all on the side of 0 where
	// min(t, 0) = lin·t and |t| = sgn·t.
	piece := func(ka, kb int, lin, sgn float64) {
		dt := math.Exp(-sgn * h)
		var g, d, et float64
		for k := ka; k <= kb; k++ {
			o := phi + h*float64(k)
			if (k-ka)%epReset == 0 {
				r := dc + o
				g = math.Exp(lin*(c+o) - r*r/(2*v) - uc)
				d = math.Exp(lin*h - (r*h+0.5*h*h)/v)
				et = math.Exp(-sgn * (c + o))
			}
			e := g / (1 + et)
			z += e
			s1 += e * o
			s2 += e * o * o
			g *= d
			d *= q
			et *= dt
		}
		nodes += kb - ka + 1
	}
	switch {
	case zero:
		piece(k0, 0, 1, -1)
		piece(1, k1, 0, 1)
	case c+phi+h*float64(k0) < 0:
		piece(k0, k1, 1, -1)
	default:
		piece(k0, k1, 0, 1)
	}
	z *= h
	s1 *= h
	s2 *= h
	mu := s1 / z
	vr = s2/z - mu*mu
	return uc + math.Log(z) - 0.5*math.Log(2*math.Pi*v), y * (c + mu), vr, nodes, true
}

// logitCentre is where the tilted logistic's concave exponent u peaks, c
// (m' if m' ≥ 0, m' + v if that is < 0, 0 otherwise), with dc = c − m'
// exactly, and u as a function of the offset o from c: nodes are placed
// by their offset, so that t − m' = dc + o keeps its digits at narrow
// cavities far from 0 (tiltedLogitRule, tiltedLogitTrap).
func logitCentre(mp, v float64) (c, dc float64, u func(o float64) float64) {
	c = mp
	switch {
	case mp >= 0:
	case mp+v < 0:
		c, dc = mp+v, v
	default:
		c, dc = 0, -mp
	}
	return c, dc, func(o float64) float64 {
		r := dc + o
		return math.Min(c+o, 0) - r*r/(2*v)
	}
}
