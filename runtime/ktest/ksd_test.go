package ktest

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/kml-lang/kml/internal/fulltest"
)

// logGauss2 is the log density of a correlated 2-D normal, written out.
func logGauss2(x []float64) float64 {
	const m1, m2, s1, s2, rho = 0.3, -0.5, 1.2, 0.8, 0.6
	a, b := (x[0]-m1)/s1, (x[1]-m2)/s2
	return -(a*a-2*rho*a*b+b*b)/(2*(1-rho*rho)) - math.Log(2*math.Pi*s1*s2*math.Sqrt(1-rho*rho))
}

// fdGrad is the central finite-difference gradient of f at x.
func fdGrad(f func([]float64) float64, x []float64) []float64 {
	const h = 1e-5
	g := make([]float64, len(x))
	y := append([]float64(nil), x...)
	for i := range x {
		y[i] = x[i] + h
		fp := f(y)
		y[i] = x[i] - h
		fm := f(y)
		y[i] = x[i]
		g[i] = (fp - fm) / (2 * h)
	}
	return g
}

// bruteStein is h(x, y) from the definition, every derivative of the base
// kernel k and of log p by finite differences.
func bruteStein(k func(x, y []float64) float64, logp func([]float64) float64, x, y []float64) float64 {
	d := len(x)
	sx, sy := fdGrad(logp, x), fdGrad(logp, y)
	gx := fdGrad(func(u []float64) float64 { return k(u, y) }, x)
	gy := fdGrad(func(v []float64) float64 { return k(x, v) }, y)
	const h = 1e-4
	mixed := 0.0
	for i := 0; i < d; i++ {
		xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
		yp, ym := append([]float64(nil), y...), append([]float64(nil), y...)
		xp[i] += h
		xm[i] -= h
		yp[i] += h
		ym[i] -= h
		mixed += (k(xp, yp) - k(xp, ym) - k(xm, yp) + k(xm, ym)) / (4 * h * h)
	}
	v := mixed
	for i := 0; i < d; i++ {
		v += sx[i]*sy[i]*k(x, y) + sx[i]*gy[i] + sy[i]*gx[i]
	}
	return v
}

func sqd(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += (x[i] - y[i]) * (x[i] - y[i])
	}
	return s
}

// TestSteinGramAgainstFiniteDifferences checks the closed-form Stein
// kernel of both base kernels against the definition with every
// derivative by finite differences, and the U-statistic against a plain
// double loop.
func TestSteinGramAgainstFiniteDifferences(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 1))
	n := 12
	x := mat.NewDense(n, 2, nil)
	score := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		x.Set(i, 0, 2*r.NormFloat64())
		x.Set(i, 1, r.NormFloat64())
		score.SetRow(i, fdGrad(logGauss2, x.RawRowView(i)))
	}
	const ell, beta = 1.3, -0.4
	bases := map[SteinBase]func(x, y []float64) float64{
		IMQ: func(x, y []float64) float64 { return math.Pow(1+sqd(x, y)/(ell*ell), beta) },
		RBF: func(x, y []float64) float64 { return math.Exp(-sqd(x, y) / (2 * ell * ell)) },
	}
	for base, k := range bases {
		h, err := SteinGram(x, score, KSDSettings{Base: base, Beta: beta}, ell)
		if err != nil {
			t.Fatal(err)
		}
		u := 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				want := bruteStein(k, logGauss2, x.RawRowView(i), x.RawRowView(j))
				if got := h[i*n+j]; math.Abs(got-want) > 1e-5*(1+math.Abs(want)) {
					t.Errorf("%s: h[%d,%d] = %.10g, finite differences %.10g", base, i, j, got, want)
				}
				if i != j {
					u += want
				}
			}
		}
		u /= float64(n * (n - 1))
		if got := ksdU(h, n); math.Abs(got-u) > 1e-5*(1+math.Abs(u)) {
			t.Errorf("%s: KSD²_u = %.10g, brute force %.10g", base, got, u)
		}
	}
}

