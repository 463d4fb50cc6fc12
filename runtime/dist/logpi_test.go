package dist

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The Cauchy and half-Cauchy log densities take log π once (logPi); they
// give the bits of the expressions with math.Log(math.Pi) written out, on
// random points and scales, including x = 0, tails and tiny scales.
func TestCauchyLogPiSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 0x6c6f6770)) // "logp"
	for k := 0; k < 2000; k++ {
		x := r.NormFloat64() * math.Exp(8*r.NormFloat64())
		if k%50 == 0 {
			x = 0
		}
		m := r.NormFloat64()
		s := math.Exp(10 * r.NormFloat64())
		z := (x - m) / s
		want := -math.Log(math.Pi) - math.Log(s) - math.Log1p(z*z)
		if got := (cauchy{}).LogProb(x, []float64{m, s}); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("cauchy(%v, %v) at %v: %v, want %v", m, s, x, got, want)
		}
		ax := math.Abs(x)
		z = ax / s
		want = math.Ln2 - math.Log(math.Pi) - math.Log(s) - math.Log1p(z*z)
		if got := (halfCauchy{}).LogProb(ax, []float64{s}); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("half_cauchy(%v) at %v: %v, want %v", s, ax, got, want)
		}
	}
}
