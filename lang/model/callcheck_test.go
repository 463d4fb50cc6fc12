package model_test

import (
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// callModels are models with data arguments whose data must have shapes
// that only running them tells: x @ beta with beta[2], v on the right of
// @, y as long as x has rows, a GP's y as long as X has rows, x as long
// as w elementwise.
const callModels = `model reg(x, y) {
  beta[2] ~ normal(0, 1)
  y ~ normal(x @ beta, 1)
}
model right(v, y) {
  z[2] ~ normal(0, 1)
  y ~ normal(z @ v, 1)
}
model gpm(X, y) {
  ell ~ lognormal(0, 1)
  f ~ gp(X, rbf(ell))
  y ~ normal(f, 0.1)
}
model cnt(y) {
  lam ~ gamma(2, 1)
  y ~ poisson(lam)
}
model add(x, y) {
  w[3] ~ normal(0, 1)
  y ~ normal(w * x, 1)
}
`

// TestDataErrorAtCall: data that do not fit are an error at the call
// that gives them — before any fit — positioned at the argument, naming
// it, the shape given and, for an operand of @, the shape wanted. The
// model sources are 21 lines, so each call is on line 22.
func TestDataErrorAtCall(t *testing.T) {
	for _, c := range []struct{ call, want string }{
		{"let a = reg(x: [[1, 2, 3], [4, 5, 6]], y: [1, 2])",
			"t.kml:22:16: error: reg: x (matrix 2×3) does not fit the model: `x @ beta` wants a matrix with 2 columns; shapes do not match for @: matrix 2×3 and vector of length 2"},
		{"let a = reg([[1, 2, 3], [4, 5, 6]], [1, 2])",
			"t.kml:22:13: error: reg: x (matrix 2×3) does not fit the model: `x @ beta` wants a matrix with 2 columns"},
		{"let a = reg(x: [[1, 2], [4, 5]], y: [1, 2, 3])",
			"t.kml:22:37: error: reg: y (vector of length 3) does not fit the model: y has 3 values but the parameters of normal have 2"},
		{`let a = reg(x: [[1, 2], [4, 5]], y: "a")`,
			`t.kml:22:37: error: reg: y (string "a") does not fit the model: y must be numbers`},
		{"let a = right(v: [[1], [2], [3]], y: [1])",
			"t.kml:22:18: error: right: v (matrix 3×1) does not fit the model: `z @ v` wants a matrix with 2 rows"},
		{"let a = gpm(X: [[1], [2], [3]], y: [1, 2])",
			"t.kml:22:36: error: gpm: y (vector of length 2) does not fit the model: 2 observations for a latent GP at 3 input rows"},
		{"let a = add(x: [1, 2], y: [1, 2, 3])",
			"t.kml:22:16: error: add: x (vector of length 2) does not fit the model: `w * x` wants a vector of length 3; shapes do not match for *"},
		{"let a = cnt(y: [1.5, 2])",
			"t.kml:22:16: error: cnt: y (vector of length 2) does not fit the model: y has element 1 = 1.5 outside the support of poisson"},
		{"fn f(d) = reg(x: d, y: [1, 2])\nlet a = f([[1, 2, 3], [4, 5, 6]])",
			"t.kml:22:18: error: reg: x (matrix 2×3) does not fit the model"},
		{"fn g(d) = reg(x: d.x, y: [1, 2])\nlet a = map([{x: [[1, 2], [3, 4]]}, {x: [[1, 2, 3], [4, 5, 6]]}], g)",
			"t.kml:22:18: error: reg: x (matrix 2×3) does not fit the model"},
	} {
		in := eval.New(eval.Options{})
		_, err := in.Eval("t.kml", callModels+c.call+"\n")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got  %v\n want %s", c.call, err, c.want)
		}
	}
}

// TestCallCheckOncePerShapes: the check at the call runs once per data
// shapes (the compile cache's key): a second call with data of the shapes
// of a checked one is not run there, so a value outside the support in it
// is reported by the fit, still at its argument. A mistake that is not in
// the data (a prior that is not a distribution) is left to the fit too.
func TestCallCheckOncePerShapes(t *testing.T) {
	in := eval.New(eval.Options{})
	_, err := in.Eval("t.kml", callModels+"let a = cnt(y: [1, 2])\nlet b = cnt(y: [1.5, 2])\n")
	if err != nil {
		t.Fatalf("the second call was checked again: %v", err)
	}
	_, err = in.Eval("t.kml", "optimize(b, seed: 1)\n")
	want := "t.kml:23:16: error: cnt: y (vector of length 2) does not fit the model: y has element 1 = 1.5"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("fit of b:\n got  %v\n want %s", err, want)
	}
	in = eval.New(eval.Options{})
	src := "model bad(y) {\n  mu ~ 3\n  y ~ normal(mu, 1)\n}\nlet a = bad(y: [1, 2])\noptimize(a, seed: 1)\n"
	_, err = in.Eval("t.kml", src)
	want = "t.kml:2:8: error: the prior of mu must be a distribution"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a mistake in the model:\n got  %v\n want %s", err, want)
	}
}
