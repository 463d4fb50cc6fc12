package model_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

// replayWalkAgree evaluates d (replaying) and w (walking) at seeded points
// and fails on any difference in the value or the gradient, to the bit.
func replayWalkAgree(t *testing.T, name string, d, w *model.Density, dim int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 15))
	g, h := make([]float64, dim), make([]float64, dim)
	for k := range 8 {
		q := make([]float64, dim)
		for i := range q {
			q[i] = r.NormFloat64()
		}
		a, errA := d.LogDensity(g, q)
		b, errB := w.LogDensity(h, q)
		if (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
			t.Fatalf("%s point %d: replay error %v, walk error %v", name, k, errA, errB)
		}
		if math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("%s point %d: replay %v, walk %v", name, k, a, b)
		}
		for i := range g {
			if math.Float64bits(g[i]) != math.Float64bits(h[i]) {
				t.Fatalf("%s point %d: gradient replayed %v, walked %v", name, k, g, h)
			}
		}
		if v, _ := d.Value(q); math.Float64bits(v) != math.Float64bits(b) {
			t.Fatalf("%s point %d: Value replayed %v, walk %v", name, k, v, b)
		}
	}
}

// Every shape of the gradient benchmark replays, and its replay is the walk.
func TestReplayShapes(t *testing.T) {
	for _, s := range gradShapes {
		d, dim := shapeDensity(t, s, false)
		w, _ := shapeDensity(t, s, true)
		replayWalkAgree(t, s.name, d, w, dim, 1)
		if !d.Replaying() {
			t.Errorf("%s: not replayed", s.name)
		}
		if w.Replaying() {
			t.Errorf("%s: NoReplay replays", s.name)
		}
	}
}

