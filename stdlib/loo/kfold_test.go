package loo_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kml-lang/kml/internal/stoptest"
	"github.com/kml-lang/kml/lang/eval"

	"github.com/kml-lang/kml/stdlib/internal/kmltest"
	"github.com/kml-lang/kml/stdlib/loo"
	"gonum.org/v1/gonum/mat"
)

// kfoldY is the data of the conjugate normal model with known variance,
// y_i ~ normal(mu, 1.1), mu ~ normal(0.5, 2), as TestLOOConjugateNormal.
var kfoldY = []float64{1.2, -0.3, 0.8, 2.1, 0.4, 1.5, -0.9, 0.7, 1.1, 0.2, 3.4, 0.9}

const kfoldModel = `
let y = [1.2, -0.3, 0.8, 2.1, 0.4, 1.5, -0.9, 0.7, 1.1, 0.2, 3.4, 0.9]
model m(y) {
  mu ~ normal(0.5, 2)
  y ~ normal(mu, 1.1)
}
`

// predictive is the closed-form log predictive density of each point i
// with hold[i], given the points without hold: mu | y_train is normal
// with precision 1/τ² + n_train/σ² and mean (m0/τ² + Σ y_train/σ²)/prec,
// so y_i | y_train is normal(mean, √(σ² + 1/prec)). With hold all false it
// is the full-data lpd_i.
func predictive(y []float64, hold func(i int) []bool, m0, tau, sigma float64) []float64 {
	out := make([]float64, len(y))
	for i, yi := range y {
		h := hold(i)
		n, sum := 0.0, 0.0
		for j, v := range y {
			if !h[j] {
				n, sum = n+1, sum+v
			}
		}
		prec := 1/(tau*tau) + n/(sigma*sigma)
		mean := (m0/(tau*tau) + sum/(sigma*sigma)) / prec
		s2 := sigma*sigma + 1/prec
		out[i] = -0.5*math.Log(2*math.Pi*s2) - 0.5*(yi-mean)*(yi-mean)/s2
	}
	return out
}

