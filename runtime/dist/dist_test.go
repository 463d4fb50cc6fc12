package dist

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/integrate/quad"
)

// cases lists a parameter vector for every family, and a value inside its
// support to differentiate at (x is then jittered by the test).
var cases = []struct {
	name string
	p    []float64
}{
	{"normal", []float64{0.3, 1.7}},
	{"cauchy", []float64{-0.5, 0.8}},
	{"student_t", []float64{4.5, 0.2, 1.3}},
	{"laplace", []float64{0.4, 0.9}},
	{"lognormal", []float64{0.1, 0.6}},
	{"gamma", []float64{2.5, 1.5}},
	{"inv_gamma", []float64{3.5, 2}},
	{"exponential", []float64{1.3}},
	{"half_normal", []float64{1.4}},
	{"half_cauchy", []float64{0.7}},
	{"beta", []float64{2.2, 3.1}},
	{"uniform", []float64{-1, 2.5}},
}

func lookup(t *testing.T, name string) Family {
	t.Helper()
	f, ok := Lookup(name)
	if !ok {
		t.Fatalf("no family %s", name)
	}
	return f
}

// interior draws a point well inside the support, away from a kink.
func interior(f Family, p []float64, rng *rand.Rand) float64 {
	lo, hi := f.Support(p)
	switch {
	case !math.IsInf(lo, -1) && !math.IsInf(hi, 1):
		return lo + (hi-lo)*(0.1+0.8*rng.Float64())
	case !math.IsInf(lo, -1):
		return lo + 0.1 + 3*rng.Float64()
	}
	return 3 * (rng.Float64() - 0.5)
}

func TestGradientsMatchFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	check := func(t *testing.T, f Family, p []float64, x float64) {
		dp := make([]float64, len(p))
		lp, dx := f.LogProbGrad(dp, x, p)
		if want := f.LogProb(x, p); math.Abs(lp-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%s: LogProbGrad value %v, LogProb %v", f.Name(), lp, want)
		}
		set := &fd.Settings{Formula: fd.Central, Step: 1e-6}
		wantDx := fd.Derivative(func(x float64) float64 { return f.LogProb(x, p) }, x, set)
		if math.Abs(dx-wantDx) > 1e-5*math.Max(1, math.Abs(wantDx)) {
			t.Errorf("%s at x=%v: d/dx %v, finite differences %v", f.Name(), x, dx, wantDx)
		}
		wantDp := fd.Gradient(nil, func(q []float64) float64 { return f.LogProb(x, q) }, p, set)
		for i := range p {
			if math.Abs(dp[i]-wantDp[i]) > 1e-5*math.Max(1, math.Abs(wantDp[i])) {
				t.Errorf("%s at x=%v: d/d%s %v, finite differences %v", f.Name(), x, f.ParamNames()[i], dp[i], wantDp[i])
			}
		}
	}
	for _, c := range cases {
		f := lookup(t, c.name)
		for trial := 0; trial < 5; trial++ {
			check(t, f, c.p, interior(f, c.p, rng))
		}
	}
	// bernoulli_logit: derivative in α only, at x = 0 and 1.
	f := lookup(t, "bernoulli_logit")
	for _, x := range []float64{0, 1} {
		dp := make([]float64, 1)
		f.LogProbGrad(dp, x, []float64{0.7})
		want := fd.Derivative(func(a float64) float64 { return f.LogProb(x, []float64{a}) }, 0.7, nil)
		if math.Abs(dp[0]-want) > 1e-6 {
			t.Errorf("bernoulli_logit at %v: d/dalpha %v, want %v", x, dp[0], want)
		}
	}
	// A mixture of different families, weights and components.
	mix := NewMixture([]Family{lookup(t, "normal"), lookup(t, "student_t"), lookup(t, "laplace")})
	p := []float64{0.2, 0.5, 0.3, -1, 0.7, 5, 1, 0.9, 2, 1.1}
	for trial := 0; trial < 5; trial++ {
		check(t, mix, p, 6*(rng.Float64()-0.5))
	}
}

