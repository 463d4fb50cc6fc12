package sqdist

import (
	"fmt"
	"math"
	"testing"

	"github.com/kml-lang/kml/runtime/internal/cpufeat"
	"github.com/kml-lang/kml/runtime/rng"
)

// path is one kernel of Row: use selects it and returns a function that
// restores the previous choice.
type path struct {
	name string
	use  func() (restore func())
}

// paths returns the kernels this machine can run, "go" (the fallback)
// first, each with a function that selects it.
func paths() []path {
	var ps []path
	for _, l := range cpufeat.Levels() {
		name := l.String()
		if l == cpufeat.None {
			name = "go"
		}
		ps = append(ps, path{name, func() func() { return cpufeat.Use(l) }})
	}
	return ps
}

// TestRow compares every kernel (the Go fallback always, AVX2 and AVX-512
// where the CPU has them) with the direct sum, for dimensions 1 to 33 and
// row lengths that leave tails of every size, at an offset into a
// column-major block (as a symmetric Gram row starts at its diagonal).
func TestRow(t *testing.T) {
	r := rng.New(92, rng.Stream(0x73716473)) // "sqds"
	for _, p := range paths() {
		for _, d := range []int{1, 2, 3, 10, 33} {
			t.Run(fmt.Sprintf("%s/D=%d", p.name, d), func(t *testing.T) {
				defer p.use()()
				const m = 61
				yt := make([]float64, d*m)
				for i := range yt {
					yt[i] = 3 * r.NormFloat64()
				}
				x := make([]float64, d)
				for i := range x {
					x[i] = r.NormFloat64()
				}
				for _, j0 := range []int{0, 1, 5, 17, 53, 60, 61} {
					dst := make([]float64, m-j0+1)
					dst[m-j0] = -1 // must be left alone
					Row(dst[:m-j0], yt[j0:], m, x)
					for j := 0; j < m-j0; j++ {
						want := 0.0
						for c := 0; c < d; c++ {
							u := yt[c*m+j0+j] - x[c]
							want += u * u
						}
						if math.Abs(dst[j]-want) > 1e-15*want {
							t.Fatalf("j0 = %d, j = %d: %v, want %v", j0, j, dst[j], want)
						}
					}
					if dst[m-j0] != -1 {
						t.Fatalf("j0 = %d: wrote past the row", j0)
					}
				}
			})
		}
	}
}

// BenchmarkRow is ns per distance of a 5000-long row at D = 10.
func BenchmarkRow(b *testing.B) {
	const m, d = 5000, 10
	r := rng.New(93, rng.Stream(0x73716473))
	yt := make([]float64, d*m)
	for i := range yt {
		yt[i] = r.NormFloat64()
	}
	x := yt[:d]
	dst := make([]float64, m)
	for _, p := range paths() {
		b.Run(p.name, func(b *testing.B) {
			defer p.use()()
			for b.Loop() {
				Row(dst, yt, m, x)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*m), "ns/entry")
		})
	}
}

// TestRowExact checks that RowExact on every kernel equals, bit for bit,
// the scalar sum of rounded squares in the order of d, for dimensions 1
// to 33 and every tail length; a fused multiply-add changes the last bit
// of most entries.
func TestRowExact(t *testing.T) {
	r := rng.New(94, rng.Stream(0x73716478)) // "sqdx"
	for _, p := range paths() {
		for _, d := range []int{1, 2, 3, 8, 33} {
			t.Run(fmt.Sprintf("%s/D=%d", p.name, d), func(t *testing.T) {
				defer p.use()()
				const m = 61
				yt := make([]float64, d*m)
				for i := range yt {
					yt[i] = 3 * r.NormFloat64()
				}
				x := make([]float64, d)
				for i := range x {
					x[i] = r.NormFloat64()
				}
				for _, j0 := range []int{0, 1, 5, 17, 53, 60, 61} {
					dst := make([]float64, m-j0+1)
					dst[m-j0] = -1
					RowExact(dst[:m-j0], yt[j0:], m, x)
					for j := 0; j < m-j0; j++ {
						want := 0.0
						for c := 0; c < d; c++ {
							u := x[c] - yt[c*m+j0+j]
							want += float64(u * u)
						}
						if dst[j] != want {
							t.Fatalf("j0 = %d, j = %d: %v, want %v exactly", j0, j, dst[j], want)
						}
					}
					if dst[m-j0] != -1 {
						t.Fatalf("j0 = %d: wrote past the row", j0)
					}
				}
			})
		}
	}
}
