package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

var countCases = []struct {
	name string
	p    []float64
}{
	{"poisson", []float64{3.7}},
	{"poisson_log", []float64{0.4}},
	{"binomial", []float64{12, 0.35}},
	{"binomial_logit", []float64{12, -0.8}},
	{"neg_binomial_2", []float64{4.2, 1.7}},
	{"neg_binomial_2_log", []float64{1.1, 3.5}},
}

// TestCountMassesAgainstReferences compares each log mass with an
// independent computation: gonum's distuv for the Poisson and binomial, and
// the gamma–Poisson mixture integrated by quadrature for the negative
// binomial; the log-link forms must equal the plain ones at μ = e^η.
func TestCountMassesAgainstReferences(t *testing.T) {
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	pois, _ := Lookup("poisson")
	poisLog, _ := Lookup("poisson_log")
	bin, _ := Lookup("binomial")
	binLogit, _ := Lookup("binomial_logit")
	nb, _ := Lookup("neg_binomial_2")
	nbLog, _ := Lookup("neg_binomial_2_log")
	for y := 0.0; y <= 12; y++ {
		near("poisson", pois.LogProb(y, []float64{3.7}), distuv.Poisson{Lambda: 3.7}.LogProb(y))
		near("poisson_log", poisLog.LogProb(y, []float64{math.Log(3.7)}), distuv.Poisson{Lambda: 3.7}.LogProb(y))
		near("binomial", bin.LogProb(y, []float64{12, 0.35}), distuv.Binomial{N: 12, P: 0.35}.LogProb(y))
		near("binomial_logit", binLogit.LogProb(y, []float64{12, math.Log(0.35 / 0.65)}), distuv.Binomial{N: 12, P: 0.35}.LogProb(y))
		mu, phi := 4.2, 1.7
		mix := quad.Fixed(func(l float64) float64 {
			if l <= 0 {
				return 0
			}
			return math.Exp(distuv.Poisson{Lambda: l}.LogProb(y) + distuv.Gamma{Alpha: phi, Beta: phi / mu}.LogProb(l))
		}, 0, 200, 4000, nil, 0)
		near("neg_binomial_2", math.Exp(nb.LogProb(y, []float64{mu, phi})), mix)
		near("neg_binomial_2_log", nbLog.LogProb(y, []float64{math.Log(mu), phi}), nb.LogProb(y, []float64{mu, phi}))
	}
	// Edge cases: λ = 0 puts all mass at 0; θ = 0 and 1; values off the support.
	near("poisson(0) at 0", pois.LogProb(0, []float64{0}), 0)
	if !math.IsInf(pois.LogProb(1, []float64{0}), -1) || !math.IsInf(pois.LogProb(1.5, []float64{2}), -1) || !math.IsInf(bin.LogProb(13, []float64{12, 0.5}), -1) {
		t.Error("a value off the support has positive mass")
	}
	near("binomial(3, 0) at 0", bin.LogProb(0, []float64{3, 0}), 0)
	near("binomial(3, 1) at 3", bin.LogProb(3, []float64{3, 1}), 0)
	for _, bad := range []struct {
		name string
		p    []float64
	}{{"poisson", []float64{-1}}, {"binomial", []float64{2.5, 0.5}}, {"binomial", []float64{3, 1.2}}, {"neg_binomial_2", []float64{1, 0}}} {
		f, _ := Lookup(bad.name)
		if f.Check(bad.p) == nil {
			t.Errorf("%s%v accepted", bad.name, bad.p)
		}
	}
}

// TestCountMomentsGradientsAndDraws: masses sum to one with the stated mean
// and sd, parameter derivatives match central differences, and seeded draws
// have the stated mean.
func TestCountMomentsGradientsAndDraws(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range countCases {
		f, ok := Lookup(c.name)
		if !ok || !f.Discrete() {
			t.Fatalf("%s is not a registered discrete family", c.name)
		}
		var total, m1, m2 float64
		for y := 0.0; y < 400; y++ {
			pr := math.Exp(f.LogProb(y, c.p))
			total += pr
			m1 += y * pr
			m2 += y * y * pr
		}
		sd := math.Sqrt(m2 - m1*m1)
		if math.Abs(total-1) > 1e-10 || math.Abs(m1-f.Mean(c.p)) > 1e-8 || math.Abs(sd-f.StdDev(c.p)) > 1e-8 {
			t.Errorf("%s: masses sum to %v, mean %v (stated %v), sd %v (stated %v)", c.name, total, m1, f.Mean(c.p), sd, f.StdDev(c.p))
		}
		for _, y := range []float64{0, 1, 3, 7} {
			dp := make([]float64, len(c.p))
			f.LogProbGrad(dp, y, c.p)
			for k := range c.p {
				if c.name == "binomial" && k == 0 || c.name == "binomial_logit" && k == 0 {
					continue // n is a count, not differentiated
				}
				h := 1e-6
				pp := append([]float64(nil), c.p...)
				pm := append([]float64(nil), c.p...)
				pp[k] += h
				pm[k] -= h
				want := (f.LogProb(y, pp) - f.LogProb(y, pm)) / (2 * h)
				if math.Abs(dp[k]-want) > 1e-6*math.Max(1, math.Abs(want)) {
					t.Errorf("%s at y = %v: d/d%s = %v, finite differences %v", c.name, y, f.ParamNames()[k], dp[k], want)
				}
			}
		}
		const n = 20000
		s := 0.0
		for range n {
			x := f.Rand(rng, c.p)
			if !isCount(x) {
				t.Fatalf("%s drew %v", c.name, x)
			}
			s += x
		}
		if se := f.StdDev(c.p) / math.Sqrt(n); math.Abs(s/n-f.Mean(c.p)) > 4*se {
			t.Errorf("%s: mean of %d draws %v, expected %v ± %v", c.name, n, s/n, f.Mean(c.p), se)
		}
	}
}
