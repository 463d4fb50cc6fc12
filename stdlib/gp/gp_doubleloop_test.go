package gp_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

const gpDLSrc = `
let x = [[0.1, 1.0], [0.5, -0.3], [0.9, 0.4], [1.3, 1.1], [1.7, -0.8], [2.1, 0.2], [2.6, 0.9], [3.0, -0.1], [3.4, 0.5], [3.9, -0.6]]
let y = [0.2, 0.6, 0.8, 0.9, 0.7, 0.3, -0.1, -0.4, -0.2, 0.1]
let c = [1, 1, 1, 1, 0, 1, 0, 0, 0, 1]
model g {
  t1 ~ lognormal(0, 1)
  t2 ~ lognormal(0, 1)
  t3 ~ lognormal(-2, 1)
  f ~ gp(x, t1 * rbf([0.8, 1.5]) + t2 * linear(0.5) + t3 * white())
  y ~ normal(f, 0.05)
}
model cls {
  t1 ~ lognormal(0, 1)
  t2 ~ lognormal(0, 1)
  f ~ gp(x, t1 * rbf([0.8, 1.5]) + t2 * linear(0.5) + white())
  c ~ bernoulli_logit(f)
}
`

// TestGPDoubleLoop: optimize with method "double_loop" (Algorithm 1)
// reaches the optimum L-BFGS reaches on the same objective — joint MAP
// with the weights' lognormal priors, MKL with p = 1 and p = 2, and joint
// MAP for the logistic likelihood — to 1e-6 in logp and 1e-3 (relative,
// plus 1e-6) in every weight, and says it converged.
func TestGPDoubleLoop(t *testing.T) {
	src := gpDLSrc
	cases := []struct{ name, call string }{
		{"map", `g, objective: "map"`},
		{"mkl1", `g, objective: "mkl", p: 1, lambda: 2`},
		{"mkl2", `g, objective: "mkl", p: 2, lambda: 0.5`},
		{"logit", `cls, objective: "map"`},
	}
	for _, c := range cases {
		src += "let " + c.name + "_lb = optimize(" + c.call + ")\n"
		src += "let " + c.name + "_dl = optimize(" + c.call + `, method: "double_loop")` + "\n"
	}
	in, _ := kmltest.Run(t, src)
	num := func(r *eval.Record, k string) float64 {
		v, ok := r.Attr(k)
		if !ok {
			return math.NaN()
		}
		f, _ := eval.ToFloat(v)
		return f
	}
	for _, c := range cases {
		lb := kmltest.Lookup[*eval.Record](t, in, c.name+"_lb")
		dl := kmltest.Lookup[*eval.Record](t, in, c.name+"_dl")
		if m, _ := dl.Attr("method"); m != eval.Str("double_loop") || !bool(mustBool(t, dl, "converged")) {
			t.Errorf("%s: method %v, converged %v", c.name, m, mustBool(t, dl, "converged"))
		}
		if a, b := num(lb, "logp"), num(dl, "logp"); math.Abs(a-b) > 1e-6*(1+math.Abs(a)) {
			t.Errorf("%s: logp %.10g by L-BFGS, %.10g by the double loop", c.name, a, b)
		}
		for _, w := range []string{"t1", "t2", "t3"} {
			a, b := num(lb, w), num(dl, w)
			if math.IsNaN(a) && math.IsNaN(b) {
				continue
			}
			if math.Abs(a-b) > 1e-3*math.Abs(a)+1e-6 {
				t.Errorf("%s: %s = %.6g by L-BFGS, %.6g by the double loop", c.name, w, a, b)
			}
		}
	}
}

func mustBool(t *testing.T, r *eval.Record, k string) eval.Bool {
	v, _ := r.Attr(k)
	b, ok := v.(eval.Bool)
	if !ok {
		t.Fatalf("%s is %v", k, v)
	}
	return b
}

// TestGPDoubleLoopRefusals: Algorithm 1 moves only kernel weights, with a
// smooth likelihood, for the joint MAP and MKL objectives; anything else
// is refused at method with the reason.
func TestGPDoubleLoopRefusals(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`model h {
  ell ~ lognormal(0, 1)
  t1 ~ lognormal(0, 1)
  f ~ gp(x, t1 * rbf(ell) + white())
  y ~ normal(f, 0.1)
}
optimize(h, objective: "mkl", method: "double_loop")`, "ell is not one"},
		{`model h {
  t1 ~ lognormal(0, 1)
  f ~ gp(x, t1 * rbf(1) + white())
  y ~ laplace(f, 0.1)
}
optimize(h, objective: "map", method: "double_loop")`, "normal or bernoulli_logit"},
		{`optimize(g, objective: "ml", method: "double_loop")`, `"map" and "mkl"`},
		{`optimize(g, objective: "map", method: "newton")`, `"lbfgs", "double_loop" or "svgp"`},
	} {
		in := eval.New(eval.Options{})
		_, err := in.Eval("t.kml", gpDLSrc+c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.src, err, c.want)
		}
	}
}
