package fastexp

import (
	"math"
	"math/big"
	"testing"

	"github.com/kml-lang/kml/runtime/internal/cpufeat"
	"github.com/kml-lang/kml/runtime/rng"
)

// path is one kernel of Exps: use selects it and returns a function that
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

// expsArgs returns seeded arguments over the whole range kernels use,
// [−708, 0], a little above (up to 709), and near the reduction boundaries,
// in an order that puts every kind in vector lanes and in tails.
func expsArgs() []float64 {
	r := rng.New(84, rng.Stream(0x65787073)) // "exps"
	xs := []float64{0, math.Copysign(0, -1), -1e-300, 1e-300, -1e-17, -0.5, 0.5, -math.Ln2 / 128, -math.Ln2, -1, -700, -708, 1, 10, 700, 709}
	for k := 0; k < 3000; k++ {
		xs = append(xs, -708*r.Float64(), -r.Float64(), 709*r.Float64(), 2*r.Float64())
		xs = append(xs, -math.Ln2/128*(float64(r.IntN(130700))+r.Float64()*1e-9))
	}
	return xs
}

// TestExps compares every kernel of Exps (the Go fallback always, AVX2 and
// AVX-512 where the CPU has them) with e^x to 200 bits over [−708, 709]:
// relative error below 3e-16, with lengths that leave tails of every size.
func TestExps(t *testing.T) {
	xs := expsArgs()
	ref := make([]*big.Float, len(xs))
	for i, x := range xs {
		ref[i] = refExp(x)
	}
	for _, p := range paths() {
		t.Run(p.name, func(t *testing.T) {
			defer p.use()()
			if p.name != "go" && Vectorised() != p.name {
				t.Fatalf("Vectorised() = %q", Vectorised())
			}
			var worst, worstX float64
			for _, n := range []int{len(xs), len(xs) - 1, len(xs) - 3, len(xs) - 7} {
				got := make([]float64, n)
				Exps(got, xs[:n], 1, 0)
				for i, g := range got {
					diff := new(big.Float).SetPrec(200).SetFloat64(g)
					diff.Sub(diff, ref[i])
					rel, _ := diff.Quo(diff, ref[i]).Float64()
					if math.Abs(rel) > worst || math.IsNaN(rel) {
						worst, worstX = math.Abs(rel), xs[i]
					}
				}
			}
			t.Logf("%s: largest relative error %.3g (%.2f ulp of 2⁻⁵²) at x = %v", p.name, worst, worst/0x1p-52, worstX)
			if !(worst <= 3e-16) {
				t.Errorf("relative error %g at x = %v exceeds 3e-16", worst, worstX)
			}
		})
	}
}

// TestExpsSpecial checks the values outside the accurate range in every
// lane position of two vectors and of the tail (17 = 2·8 + 1), that the
// tail writes nothing beyond the slice, and the affine argument a·x + b.
func TestExpsSpecial(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	cases := []struct{ x, want float64 }{
		{math.Inf(-1), 0}, {-708.5, 0}, {-745, 0}, {-1e300, 0}, {-math.MaxFloat64, 0},
		{709.5, inf}, {800, inf}, {inf, inf}, {0, 1}, {math.Copysign(0, -1), 1}, {nan, nan},
	}
	for _, p := range paths() {
		restore := p.use()
		for shift := 0; shift < 17; shift++ {
			for _, c := range cases {
				// The case at position shift among 17 ordinary values.
				xs := make([]float64, 17)
				for i := range xs {
					xs[i] = -0.25 * float64(i)
				}
				xs[shift] = c.x
				got := make([]float64, len(xs)+1)
				got[len(xs)] = -1 // must be left alone by the tail
				Exps(got[:len(xs)], xs, 1, 0)
				if got[len(xs)] != -1 {
					t.Fatalf("%s: Exps wrote past its slice", p.name)
				}
				got = got[:len(xs)]
				g := got[shift]
				if g != c.want && !(math.IsNaN(g) && math.IsNaN(c.want)) {
					t.Errorf("%s: e^%v at position %d = %v, want %v", p.name, c.x, shift, g, c.want)
				}
				for i, v := range got {
					if i != shift && math.Abs(v-math.Exp(xs[i])) > 3e-16*math.Exp(xs[i]) {
						t.Errorf("%s: e^%v beside %v = %v", p.name, xs[i], c.x, v)
					}
				}
			}
		}
		// The BKE row form: e^{−½(q − qmin)} through a = −½, b = ½ qmin, in place.
		q := []float64{3, 4.5, 2, 1e6, 7, 2.25, 30, 2, 5, 1500, 2.5}
		want := make([]float64, len(q))
		for i, v := range q {
			want[i] = ExpNegOrZero(-0.5 * (v - 2))
		}
		Exps(q, q, -0.5, 1)
		for i := range q {
			if math.Abs(q[i]-want[i]) > 3e-16*want[i] {
				t.Errorf("%s: a = −½, b = 1: got %v, want %v", p.name, q[i], want[i])
			}
		}
		restore()
	}
}

// BenchmarkExp is ns per element (ns/op ÷ 10⁶) of math.Exp, ExpNeg (the
// scalar fast exp, inlined) and Exps (vectorised where the CPU allows, and
// its Go fallback) on 10⁶ arguments in [−30, 0].
func BenchmarkExp(b *testing.B) {
	const n = 1_000_000
	r := rng.New(85, rng.Stream(0x65787073))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = -30 * r.Float64()
	}
	dst := make([]float64, n)
	perElem := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
	}
	b.Run("math.Exp", func(b *testing.B) {
		for b.Loop() {
			for i, x := range xs {
				dst[i] = math.Exp(x)
			}
		}
		perElem(b)
	})
	b.Run("ExpNeg", func(b *testing.B) {
		for b.Loop() {
			for i, x := range xs {
				dst[i] = ExpNeg(x)
			}
		}
		perElem(b)
	})
	for _, p := range paths() {
		b.Run("Exps/"+p.name, func(b *testing.B) {
			defer p.use()()
			for b.Loop() {
				Exps(dst, xs, 1, 0)
			}
			perElem(b)
		})
	}
}
