package gp_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// gpCountSrc binds eight points in one dimension with counts and three
// latent-GP count models: pois and nb with free hyperparameters, fixed
// with none.
const gpCountSrc = `
let x = [0, 1, 2, 3, 4, 5, 6, 7]
let n = [3, 4, 7, 6, 4, 3, 0, 3]
model pois {
  ell ~ lognormal(1, 0.5)
  a ~ lognormal(0, 1)
  f ~ gp(x, a * rbf(ell) + 1 * constant())
  n ~ poisson_log(f)
}
model nb {
  ell ~ lognormal(1, 0.5)
  a ~ lognormal(0, 1)
  phi ~ lognormal(1, 1)
  f ~ gp(x, a * rbf(ell) + 1 * constant())
  n ~ neg_binomial_2_log(f, phi)
}
model fixed {
  f ~ gp(x, 2 * rbf(1.5))
  n ~ poisson_log(f)
}
`

// TestGPCountDensityGradient: with approx "laplace" and "ep" the compiled
// density's gradient for count models (kernel hyperparameters and φ)
// matches central differences.
func TestGPCountDensityGradient(t *testing.T) {
	in, _ := kmltest.Run(t, gpCountSrc)
	for _, name := range []string{"pois", "nb"} {
		for _, approx := range []string{"laplace", "ep"} {
			m := kmltest.Lookup[*eval.Model](t, in, name)
			c, err := model.CompileFor(in, m, nil, model.Terms{Likelihood: true, Latent: model.Objective{Name: "mlm", Approx: rgp.Approx(approx)}})
			if err != nil {
				t.Fatal(err)
			}
			checkGradient(t, in, c, startAt(c), 1e-5, name+", "+approx)
		}
	}
}

// TestGPCountLogLikPredict: loglik of the fixed count model is runtime/gp's
// Laplace and EP value; predict's y_mean and y_var after an ML-II fit are
// the moments of the count under the latent predictive N(f_mean, f_var),
// E[e^f] and E[e^f] + var(e^f), computed here by a trapezoid rule.
func TestGPCountLogLikPredict(t *testing.T) {
	in, _ := kmltest.Run(t, gpCountSrc+`
let la = loglik(fixed, {}, approx: "laplace")
let ep = loglik(fixed, {}, approx: "ep")
let o = optimize(pois, objective: "ml", approx: "laplace")
let p = predict(o, [2.5, 9])
let pv = predict(fixed, [2.5, 9], values: {})
let pl = predict(fixed, [2.5, 9], values: {}, approx: "laplace")
`)
	// predict from values without approx: Laplace's, as for counts unset
	// stands for.
	pv, _ := eval.ToFloats(kmltest.Field(t, kmltest.Lookup[*eval.Record](t, in, "pv"), "y_mean"))
	pl, _ := eval.ToFloats(kmltest.Field(t, kmltest.Lookup[*eval.Record](t, in, "pl"), "y_mean"))
	for i := range pv {
		if pv[i] != pl[i] {
			t.Errorf("predict from values, point %d: y_mean %v without approx, %v with laplace", i, pv[i], pl[i])
		}
	}
	xs := mat.NewDense(8, 1, []float64{0, 1, 2, 3, 4, 5, 6, 7})
	rbf, _ := kernels.NewRBF([]float64{1.5})
	k, _ := kernels.NewScaled(2, rbf)
	y := []float64{3, 4, 7, 6, 4, 3, 0, 3}
	for name, inf := range map[string]rgp.Inference{"la": rgp.LaplaceApprox{}, "ep": rgp.EP{}} {
		want, err := rgp.NonGaussian(rgp.Settings{Approx: inf}, k, xs, y, rgp.Lik{Kind: rgp.Poisson}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := float64(kmltest.Lookup[eval.Num](t, in, name)); math.Abs(got-want) > 1e-12 {
			t.Errorf("loglik %s %.12g, runtime %.12g", name, got, want)
		}
	}
	p := kmltest.Lookup[*eval.Record](t, in, "p")
	vec := func(f string) []float64 { v, _ := eval.ToFloats(kmltest.Field(t, p, f)); return v }
	fm, fv, ym, yv := vec("f_mean"), vec("f_var"), vec("y_mean"), vec("y_var")
	for i := range fm {
		sd := math.Sqrt(fv[i])
		const nodes = 4000
		var z, e1, e2 float64
		for j := 0; j <= nodes; j++ {
			f := fm[i] - 10*sd + 20*sd*float64(j)/nodes
			w := math.Exp(-0.5 * (f - fm[i]) * (f - fm[i]) / fv[i])
			if j == 0 || j == nodes {
				w /= 2
			}
			z += w
			e1 += w * math.Exp(f)
			e2 += w * math.Exp(2*f)
		}
		e1, e2 = e1/z, e2/z
		if math.Abs(ym[i]-e1) > 1e-8*e1 || math.Abs(yv[i]-(e1+e2-e1*e1)) > 1e-8*yv[i] {
			t.Errorf("point %d: y_mean %.10g, y_var %.10g; quadrature %.10g, %.10g", i, ym[i], yv[i], e1, e1+e2-e1*e1)
		}
	}
}

// TestGPCountRefusals: the VB bound and counts written without the log
// link are refused with what to write instead.
func TestGPCountRefusals(t *testing.T) {
	kmltest.ExpectError(t, gpCountSrc+`loglik(fixed, {})`, `no such bound exists; use approx: "laplace" or "ep"`)
	kmltest.ExpectError(t, gpCountSrc+`model p2 {
  f ~ gp(x, rbf(1))
  n ~ poisson(f)
}
loglik(p2, {}, approx: "laplace")`, "write poisson_log(f) for poisson(exp(f))")
	// A runtime failure keeps one "gp: " prefix (it read "gp: gp: ...").
	kmltest.ExpectError(t, `let x = [[0], [1], [2], [3]]
let y = [1000000, 0, 3000000, 2]
model g {
  f ~ gp(x, 10000 * rbf(1))
  y ~ poisson_log(f)
}
loglik(g, {}, approx: "ep")`, "error: gp: expectation propagation did not converge")
	// exp(f) on the latent GP itself: the message names the link form.
	kmltest.ExpectError(t, gpCountSrc+`model p4 {
  f ~ gp(x, rbf(1))
  n ~ poisson(exp(f))
}
loglik(p4, {}, approx: "laplace")`, "got latent GP (observe it directly through a link: y ~ poisson_log(f) for counts with rate exp(f)")
	kmltest.ExpectError(t, gpCountSrc+`loglik(fixed, {}, approx: "laplace")
let m = [1, 2.5, 0, 3, 4, 5, 6, 7]
model p3 {
  f ~ gp(x, rbf(1))
  m ~ poisson_log(f)
}
loglik(p3, {}, approx: "ep")`, "count 2 is 2.5")
}
