package dist

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// truncCases truncate several families on one or both sides; the last
// field holds a point inside to differentiate at.
var truncCases = []struct {
	name string
	p    []float64 // base parameters, then lower and upper
	x    float64
}{
	{"normal", []float64{1, 2, -1, 2}, 0.4},
	{"normal", []float64{0, 1, 0, math.Inf(1)}, 0.7},
	{"normal", []float64{0.3, 0.8, math.Inf(-1), -0.2}, -1},
	{"student_t", []float64{4.5, 0.2, 1.3, -3, 1}, -0.5},
	{"cauchy", []float64{-0.5, 0.8, 0, math.Inf(1)}, 2},
	{"laplace", []float64{0.4, 0.9, -1, 3}, 1.2},
	{"lognormal", []float64{0.1, 0.6, 0.5, 4}, 1.1},
	{"gamma", []float64{2.5, 1.5, 0.5, 3}, 1.3},
	{"gamma", []float64{2.5, 1.5, -1, 1}, 0.6}, // lower below the support
	{"inv_gamma", []float64{3.5, 2, math.Inf(-1), 1.5}, 0.8},
	{"exponential", []float64{1.3, 1, math.Inf(1)}, 1.6},
	{"half_normal", []float64{1.4, 0.5, 2}, 1.1},
	{"half_cauchy", []float64{0.7, math.Inf(-1), 5}, 0.9},
	{"beta", []float64{2.2, 3.1, 0.2, 0.6}, 0.35},
}

