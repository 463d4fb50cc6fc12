package gp_test

import (
	"bytes"
	"fmt"
	"strings"
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
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out, Dirs: []string{"../../examples/data"}, BaseDir: "../../examples/data"})
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

// BenchmarkGPLoglikScript is loglik of a GP model at n = 2000, D = 10 (ARD
// rbf with an amplitude, Gaussian noise) evaluated from a script: the
// figure bench/gp_numpy.sh compares with NumPy/SciPy (kernel matrix,
// Cholesky, solve, log determinant).
func BenchmarkGPLoglikScript(b *testing.B) {
	const n, d = 2000, 10
	cols := make([]string, d)
	for c := range cols {
		cols[c] = fmt.Sprintf("draw(normal(0, 1), %d, seed: %d)", n, c+1)
	}
	src := "let X = cbind(" + strings.Join(cols, ", ") + ")\n" +
		fmt.Sprintf("let y = sin(X[:, 1] + X[:, 2]) + draw(normal(0, 0.3), %d, seed: 99)\n", n) + `
model gpr {
  ell[10] ~ lognormal(0, 2)
  amp ~ lognormal(0, 2)
  sigma ~ lognormal(0, 2)
  f ~ gp(X, amp * rbf(ell))
  y ~ normal(f, sigma)
}
let v = {ell: [2, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7, 2.8, 2.9], amp: 1.5, sigma: 0.3}
`
	var out bytes.Buffer
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out})
	if _, err := in.Eval("setup.kml", src); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := in.Eval("ll.kml", "loglik(gpr, v)"); err != nil {
			b.Fatal(err)
		}
	}
}
