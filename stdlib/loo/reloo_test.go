package loo_test

import (
	"math"
	"slices"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
	"github.com/kml-lang/kml/stdlib/loo"
)

// The leverage model: y_i ~ normal(b·x_i, 1), b ~ normal(0, 2), where the
// last point alone has a large x and so pins b down: leaving it out widens
// b's posterior from sd 0.1 to 0.5, and PSIS's importance ratios for it
// have a heavy tail (k̂ ≈ 0.9). b | y_−i is normal with precision
// 1/τ² + Σ_{j≠i} x_j² and mean Σ_{j≠i} x_j y_j / precision, so the exact
// LOO predictive of y_i is normal(x_i·mean, √(1 + x_i²/precision)).
var (
	levX = []float64{0.5, -0.3, 0.8, -1.0, 0.2, 0.6, -0.4, 1.2, -0.7, 10}
	levY = []float64{0.9, -0.2, 0.5, -1.3, 0.4, 0.2, -0.9, 1.4, -0.4, 3.0}
)

const levModel = `
let x = [0.5, -0.3, 0.8, -1.0, 0.2, 0.6, -0.4, 1.2, -0.7, 10]
let y = [0.9, -0.2, 0.5, -1.3, 0.4, 0.2, -0.9, 1.4, -0.4, 3.0]
model m(x, y) {
  b ~ normal(0, 2)
  y ~ normal(b * x, 1)
}
let post = sample(m(x: x, y: y), seed: 1, chains: 2, warmup: 300, draws: 1000)
let l0 = loo(post)
`

// levLOO is the exact LOO predictive of point i: its mean, variance and
// the refit posterior's mean and variance of b.
func levLOO(i int) (mean, v, bm, bv float64) {
	prec, sxy := 1/4.0, 0.0
	for j := range levX {
		if j != i {
			prec += levX[j] * levX[j]
			sxy += levX[j] * levY[j]
		}
	}
	bm, bv = sxy/prec, 1/prec
	return levX[i] * bm, 1 + levX[i]*levX[i]*bv, bm, bv
}

func normLog(y, m, v float64) float64 { return -0.5*math.Log(2*math.Pi*v) - 0.5*(y-m)*(y-m)/v }

// logMeanNormal is log(1/S Σ_s N(y | x·b_s, 1)) over the draws b.
func logMeanNormal(y, x float64, b []float64) float64 {
	ls := make([]float64, len(b))
	mx := math.Inf(-1)
	for s, bs := range b {
		ls[s] = normLog(y, x*bs, 1)
		mx = max(mx, ls[s])
	}
	sum := 0.0
	for _, v := range ls {
		sum += math.Exp(v - mx)
	}
	return mx + math.Log(sum/float64(len(b)))
}