func truncated(t *testing.T, name string) *Truncated {
	t.Helper()
	tr, err := NewTruncated(lookup(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// integrateAny is integrate extended to (−∞, hi) by reflection.
func integrateAny(g func(float64) float64, lo, hi float64) float64 {
	if math.IsInf(lo, -1) && !math.IsInf(hi, 1) {
		return integrate(func(x float64) float64 { return g(-x) }, -hi, math.Inf(1))
	}
	return integrate(g, lo, hi)
}

// TestTruncatedIntegratesToOne integrates each truncated density by
// quadrature, and compares it with the base density divided by the mass
// gonum's CDF puts between the bounds.
func TestTruncatedIntegratesToOne(t *testing.T) {
	for _, c := range truncCases {
		tr := truncated(t, c.name)
		if err := tr.Check(c.p); err != nil {
			t.Fatal(err)
		}
		lo, hi := tr.Support(c.p)
		pdf := func(x float64) float64 {
			v := math.Exp(tr.LogProb(x, c.p))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0
			}
			return v
		}
		if z := integrateAny(pdf, lo, hi); math.Abs(z-1) > 1e-4 {
			t.Errorf("%s%v integrates to %v", c.name, c.p, z)
		}
		n := len(c.p) - 2
		fu, _ := gonumCDF(c.name, c.p[n+1], c.p[:n])
		fl, _ := gonumCDF(c.name, c.p[n], c.p[:n])
		if math.IsInf(c.p[n+1], 1) {
			fu = 1
		}
		if math.IsInf(c.p[n], -1) || c.p[n] <= 0 && c.name == "gamma" {
			fl = 0
		}
		want := tr.Base.LogProb(c.x, c.p[:n]) - math.Log(fu-fl)
		if got := tr.LogProb(c.x, c.p); math.Abs(got-want) > 1e-10 {
			t.Errorf("%s%v at %v: log density %v, want %v", c.name, c.p, c.x, got, want)
		}
		if got := tr.LogProb(lo-0.1, c.p); !math.IsInf(lo, -1) && !math.IsInf(got, -1) {
			t.Errorf("%s%v below its bounds: %v", c.name, c.p, got)
		}
	}
}

// TestTruncatedGradients checks the derivatives in x, in the base
// parameters (where the CDF's derivative is closed form) and in the bounds
// against finite differences.
func TestTruncatedGradients(t *testing.T) {
	set := &fd.Settings{Formula: fd.Central, Step: 1e-6}
	check := func(name string, p []float64, x float64) {
		tr := truncated(t, name)
		dp := make([]float64, len(p))
		lp, dx := tr.LogProbGrad(dp, x, p)
		if want := tr.LogProb(x, p); math.Abs(lp-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%s%v: LogProbGrad value %v, LogProb %v", name, p, lp, want)
		}
		wantDx := fd.Derivative(func(y float64) float64 { return tr.LogProb(y, p) }, x, set)
		if math.Abs(dx-wantDx) > 1e-6*math.Max(1, math.Abs(wantDx)) {
			t.Errorf("%s%v at %v: d/dx %v, finite differences %v", name, p, x, dx, wantDx)
		}
		for j := range p {
			if math.IsInf(p[j], 0) || j < tr.n && !tr.cdf.CDFGradIn(j) {
				continue
			}
			want := fd.Derivative(func(v float64) float64 {
				q := append([]float64(nil), p...)
				q[j] = v
				return tr.LogProb(x, q)
			}, p[j], set)
			if math.Abs(dp[j]-want) > 1e-6*math.Max(1, math.Abs(want)) {
				t.Errorf("%s%v at %v: d/d%s %v, finite differences %v", name, p, x, tr.ParamNames()[j], dp[j], want)
			}
		}
	}
	for _, c := range truncCases {
		check(c.name, c.p, c.x)
	}
	// Far in a tail, where F(upper) − F(lower) underflows.
	check("normal", []float64{0, 1, 30, 31}, 30.2)
	check("normal", []float64{0, 1, -51, -50}, -50.5)
	check("normal", []float64{0, 1, 40, math.Inf(1)}, 40.01)
}

// TestTruncatedFarTailMass compares log(F(U) − F(L)) with values computed
// by mpmath at 40 digits.
func TestTruncatedFarTailMass(t *testing.T) {
	tr := truncated(t, "normal")
	for _, c := range []struct {
		l, u, want float64
	}{
		{30, 31, -454.32124395634325204},
		{-51, -50, -1254.8313611394199013},
		{-math.Inf(1), -40, -804.60844201375378817},
	} {
		if got := tr.logMass([]float64{0, 1, c.l, c.u}); math.Abs(got-c.want) > 1e-10*math.Abs(c.want) {
			t.Errorf("normal(0, 1) on [%v, %v]: log mass %.17g, want %.17g", c.l, c.u, got, c.want)
		}
	}
}

// TestTruncatedNormalMoments checks the closed-form mean and sd by
// quadrature.
func TestTruncatedNormalMoments(t *testing.T) {
	tr := truncated(t, "normal")
	for _, p := range [][]float64{{1, 2, -1, 2}, {0, 1, 0, math.Inf(1)}, {0.3, 0.8, math.Inf(-1), -0.2}, {0, 1, 5, 6}} {
		lo, hi := tr.Support(p)
		pdf := func(x float64) float64 { return math.Exp(tr.LogProb(x, p)) }
		m := integrateAny(func(x float64) float64 { return x * pdf(x) }, lo, hi)
		v := integrateAny(func(x float64) float64 { return (x - m) * (x - m) * pdf(x) }, lo, hi)
		if got := tr.Mean(p); math.Abs(got-m) > 1e-6 {
			t.Errorf("normal%v: mean %v, quadrature %v", p, got, m)
		}
		if got := tr.StdDev(p); math.Abs(got-math.Sqrt(v)) > 1e-6 {
			t.Errorf("normal%v: sd %v, quadrature %v", p, got, math.Sqrt(v))
		}
	}
	if g := truncated(t, "gamma"); g.HasMoments() || !math.IsNaN(g.Mean([]float64{2, 1, 0, 1})) {
		t.Error("a truncated gamma claims moments")
	}
}

// TestTruncatedRand compares the mean of seeded draws, by rejection and by
// inverting the CDF in either tail, with the mean by quadrature, within 4
// standard errors, and checks every draw lies within the bounds.
func TestTruncatedRand(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const n = 20000
	for _, c := range []struct {
		name string
		p    []float64
	}{
		{"normal", []float64{1, 2, -1, 2}},          // rejection
		{"normal", []float64{0, 1, 3, math.Inf(1)}}, // upper tail
		{"normal", []float64{0, 1, -9, -8}},         // lower tail
		{"normal", []float64{0, 1, -0.01, 0.02}},    // around the median
		{"gamma", []float64{2.5, 1.5, 4, 6}},
		{"student_t", []float64{3, 0, 1, math.Inf(-1), -4}},
		{"beta", []float64{2.2, 3.1, 0.9, 0.95}},
	} {
		tr := truncated(t, c.name)
		lo, hi := tr.Support(c.p)
		pdf := func(x float64) float64 { return math.Exp(tr.LogProb(x, c.p)) }
		m := integrateAny(func(x float64) float64 { return x * pdf(x) }, lo, hi)
		sd := math.Sqrt(integrateAny(func(x float64) float64 { return (x - m) * (x - m) * pdf(x) }, lo, hi))
		sum := 0.0
		for range n {
			x := tr.Rand(rng, c.p)
			if !(x >= lo && x <= hi) {
				t.Fatalf("%s%v drew %v outside [%v, %v]", c.name, c.p, x, lo, hi)
			}
			sum += x
		}
		if got := sum / n; math.Abs(got-m) > 4*sd/math.Sqrt(n) {
			t.Errorf("%s%v: mean of draws %v, want %v ± %v", c.name, c.p, got, m, sd/math.Sqrt(n))
		}
	}
}

func TestTruncatedRefusals(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"poisson", "and poisson is discrete"},
		{"uniform", "uniform: it has no closed-form CDF"},
	} {
		if _, err := NewTruncated(lookup(t, c.name)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("truncating %s: %v, want %q", c.name, err, c.want)
		}
	}
	tr := truncated(t, "gamma")
	for _, c := range []struct {
		p    []float64
		want string
	}{
		{[]float64{2, 1, 1, 1}, "lower must be less than upper"},
		{[]float64{2, 1, -3, -1}, "miss its support"},
		{[]float64{-2, 1, 0, 1}, "alpha must be positive"},
		{[]float64{2, 1, 1e5, 1e5 + 1}, "no probability lies"},
	} {
		if err := tr.Check(c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("gamma%v: %v, want %q", c.p, err, c.want)
		}
	}
	// Truncated flat() is improper, with density 0 on the bounds.
	f := truncated(t, "flat")
	if !IsImproper(f) || f.LogProb(0.5, []float64{0, 1}) != 0 || !math.IsInf(f.LogProb(-0.5, []float64{0, 1}), -1) {
		t.Error("flat(lower: 0, upper: 1) is not the improper flat density on (0, 1)")
	}
}