// foldsOf reads kfold's 1-based folds as a hold-out rule: point i is
// scored without every point of its fold.
func foldsOf(k *loo.KFoldValue) func(i int) []bool {
	return func(i int) []bool {
		h := make([]bool, len(k.Folds))
		for j, f := range k.Folds {
			h[j] = f == k.Folds[i]
		}
		return h
	}
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// TestKFoldConjugateNormal compares kfold with the closed-form K-fold elpd
// of the conjugate model for the folds kfold drew, and p_kfold with the
// closed-form lpd minus it. The difference is Monte Carlo error, the log
// of a mean over S = 2,000 NUTS draws, and it is correlated within a fold
// (an error in one fit's posterior moves all its held-out points): over
// seeds 1–8 (TestKFoldSeedSweep) the largest error was 0.098 in total and
// 0.056 at a point, and with 40,000 draws seed 3 gives −20.0113 against
// −20.0067. The tolerances, 0.25 in total and 0.1 at a point, still fail a
// wrong score by far: the in-sample lpd instead of the held-out density
// is off by p_kfold ≈ 2, and the density at the posterior mean instead of
// the mean density by ≈ 0.05 a point, 0.6 in total.
func TestKFoldConjugateNormal(t *testing.T) {
	in, _ := kmltest.Run(t, kfoldModel+`let k = kfold(m(y: y), K: 4, seed: 3, chains: 2, warmup: 300, draws: 1000)`)
	k := kmltest.Lookup[*loo.KFoldValue](t, in, "k")
	exact := predictive(kfoldY, foldsOf(k), 0.5, 2, 1.1)
	for i, e := range exact {
		if d := math.Abs(k.ElpdI[i] - e); d > 0.1 {
			t.Errorf("point %d: elpd_kfold_i %.5f, closed form %.5f", i+1, k.ElpdI[i], e)
		}
	}
	if d := math.Abs(k.Elpd.Value - sum(exact)); d > 0.25 {
		t.Errorf("elpd_kfold %.5f, closed form %.5f", k.Elpd.Value, sum(exact))
	}
	lpd := sum(predictive(kfoldY, func(int) []bool { return make([]bool, len(kfoldY)) }, 0.5, 2, 1.1))
	if d := math.Abs(k.P.Value - (lpd - sum(exact))); d > 0.25 {
		t.Errorf("p_kfold %.5f, closed form %.5f", k.P.Value, lpd-sum(exact))
	}
}

// TestKFoldSeedSweep (KML_KFOLD_SWEEP=1) measures the Monte Carlo error
// TestKFoldConjugateNormal's tolerances rest on: kfold over seeds 1–8
// against the closed form.
func TestKFoldSeedSweep(t *testing.T) {
	if os.Getenv("KML_KFOLD_SWEEP") == "" {
		t.Skip("set KML_KFOLD_SWEEP=1 to measure kfold's Monte Carlo error over seeds")
	}
	worstTotal, worstPoint := 0.0, 0.0
	for seed := 1; seed <= 8; seed++ {
		in, _ := kmltest.Run(t, kfoldModel+fmt.Sprintf(`let k = kfold(m(y: y), K: 4, seed: %d, chains: 2, warmup: 300, draws: 1000)`, seed))
		k := kmltest.Lookup[*loo.KFoldValue](t, in, "k")
		exact := predictive(kfoldY, foldsOf(k), 0.5, 2, 1.1)
		for i, e := range exact {
			worstPoint = max(worstPoint, math.Abs(k.ElpdI[i]-e))
		}
		worstTotal = max(worstTotal, math.Abs(k.Elpd.Value-sum(exact)))
		t.Logf("seed %d: elpd_kfold %.5f, closed form %.5f", seed, k.Elpd.Value, sum(exact))
	}
	t.Logf("largest error: total %.5f, pointwise %.5f", worstTotal, worstPoint)
}

// TestKFoldLeaveOneOut: with K = N every fold holds one point, and kfold
// is exact leave-one-out: it matches the closed-form LOO of the conjugate
// model (exactLOO) and PSIS-LOO of the full posterior. The errors are now
// independent across points; the tolerances are those of
// TestKFoldConjugateNormal.
func TestKFoldLeaveOneOut(t *testing.T) {
	in, _ := kmltest.Run(t, kfoldModel+`
let k = kfold(m(y: y), K: 12, seed: 5, chains: 2, warmup: 300, draws: 1000)
let l = loo(sample(m(y: y), seed: 5, chains: 2, warmup: 300, draws: 1000))
`)
	k := kmltest.Lookup[*loo.KFoldValue](t, in, "k")
	l := kmltest.Lookup[*loo.LOOValue](t, in, "l")
	exact := exactLOO(kfoldY, 0.5, 2, 1.1)
	for i, e := range exact {
		if d := math.Abs(k.ElpdI[i] - e); d > 0.1 {
			t.Errorf("point %d: elpd_kfold_i %.5f, exact LOO %.5f", i+1, k.ElpdI[i], e)
		}
	}
	if d := math.Abs(k.Elpd.Value - sum(exact)); d > 0.25 {
		t.Errorf("elpd_kfold %.5f with K = N, exact LOO %.5f", k.Elpd.Value, sum(exact))
	}
	if d := math.Abs(k.Elpd.Value - l.Elpd.Value); d > 0.25 {
		t.Errorf("elpd_kfold %.5f with K = N, PSIS-LOO %.5f", k.Elpd.Value, l.Elpd.Value)
	}
	got := slices.Clone(k.Folds)
	slices.Sort(got)
	for i, f := range got {
		if f != i {
			t.Fatalf("K = N: folds %v, want each point alone", k.Folds)
		}
	}
}

// TestKFoldRegressionRows: the rows of a matrix argument are split with
// the vector observed. Bayesian linear regression with known noise,
// beta ~ normal(0, τ) and y ~ normal(x β, σ), has the posterior
// N(m, V), V = (XᵀX/σ² + I/τ²)⁻¹, m = V Xᵀy/σ², on the training rows, so
// a held-out y_i is normal(x_iᵀm, √(σ² + x_iᵀV x_i)); kfold matches it
// within the tolerances of TestKFoldConjugateNormal (a wrong row, or the
// matrix left whole, moves the total by several units).
func TestKFoldRegressionRows(t *testing.T) {
	const n = 15
	xs, ys := make([]string, n), make([]string, n)
	X := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range n {
		u := float64(i)/7 - 1
		X.Set(i, 0, 1)
		X.Set(i, 1, u)
		y[i] = 0.4 + 1.3*u + 0.6*math.Sin(3.7*float64(i))
		xs[i] = fmt.Sprintf("[1, %v]", u)
		ys[i] = fmt.Sprint(y[i])
	}
	src := fmt.Sprintf(`
let x = [%s]
let y = [%s]
model reg(x, y) {
  beta[cols(x)] ~ normal(0, 2)
  y ~ normal(x @ beta, 0.7)
}
let k = kfold(reg(x: x, y: y), K: 5, seed: 11, chains: 2, warmup: 300, draws: 1000)
`, strings.Join(xs, ", "), strings.Join(ys, ", "))
	in, _ := kmltest.Run(t, src)
	k := kmltest.Lookup[*loo.KFoldValue](t, in, "k")
	if !slices.Equal(k.Split, []string{"x", "y"}) {
		t.Errorf("split %v, want [x y]", k.Split)
	}
	const tau, sigma = 2.0, 0.7
	total, exactTotal := 0.0, 0.0
	for i := range n {
		var prec mat.Dense
		xty := mat.NewVecDense(2, nil)
		prec.Scale(1/(tau*tau), eye(2))
		for j := range n {
			if k.Folds[j] == k.Folds[i] {
				continue
			}
			r := X.RawRowView(j)
			for a := range 2 {
				xty.SetVec(a, xty.AtVec(a)+r[a]*y[j]/(sigma*sigma))
				for b := range 2 {
					prec.Set(a, b, prec.At(a, b)+r[a]*r[b]/(sigma*sigma))
				}
			}
		}
		var V mat.Dense
		if err := V.Inverse(&prec); err != nil {
			t.Fatal(err)
		}
		var m mat.VecDense
		m.MulVec(&V, xty)
		xi := mat.NewVecDense(2, X.RawRowView(i))
		mean := mat.Dot(xi, &m)
		var Vx mat.VecDense
		Vx.MulVec(&V, xi)
		s2 := sigma*sigma + mat.Dot(xi, &Vx)
		e := -0.5*math.Log(2*math.Pi*s2) - 0.5*(y[i]-mean)*(y[i]-mean)/s2
		if d := math.Abs(k.ElpdI[i] - e); d > 0.1 {
			t.Errorf("point %d: elpd_kfold_i %.5f, closed form %.5f", i+1, k.ElpdI[i], e)
		}
		total += k.ElpdI[i]
		exactTotal += e
	}
	if d := math.Abs(total - exactTotal); d > 0.25 {
		t.Errorf("elpd_kfold %.5f, closed form %.5f", total, exactTotal)
	}
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := range n {
		m.Set(i, i, 1)
	}
	return m
}

// TestKFoldFolds: the folds are a partition of the points into K folds
// whose sizes differ by at most one, and a seed gives the same folds, fit
// seeds and values; another seed other folds.
func TestKFoldFolds(t *testing.T) {
	run := func(seed int) *loo.KFoldValue {
		in, _ := kmltest.Run(t, kfoldModel+fmt.Sprintf(`let k = kfold(m(y: y), K: 5, seed: %d, chains: 1, warmup: 100, draws: 200)`, seed))
		return kmltest.Lookup[*loo.KFoldValue](t, in, "k")
	}
	a, b, c := run(7), run(7), run(8)
	size := make([]int, 5)
	for _, f := range a.Folds {
		if f < 0 || f >= 5 {
			t.Fatalf("fold %d outside 1..5", f+1)
		}
		size[f]++
	}
	slices.Sort(size)
	if !slices.Equal(size, []int{2, 2, 2, 3, 3}) {
		t.Errorf("fold sizes %v for 12 points in 5 folds, want 2, 2, 2, 3, 3", size)
	}
	if !slices.Equal(a.Folds, b.Folds) || !slices.Equal(a.ElpdI, b.ElpdI) || !slices.Equal(a.Seeds, b.Seeds) {
		t.Errorf("seed 7 twice: folds %v and %v, elpd %v and %v", a.Folds, b.Folds, a.Elpd.Value, b.Elpd.Value)
	}
	if slices.Equal(a.Folds, c.Folds) {
		t.Errorf("seeds 7 and 8 drew the same folds %v", a.Folds)
	}
	if len(a.Seeds) != 5 || a.Seed != 7 {
		t.Errorf("seeds %v (seed %d), want 5 fit seeds from seed 7", a.Seeds, a.Seed)
	}
}

// TestKFoldCompare: loo_compare takes a kfold result beside a loo result
// of the same data, and orders them by elpd.
func TestKFoldCompare(t *testing.T) {
	in, _ := kmltest.Run(t, kfoldModel+`
model wide(y) {
  mu ~ normal(0.5, 2)
  y ~ normal(mu, 3)
}
let k = kfold(wide(y: y), K: 4, seed: 1, chains: 1, warmup: 200, draws: 400)
let l = loo(sample(m(y: y), seed: 1, chains: 1, warmup: 200, draws: 400))
let c = loo_compare(narrow: l, wide: k)
let names = c.models
`)
	c := kmltest.Lookup[*loo.CompareValue](t, in, "c")
	k := kmltest.Lookup[*loo.KFoldValue](t, in, "k")
	if len(c.Rows) != 2 || c.Rows[0].Name != "narrow" || c.Rows[1].Name != "wide" {
		t.Fatalf("rows %+v", c.Rows)
	}
	if c.Rows[1].Elpd.Value != k.Elpd.Value || !(c.Rows[1].ElpdDiff < 0) {
		t.Errorf("wide row %+v, kfold elpd %v", c.Rows[1], k.Elpd.Value)
	}
}

// TestKFoldErrors: each refusal says why, at the argument.
func TestKFoldErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`let y = [1.0, 2.0, 3.0]
model p {
  mu ~ normal(0, 1)
  y ~ normal(mu, 1)
}
let k = kfold(p, K: 3)`, "t.kml:6:15: error: kfold: model p takes no data arguments, so it cannot be refitted on part of its data: declare it with them, model p(x, y) { ... }"},
		{kfoldModel + `let k = kfold(m, K: 3)`, "kfold: model m(y) takes data: call it with its data, m(y: ...)"},
		{kfoldModel + `let k = kfold(m(y: y), K: 13)`, "error: kfold: K = 13 folds for 12 observed points"},
		{kfoldModel + `let k = kfold(m(y: y), K: 1)`, "t.kml:7:27: error: kfold: K must be at least 2, got 1"},
		{`let y = [1.0, 2.0, 3.0]
model c(n, y) {
  mu ~ normal(0, 1)
  y ~ normal(mu * n, 1)
}
let k = kfold(c(n: 3, y: y), K: 3)`, "data argument n is 3, the number of observed points"},
		{`let y = [1.0, 2.0]
let z = [0.5, 1.5]
model two(y, z) {
  mu ~ normal(0, 1)
  y ~ normal(mu, 1)
  z ~ normal(mu, 2)
}
let k = kfold(two(y: y, z: z), K: 2)`, "model two has 4 observed points, but no data argument is a vector of length 4"},
		{`let y = [1.0, 2.0, 3.0]
let D = [[1.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 1.0]]
model g(D, y) {
  mu ~ normal(0, 1)
  y ~ normal(mu + D @ [1.0, 1.0, 1.0], 1)
}
let k = kfold(g(D: D, y: y), K: 3)`, "data argument D is a 3×3 matrix"},
		{kfoldModel + `let k = kfold(m(y: y), K: 3, split: ["z"])`, `t.kml:7:37: error: kfold: model m has no data argument "z"`},
		{kfoldModel + `let k = kfold(m(y: y), K: 3, split: "y")`, "split must be a list of data argument names"},
		{`let y = [1.0, 2.0, 3.0, 0.5]
model r(y) {
  mu ~ normal(0, 1)
  z[len(y)] ~ normal(0, 1)
  y ~ normal(mu + z, 1)
}
let k = kfold(r(y: y), K: 2)`, "t.kml:7:15: error: kfold: fold 1 of 2 (training rows): parameter z has 4 elements with all the data and 2 with these rows"},
		{`let y = [1.0, 2.0, 3.0]
model t(y) {
  mu ~ normal(0, 1)
  target += -0.5 * (y[1] - mu)^2
}
let k = kfold(t(y: y), K: 3)`, "a `target +=` term has no points"},
		{`let x = [-1.0, -0.3, 0.4, 1.1]
let y = [0.2, -0.1, 0.5, 0.9]
model g(x, y) {
  ell ~ lognormal(0, 1)
  f ~ gp(x, rbf(ell), inducing: 2)
  y ~ normal(f, 0.3)
}
let k = kfold(g(x: x, y: y), K: 2)`, "with inducing points (the Nyström path) is not yet available"},
		{`let x = [-1.0, -0.3, 0.4, 1.1]
let c = [1, 2, 3, 1]
model g(x, c) {
  ell ~ lognormal(0, 1)
  f ~ gp(x, rbf(ell), classes: 3)
  c ~ categorical_logit(f)
}
let k = kfold(g(x: x, c: c), K: 2, approx: "laplace")`, "an observation of a latent GP (f ~ gp(...)) is not yet available"},
	} {
		kmltest.ExpectError(t, c.src, c.want)
	}
}