// integrate computes ∫ g over (lo, hi) after mapping it onto a finite
// interval, so infinite supports and heavy tails are covered.
func integrate(g func(float64) float64, lo, hi float64) float64 {
	const n = 4000
	switch {
	case math.IsInf(lo, -1) && math.IsInf(hi, 1): // x = t/(1−t²)
		return quad.Fixed(func(t float64) float64 {
			x := t / (1 - t*t)
			return g(x) * (1 + t*t) / ((1 - t*t) * (1 - t*t))
		}, -1, 1, n, nil, 0)
	case math.IsInf(hi, 1): // x = lo + t/(1−t)
		return quad.Fixed(func(t float64) float64 {
			return g(lo+t/(1-t)) / ((1 - t) * (1 - t))
		}, 0, 1, n, nil, 0)
	}
	return quad.Fixed(g, lo, hi, n, nil, 0)
}

func TestDensitiesIntegrateToOneAndMoments(t *testing.T) {
	for _, c := range cases {
		f := lookup(t, c.name)
		lo, hi := f.Support(c.p)
		pdf := func(x float64) float64 {
			v := math.Exp(f.LogProb(x, c.p))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0
			}
			return v
		}
		if z := integrate(pdf, lo, hi); math.Abs(z-1) > 1e-4 {
			t.Errorf("%s%v integrates to %v", c.name, c.p, z)
		}
		mean := f.Mean(c.p)
		if math.IsNaN(mean) || math.IsInf(mean, 0) {
			continue
		}
		m1 := integrate(func(x float64) float64 { return x * pdf(x) }, lo, hi)
		if math.Abs(m1-mean) > 1e-4*math.Max(1, math.Abs(mean)) {
			t.Errorf("%s: Mean %v, quadrature %v", c.name, mean, m1)
		}
		sd := f.StdDev(c.p)
		if math.IsNaN(sd) || math.IsInf(sd, 0) {
			continue
		}
		v := integrate(func(x float64) float64 { return (x - mean) * (x - mean) * pdf(x) }, lo, hi)
		if math.Abs(math.Sqrt(v)-sd) > 1e-3*sd {
			t.Errorf("%s: StdDev %v, quadrature %v", c.name, sd, math.Sqrt(v))
		}
	}
	b := lookup(t, "bernoulli_logit")
	p := []float64{-0.4}
	if s := math.Exp(b.LogProb(0, p)) + math.Exp(b.LogProb(1, p)); math.Abs(s-1) > 1e-14 {
		t.Errorf("bernoulli_logit masses sum to %v", s)
	}
}

func TestClosedForms(t *testing.T) {
	l2pi := math.Log(2 * math.Pi)
	cases := []struct {
		name string
		p    []float64
		x    float64
		want float64
	}{
		{"normal", []float64{1, 2}, 2, -0.5*0.25 - math.Log(2) - 0.5*l2pi},
		{"gamma", []float64{2, 3}, 1, 2*math.Log(3) - 3},
		{"inv_gamma", []float64{2, 3}, 1, 2*math.Log(3) - 3*0 - 3},
		{"exponential", []float64{2}, 0.5, math.Log(2) - 1},
		{"beta", []float64{2, 2}, 0.5, math.Log(6 * 0.25)},
		{"uniform", []float64{0, 4}, 1, -math.Log(4)},
		{"cauchy", []float64{0, 1}, 1, -math.Log(2 * math.Pi)},
		{"laplace", []float64{0, 2}, -2, -math.Log(4) - 1},
		{"half_normal", []float64{1}, 0, math.Log(2) - 0.5*l2pi},
		{"half_cauchy", []float64{1}, 1, math.Log(1 / math.Pi)},
		{"student_t", []float64{1, 0, 1}, 1, -math.Log(2 * math.Pi)}, // t₁ is Cauchy
		{"lognormal", []float64{0, 1}, 1, -0.5 * l2pi},
		{"bernoulli_logit", []float64{0}, 1, math.Log(0.5)},
	}
	for _, c := range cases {
		if got := lookup(t, c.name).LogProb(c.x, c.p); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s%v at %v: %v, want %v", c.name, c.p, c.x, got, c.want)
		}
	}
}