// TestTruncatedLogProbGradSum: the sum over points sharing parameters
// agrees with the point-by-point LogProbGrad, and is −Inf with a point
// outside the bounds.
func TestTruncatedLogProbGradSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, c := range append(truncCases, struct {
		name string
		p    []float64
		x    float64
	}{"flat", []float64{0, 2}, 1}) {
		tr := truncated(t, c.name)
		lo, hi := tr.Support(c.p)
		xs := make([]float64, 5)
		for i := range xs {
			xs[i] = c.x
			if !math.IsInf(lo, 0) && !math.IsInf(hi, 0) {
				xs[i] = lo + (hi-lo)*(0.05+0.9*rng.Float64())
			}
		}
		dp, dx := make([]float64, len(c.p)), make([]float64, len(xs))
		got := tr.LogProbGradSum(dp, dx, xs, c.p)
		want, wantDp := 0.0, make([]float64, len(c.p))
		g := make([]float64, len(c.p))
		for i, x := range xs {
			lp, d := tr.LogProbGrad(g, x, c.p)
			want += lp
			for j := range g {
				wantDp[j] += g[j]
			}
			if math.Abs(dx[i]-d) > 1e-12*math.Max(1, math.Abs(d)) {
				t.Errorf("%s%v: d/dx[%d] %v, point by point %v", c.name, c.p, i, dx[i], d)
			}
		}
		if math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
			t.Errorf("%s%v: sum %v, point by point %v", c.name, c.p, got, want)
		}
		for j := range dp {
			if tr.cdf != nil && j < tr.n && !tr.cdf.CDFGradIn(j) {
				continue
			}
			if math.Abs(dp[j]-wantDp[j]) > 1e-10*math.Max(1, math.Abs(wantDp[j])) {
				t.Errorf("%s%v: d/d%s %v, point by point %v", c.name, c.p, tr.ParamNames()[j], dp[j], wantDp[j])
			}
		}
		if !math.IsInf(lo, -1) {
			if v := tr.LogProbGradSum(dp, nil, append(xs, lo-1), c.p); !math.IsInf(v, -1) {
				t.Errorf("%s%v: a point below the bounds sums to %v", c.name, c.p, v)
			}
		}
	}
}
