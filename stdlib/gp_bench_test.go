package stdlib_test

import (
	"bytes"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// BenchmarkGPDiabetesMLII is the speed figure of the GP issue: ML-II of
// the diabetes model (n = 442, D = 10, ARD rbf + linear + white, 5 seeded
// restarts run in parallel), one optimize per iteration. The log marginal
// likelihood reached is reported as lml.
func BenchmarkGPDiabetesMLII(b *testing.B) {
	src := `
let d = read_csv("diabetes.csv")
let X = d[:, 1:10]
let y = d[:, 11]
model gpr {
  ell[10] ~ lognormal(0, 2)
  t1 ~ lognormal(0, 2)
  t2 ~ lognormal(0, 2)
  t3 ~ lognormal(0, 2)
  f ~ gp(X, t1 * rbf(ell) + t2 * linear() + t3 * white())
  y ~ normal(f, 0.01)
}
`
	var out bytes.Buffer
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out, Dirs: []string{"../examples/data"}, BaseDir: "../examples/data"})
	if _, err := in.Eval("bench.kml", src); err != nil {
		b.Fatal(err)
	}
	var lml float64
	b.ResetTimer()
	for range b.N {
		v, err := in.Eval("fit.kml", `optimize(gpr, objective: "mlm", starts: 5, seed: 1).logp`)
		if err != nil {
			b.Fatal(err)
		}
		lml = float64(v.(eval.Num))
	}
	b.ReportMetric(lml, "lml")
}
