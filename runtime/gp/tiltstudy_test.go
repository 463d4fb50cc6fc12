package gp

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/kml-lang/kml/internal/cputime"
)

// TestTiltStudy is studies/tiltquad's table (KML_TILT_STUDY=1): for each
// candidate rule for the logistic's tilted integrals, its largest error
// against tiltedLogitRef over tiltedCavities (both labels) in log Ẑ
// (absolute), the mean (in tilted sds) and the variance (relative), for
// the cavities of variance ≤ 10⁴ and the wider ones apart, with the mean
// and largest count of likelihood evaluations and the time per integral.
func TestTiltStudy(t *testing.T) {
	if os.Getenv("KML_TILT_STUDY") == "" {
		t.Skip("studies/tiltquad: set KML_TILT_STUDY=1")
	}
	type rule struct {
		name string
		fn   func(y, m, v float64) (float64, float64, float64, int)
	}
	l := Lik{Kind: Logit}
	rules := []rule{{"simpson (before)", func(y, m, v float64) (float64, float64, float64, int) {
		r := l.tiltedRule(y, m, v)
		a, b, c := l.tiltedSimpson(nil, &r, y, m, v)
		return a, b, c, r.total
	}}}
	for _, n := range []int{20, 40, 80} {
		gh := newGH(n)
		rules = append(rules, rule{fmt.Sprintf("gauss-hermite, cavity, n=%d", n), func(y, m, v float64) (float64, float64, float64, int) {
			var z, s1, s2 float64
			sd := math.Sqrt(v)
			for k, x := range gh.t {
				r := math.Sqrt2 * sd * x
				e := gh.w[k] * math.Exp(logSigmoid(y*(m+r)))
				z += e
				s1 += e * r
				s2 += e * r * r
			}
			mu := s1 / z
			return math.Log(z), m + mu, s2/z - mu*mu, n
		}})
	}
	for _, n := range []int{20, 40} {
		gh := newGH(n)
		rules = append(rules, rule{fmt.Sprintf("gauss-hermite, tilted mode and Laplace scale, n=%d", n), func(y, m, v float64) (float64, float64, float64, int) {
			// The mode by Newton's method on h' = yσ(−yf) − (f − m)/v.
			f := m
			for range 100 {
				s := 1 / (1 + math.Exp(y*f))
				g, h := y*s-(f-m)/v, -s*(1-s)-1/v
				d := g / h
				f -= d
				if math.Abs(d) <= 1e-14*(1+math.Abs(f)) {
					break
				}
			}
			s := 1 / (1 + math.Exp(y*f))
			sc := 1 / math.Sqrt(s*(1-s)+1/v)
			hf := func(x float64) float64 { return logSigmoid(y*x) - (x-m)*(x-m)/(2*v) }
			top := hf(f)
			var z, s1, s2 float64
			for k, x := range gh.t {
				r := math.Sqrt2 * sc * x
				e := gh.w[k] * math.Exp(hf(f+r)-top+x*x)
				z += e
				s1 += e * r
				s2 += e * r * r
			}
			mu := s1 / z
			return top + math.Log(z*math.Sqrt2*sc*math.SqrtPi) - 0.5*math.Log(2*math.Pi*v), f + mu, s2/z - mu*mu, n
		}})
	}
	for _, p := range []struct{ n, w, d float64 }{{8, 2, 4}, {10, 3, 6}, {12, 3, 8}, {16, 4, 16}, {20, 6, 24}} {
		rules = append(rules, rule{fmt.Sprintf("gauss-legendre panels, n=%g, width %g sd, drop %g", p.n, p.w, p.d), func(y, m, v float64) (float64, float64, float64, int) {
			return tiltedLogitRule(y, m, v, int(p.n), p.w, p.d, epGLRange)
		}})
	}
	for _, p := range []struct{ h, sd float64 }{{0.75, 0.75}, {0.6, 0.6}, {0.5, 0.5}, {0.4, 0.4}} {
		rules = append(rules, rule{fmt.Sprintf("trapezoid, step %g·min(1, sd), else GL panels n=12, width 3, drop 8", p.h), func(y, m, v float64) (float64, float64, float64, int) {
			if a, b, c, n, ok := tiltedLogitTrap(y, m, v, math.Min(p.h, p.sd*math.Sqrt(v)), epGLRange, 1024); ok {
				return a, b, c, n
			}
			return tiltedLogitRule(y, m, v, 12, 3, 8, epGLRange)
		}})
	}
	type ref struct {
		set       int
		y, m, v   float64
		z, mn, vr float64
	}
	var refs []ref
	for _, c := range tiltedCavities() {
		for _, y := range []float64{-1, 1} {
			z, mn, vr := tiltedLogitRef(y, c[0], c[1])
			set := 0
			if c[1] > 1e4 {
				set = 1
			}
			refs = append(refs, ref{set, y, c[0], c[1], z, mn, vr})
		}
	}
	b, err := os.ReadFile("../../studies/tiltquad/example_cavities.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		var y, m, v float64
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		if _, err := fmt.Sscan(line, &y, &m, &v); err != nil {
			t.Fatal(err)
		}
		z, mn, vr := tiltedLogitRef(y, m, v)
		set := 2
		if v > 1e4 {
			set = 3
		}
		refs = append(refs, ref{set, y, m, v, z, mn, vr})
	}
	sets := []string{"grid, v ≤ 10⁴", "grid, v 10⁵–10¹³", "example, v ≤ 10⁴", "example, v > 10⁴"}
	fmt.Println("| rule | cavities | log Ẑ | mean (sds) | variance (rel.) | evaluations, mean / largest | CPU ns per integral |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, r := range rules {
		for set, what := range sets {
			var worst [3]float64
			nodes, most, count := 0, 0, 0
			t0 := cputime.Used()
			for _, c := range refs {
				if c.set != set {
					continue
				}
				z, mn, vr, n := r.fn(c.y, c.m, c.v)
				ez, em, ev := tiltedErr(z, mn, vr, c.z, c.mn, c.vr)
				for i, e := range [3]float64{ez, em, ev} {
					if !(e <= worst[i]) {
						worst[i] = e
					}
				}
				nodes += n
				most = max(most, n)
				count++
			}
			ns := float64((cputime.Used() - t0).Nanoseconds()) / float64(count)
			fmt.Printf("| %s | %s | %.1e | %.1e | %.1e | %d / %d | %.0f |\n", r.name, what, worst[0], worst[1], worst[2], nodes/count, most, ns)
		}
	}
}
