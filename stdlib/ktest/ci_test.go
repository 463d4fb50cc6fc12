package ktest_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rcausal "github.com/kml-lang/kml/runtime/causal"
	"github.com/kml-lang/kml/runtime/kernels"
	rktest "github.com/kml-lang/kml/runtime/ktest"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
	"github.com/kml-lang/kml/stdlib/ktest"
)

// TestCIMethodsAreTheRuntimeTests: ci_test's "kci" and "rcit" are
// KCITest and RCITTest on the standardised data, with their settings in
// the record.
func TestCIMethodsAreTheRuntimeTests(t *testing.T) {
	in, _ := kmltest.Run(t, `
let z = cbind(draw(normal(0, 1), 80, seed: 1), draw(normal(0, 1), 80, seed: 5))
let x = 3 * sin(z[:, 1]) + draw(normal(0, 0.5), 80, seed: 2)
let y = z[:, 1] * z[:, 2] + 10 + draw(normal(0, 0.5), 80, seed: 3)
let k = ci_test(x, y, z, rbf(1), "median", method: "kci", seed: 4)
let r = ci_test(x, y, z, "median", "median", method: "rcit", features: 40, seed: 4)
`)
	std := func(name string) *mat.Dense {
		m, ok := eval.ToMatrix(kmltest.Lookup[eval.Value](t, in, name))
		if !ok {
			t.Fatalf("%s is not data", name)
		}
		s, err := rcausal.Standardise(m)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	x, y, z := std("x"), std("y"), std("z")
	k := kmltest.Lookup[*eval.Record](t, in, "k")
	want, err := rktest.KCITest(context.Background(), x, y, z, rbfOf(t, 1), nil, nil, 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got := kmltest.Num(t, k, "statistic"); math.Abs(got-want.Statistic) > 1e-12*want.Statistic || kmltest.Num(t, k, "pvalue") != want.PValue {
		t.Errorf("kci: %v, runtime %+v", k, want)
	}
	if kmltest.Field(t, k, "kernel_x") != eval.Str("rbf(1)") || kmltest.Num(t, k, "epsilon") != rktest.KCIEpsilon {
		t.Errorf("kci record %v", k)
	}
	r := kmltest.Lookup[*eval.Record](t, in, "r")
	wr, err := rktest.RCITTest(context.Background(), x, y, z, 40, 0, rktest.LPB4, 4)
	if err != nil {
		t.Fatal(err)
	}
	if kmltest.Num(t, r, "statistic") != wr.Statistic || kmltest.Num(t, r, "pvalue") != wr.PValue {
		t.Errorf("rcit: %v, runtime %+v", r, wr)
	}
	if a := kmltest.Field(t, kmltest.Field(t, r, "null").(*eval.Record), "approx"); a != eval.Str(wr.Approx) || wr.Approx != rktest.LPB4 {
		t.Errorf("rcit null approx %v, runtime %s", a, wr.Approx)
	}
	f := kmltest.Field(t, r, "features").(*eval.Record)
	if kmltest.Num(t, f, "z") != 40 || kmltest.Num(t, f, "xy") != 5 {
		t.Errorf("rcit features %v", f)
	}
}

func rbfOf(t *testing.T, ell float64) kernels.Kernel {
	t.Helper()
	k, err := kernels.NewRBF([]float64{ell})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestCIMethodErrors(t *testing.T) {
	data := "let x = draw(normal(0, 1), 30, seed: 1)\nlet y = draw(normal(0, 1), 30, seed: 2)\n"
	for _, c := range []struct{ src, want string }{
		{`ci_test(x, y, x, "bkl", "median", method: "kci")`, `with method "kci", kx must be a kernel or "median"`},
		{`ci_test(x, y, x, rbf(1), "median", method: "rcit")`, `with method "rcit", kx must be "median"`},
		{`ci_test(x, y, x, "median", "median", method: "rcit", features: 0)`, "features"},
	} {
		kmltest.ExpectError(t, data+c.src, c.want)
	}
}

// TestPCWithKCIAndRCIT: pc takes "kci" and "rcit" through its method
// option and recovers the skeleton x — y — w of a nonlinear chain, and
// the adapter's p-value is the test's on the standardised columns.
func TestPCWithKCIAndRCIT(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = draw(normal(0, 1), 300, seed: 1)
let y = sin(2 * x) + draw(normal(0, 0.3), 300, seed: 2)
let w = y * y + draw(normal(0, 0.3), 300, seed: 3)
let d = cbind(x, y, w)
let gk = pc(d, method: "kci", names: ["x", "y", "w"], seed: 4)
let gr = pc(d, method: "rcit", names: ["x", "y", "w"], seed: 4)
`)
	for _, name := range []string{"gk", "gr"} {
		g := kmltest.Lookup[*eval.Record](t, in, name)
		edges := kmltest.Field(t, g, "edges").(*eval.List).Elems
		var pairs []string
		for _, e := range edges {
			r := e.(*eval.Record)
			pairs = append(pairs, string(kmltest.Field(t, r, "from").(eval.Str))+string(kmltest.Field(t, r, "to").(eval.Str)))
		}
		if len(pairs) != 2 {
			t.Errorf("%s: edges %v, want x — y — w", name, pairs)
		}
		for _, p := range pairs {
			if p == "xw" || p == "wx" {
				t.Errorf("%s: edge x — w in %v", name, pairs)
			}
		}
		if k := kmltest.Field(t, g, "kernel"); k != eval.Str("median") {
			t.Errorf("%s: kernel %v", name, k)
		}
	}
	d, _ := eval.ToMatrix(kmltest.Lookup[eval.Value](t, in, "d"))
	p, err := ktest.CIForPC("rcit", d, 100, 9)(context.Background(), 0, 2, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	col := func(j int) *mat.Dense {
		m, err := rcausal.Standardise(mat.NewDense(300, 1, mat.Col(nil, j, d)))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	h := fnv.New64a()
	fmt.Fprint(h, 0, 2, []int{1})
	want, err := rktest.RCITTest(context.Background(), col(0), col(2), col(1), 100, 0, rktest.LPB4, 9^h.Sum64())
	if err != nil {
		t.Fatal(err)
	}
	if p != want.PValue {
		t.Errorf("adapter p %v, RCIT %v", p, want.PValue)
	}
}
