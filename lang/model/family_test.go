package model_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

// evalIn runs src in a fresh interpreter and returns the value of name.
func evalIn(t *testing.T, src, name string) (*eval.Interpreter, eval.Value) {
	t.Helper()
	in := eval.New(eval.Options{})
	if _, err := in.Eval("t.kml", src); err != nil {
		t.Fatalf("eval: %v", err)
	}
	v, ok := in.Lookup(name)
	if !ok {
		t.Fatalf("no %s", name)
	}
	return in, v
}

const regData = `let x1 = [[1, 0.5], [1, -0.3], [1, 2.0], [1, 1.1]]
let y1 = [0.9, 0.1, 2.5, 1.6]
let x2 = [[1, 1.5], [1, 0.2], [1, -1.0], [1, 0.4]]
let y2 = [-0.4, 0.8, 1.9, 0.2]
`

const regBody = `{
  beta[cols(x)] ~ normal(0, 3)
  s ~ gamma(2, 1)
  y ~ normal(x @ beta, s)
}`

// TestInstanceMatchesDeclaredModel: one model with data arguments,
// instantiated twice with different data of the same shapes (the second
// from the compile cache), gives to the bit the log density and gradient
// of two models declared separately on that data.
func TestInstanceMatchesDeclaredModel(t *testing.T) {
	src := regData + "model fam(x, y) " + regBody + `
let a = fam(x: x1, y: y1)
let b = fam(x2, y2)
model da ` + strings.ReplaceAll(strings.ReplaceAll(regBody, "x", "x1"), "y ", "y1 ") + `
model db ` + strings.ReplaceAll(strings.ReplaceAll(regBody, "x", "x2"), "y ", "y2 ")
	in := eval.New(eval.Options{})
	if _, err := in.Eval("t.kml", src); err != nil {
		t.Fatal(err)
	}
	get := func(name string) *model.Compiled {
		v, _ := in.Lookup(name)
		c, err := model.CompileFor(in, v.(*eval.Model), nil, all)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return c
	}
	// The call that made a compiled it (CheckInstance), so both fits
	// start from the layout in the cache.
	ca, cb := get("a"), get("b")
	if !ca.Reused || !cb.Reused {
		t.Errorf("cache: first instance reused %v, second %v; want true, true", ca.Reused, cb.Reused)
	}
	q := []float64{0.3, -0.7, 0.4}
	for _, pair := range [][2]*model.Compiled{{ca, get("da")}, {cb, get("db")}} {
		gi, gd := make([]float64, 3), make([]float64, 3)
		// Several evaluations, so that a replayed program is compared too.
		for range 5 {
			li, err := pair[0].NewDensityFor(in).LogDensity(gi, q)
			if err != nil {
				t.Fatal(err)
			}
			ld, err := pair[1].NewDensityFor(in).LogDensity(gd, q)
			if err != nil {
				t.Fatal(err)
			}
			if math.Float64bits(li) != math.Float64bits(ld) {
				t.Errorf("logp %v (instance) != %v (declared)", li, ld)
			}
			for i := range gi {
				if math.Float64bits(gi[i]) != math.Float64bits(gd[i]) {
					t.Errorf("grad[%d] %v (instance) != %v (declared)", i, gi[i], gd[i])
				}
			}
		}
	}
	la, _ := ca.NewDensityFor(in).Value(q)
	lb, _ := cb.NewDensityFor(in).Value(q)
	if la == lb {
		t.Errorf("the two data sets give the same logp %v: the instances share data", la)
	}
}