func TestOutsideSupport(t *testing.T) {
	for _, c := range []struct {
		name string
		p    []float64
		x    float64
	}{{"gamma", []float64{2, 1}, -1}, {"beta", []float64{2, 2}, 1.5}, {"uniform", []float64{0, 1}, 2},
		{"lognormal", []float64{0, 1}, 0}, {"half_normal", []float64{1}, -0.1}, {"bernoulli_logit", []float64{0}, 0.5}} {
		f := lookup(t, c.name)
		dp := make([]float64, len(c.p))
		if lp, _ := f.LogProbGrad(dp, c.x, c.p); !math.IsInf(lp, -1) || !math.IsInf(f.LogProb(c.x, c.p), -1) {
			t.Errorf("%s at %v: log density %v, want -Inf", c.name, c.x, lp)
		}
	}
}

func TestCheckNamesTheParameter(t *testing.T) {
	cases := []struct {
		name string
		p    []float64
		want string
	}{
		{"normal", []float64{0, -1}, "normal: sigma must be positive, got -1"},
		{"gamma", []float64{0, 1}, "gamma: alpha must be positive, got 0"},
		{"uniform", []float64{2, 1}, "uniform: lo must be less than hi"},
		{"student_t", []float64{math.NaN(), 0, 1}, "student_t: nu must be finite"},
	}
	for _, c := range cases {
		err := lookup(t, c.name).Check(c.p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s%v: %v, want %q", c.name, c.p, err, c.want)
		}
	}
	mix := NewMixture([]Family{lookup(t, "normal"), lookup(t, "normal")})
	if err := mix.Check([]float64{0.5, 0.6, 0, 1, 0, 1}); err == nil || !strings.Contains(err.Error(), "sum to 1") {
		t.Errorf("mixture weights: %v", err)
	}
	if err := mix.Check([]float64{0.5, 0.5, 0, 1, 0, -1}); err == nil || !strings.Contains(err.Error(), "component 2: normal: sigma") {
		t.Errorf("mixture component: %v", err)
	}
	if _, err := New("normal", 0); err == nil || !strings.Contains(err.Error(), "takes 2 parameters") {
		t.Errorf("New with one parameter: %v", err)
	}
}

func TestMixtureFarTail(t *testing.T) {
	mix := NewMixture([]Family{lookup(t, "normal"), lookup(t, "normal")})
	p := []float64{0.3, 0.7, -5, 1, 5, 1}
	x := 60.0 // both densities underflow to 0 in float64
	// log(0.3 φ(65) + 0.7 φ(55)) = log 0.7 + log φ(55) + log1p(0.3/0.7 · e^{−(65²−55²)/2}).
	l2pi := math.Log(2 * math.Pi)
	want := math.Log(0.7) - 0.5*55*55 - 0.5*l2pi + math.Log1p(0.3/0.7*math.Exp(-(65*65-55*55)/2.0))
	dp := make([]float64, len(p))
	lp, dx := mix.LogProbGrad(dp, x, p)
	if math.Abs(lp-want) > 1e-12*math.Abs(want) {
		t.Errorf("far tail log density %v, want %v", lp, want)
	}
	// The second component holds all the mass there: d/dx ≈ −(x − 5).
	if math.Abs(dx+55) > 1e-9 {
		t.Errorf("far tail d/dx %v, want -55", dx)
	}
}

func TestRandMatchesMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 40000
	for _, c := range cases {
		f := lookup(t, c.name)
		mean, sd := f.Mean(c.p), f.StdDev(c.p)
		if math.IsNaN(sd) || math.IsInf(sd, 0) || c.name == "student_t" {
			continue // the sample mean of a heavy tail converges too slowly
		}
		s := 0.0
		for i := 0; i < n; i++ {
			x := f.Rand(rng, c.p)
			if math.IsInf(f.LogProb(x, c.p), -1) {
				t.Fatalf("%s drew %v outside its support", c.name, x)
			}
			s += x
		}
		if got := s / n; math.Abs(got-mean) > 5*sd/math.Sqrt(n) {
			t.Errorf("%s: sample mean %v, mean %v", c.name, got, mean)
		}
	}
	mix := NewMixture([]Family{lookup(t, "normal"), lookup(t, "normal")})
	p := []float64{0.25, 0.75, -3, 1, 3, 1}
	s := 0.0
	for i := 0; i < n; i++ {
		s += mix.Rand(rng, p)
	}
	if got, want := s/n, mix.Mean(p); math.Abs(got-want) > 5*mix.StdDev(p)/math.Sqrt(n) {
		t.Errorf("mixture sample mean %v, mean %v", got, want)
	}
}
