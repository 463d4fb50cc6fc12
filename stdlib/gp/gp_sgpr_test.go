package gp_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// sparseData is 60 points of a smooth function of two inputs with 6
// inducing points, and the same model on the exact path and on the
// Nyström path with Titsias' bound, DTC, FITC and greedy inducing points.
const sparseData = `
let x = cbind(draw(normal(0, 1), 60, seed: 1), draw(normal(0, 1), 60, seed: 2))
let y = sin(2 * x[:, 1]) + 0.5 * x[:, 2] + draw(normal(0, 0.2), 60, seed: 3)
let z = [[-1.5, 0], [-0.5, 0.5], [0, -1], [0.5, 1], [1, 0], [1.8, -0.5]]
model exact {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  sigma ~ lognormal(-1, 1)
  f ~ gp(x, a * rbf(ell))
  y ~ normal(f, sigma)
}
model vfe {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  sigma ~ lognormal(-1, 1)
  f ~ gp(x, a * rbf(ell), inducing: z)
  y ~ normal(f, sigma)
}
model dtc {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  sigma ~ lognormal(-1, 1)
  f ~ gp(x, a * rbf(ell), inducing: z, sparse: "dtc")
  y ~ normal(f, sigma)
}
model fitc {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  sigma ~ lognormal(-1, 1)
  f ~ gp(x, a * rbf(ell), inducing: z, sparse: "fitc")
  y ~ normal(f, sigma)
}
model greedy {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  sigma ~ lognormal(-1, 1)
  f ~ gp(x, a * rbf(ell), inducing: 8, select: "greedy")
  y ~ normal(f, sigma)
}
let v = {ell: [0.8, 1.3], a: 1.5, sigma: 0.3}
let le = loglik(exact, v)
let lv = loglik(vfe, v)
let ld = loglik(dtc, v)
let lg = loglik(greedy, v)
let lf = loglik(fitc, v)
let pf = predict(fitc, [[0.3, 0.2], [1.0, -1.0]], values: v)
`

