package core

import (
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/stats"
)

func registerWilcoxon(reg *eval.Registry) {
	reg.Register("wilcoxon(x, y?)",
		"The Wilcoxon signed-rank test of paired differences x − y (or of x alone) against symmetry about zero, for comparing two methods over the same repetitions without assuming normal differences. Zero differences are dropped; tied |differences| get midranks. Returns {w, p, n, exact}: the sum of the ranks of the positive differences, the two-sided p-value, the number of non-zero differences, and whether p is exact (all 2^n sign assignments counted, n ≤ 20) or the normal approximation with tie correction (n > 20).",
		func(a *eval.Args) (eval.Value, error) {
			var x, y []float64
			if err := a.Unpack("x", &x, "y?", &y); err != nil {
				return nil, err
			}
			if a.Given("y") {
				if len(y) != len(x) {
					return nil, a.Errorf("y", "x has %d values but y has %d: the test pairs them", len(x), len(y))
				}
				d := make([]float64, len(x))
				for i := range x {
					d[i] = x[i] - y[i]
				}
				x = d
			}
			r, err := stats.Wilcoxon(x)
			if err != nil {
				return nil, a.Fail("%v", err)
			}
			return eval.NewRecord().Set("w", eval.Num(r.W)).Set("p", eval.Num(r.P)).
				Set("n", eval.Num(float64(r.N))).Set("exact", eval.Bool(r.Exact)), nil
		})
}
