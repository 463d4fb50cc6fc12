package ktest_test

import (
	"context"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	rktest "github.com/kml-lang/kml/runtime/ktest"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestOptIsTheRuntimeTest: mmd_test's and hsic_test's "opt" give the
// runtime's MMDOptTest and HSICOptTest on the same data and seed — the
// p-value, ℓ and the criterion — and the record reports the split.
func TestOptIsTheRuntimeTest(t *testing.T) {
	in, _ := kmltest.Run(t, bklData+`
let m = mmd_test(p, q, "opt", seed: 7, permutations: 50, train: 0.4)
let h = hsic_test(p[:, 1], q[:, 1], "opt", rbf(1), seed: 3, permutations: 50)
`)
	p := kmltest.Lookup[*eval.Mat](t, in, "p").M
	q := kmltest.Lookup[*eval.Mat](t, in, "q").M
	want, c, err := rktest.MMDOptTest(context.Background(), p, q, rktest.Permutation, rktest.OptOptions{Train: 0.4},
		rktest.Settings{Permutations: 50, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	m := kmltest.Lookup[*eval.Record](t, in, "m")
	if kmltest.Num(t, m, "pvalue") != want.PValue || kmltest.Num(t, m, "ell") != c.Ell[0] {
		t.Errorf("mmd_test opt: %s; runtime p = %v, ℓ = %v", m, want.PValue, c.Ell[0])
	}
	o := kmltest.Field(t, m, "opt").(*eval.Record)
	if kmltest.Num(t, o, "train") != 0.4 || kmltest.Num(t, o, "criterion") != c.Opt.Criterion.J {
		t.Errorf("opt record %s", o)
	}
	if tr := kmltest.Field(t, o, "train_rows").(*eval.Vec).Data; tr[0] != 60 || tr[1] != 60 {
		t.Errorf("train_rows %v, want [60, 60] of 150 rows each", tr)
	}
	if kmltest.Field(t, m, "choice").(eval.Str) != "opt" {
		t.Errorf("choice %v", kmltest.Field(t, m, "choice"))
	}
	h := kmltest.Lookup[*eval.Record](t, in, "h")
	ho := kmltest.Field(t, kmltest.Field(t, h, "opt").(*eval.Record), "x").(*eval.Record)
	if kmltest.Num(t, ho, "train_rows") != 75 || kmltest.Num(t, ho, "test_rows") != 75 {
		t.Errorf("hsic opt record %s", ho)
	}
	ch := kmltest.Field(t, h, "choice").(*eval.Record)
	if x, _ := ch.Attr("x"); x != eval.Str("opt") {
		t.Errorf("hsic choice %s", ch)
	}
	if y, _ := ch.Attr("y"); y != eval.Str("given") {
		t.Errorf("hsic choice %s", ch)
	}
}

func TestOptErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{`mmd_test(p, q, "median", train: 0.3)`, `no kernel here is "opt"`},
		{`mmd_test(p, q, "opt", train: 1)`, "train must be a fraction between 0 and 1"},
		{`hsic_test(p, q, "opt", "median")`, `ky must be a kernel or "opt"`},
		{`mmd_test(p[1:3, :], q, "opt")`, "opt splits the first sample into a training and a test part of at least 2 rows each; it has 3"},
		{`hsic_test(p[1:9, :], q[1:9, :], "opt", "opt")`, "at least 5 rows each; it has 9"},
	}
	for _, c := range cases {
		kmltest.ExpectError(t, bklData+c.src, c.want)
	}
}

// TestOptRefusesOverBudget: the criterion's matrices are checked against
// the memory budget before they are allocated.
func TestOptRefusesOverBudget(t *testing.T) {
	kmltest.ExpectError(t, `
let x = rep(0, 60000)
let y = rep(1, 60000)
mmd_test(x, y, "opt", approx: "nystrom")
`, `"opt"'s criterion matrices`)
}