// TestGPSparseBound: gp()'s default Nyström objective is Titsias' bound,
// DTC's value minus tr(K − Q)/(2σ²) with the trace formed densely here,
// and lies below the exact log marginal likelihood; select: "greedy"
// evaluates the bound at GreedyVariance's points for the kernel at v;
// sparse: "fitc" is runtime/gp's FITC, predict included; the gradient of
// each matches finite differences.
func TestGPSparseBound(t *testing.T) {
	in, _ := kmltest.Run(t, sparseData)
	num := func(name string) float64 { return float64(kmltest.Lookup[eval.Num](t, in, name)) }
	le, lv, ld, lg := num("le"), num("lv"), num("ld"), num("lg")
	mat2 := func(name string) *mat.Dense {
		return mat.DenseCopyOf(kmltest.Lookup[*eval.Mat](t, in, name).M)
	}
	x, z := mat2("x"), mat2("z")
	y := append([]float64(nil), kmltest.Lookup[*eval.Vec](t, in, "y").Data...)
	rbf, _ := kernels.NewRBF([]float64{0.8, 1.3})
	k, _ := kernels.NewScaled(1.5, rbf)
	kzz, _ := kernels.Gram(k, z)
	kzn, _ := kernels.Cross(k, z, x)
	var inv, t2 mat.Dense
	if err := inv.Inverse(kzz); err != nil {
		t.Fatal(err)
	}
	t2.Mul(&inv, kzn)
	gap := 0.0
	for i := range y {
		gap += 1.5 - mat.Dot(kzn.ColView(i), t2.ColView(i))
	}
	if want := ld - gap/(2*0.09); math.Abs(lv-want) > 1e-6*(1+math.Abs(want)) {
		t.Errorf("vfe %.10g, dtc − tr(K − Q)/(2σ²) = %.10g", lv, want)
	}
	if !(lv < le) {
		t.Errorf("bound %.10g not below the exact %.10g", lv, le)
	}
	zg, err := rgp.GreedyVariance(k, x, 8, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, err := rgp.SGPRLogMarginal(k, x, zg, y, 0.09, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(lg-want) > 1e-9*(1+math.Abs(want)) {
		t.Errorf("greedy %.10g, bound at GreedyVariance's points %.10g", lg, want)
	}
	if !(lg < le) {
		t.Errorf("greedy bound %.10g not below the exact %.10g", lg, le)
	}
	lf := num("lf")
	if want, err := rgp.FITCLogMarginal(k, x, z, y, 0.09, nil); err != nil || math.Abs(lf-want) > 1e-9*(1+math.Abs(want)) {
		t.Errorf("fitc %.10g, FITCLogMarginal %.10g (%v)", lf, want, err)
	}
	xs := mat.NewDense(2, 2, []float64{0.3, 0.2, 1.0, -1.0})
	wm, wv, err := rgp.FITCPredict(k, x, z, y, 0.09, xs)
	if err != nil {
		t.Fatal(err)
	}
	pf := kmltest.Lookup[*eval.Record](t, in, "pf")
	fm := kmltest.Field(t, pf, "f_mean").(*eval.Vec).Data
	fv := kmltest.Field(t, pf, "f_var").(*eval.Vec).Data
	for j := range fm {
		if math.Abs(fm[j]-wm[j]) > 1e-9 || math.Abs(fv[j]-wv[j]) > 1e-9 {
			t.Errorf("fitc predict %d: %v %v, FITCPredict %v %v", j, fm[j], fv[j], wm[j], wv[j])
		}
	}
	for _, m := range []string{"vfe", "dtc", "fitc", "greedy"} {
		kmltest.CheckModelGradient(t, in, m, 1e-5, []float64{-0.2, 0.3, 0.4, -1.1}, []float64{0.1, -0.2, 0.2, -1.5})
	}
}

// TestGPSparseErrors: bad sparse and select arguments are refused at the
// argument.
func TestGPSparseErrors(t *testing.T) {
	kmltest.ExpectError(t, "let x = [[0], [1], [2]]\ngp(x, rbf(1), inducing: 2, sparse: \"pitc\")",
		`t.kml:2:36: error: gp: sparse must be "vfe", "fitc" or "dtc", got string "pitc"`)
	kmltest.ExpectError(t, "let x = [[0], [1], [2]]\ngp(x, rbf(1), inducing: x, select: \"greedy\")",
		`t.kml:2:36: error: gp: select: "greedy" chooses the inducing points among the rows of x`)
	kmltest.ExpectError(t, "let x = [[0], [1], [2]]\ngp(x, rbf(1), select: 3)",
		`t.kml:2:23: error: gp: select must be "kmeans" or "greedy", got number`)
}

// learnedZ is sparseData with the inducing points as parameters: two
// vectors, one per input, joined into a 6 × 2 matrix.
const learnedZ = sparseData + `
model learn {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  sigma ~ lognormal(-1, 1)
  z1[6] ~ normal(0, 2)
  z2[6] ~ normal(0, 2)
  f ~ gp(x, a * rbf(ell), inducing: transpose([z1, z2]))
  y ~ normal(f, sigma)
}
let at = {ell: [0.8, 1.3], a: 1.5, sigma: 0.3, z1: z[:, 1], z2: z[:, 2]}
let ll = loglik(learn, at)
let fz = optimize(vfe, objective: "ml", init: v)
let fl = optimize(learn, objective: "ml", init: at)
let exact_at_fl = loglik(exact, {ell: fl.ell, a: fl.a, sigma: fl.sigma})
let z_fl = transpose([fl.z1, fl.z2])
let lv_fl = loglik(vfe, {ell: fl.ell, a: fl.a, sigma: fl.sigma})
let pl = predict(fl, [[0.3, 0.2], [1.0, -1.0]])
`

// TestGPLearnedInducing: inducing points given by model parameters are
// learned with the hyperparameters on Titsias' bound. At the given points
// the bound equals the fixed-point model's; the model's gradient in all
// 16 coordinates matches finite differences; ML-II over the points ends
// above the fixed points' optimum and still below the exact log marginal
// likelihood at its hyperparameters (a bound whatever z is); predict
// takes the fit, at its learned points (runtime/gp's SGPRPredict).
func TestGPLearnedInducing(t *testing.T) {
	in, _ := kmltest.Run(t, learnedZ)
	num := func(name string) float64 { return float64(kmltest.Lookup[eval.Num](t, in, name)) }
	if ll, lv := num("ll"), num("lv"); ll != lv {
		t.Errorf("bound with the points as parameters %.17g, as data %.17g", ll, lv)
	}
	// The hyperparameters on the log scale, then the points of z moved.
	q := []float64{-0.2, 0.3, 0.4, -1.1, -1.4, -0.6, 0.1, 0.4, 1.1, 1.7, 0.1, 0.6, -0.9, 1.2, -0.1, -0.4}
	kmltest.CheckModelGradient(t, in, "learn", 1e-5, q)
	fz := kmltest.Lookup[*eval.Record](t, in, "fz")
	fl := kmltest.Lookup[*eval.Record](t, in, "fl")
	lz := float64(kmltest.Field(t, fz, "logp").(eval.Num))
	lfl := float64(kmltest.Field(t, fl, "logp").(eval.Num))
	if !(lfl > lz+1) {
		t.Errorf("ML-II with learned points %.8g, with the points fixed %.8g", lfl, lz)
	}
	if e := num("exact_at_fl"); !(lfl < e) {
		t.Errorf("learned-point bound %.10g not below the exact log marginal %.10g", lfl, e)
	}
	if lv := num("lv_fl"); !(lfl > lv) {
		t.Errorf("at the fit's hyperparameters the learned points give %.10g, the starting points %.10g", lfl, lv)
	}
	x := mat.DenseCopyOf(kmltest.Lookup[*eval.Mat](t, in, "x").M)
	zl := mat.DenseCopyOf(kmltest.Lookup[*eval.Mat](t, in, "z_fl").M)
	y := append([]float64(nil), kmltest.Lookup[*eval.Vec](t, in, "y").Data...)
	ell := kmltest.Field(t, fl, "ell").(*eval.Vec).Data
	rbf, _ := kernels.NewRBF(ell)
	k, _ := kernels.NewScaled(float64(kmltest.Field(t, fl, "a").(eval.Num)), rbf)
	sig := float64(kmltest.Field(t, fl, "sigma").(eval.Num))
	wm, wv, err := rgp.SGPRPredict(k, x, zl, y, sig*sig, mat.NewDense(2, 2, []float64{0.3, 0.2, 1.0, -1.0}))
	if err != nil {
		t.Fatal(err)
	}
	pl := kmltest.Lookup[*eval.Record](t, in, "pl")
	fm := kmltest.Field(t, pl, "f_mean").(*eval.Vec).Data
	fv := kmltest.Field(t, pl, "f_var").(*eval.Vec).Data
	for j := range fm {
		if math.Abs(fm[j]-wm[j]) > 1e-9 || math.Abs(fv[j]-wv[j]) > 1e-9 {
			t.Errorf("predict %d: %v %v, SGPRPredict at the learned points %v %v", j, fm[j], fv[j], wm[j], wv[j])
		}
	}
}

// TestGPLearnedInducingErrors: learned inducing points are for Titsias'
// bound with normal observations; other objectives say so, and method
// "svgp" asks for them to be held (then they are data).
func TestGPLearnedInducingErrors(t *testing.T) {
	const data = `
let x = [[0], [1], [2], [3]]
let y = [0.1, 0.5, 0.2, -0.3]
model m {
  z[2] ~ normal(0, 2)
  f ~ gp(x, rbf(1), inducing: transpose([z]), sparse: "dtc")
  y ~ normal(f, 0.2)
}
`
	kmltest.ExpectError(t, data+`optimize(m, objective: "ml")`, `learned on Titsias' bound (sparse: "vfe")`)
	const cls = `
let x = [[0], [1], [2], [3]]
let y = [0, 1, 1, 0]
model m {
  z[2] ~ normal(0, 2)
  f ~ gp(x, rbf(1), inducing: transpose([z]))
  y ~ bernoulli_logit(f)
}
`
	kmltest.ExpectError(t, cls+`optimize(m, objective: "ml", method: "svgp", steps: 5)`, `z.1 is not one: hold it with fix:`)
	kmltest.ExpectError(t, cls+`optimize(m, objective: "ml")`, `learned on Titsias' bound`)
}