// replayModels are small models over the constructs a model's statements
// reach, with whether each replays (false: its recording reads parameter
// values or records opaque nodes, so it is walked) and, when it does not,
// a part of the reason its ReplayStatus gives. The data are defined by
// replayData.
var replayModels = []struct {
	name, src string
	replays   bool
	why       string
}{
	{"priors", `model m {
  a ~ normal(0, 1)
  b ~ gamma(2, 3)
  c ~ beta(2, 2)
  d ~ uniform(-1, 2)
  e ~ half_cauchy(1)
  f ~ exponential(2)
  g ~ cauchy(0, 2)
  h ~ student_t(3, 0, 1)
  q ~ lognormal(0, 1)
  v[3] ~ normal(a, b)
}`, true, ""},
	{"vectorparams", `model m {
  mu[4] ~ normal(0, 1)
  s[4] ~ gamma(2, 2)
  y ~ normal(mu, s)
  x[4] ~ gamma(s, 1)
}`, true, ""},
	{"arith", `model m {
  a ~ normal(0, 1)
  b ~ gamma(2, 2)
  v[4] ~ normal(0, 1)
  w = (a - 2 * v) / b + v * v - 3 / b + b ^ 2 + 2 ^ a + b ^ a - v / 2
  z = exp(w / 10) + log(b) + sqrt(b) + inv_logit(v) + log1p(b) + sum(v) + mean(v)
  y ~ normal(w + z, 1 + b)
}`, true, ""},
	{"matvec", `model m {
  beta[3] ~ normal(0, 1)
  s ~ half_normal(1)
  y ~ normal(X @ beta, s)
}`, true, ""},
	{"ordered_moving", `model m {
  mu[3] ~ ordered(normal(0, 3))
  a ~ uniform(0, 1)
  b ~ uniform(a, 2)
  y ~ normal(mu[2] + a * b, 1)
}`, true, ""},
	{"counts", `model m {
  lam ~ gamma(2, 1)
  p ~ beta(1, 1)
  k ~ poisson(lam)
  k ~ binomial(5, p)
}`, true, ""},
	{"target_logpdf", `model m {
  a ~ normal(0, 1)
  s ~ gamma(2, 2)
  target += logpdf(normal(a, s), y)
  target += -s
}`, true, ""},
	{"mixture_iterate", `fn ar(s, t, p) = p.c + p.phi * s
model m {
  w ~ beta(2, 2)
  mu[2] ~ ordered(normal(0, 5))
  phi ~ uniform(-1, 1)
  y ~ mixture([w, 1 - w], [normal(mu[1], 1), normal(mu[2], 1)])
  m = iterate(ar, 0, 4, with: {c: mu[1], phi: phi})
  y ~ normal(m, 2)
}`, true, ""},
	{"branch", `model m {
  a ~ normal(0, 1)
  b = if a > 0 then a else -2 * a
  y ~ normal(b, 1)
}`, false, "walked: the value of a is read at lang/model/"},
	{"abs", `model m {
  a ~ normal(0, 1)
  y ~ normal(abs(a), 1)
}`, true, ""}, // abs's branch is made inside its Func
	// A truncated family replays: its parameters are checked by its density
	// at every evaluation, not read when it is built.
	{"truncated", `model m {
  mu ~ normal(0, 1)
  b ~ normal(mu, 1, lower: 0)
  y ~ normal(b, 1, upper: 4)
}`, true, ""},
	// The active lower end of b's support is a or 0, whichever is larger:
	// a decision a replay would not make again (TestMovingEndsCompete
	// checks that this alone marks the recording).
	{"truncated_competing", `model m {
  a ~ normal(0, 1)
  b ~ gamma(2, 1, lower: a)
  y ~ normal(b, 1)
}`, false, "walked: a decision on a value computed from parameters is taken at lang/model/dists/truncate.go"},
	// The kernel half of the language replays: kernels peek at their
	// hyperparameters, and every node that uses one (gram's VecFunc, the
	// bke and gp families' FuncNode) recomputes it from them; chol's
	// symmetry check and multi_normal_cholesky's factor check are guards.
	{"bke", `model m {
  ell ~ gamma(2, 2)
  X ~ bke(rbf(ell), noise: 1, landmarks: Z)
}`, true, ""},
	{"gp_latent", `model m {
  ell ~ gamma(2, 2)
  f ~ gp(X, rbf(ell))
  y ~ normal(f, 0.5)
}`, true, ""},
	{"gram_chol", `model m {
  ell ~ gamma(2, 2)
  z[4] ~ normal(0, 1)
  L = chol(gram(rbf(ell), X) + 0.1 * eye(4))
  y ~ normal(L @ z, 1)
}`, true, ""},
	{"scaled_kernel", `model m {
  a ~ gamma(2, 2)
  ell ~ gamma(2, 2)
  y ~ normal(gram(a * rbf(ell), X) @ [1, -1, 0.5, 0], 1)
}`, true, ""},
	{"scaled_fixed_kernel", `model m {
  a ~ gamma(2, 2)
  y ~ normal(gram(a * rbf(1.5), X) @ [1, -1, 0.5, 0], 1)
}`, true, ""},
	{"chol_outer", `model m {
  s[3] ~ gamma(2, 2)
  v[3] ~ normal(0, 1)
  L = chol(diag(s) + outer(v, v))
  y[1:3] ~ normal(L @ [1, 0.5, -1], 1)
}`, true, ""},
	{"bke_amp_noise", `model m {
  ell ~ gamma(2, 2)
  a ~ gamma(2, 2)
  tau2 ~ gamma(2, 2)
  X ~ bke(a * rbf(ell), noise: tau2, landmarks: Z)
}`, true, ""},
	{"gp_latent_sigma", `model m {
  ell ~ gamma(2, 2)
  s ~ gamma(2, 2)
  f ~ gp(X, rbf(ell))
  y ~ normal(f, s)
}`, true, ""},
	{"gp_logit", `model m {
  ell ~ gamma(2, 2)
  f ~ gp(X, rbf(ell))
  lab ~ bernoulli_logit(f)
}`, true, ""},
	{"multi_normal_kernel", `model m {
  ell ~ gamma(2, 2)
  a ~ gamma(2, 2)
  y ~ multi_normal(0, gram(a * rbf(ell), X) + 0.1 * eye(4))
}`, true, ""},
	{"atan2_lse_softmax", `model m {
  a ~ normal(0, 1)
  c ~ normal(0, 1)
  y ~ normal(atan2(a, c) + log_sum_exp([a, c]) + softmax([a, c, 0, 1]), 1)
}`, true, ""},
	{"dot_mod", `model m {
  v[4] ~ normal(0, 1)
  a ~ normal(0, 1)
  y ~ normal((v @ v) + (a % 1.5), 1)
}`, true, ""},
	{"categorical", `model m {
  beta[3] ~ normal(0, 1)
  k + 1 ~ categorical_logit(concat(beta, 0))
}`, true, ""},
	{"simplex_lkj", `model m {
  th[4] ~ dirichlet([1, 2, 3, 4])
  L[3] ~ lkj_corr_cholesky(2)
  y ~ normal(th, 1)
  y[1:3] ~ normal(L @ [1, 0.5, -1], 1)
}`, true, ""},
	// multi_normal's label prints mu: printing a parameter's value
	// decides nothing and must not stop the replay.
	{"multi_normal_data", `model m {
  mu[4] ~ normal(0, 1)
  y ~ multi_normal(mu, eye(4) + 0.5)
}`, true, ""},
}