// TestReloo refits the leverage model's high-k̂ point and checks its
// elpd_loo_i three ways. (1) Against a brute-force refit made here: the
// model on the data without the point, sampled with the seed reloo
// reports and its settings, and log mean p(y_i | b_s) computed here from
// those draws — the same numbers, so equal to 1e-12. (2) Against the
// closed form, within 4 Monte Carlo standard errors: the relative variance
// of p(y_i | b) under b ~ normal(m, v) is E[p²]/E[p]² − 1 with
// E[p] = N(y; xm, 1 + x²v) and E[p²] = N(y; xm, 1/2 + x²v)/(2√π), and the
// log of a mean of S draws has sd √(relvar/S) (S the refit's draws; NUTS's
// ESS for one Gaussian parameter is about S or more). (3) p_loo_i is the
// full posterior's log mean density minus elpd_loo_i, k̂ is 0, the other
// points keep their PSIS values, and the totals are the sums.
func TestReloo(t *testing.T) {
	in, out := kmltest.Run(t, levModel+`
let l = loo(post, reloo: true, seed: 5, chains: 2, warmup: 300, draws: 2000)
print(l)
`)
	l0 := kmltest.Lookup[*loo.LOOValue](t, in, "l0")
	l := kmltest.Lookup[*loo.LOOValue](t, in, "l")
	last := len(levX) - 1
	if l0.K[last] <= l0.KThreshold {
		t.Fatalf("k̂ of the leverage point %.3f, want above %.2f for the test to mean anything", l0.K[last], l0.KThreshold)
	}
	var bad []int
	for i, k := range l0.K {
		if k > l0.KThreshold {
			bad = append(bad, i)
		}
	}
	r := l.Reloo
	if !slices.Equal(r.Points, bad) {
		t.Fatalf("refitted %v, want the points with k̂ above the threshold %v", r.Points, bad)
	}
	post := kmltest.Lookup[*infer.Posterior](t, in, "post")
	bv, _ := post.Attr("b")
	full := bv.(*eval.Vec).Data
	for j, i := range r.Points {
		// (1) The brute-force refit.
		var xs, ys []float64
		for k := range levX {
			if k != i {
				xs, ys = append(xs, levX[k]), append(ys, levY[k])
			}
		}
		in2, _ := kmltest.Run(t, levModel+`
let refit = sample(m(x: `+fmtVec(xs)+`, y: `+fmtVec(ys)+`), seed: `+fmtNum(r.Seeds[j])+`, chains: 2, warmup: 300, draws: 2000)
`)
		refit := kmltest.Lookup[*infer.Posterior](t, in2, "refit")
		rb, _ := refit.Attr("b")
		brute := logMeanNormal(levY[i], levX[i], rb.(*eval.Vec).Data)
		if math.Abs(l.ElpdI[i]-brute) > 1e-12 {
			t.Errorf("point %d: elpd_loo_i %.12f, brute-force refit %.12f", i+1, l.ElpdI[i], brute)
		}
		// (2) The closed form.
		mean, v, bm, bvar := levLOO(i)
		exact := normLog(levY[i], mean, v)
		x := levX[i]
		relvar := math.Exp(normLog(levY[i], x*bm, 0.5+x*x*bvar)-2*normLog(levY[i], x*bm, 1+x*x*bvar))/(2*math.Sqrt(math.Pi)) - 1
		tol := 4 * math.Sqrt(relvar/4000)
		if d := math.Abs(l.ElpdI[i] - exact); d > tol {
			t.Errorf("point %d: elpd_loo_i %.5f, exact %.5f: off by %.4f, more than 4 Monte Carlo sd %.4f", i+1, l.ElpdI[i], exact, d, tol)
		}
		t.Logf("point %d: k̂ %.3f; PSIS %.4f, reloo %.4f, exact %.4f (tolerance %.4f)", i+1, r.K[j], l0.ElpdI[i], l.ElpdI[i], exact, tol)
		// (3) p_loo_i and k̂.
		if lpd := logMeanNormal(levY[i], levX[i], full); math.Abs(l.PI[i]-(lpd-l.ElpdI[i])) > 1e-9 {
			t.Errorf("point %d: p_loo_i %v, want lpd − elpd = %v", i+1, l.PI[i], lpd-l.ElpdI[i])
		}
		if l.K[i] != 0 || l.ICI[i] != -2*l.ElpdI[i] {
			t.Errorf("point %d: k̂ %v looic_i %v", i+1, l.K[i], l.ICI[i])
		}
	}
	total := 0.0
	for i := range levX {
		if !slices.Contains(r.Points, i) && l.ElpdI[i] != l0.ElpdI[i] {
			t.Errorf("point %d was not refitted but changed: %v, was %v", i+1, l.ElpdI[i], l0.ElpdI[i])
		}
		total += l.ElpdI[i]
	}
	if math.Abs(l.Elpd.Value-total) > 1e-9 || l.Bad != 0 {
		t.Errorf("elpd_loo %v, sum %v; bad %d", l.Elpd.Value, total, l.Bad)
	}
	t.Log(out.String())
}

// TestRelooNothingToRefit: with every k̂ below the threshold reloo refits
// nothing and changes nothing.
func TestRelooNothingToRefit(t *testing.T) {
	in, out := kmltest.Run(t, kfoldModel+`
let post = sample(m(y: y), seed: 1, chains: 2, warmup: 300, draws: 1000)
let l0 = loo(post)
let l = loo(post, reloo: true, seed: 5)
print(l.refitted)
`)
	l0 := kmltest.Lookup[*loo.LOOValue](t, in, "l0")
	l := kmltest.Lookup[*loo.LOOValue](t, in, "l")
	if l0.Bad != 0 {
		t.Fatalf("%d k̂ above the threshold: the test needs none", l0.Bad)
	}
	if len(l.Reloo.Points) != 0 || !slices.Equal(l.ElpdI, l0.ElpdI) || !slices.Equal(l.K, l0.K) || l.Elpd != l0.Elpd {
		t.Errorf("reloo without high k̂ changed the result: refitted %v", l.Reloo.Points)
	}
	if got := out.String(); got != "[]\n" {
		t.Errorf("refitted printed %q", got)
	}
}

func fmtNum(x float64) string { return eval.Num(x).String() }

func fmtVec(x []float64) string { return (&eval.Vec{Data: x}).String() }

// TestRelooErrors: reloo refits, so the posterior's model must take data;
// the sampler settings are checked as kfold's.
func TestRelooErrors(t *testing.T) {
	kmltest.ExpectError(t, conjugate+`let r = loo(post, reloo: true)`, "model m takes no data arguments")
	kmltest.ExpectError(t, levModel+`let r = loo(post, reloo: true, chains: 0)`, "chains")
}
