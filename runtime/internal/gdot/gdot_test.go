package gdot

import (
	"fmt"
	"math"
	"testing"

	"github.com/kml-lang/kml/runtime/internal/cpufeat"
	"github.com/kml-lang/kml/runtime/rng"
)

// TestDot: on every path, Dot agrees with the direct sum to
// (len/8 + 4)·2⁻⁵² of Σ|terms| (the Go path rounds each product, the
// vector paths fuse), and the vector paths agree with each other to the
// bit, for lengths that leave every tail and offsets into the index.
func TestDot(t *testing.T) {
	r := rng.New(3, rng.Stream(0x67646f74)) // "gdot"
	const n = 301
	y := make([]float64, n)
	for i := range y {
		y[i] = r.NormFloat64()
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	r.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	ix, err := NewIndex(perm, n)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = r.NormFloat64() * math.Exp(3*r.NormFloat64()) // sizes differ: rounding shows
	}
	for _, c := range []struct{ lo, len int }{{0, 0}, {0, 5}, {3, 8}, {1, 17}, {0, n}, {100, 150}, {290, 11}} {
		var vec []float64
		for _, l := range cpufeat.Levels() {
			t.Run(fmt.Sprintf("%v/lo=%d/len=%d", l, c.lo, c.len), func(t *testing.T) {
				defer cpufeat.Use(l)()
				got := Dot(x[:c.len], y, ix, c.lo)
				want, mag := 0.0, 0.0
				for j := 0; j < c.len; j++ {
					v := x[j] * y[perm[c.lo+j]]
					want += v
					mag += math.Abs(v)
				}
				if tol := float64(c.len/8+4) * 0x1p-52 * mag; math.Abs(got-want) > tol {
					t.Fatalf("%v, direct %v (tolerance %v)", got, want, tol)
				}
				if l == cpufeat.None {
					return
				}
				if vec == nil {
					vec = []float64{got}
				} else if math.Float64bits(got) != math.Float64bits(vec[0]) {
					t.Fatalf("%v, the other vector path %v", got, vec[0])
				}
			})
		}
	}
}

func TestNewIndexRefuses(t *testing.T) {
	for _, idx := range [][]int{{0, 3}, {-1}} {
		if _, err := NewIndex(idx, 3); err == nil {
			t.Errorf("%v accepted below 3", idx)
		}
	}
}
