package dist

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFixedBitIdentical: every Fixed family's prepared log density equals
// LogProb to the bit, over random parameters and values (including far
// tails), since loo's pointwise values must not change with it.
func TestFixedBitIdentical(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 7))
	n := 0
	for _, name := range Names() {
		f, _ := Lookup(name)
		fx, ok := f.(Fixed)
		if !ok {
			continue
		}
		n++
		for range 200 {
			p := []float64{r.NormFloat64() * 10, math.Exp(r.NormFloat64() * 3)}
			if f.Check(p) != nil {
				continue
			}
			lp := fx.Fixed(p)
			for range 50 {
				x := p[0] + r.NormFloat64()*p[1]*math.Exp(r.NormFloat64()*2)
				if got, want := lp(x), f.LogProb(x, p); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("%s%v at %v: Fixed %v, LogProb %v", name, p, x, got, want)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no family is Fixed")
	}
}