// TestWildBootstrapAgainstLoop checks the blocked bootstrap against
// Σ_{i≠j} ε_i ε_j h_ij written as a loop, and that the result does not
// depend on the number of workers.
func TestWildBootstrapAgainstLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 2))
	n := 30
	x := mat.NewDense(n, 1, nil)
	score := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		v := r.NormFloat64()
		x.Set(i, 0, v)
		score.Set(i, 0, -v)
	}
	s := KSDSettings{Bootstraps: 70, Seed: 9, Workers: 1}.withDefaults()
	h, err := SteinGram(x, score, s, 1)
	if err != nil {
		t.Fatal(err)
	}
	boot1, err := wildBootstrap(context.Background(), [][]float64{h}, n, s)
	if err != nil {
		t.Fatal(err)
	}
	s.Workers = 3
	boot3, _ := wildBootstrap(context.Background(), [][]float64{h}, n, s)
	e := make([]float64, n)
	for b := 0; b < s.Bootstraps; b++ {
		rademacher(s.Seed, b, e)
		want := 0.0
		for i := 0; i < n; i++ {
			if e[i] != 1 && e[i] != -1 {
				t.Fatalf("multiplier %g is not ±1", e[i])
			}
			for j := 0; j < n; j++ {
				if i != j {
					want += e[i] * e[j] * h[i*n+j]
				}
			}
		}
		want /= float64(n * (n - 1))
		if math.Abs(boot1[0][b]-want) > 1e-12*(1+math.Abs(want)) {
			t.Errorf("draw %d: %.15g, loop %.15g", b, boot1[0][b], want)
		}
		if boot1[0][b] != boot3[0][b] {
			t.Errorf("draw %d differs between 1 and 3 workers", b)
		}
	}
}

// ksdRejections counts rejections at α = 0.05 over reps seeded data sets
// of n rows drawn by draw, scored by score.
func ksdRejections(t *testing.T, reps, n, boots int, seed uint64, draw func(r *rand.Rand) float64, score func(float64) float64, s KSDSettings) int {
	t.Helper()
	rej := 0
	for rep := 0; rep < reps; rep++ {
		r := rand.New(rand.NewPCG(seed, uint64(rep)))
		x := mat.NewDense(n, 1, nil)
		sc := mat.NewDense(n, 1, nil)
		for i := 0; i < n; i++ {
			v := draw(r)
			x.Set(i, 0, v)
			sc.Set(i, 0, score(v))
		}
		s.Bootstraps, s.Seed = boots, uint64(rep)
		if s.Ell == 0 {
			s.Ell = 1
		}
		res, err := KSDTest(context.Background(), x, sc, s)
		if err != nil {
			t.Fatal(err)
		}
		if res.PValue <= 0.05 {
			rej++
		}
	}
	return rej
}

func normalScore(v float64) float64 { return -v }

// studentScore is d/dx log t_ν(x) = −(ν + 1)x/(ν + x²).
func studentScore(nu float64) func(float64) float64 {
	return func(v float64) float64 { return -(nu + 1) * v / (nu + v*v) }
}

func drawNormal(r *rand.Rand) float64 { return r.NormFloat64() }

func drawStudent(nu float64) func(r *rand.Rand) float64 {
	d := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}
	return func(r *rand.Rand) float64 {
		d.Src = r
		return d.Rand()
	}
}

