package gp_test

import (
	"bytes"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// classifySrc is examples/gp_classify.kml's data and model: 3s against 8s
// of the UCI digits, n = 207 training images, D = 64 pixels, logistic
// likelihood, a·rbf(ell) kernel.
const classifySrc = `
let d = read_csv("digits.csv")
let both = d[which((d[:, 65] == 3) + (d[:, 65] == 8) > 0), :]
let parts = split(both, 150, seed: 2)
let X = parts.data[:, 1:64] / 16
let c = parts.data[:, 65] == 8
model cls {
  ell ~ lognormal(1, 1)
  a ~ lognormal(1, 1)
  f ~ gp(X, a * rbf(ell))
  c ~ bernoulli_logit(f)
}
let at = {ell: 2.5, a: 20}
`

// BenchmarkGPClassify times GP classification on examples/gp_classify.kml's
// data (n = 207, D = 64): one log marginal likelihood by Laplace's
// approximation and one by EP at a fixed point, and the ML-II fit with
// Laplace's approximation that bench/gp_classify_sklearn.sh compares with
// scikit-learn's GaussianProcessClassifier. The log evidence reached is
// reported as lml.
func BenchmarkGPClassify(b *testing.B) {
	var out bytes.Buffer
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out, Dirs: []string{"../../examples/data"}, BaseDir: "../../examples/data"})
	if _, err := in.Eval("setup.kml", classifySrc); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, expr string }{
		{"laplace", `loglik(cls, at, approx: "laplace")`},
		{"ep", `loglik(cls, at, approx: "ep")`},
		{"laplace-mlii", `optimize(cls, objective: "ml", approx: "laplace", seed: 1).logp`},
	} {
		b.Run(c.name, func(b *testing.B) {
			var lml float64
			for b.Loop() {
				v, err := in.Eval("bench.kml", c.expr)
				if err != nil {
					b.Fatal(err)
				}
				lml = float64(v.(eval.Num))
			}
			b.ReportMetric(lml, "lml")
		})
	}
}
