package gp

import "math"

// epReset is how many nodes tiltedLogit carries its products across before
// it recomputes them by exp (a relative rounding error of at most about
// epReset²·2⁻⁵³ ≈ 10⁻¹³ in between).
const epReset = 32

// tiltedLogit is tilted for the logistic likelihood (y = ±1) on the same
// Simpson rule as tiltedSimpson, without a logarithm or an exponential at
// most nodes. With t = yf, log σ(t) = min(t, 0) − log(1 + e^{−|t|}), so
// the integrand's weight at a node is
//
//	exp(u − top) / (1 + e^{−|t|}),  u = min(t, 0) − (f − m)²/(2v),
//
// with top the largest u over the nodes (within log 2 of the largest log
// weight, so nothing overflows and the largest weight is at least ½). The
// kink of min(t, 0) is a cut of the rule, so on each piece u is a quadratic
// in the node's index j and e^{−|t|} an exponential: exp(u_j − top) is
// carried from node to node by the ratio exp(u_{j+1} − u_j), itself
// multiplied by exp(−h²/v) each step, and e^{−|t_j|} by e^{∓h}; both are
// recomputed exactly every epReset nodes. On a coarse piece (far from the
// kink, where a step can move u by hundreds) every node is exact.
func tiltedLogit(rule *simpsonRule, y, m, v float64) (logZ, mean, vr float64) {
	cuts := rule.cuts[:rule.pieces+1]
	// top: on each piece u is a concave quadratic in f, largest at
	// f* = m + lin·v, so over the nodes at the one or two nearest f*.
	top := math.Inf(-1)
	for i := 0; i < rule.pieces; i++ {
		a, b := cuts[i], cuts[i+1]
		k := rule.ks[i]
		h := (b - a) / float64(k)
		lin := 0.0
		if y*(a+b)/2 < 0 {
			lin = y
		}
		js := (m + lin*v - a) / h
		j0 := int(math.Max(0, math.Min(float64(k), math.Floor(js))))
		for _, j := range [2]int{j0, min(j0+1, k)} {
			f := a + h*float64(j)
			r := f - m
			if u := lin*f - 0.5*r*r/v; u > top {
				top = u
			}
		}
	}
	var z, s1, s2 float64
	for i := 0; i < rule.pieces; i++ {
		a, b := cuts[i], cuts[i+1]
		k := rule.ks[i]
		h := (b - a) / float64(k)
		// The piece's side of the kink: t = yf has one sign on it (its
		// mid-point's), so min(t, 0) = lin·f and |t| = sgn·f.
		mid := y * (a + b) / 2
		lin, sgn := 0.0, y
		if mid < 0 {
			lin, sgn = y, -y
		}
		fine := h <= 1 && 12*h <= math.Sqrt(v)
		q := math.Exp(-h * h / v) // ratio of successive ratios
		dt := math.Exp(-sgn * h)  // e^{−|t|} from node to node
		var g, d, et float64      // exp(u − top), its next ratio, e^{−|t|}
		for j := 0; j <= k; j++ {
			f := a + h*float64(j)
			r := f - m
			if !fine || j%epReset == 0 {
				u := lin*f - 0.5*r*r/v
				g = math.Exp(u - top)
				d = math.Exp(lin*h - (r*h+0.5*h*h)/v)
				et = math.Exp(-sgn * f)
			}
			e := simpsonWeight(j, k) * h / 3 * g / (1 + et)
			z += e
			s1 += e * r
			s2 += e * r * r
			g *= d
			d *= q
			et *= dt
		}
	}
	mu := s1 / z
	vr = s2/z - mu*mu
	return top + math.Log(z) - 0.5*math.Log(2*math.Pi*v), m + mu, vr
}