// TestKSDLevel: under H0 the rejection rate at α = 0.05 lies within 3
// binomial SE of α, for Gaussian data against a normal target and for
// heavy-tailed data against a Student-t(3) target. The suite runs 100
// replications of 100 rows; KML_FULL=1 (CI, fulltest) runs 400 of 200 rows
// (and KSDAgg).
func TestKSDLevel(t *testing.T) {
	reps, n, boots := 100, 100, 200
	long := fulltest.Enabled()
	if long {
		reps, n, boots = 400, 200, 500
	}
	se := math.Sqrt(0.05 * 0.95 / float64(reps))
	cases := []struct {
		name  string
		draw  func(*rand.Rand) float64
		score func(float64) float64
		s     KSDSettings
	}{
		{"normal imq", drawNormal, normalScore, KSDSettings{}},
		{"student-t(3) imq", drawStudent(3), studentScore(3), KSDSettings{}},
		{"normal rbf", drawNormal, normalScore, KSDSettings{Base: RBF}},
	}
	if long {
		cases = append(cases,
			struct {
				name  string
				draw  func(*rand.Rand) float64
				score func(float64) float64
				s     KSDSettings
			}{"student-t(3) agg", drawStudent(3), studentScore(3), KSDSettings{Ells: []float64{0.25, 0.5, 1, 2, 4}}})
	}
	for i, c := range cases {
		rej := ksdRejections(t, reps, n, boots, 4000+uint64(i), c.draw, c.score, c.s)
		rate := float64(rej) / float64(reps)
		t.Logf("%s: rejection rate %.3f over %d replications of %d rows (SE %.4f)", c.name, rate, reps, n, se)
		if math.Abs(rate-0.05) > 3*se {
			t.Errorf("%s: rejection rate %.3f is more than 3 SE (%.4f) from 0.05", c.name, rate, se)
		}
	}
}

// TestKSDPower: the test rejects a Student-t(3) model for Gaussian data
// (n = 1000) and a moment-matched normal model for the two-component
// mixture ½N(−1.5, 1) + ½N(1.5, 1) (n = 200), IMQ kernel at ℓ = 1 (about
// the median heuristic of standard normal data). The replications are
// seeded, so the counts are fixed; they are logged.
func TestKSDPower(t *testing.T) {
	if rej := ksdRejections(t, 6, 1000, 200, 41, drawNormal, studentScore(3), KSDSettings{Ell: 1}); rej < 5 {
		t.Errorf("t(3) model, normal data: %d/6 rejections", rej)
	} else {
		t.Logf("t(3) model, normal data, n = 1000: %d/6 rejections", rej)
	}
	mix := func(r *rand.Rand) float64 {
		if r.IntN(2) == 0 {
			return r.NormFloat64() - 1.5
		}
		return r.NormFloat64() + 1.5
	}
	sd2 := 1 + 1.5*1.5
	if rej := ksdRejections(t, 10, 200, 200, 42, mix, func(v float64) float64 { return -v / sd2 }, KSDSettings{Ell: 1}); rej < 9 {
		t.Errorf("normal model, mixture data: %d/10 rejections", rej)
	} else {
		t.Logf("normal model, mixture data, n = 200: %d/10 rejections", rej)
	}
}

// TestKSDAggregate: the aggregated test reports every lengthscale, and
// with one lengthscale its per-kernel p-value is the plain test's.
func TestKSDAggregate(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 3))
	n := 80
	x := mat.NewDense(n, 1, nil)
	sc := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		v := r.NormFloat64()*0.6 + 0.4
		x.Set(i, 0, v)
		sc.Set(i, 0, -v)
	}
	plain, err := KSDTest(context.Background(), x, sc, KSDSettings{Ell: 0.7, Bootstraps: 300, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	agg, err := KSDTest(context.Background(), x, sc, KSDSettings{Ells: []float64{0.2, 0.7, 3}, Bootstraps: 300, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(agg.PValues) != 3 || len(agg.Statistics) != 3 || len(agg.Rejected) != 3 {
		t.Fatalf("aggregate result %+v", agg)
	}
	if agg.PValues[1] != plain.PValue || agg.Statistics[1] != plain.Statistic {
		t.Errorf("lengthscale 0.7: aggregate p %g stat %g, plain p %g stat %g", agg.PValues[1], agg.Statistics[1], plain.PValue, plain.Statistic)
	}
	if plain.PValue > 0.01 || agg.PValue > 0.01 {
		t.Errorf("N(0.4, 0.36) data against N(0, 1): p = %g (plain), %g (aggregate)", plain.PValue, agg.PValue)
	}
}

// TestKSDCancel: a cancelled context stops the bootstrap.
func TestKSDCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x := mat.NewDense(50, 1, nil)
	for i := 0; i < 50; i++ {
		x.Set(i, 0, float64(i)/10)
	}
	if _, err := KSDTest(ctx, x, x, KSDSettings{Ell: 1}); err == nil {
		t.Error("no error after cancellation")
	}
}
