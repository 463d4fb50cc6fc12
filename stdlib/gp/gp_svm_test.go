package gp_test

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

const gpSVMSrc = `
let x = [[0.1, 1.0], [0.5, -0.3], [0.9, 0.4], [1.3, 1.1], [1.7, -0.8], [2.1, 0.2], [2.6, 0.9], [3.0, -0.1], [3.4, 0.5], [3.9, -0.6]]
let y = [0.2, 0.6, 0.8, 0.9, 0.7, 0.3, -0.1, -0.4, -0.2, 0.1]
let c = [1, 1, 1, 1, 0, 1, 0, 0, 0, 1]
model cls {
  t1 ~ lognormal(0, 1)
  t2 ~ lognormal(0, 1)
  f ~ gp(x, t1 * rbf([0.8, 1.5]) + t2 * linear(0.5))
  c ~ bernoulli_logit(f)
}
model reg {
  t1 ~ lognormal(0, 1)
  t2 ~ lognormal(0, 1)
  f ~ gp(x, t1 * rbf([0.8, 1.5]) + t2 * linear(0.5))
  y ~ normal(f, 1)
}
let hinge = optimize(cls, objective: "mkl", loss: "hinge", C: 2, p: 1.5, lambda: 1)
let eps = optimize(reg, objective: "mkl", loss: "eps_insensitive", epsilon: 0.1, C: 1, p: 2, lambda: 0.5)
let phinge = predict(hinge, x).f_mean
`

// svmTestObjective is −½ min_u [uᵀK⁻¹u + C Σℓ] − ½λΣθᵖ for the test's
// kernel θ₁ rbf([0.8, 1.5]) + θ₂ linear(0.5) (+10⁻⁸I), built entry by
// entry, its inner minimum found independently of the library: FISTA
// (accelerated proximal gradient) on the dual, whose value is returned as
// the primal's minimum through the zero duality gap, checked here: the
// primal at u = Kw, with a dense inverse, must match twice the dual.
func svmTestObjective(t *testing.T, theta []float64, labels []float64, eps, C, p, lambda float64) (float64, []float64) {
	xs := [][]float64{{0.1, 1.0}, {0.5, -0.3}, {0.9, 0.4}, {1.3, 1.1}, {1.7, -0.8}, {2.1, 0.2}, {2.6, 0.9}, {3.0, -0.1}, {3.4, 0.5}, {3.9, -0.6}}
	n := len(xs)
	K := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			d0, d1 := (xs[i][0]-xs[j][0])/0.8, (xs[i][1]-xs[j][1])/1.5
			v := theta[0]*math.Exp(-0.5*(d0*d0+d1*d1)) + theta[1]*(xs[i][0]*xs[j][0]+xs[i][1]*xs[j][1]+0.5)
			if i == j {
				v += 1e-8
			}
			K.SetSym(i, j, v)
		}
	}
	lo, hi := make([]float64, n), make([]float64, n)
	for i := range n {
		switch {
		case eps > 0:
			lo[i], hi[i] = -C/(2*eps), C/(2*eps)
		case labels[i] > 0:
			hi[i] = C / 2
		default:
			lo[i] = -C / 2
		}
	}
	step := 1 / mat.Norm(K, 2)
	w, v, prev := make([]float64, n), make([]float64, n), make([]float64, n)
	tk := 1.0
	kv := mat.NewVecDense(n, nil)
	for range 10000 {
		kv.MulVec(K, mat.NewVecDense(n, v))
		copy(prev, w)
		for i := range n {
			z := v[i] + step*(labels[i]-kv.AtVec(i))
			z = math.Copysign(math.Max(math.Abs(z)-step*eps, 0), z)
			w[i] = math.Min(math.Max(z, lo[i]), hi[i])
		}
		tn := (1 + math.Sqrt(1+4*tk*tk)) / 2
		for i := range n {
			v[i] = w[i] + (tk-1)/tn*(w[i]-prev[i])
		}
		tk = tn
	}
	kw := mat.NewVecDense(n, nil)
	kw.MulVec(K, mat.NewVecDense(n, w))
	var dual float64
	for i := range n {
		dual += w[i]*labels[i] - eps*math.Abs(w[i]) - 0.5*w[i]*kw.AtVec(i)
	}
	var inv mat.Dense
	if err := inv.Inverse(K); err != nil {
		t.Fatal(err)
	}
	primal := mat.Inner(kw, &inv, kw)
	for i := range n {
		u := kw.AtVec(i)
		if eps > 0 {
			primal += C * math.Max(0, math.Abs(labels[i]-u)/eps-1)
		} else {
			primal += C * math.Max(0, 1-labels[i]*u)
		}
	}
	if math.Abs(primal-2*dual) > 1e-7*(1+math.Abs(primal)) {
		t.Fatalf("θ = %v: the test's dual solution has a duality gap: primal %.10g, 2·dual %.10g", theta, primal, 2*dual)
	}
	return -dual - 0.5*lambda*(math.Pow(theta[0], p)+math.Pow(theta[1], p)), kw.RawVector().Data
}