// TestKFoldSplitNamed: split: names the arguments to split, here where a
// square matrix makes the automatic choice ambiguous; the matrix's rows
// are split with y and its columns kept.
func TestKFoldSplitNamed(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = [1.0, 2.0, 0.5]
let D = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
model g(D, y) {
  b ~ normal(0, 1)
  y ~ normal(D @ [b, b, b], 1)
}
let k = kfold(g(D: D, y: y), K: 3, split: ["D", "y"], seed: 2, chains: 1, warmup: 100, draws: 200)
`)
	k := kmltest.Lookup[*loo.KFoldValue](t, in, "k")
	if !slices.Equal(k.Split, []string{"D", "y"}) || len(k.ElpdI) != 3 {
		t.Errorf("split %v, %d points", k.Split, len(k.ElpdI))
	}
}

// TestKFoldStopsOnInterrupt: a cancelled kfold stops with an
// interruption having done at most a second of processor time after the
// cancel (the promised half second on each of two cores; a crowded
// machine stretches the wall time, not that).
func TestKFoldStopsOnInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	in := eval.New(eval.Options{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Context: ctx})
	done := make(chan error)
	go func() {
		_, err := in.Eval("t.kml", kfoldModel+"let k = kfold(m(y: y), K: 12, seed: 1, chains: 2, warmup: 100000, draws: 100000)\n")
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	err, cost, ok := stoptest.Await(cancel, done, 2*time.Minute)
	if !ok {
		t.Fatal("kfold did not stop within 2 minutes")
	}
	if err == nil || !strings.Contains(err.Error(), "interrupt") {
		t.Errorf("kfold: %v", err)
	}
	if cost.CPU > time.Second {
		t.Errorf("kfold stopped %v after the interrupt", cost)
	}
	t.Logf("kfold stopped %v after the interrupt", cost)
}

// TestKFoldProgress: kfold counts its fits, the full data's and each
// fold's, on the progress line.
func TestKFoldProgress(t *testing.T) {
	var term bytes.Buffer
	in := eval.New(eval.Options{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Progress: true, ProgressTo: &term})
	in.Progress().Delay, in.Progress().Every = 0, 0
	if _, err := in.Eval("t.kml", kfoldModel+"let k = kfold(m(y: y), K: 4, seed: 1, chains: 1, warmup: 100, draws: 100)\n"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(term.String(), "kfold: folds") || !strings.Contains(term.String(), "/5") {
		t.Errorf("no kfold progress in %q", term.String())
	}
}