func replayData(in *eval.Interpreter, r *rand.Rand) error {
	y := make([]float64, 4)
	for i := range y {
		y[i] = r.NormFloat64()
	}
	x := mat.NewDense(4, 3, nil)
	for i := range 4 {
		for j := range 3 {
			x.Set(i, j, r.NormFloat64())
		}
	}
	z := mat.NewDense(4, 3, nil)
	for i := range 4 {
		for j := range 3 {
			z.Set(i, j, r.NormFloat64())
		}
	}
	for k, v := range map[string]eval.Value{"y": &eval.Vec{Data: y}, "X": eval.NewMat(x), "k": &eval.Vec{Data: []float64{1, 3, 0, 2}}, "lab": &eval.Vec{Data: []float64{1, 0, 0, 1}}, "Z": eval.NewMat(z)} {
		if err := in.Define(k, v); err != nil {
			return err
		}
	}
	return nil
}

// Replay is the walk, to the bit, on models over every construct a model's
// statements reach; a model whose computation branches on a parameter's
// value is walked.
func TestReplayModels(t *testing.T) {
	for i, m := range replayModels {
		var ds [3]*model.Density
		var dim int
		for k, walk := range []bool{false, true, false} {
			in := eval.New(eval.Options{})
			if err := replayData(in, rand.New(rand.NewPCG(uint64(i), 2))); err != nil {
				t.Fatal(err)
			}
			if _, err := in.Eval(m.name+".kml", m.src); err != nil {
				t.Fatalf("%s: %v", m.name, err)
			}
			mv, _ := in.Lookup("m")
			c, err := model.CompileFor(in, mv.(*eval.Model), nil, all)
			if err != nil {
				t.Fatalf("%s: %v", m.name, err)
			}
			c.NoReplay = walk
			ds[k], dim = c.NewDensityFor(in), c.Dim()
		}
		ds[2].Optimizing()
		replayWalkAgree(t, m.name, ds[0], ds[1], dim, uint64(i))
		// Verified at its own points, with its memo (replayWalkAgree
		// asks for the value again at each point).
		replayWalkAgree(t, m.name+" optimizing", ds[2], ds[1], dim, uint64(i))
		if ds[2].Replaying() != m.replays || ds[2].ReplayStatus() != ds[0].ReplayStatus() {
			t.Errorf("%s: optimizing density replaying %v (%s), the other %v (%s)", m.name, ds[2].Replaying(), ds[2].ReplayStatus(), ds[0].Replaying(), ds[0].ReplayStatus())
		}
		if ds[0].Replaying() != m.replays {
			t.Errorf("%s: replaying %v, want %v", m.name, ds[0].Replaying(), m.replays)
		}
		st := ds[0].ReplayStatus()
		t.Logf("%s: %s", m.name, st)
		if m.replays && st != "replayed" || !m.replays && !strings.Contains(st, m.why) {
			t.Errorf("%s: status %q, want %q", m.name, st, m.why)
		}
		if st := ds[1].ReplayStatus(); st != "walked: replay is turned off (KML_REPLAY=0)" {
			t.Errorf("%s: NoReplay status %q", m.name, st)
		}
	}
}

// A model whose walk draws a number (no seed: from the run's stream) is
// replayable, but its replay repeats the first walk's draw: both ways of
// deciding, at invented points and at the caller's own (Optimizing), find
// that the replay differs from a walk, and the density walks.
func TestReplayMismatchCaught(t *testing.T) {
	const src = `model m {
  a ~ normal(0, 1)
  e = draw(normal(0, 1))
  y ~ normal(a + e, 1)
}`
	for _, optimizing := range []bool{false, true} {
		in := eval.New(eval.Options{})
		if err := replayData(in, rand.New(rand.NewPCG(7, 2))); err != nil {
			t.Fatal(err)
		}
		if _, err := in.Eval("m.kml", src); err != nil {
			t.Fatal(err)
		}
		mv, _ := in.Lookup("m")
		c, err := model.CompileFor(in, mv.(*eval.Model), nil, all)
		if err != nil {
			t.Fatal(err)
		}
		d := c.NewDensityFor(in)
		if optimizing {
			d.Optimizing()
		}
		g := make([]float64, c.Dim())
		for k := range 6 {
			if _, err := d.LogDensity(g, []float64{0.1 * float64(k)}); err != nil {
				t.Fatal(err)
			}
		}
		if st := d.ReplayStatus(); d.Replaying() || !strings.Contains(st, "differs from a") {
			t.Errorf("optimizing %v: replaying %v, status %q", optimizing, d.Replaying(), st)
		}
	}
}
