package ktest_test

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model/dists"
	rktest "github.com/kml-lang/kml/runtime/ktest"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
	"github.com/kml-lang/kml/stdlib/ktest"
)

// TestTargetScoresAgainstFiniteDifferences: the score ksd_test takes from
// each kind of target is the finite-difference derivative of the
// target's own log density (logpdf), row by row and coordinate by
// coordinate.
func TestTargetScoresAgainstFiniteDifferences(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x1 = draw(normal(0, 2), 15, seed: 1)
let S = [[2, 0.5], [0.5, 1]]
let x2 = draw(multi_normal([0.5, -1], S), 10, seed: 2)
let targets = [normal(0.3, 1.4), student_t(3, -0.2, 0.7), cauchy(0.1, 2), laplace(0.5, 1.5),
  mixture([0.3, 0.7], [normal(-1, 0.5), student_t(4, 1, 1)])]
let mn = multi_normal([0.2, -0.8], S)
let dk = kst(x2, rbf(1))
let dd = kde(x2, rbf(0.8))
`)
	x1 := kmltest.Lookup[*eval.Vec](t, in, "x1")
	x2 := kmltest.Lookup[*eval.Mat](t, in, "x2").M
	col := mat.NewDense(len(x1.Data), 1, append([]float64(nil), x1.Data...))
	const h = 1e-5
	for _, tv := range kmltest.Lookup[*eval.List](t, in, "targets").Elems {
		d := tv.(*dists.DistVal)
		got, err := ktest.TargetScores(d, col)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		lp := func(v float64) float64 {
			r, err := d.LogDensity(nil, eval.Num(v), "x")
			if err != nil {
				t.Fatal(err)
			}
			return float64(r.(eval.Num))
		}
		for i, v := range x1.Data {
			want := (lp(v+h) - lp(v-h)) / (2 * h)
			if g := got.At(i, 0); math.Abs(g-want) > 1e-6*(1+math.Abs(want)) {
				t.Errorf("%s at %g: score %.10g, finite differences %.10g", d, v, g, want)
			}
		}
	}
	mn := kmltest.Lookup[*dists.MultiNormal](t, in, "mn")
	mvLogp := func(p []float64) float64 {
		r, err := mn.LogDensity(nil, &eval.Vec{Data: p}, "x")
		if err != nil {
			t.Fatal(err)
		}
		return float64(r.(eval.Num))
	}
	check2 := func(name string, v eval.Value, logp func([]float64) float64) {
		got, err := ktest.TargetScores(v, x2)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r, _ := x2.Dims()
		for i := 0; i < r; i++ {
			for c := 0; c < 2; c++ {
				p := mat.Row(nil, i, x2)
				p[c] += h
				fp := logp(p)
				p[c] -= 2 * h
				fm := logp(p)
				want := (fp - fm) / (2 * h)
				if g := got.At(i, c); math.Abs(g-want) > 1e-5*(1+math.Abs(want)) {
					t.Errorf("%s row %d coordinate %d: score %.10g, finite differences %.10g", name, i, c, g, want)
				}
			}
		}
	}
	check2("multi_normal", mn, mvLogp)
	for _, name := range []string{"dk", "dd"} {
		dv := kmltest.Lookup[ktest.KSTDensity](t, in, name)
		check2(name, dv, func(p []float64) float64 {
			out := make([]float64, 1)
			if err := dv.KSTDensity().LogPDF(out, mat.NewDense(1, 2, p)); err != nil {
				t.Fatal(err)
			}
			return out[0]
		})
	}
}

// TestKSDBuiltinIsTheRuntimeTest: ksd_test on a normal target is KSDTest
// with the closed-form score −(x − μ)/σ², at the median heuristic, and
// the record reports its settings.
func TestKSDBuiltinIsTheRuntimeTest(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = draw(student_t(4, 0, 1), 60, seed: 3)
let r = ksd_test(x, normal(0.3, 1.4), seed: 5, bootstraps: 200)
let ra = ksd_test(x, normal(0.3, 1.4), ell: "aggregate", bandwidths: 4, kernel: "rbf", seed: 5, bootstraps: 100)
`)
	x := kmltest.Lookup[*eval.Vec](t, in, "x").Data
	r := kmltest.Lookup[*eval.Record](t, in, "r")
	xm := mat.NewDense(len(x), 1, append([]float64(nil), x...))
	sc := mat.NewDense(len(x), 1, nil)
	for i, v := range x {
		sc.Set(i, 0, -(v-0.3)/(1.4*1.4))
	}
	ell := kmltest.Num(t, r, "ell")
	want, err := rktest.KSDTest(context.Background(), xm, sc, rktest.KSDSettings{Ell: ell, Bootstraps: 200, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := kmltest.Num(t, r, "statistic"); math.Abs(got-want.Statistic) > 1e-12*math.Abs(want.Statistic) {
		t.Errorf("statistic %v, runtime %v", got, want.Statistic)
	}
	if got := kmltest.Num(t, r, "pvalue"); got != want.PValue {
		t.Errorf("p-value %v, runtime %v", got, want.PValue)
	}
	if kmltest.Num(t, r, "beta") != -0.5 || kmltest.Num(t, r, "bootstraps") != 200 || kmltest.Num(t, r, "n") != 60 {
		t.Errorf("record %v", r)
	}
	if c := kmltest.Field(t, r, "choice"); c != eval.Str("median") {
		t.Errorf("choice %v", c)
	}
	ra := kmltest.Lookup[*eval.Record](t, in, "ra")
	if b := kmltest.Field(t, ra, "bandwidths").(*eval.Vec).Data; len(b) != 4 {
		t.Errorf("bandwidths %v", b)
	}
	if k := kmltest.Field(t, ra, "kernel"); k != eval.Str("rbf") {
		t.Errorf("kernel %v", k)
	}
}

func TestKSDErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`ksd_test([1, 2, 3], gamma(2, 1))`, "not the real line"},
		{`ksd_test([[1, 2], [3, 4]], normal(0, 1))`, "univariate but the data have 2 columns"},
		{`ksd_test([1, 2, 3], multi_normal([0, 0], [[1, 0], [0, 1]]))`, "matrix with 2 columns"},
		{`ksd_test([1, 2, 3], 3)`, "the target must be a distribution"},
		{`ksd_test([1, 2, 3], normal(0, 1), kernel: "laplace")`, `kernel must be "imq" or "rbf"`},
		{`ksd_test([1, 2, 3], normal(0, 1), beta: -2)`, "beta must be between -1 and 0"},
		{`ksd_test([1, 2, 3], normal(0, 1), ell: -1)`, "ell must be positive"},
		{`ksd_test([1, 2, 3], normal(0, 1), method: "permutation")`, `method must be "wild_bootstrap"`},
		{`ksd_test([1, 2, 3], poisson(2))`, "discrete"},
		{`ksd_test([1, 1, 1], normal(0, 1))`, "give ell"},
	} {
		kmltest.ExpectError(t, c.src, c.want)
	}
}
