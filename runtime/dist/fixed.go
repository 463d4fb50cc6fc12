package dist

import "math"

// Fixed is a family that can prepare its log density at fixed parameters
// for many values: what depends on the parameters alone (normal's log σ)
// is computed once. The prepared function gives LogProb(x, p) to the bit;
// leave-one-out evaluates each observation's points this way at every
// draw. Check p first.
type Fixed interface {
	Fixed(p []float64) func(x float64) float64
}

// negLogRoot2Pi is −log √(2π) as gonum's distuv writes it (an exact
// constant; logSqrt2Pi is computed and may differ in the last bit).
const negLogRoot2Pi = -0.91893853320467274178032973640561763986139747363778341281715154048276569592726039769474329863595419762200564662463433744

// Fixed is distuv.Normal's LogProb with −log σ and 2σ² computed once:
// (−log √2π − log σ) − (x − μ)²/(2σ²), the same operations in the same
// order.
func (normal) Fixed(p []float64) func(x float64) float64 {
	mu, s := p[0], p[1]
	c := negLogRoot2Pi - math.Log(s)
	den := 2 * s * s
	return func(x float64) float64 { return c - (x-mu)*(x-mu)/den }
}
