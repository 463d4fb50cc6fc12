package ktest_test

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestDHSICAndKSampleBuiltins: with two variables dhsic_test is hsic_test
// (biased statistic, same permutation p-value), with two samples
// ksample_test is mmd_test with the biased estimator, and a matrix's
// columns are variables as a list of its columns is.
func TestDHSICAndKSampleBuiltins(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = draw(normal(0, 1), 40, seed: 1)
let y = x + draw(normal(0, 1), 40, seed: 2)
let z = draw(student_t(3, 0, 1), 40, seed: 3)
let d2 = dhsic_test(x, y, kernel: rbf(1), permutations: 99, seed: 4)
let h2 = hsic_test(x, y, rbf(1), rbf(1), permutations: 99, seed: 4)
let d3 = dhsic_test(x, y, z, seed: 5, permutations: 50)
let d3m = dhsic_test(cbind(x, y, z), seed: 5, permutations: 50)
let dg = dhsic_test(x, y, z, kernel: [rbf(1), rbf(2), rbf(1)], method: "gamma")
let k2 = ksample_test(x, z, k: rbf(1), permutations: 99, seed: 6)
let m2 = mmd_test(x, z, rbf(1), estimator: "biased", permutations: 99, seed: 6)
let k3 = ksample_test(x, y, z + 2, seed: 7, permutations: 99)
`)
	rec := func(name string) *eval.Record { return kmltest.Lookup[*eval.Record](t, in, name) }
	d2, h2 := rec("d2"), rec("h2")
	if a, b := kmltest.Num(t, d2, "statistic"), kmltest.Num(t, h2, "statistic"); math.Abs(a-b) > 1e-12*b {
		t.Errorf("dHSIC %v, HSIC %v", a, b)
	}
	if a, b := kmltest.Num(t, d2, "pvalue"), kmltest.Num(t, h2, "pvalue"); a != b {
		t.Errorf("dHSIC p %v, HSIC p %v", a, b)
	}
	d3, d3m := rec("d3"), rec("d3m")
	if kmltest.Num(t, d3, "statistic") != kmltest.Num(t, d3m, "statistic") || kmltest.Num(t, d3, "pvalue") != kmltest.Num(t, d3m, "pvalue") {
		t.Errorf("list %v, matrix %v", d3, d3m)
	}
	if kmltest.Num(t, d3, "d") != 3 || kmltest.Field(t, d3, "choice") != eval.Str("median") {
		t.Errorf("record %v", d3)
	}
	if p := kmltest.Num(t, rec("dg"), "pvalue"); !(p >= 0 && p <= 1) {
		t.Errorf("gamma p-value %v", p)
	}
	k2, m2 := rec("k2"), rec("m2")
	if a, b := kmltest.Num(t, k2, "statistic"), 0.25*kmltest.Num(t, m2, "statistic"); math.Abs(a-b) > 1e-12*b {
		t.Errorf("k-sample %v, MMD²_b/4 %v", a, b)
	}
	if a, b := kmltest.Num(t, k2, "pvalue"), kmltest.Num(t, m2, "pvalue"); a != b {
		t.Errorf("k-sample p %v, MMD p %v", a, b)
	}
	if p := kmltest.Num(t, rec("k3"), "pvalue"); p > 0.05 {
		t.Errorf("a sample shifted by 2: p = %v", p)
	}
}

func TestDHSICErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`dhsic_test([1, 2, 3])`, "at least 2 variables"},
		{`dhsic_test([1, 2, 3], [1, 2])`, "variable 2 has 2 rows"},
		{`dhsic_test([1, 2, 3, 4], [4, 3, 2, 1], method: "bootstrap")`, `method must be "permutation" or "gamma"`},
		{`dhsic_test([1, 2, 3, 4], [4, 3, 2, 1], kernel: [rbf(1)])`, "1 kernels for 2 variables"},
		{`dhsic_test([1, 2, 3, 4, 5], [4, 3, 2, 1, 0], kernel: rbf(1), method: "gamma")`, "at least 4d = 8 rows"},
		{`dhsic_test([1, 2, 3, 4], [4, 3, 2, 1], permutation: 10)`, `no argument "permutation"`},
		{`dhsic_test([1, 2, 3, 4], [4, 3, 2, 1], permutations: 0)`, "permutations must be a whole number"},
		{`dhsic_test([1, 2, 3, 4], "a")`, "variable 2 must be a non-empty vector or matrix"},
		{`ksample_test([1, 2, 3])`, "at least 2 samples"},
		{`ksample_test([1, 2, 3], [[1, 2], [3, 4]])`, "sample 2 has 2 columns"},
		{`ksample_test([1, 2, 3], [4, 5], k: "bkl")`, `k must be a kernel or "median"`},
		{`ksample_test([1, 2, 3], [4, 5], seed: -1)`, "seed must be a whole number"},
	} {
		kmltest.ExpectError(t, c.src, c.want)
	}
}