// TestGPSVMMKL: optimize with an SVM loss reaches the maximum of the
// regularised-risk MKL objective computed independently (FISTA on the
// dual, certified by a zero duality gap): its logp equals the independent
// objective at its θ, no point of a 9×9 grid over θ̂·[1/3, 3]² is higher,
// and predict's decision function at the training rows is u = Kw.
func TestGPSVMMKL(t *testing.T) {
	in, _ := kmltest.Run(t, gpSVMSrc)
	labels := []float64{1, 1, 1, 1, -1, 1, -1, -1, -1, 1}
	y := []float64{0.2, 0.6, 0.8, 0.9, 0.7, 0.3, -0.1, -0.4, -0.2, 0.1}
	for _, c := range []struct {
		name              string
		targets           []float64
		eps, C, p, lambda float64
	}{{"hinge", labels, 0, 2, 1.5, 1}, {"eps", y, 0.1, 1, 2, 0.5}} {
		fit := kmltest.Lookup[*eval.Record](t, in, c.name)
		get := func(k string) float64 {
			v, _ := fit.Attr(k)
			f, _ := eval.ToFloat(v)
			return f
		}
		theta := []float64{get("t1"), get("t2")}
		want, u := svmTestObjective(t, theta, c.targets, c.eps, c.C, c.p, c.lambda)
		if math.Abs(get("logp")-want) > 1e-8*(1+math.Abs(want)) {
			t.Errorf("%s: logp %.10g, independent objective %.10g at θ = %v", c.name, get("logp"), want, theta)
		}
		for a := -4; a <= 4; a++ {
			for b := -4; b <= 4; b++ {
				th := []float64{theta[0] * math.Pow(3, float64(a)/4), theta[1] * math.Pow(3, float64(b)/4)}
				if v, _ := svmTestObjective(t, th, c.targets, c.eps, c.C, c.p, c.lambda); v > want+1e-8*(1+math.Abs(want)) {
					t.Errorf("%s: the objective at θ = %v is %.10g, above optimize's %.10g at %v", c.name, th, v, want, theta)
				}
			}
		}
		if c.name == "hinge" {
			pred := kmltest.Lookup[*eval.Vec](t, in, "phinge").Data
			for i := range u {
				if math.Abs(pred[i]-u[i]) > 1e-6*(1+math.Abs(u[i])) {
					t.Errorf("predict's decision function %v, u = Kw %v", pred, u)
					break
				}
			}
		}
	}
}

// TestGPSVMRefusals: the SVM losses are for "mkl" and "rr", with p ≥ 1, a
// positive C and epsilon, ±1 or 0/1 labels for the hinge, and not for the
// double loop.
func TestGPSVMRefusals(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`optimize(cls, objective: "ml", loss: "hinge")`, `"mkl" and "rr"`},
		{`optimize(cls, objective: "mkl", loss: "hinge", p: 0.5)`, "at least 1"},
		{`optimize(cls, objective: "mkl", loss: "hinge", C: 0)`, "C must be positive"},
		{`optimize(reg, objective: "mkl", loss: "eps_insensitive", epsilon: -1)`, "epsilon must be positive"},
		{`optimize(reg, objective: "mkl", loss: "hinge")`, "labels"},
		{`optimize(cls, objective: "mkl", loss: "squared")`, `"likelihood", "hinge" or "eps_insensitive"`},
		{`optimize(cls, objective: "mkl", loss: "hinge", method: "double_loop")`, "smooth loss"},
	} {
		in := eval.New(eval.Options{})
		src := strings.Split(gpSVMSrc, "let hinge")[0] + c.src
		_, err := in.Eval("t.kml", src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.src, err, c.want)
		}
	}
}

// TestGPSVMSparseWarning: with p = 1 a kernel weight runs to 0 (MKL's
// sparsity), and optimize's warning says the values fall toward the lower
// end of their support, not that they grow.
func TestGPSVMSparseWarning(t *testing.T) {
	_, out := kmltest.Run(t, strings.Split(gpSVMSrc, "let hinge")[0]+`let s = optimize(cls, objective: "mkl", loss: "hinge", C: 2, p: 1, lambda: 1)`)
	if got := out.String(); !strings.Contains(got, "values of t2 fall toward the lower end of their support") || strings.Contains(got, "grow") {
		t.Errorf("warnings: %s", got)
	}
}