// TestShapeCacheRecompiles: an instance whose data have the shapes of an
// earlier one starts from its layout (a dirichlet prior needs no second
// layout run); other shapes compile anew; a bound that is data and
// differs between instances of one shape is re-derived, not reused.
func TestShapeCacheRecompiles(t *testing.T) {
	src := `model m(alpha, hi) {
  theta[len(alpha)] ~ dirichlet(alpha)
  u ~ uniform(0, hi)
}
let a = m([1, 1, 1], 1)
let b = m([2, 3, 4], 1)
let c = m([1, 1, 1, 1], 1)
let d = m([1, 1, 1], 5)
`
	in := eval.New(eval.Options{})
	if _, err := in.Eval("t.kml", src); err != nil {
		t.Fatal(err)
	}
	comp := func(name string) *model.Compiled {
		v, _ := in.Lookup(name)
		c, err := model.CompileFor(in, v.(*eval.Model), nil, all)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, c := range []struct {
		name   string
		reused bool
		runs   int
		dim    int
	}{
		// Each call compiled its instance (CheckInstance) unless one of
		// the same shapes had been: a (dirichlet laid out again, 2 runs),
		// c (alpha of 4, a new shape) and d (hi a number of another
		// value, a key of its own) at their calls, b from a's layout. So
		// every fit here starts from a known layout: 1 run.
		{"a", true, 1, 3},
		{"b", true, 1, 3},
		{"c", true, 1, 4},
		{"a", true, 1, 3},
		{"d", true, 1, 3},
	} {
		got := comp(c.name)
		if got.Reused != c.reused || got.Runs != c.runs || got.Dim() != c.dim {
			t.Errorf("%s: reused %v, runs %d, dim %d; want %v, %d, %d", c.name, got.Reused, got.Runs, got.Dim(), c.reused, c.runs, c.dim)
		}
	}
	// u's upper bound is the data: constraining the same point gives 0.5·hi.
	q := []float64{0, 0, 0}
	ca, cd := comp("a"), comp("d")
	ua := ca.Constrain(nil, q)
	ud := cd.Constrain(nil, q)
	if math.Abs(ua[len(ua)-1]-0.5) > 1e-12 || math.Abs(ud[len(ud)-1]-2.5) > 1e-12 {
		t.Errorf("u at the origin: %v and %v, want 0.5 and 2.5", ua[len(ua)-1], ud[len(ud)-1])
	}
}

// TestBoundFromDataIsRederived: two instances of one shape whose bound is
// a vector of data (part of no key) each constrain with their own bound:
// the cached transform is checked by the first run, not trusted.
func TestBoundFromDataIsRederived(t *testing.T) {
	src := `model m(hi) {
  u ~ uniform(0, hi[1] * hi[2])
}
let a = m([1, 2])
let b = m([4, 8])
`
	in := eval.New(eval.Options{})
	if _, err := in.Eval("t.kml", src); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want float64
	}{{"a", 1}, {"b", 16}} {
		name, want := c.name, c.want
		v, _ := in.Lookup(name)
		c, err := model.CompileFor(in, v.(*eval.Model), nil, all)
		if err != nil {
			t.Fatal(err)
		}
		if name == "b" && !c.Reused {
			t.Errorf("b: not from the cache")
		}
		got := c.Constrain(nil, []float64{0})
		if math.Abs(got[0]-want) > 1e-12 {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}

// TestDataErrorAtArgument: data that do not fit the model are reported
// at the argument of the call that made the instance, when the model is
// fitted; a family used without its data says to call it.
func TestDataErrorAtArgument(t *testing.T) {
	decl := "model m(x, y) {\n  beta[2] ~ normal(0, 1)\n  y ~ normal(x @ beta, 1)\n}\n"
	cases := []struct{ src, want string }{
		{decl + "let a = m(x: [[1, 2, 3], [4, 5, 6]], y: [1, 2])\noptimize(a)",
			"t.kml:5:14: error: m: x (matrix 2×3) does not fit the model: `x @ beta` wants a matrix with 2 columns; shapes do not match for @: matrix 2×3 and vector of length 2"},
		{decl + "fn f(x) = sample(m(x: x, y: [1, 2]), seed: 1)\nf([[1, 2, 3], [4, 5, 6]])",
			"t.kml:5:23: error: m: x (matrix 2×3) does not fit the model: `x @ beta` wants a matrix with 2 columns"},
		{decl + "sample(m)", "t.kml:5:8: error: sample: model m(x, y) takes data: call it with its data, m(x: ..., y: ...)"},
		{decl + "optimize(m, seed: 1)", "t.kml:5:10: error: optimize: model m(x, y) takes data"},
		{decl + "loglik(m, values: {beta: [1, 2]})", "t.kml:5:8: error: loglik: model m(x, y) takes data"},
	}
	for _, c := range cases {
		in := eval.New(eval.Options{})
		_, err := in.Eval("t.kml", c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got  %v\n want %s", c.src, err, c.want)
		}
	}
}

// TestKFoldInKML refits one model on each training fold inside a fn, the
// loop K-fold cross-validation is made of, and scores the held-out fold
// with loglik. The conjugate model's MAP and held-out log likelihood are
// computed here in closed form: mu's MAP under mu ~ normal(0, 10) and
// y ~ normal(mu, 1) is Σy / (n + 1/100).
func TestKFoldInKML(t *testing.T) {
	y := []float64{0.3, -1.2, 2.2, 0.7, 1.4, 0.1, -0.5, 1.9}
	src := `let y = [0.3, -1.2, 2.2, 0.7, 1.4, 0.1, -0.5, 1.9]
model m(y) {
  mu ~ normal(0, 10)
  y ~ normal(mu, 1)
}
fn train(k) = concat(y[1:(2 * k - 2)], y[(2 * k + 1):8])
fn test(k) = y[(2 * k - 1):(2 * k)]
fn fold(k) = loglik(m(test(k)), values: {mu: optimize(m(y: train(k)), seed: 1).mu})
let scores = [fold(1), fold(2), fold(3), fold(4)]
`
	_, v := evalIn(t, src, "scores")
	got, ok := eval.ToFloats(v)
	if !ok || len(got) != 4 {
		t.Fatalf("scores %v", v)
	}
	for k := 1; k <= 4; k++ {
		sum, n := 0.0, 0
		for i, yi := range y {
			if i/2 != k-1 {
				sum += yi
				n++
			}
		}
		mu := sum / (float64(n) + 1.0/100)
		want := 0.0
		for _, yi := range y[2*k-2 : 2*k] {
			want += -0.5*math.Log(2*math.Pi) - 0.5*(yi-mu)*(yi-mu)
		}
		if math.Abs(got[k-1]-want) > 1e-6 {
			t.Errorf("fold %d: held-out loglik %v, want %v", k, got[k-1], want)
		}
	}
}
