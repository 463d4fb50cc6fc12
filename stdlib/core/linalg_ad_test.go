package core_test

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// onTape puts a data value's elements on t as inputs, keeping its shape.
func onTape(t *ad.Tape, v eval.Value) eval.Value {
	switch v := v.(type) {
	case eval.Num:
		return &eval.ADNum{T: t, V: t.Input(float64(v))}
	case *eval.Vec:
		vs := make([]ad.Var, len(v.Data))
		for i, x := range v.Data {
			vs[i] = t.Input(x)
		}
		return &eval.ADVec{T: t, Vs: vs}
	case *eval.Mat:
		r, c := v.Dims()
		vs := make([]ad.Var, 0, r*c)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				vs = append(vs, t.Input(v.M.At(i, j)))
			}
		}
		return &eval.ADMat{T: t, Rows: r, Cols: c, Vs: vs}
	}
	return v
}

// plain is an AD value's current value as data.
func plain(v eval.Value) eval.Value {
	switch v := v.(type) {
	case *eval.ADNum:
		return eval.Num(v.Value())
	case *eval.ADVec:
		return &eval.Vec{Data: v.Values()}
	case *eval.ADMat:
		return eval.NewMat(v.Dense())
	}
	return v
}

func sameValue(a, b eval.Value, tol float64) bool {
	if a.Type() != b.Type() {
		return false
	}
	switch a := a.(type) {
	case eval.Num:
		return math.Abs(float64(a)-float64(b.(eval.Num))) <= tol*math.Max(1, math.Abs(float64(a)))
	case *eval.Vec:
		y := b.(*eval.Vec).Data
		if len(a.Data) != len(y) {
			return false
		}
		for i := range y {
			if math.Abs(a.Data[i]-y[i]) > tol*math.Max(1, math.Abs(y[i])) {
				return false
			}
		}
		return true
	case *eval.Mat:
		return mat.EqualApprox(a.M, b.(*eval.Mat).M, tol)
	}
	return false
}

// TestLinalgOnTapeMatchesData: every linear-algebra builtin and operator
// gives, on arguments on the tape (each argument in turn, and all), the
// values the data path gives on the same numbers.
func TestLinalgOnTapeMatchesData(t *testing.T) {
	in, _ := kmltest.Run(t, `
let A = [[4, 1, 0.5], [1, 3, 0.2], [0.5, 0.2, 2]]
let G = [[1, 2, 0], [-1, 3, 1], [0.5, 0, 2]]
let Lo = chol(A)
let b = [1, -2, 0.5]
let B = [[1, 2], [0, -1], [3, 1]]
let r = [0.3, -0.7, 2]
let c2 = [0.4, -1]
let one = [[2.5]]
let x = [[0.1], [0.7], [1.5], [2.2]]
let s = 1.7
let ell = 0.8
let k = s^2 * rbf(ell)
`)
	get := func(name string) eval.Value {
		if v, ok := in.Lookup(name); ok {
			return v
		}
		b, ok := in.Registry().Get(name)
		if !ok {
			t.Fatalf("%s is not bound", name)
		}
		return b
	}
	th := in.NewThread(context.Background())
	cases := []struct {
		fn   string
		args []string
	}{
		{"chol", []string{"A"}}, {"chol", []string{"one"}},
		{"logdet", []string{"G"}}, {"det", []string{"G"}}, {"trace", []string{"G"}},
		{"logdet", []string{"one"}}, {"det", []string{"s"}},
		{"inv", []string{"G"}}, {"inv", []string{"Lo"}},
		{"solve", []string{"G", "b"}}, {"solve", []string{"G", "B"}},
		{"solve", []string{"Lo", "b"}}, {"solve", []string{"one", "s"}},
		{"diag", []string{"b"}}, {"diag", []string{"G"}}, {"diag", []string{"B"}},
		{"outer", []string{"b", "r"}}, {"transpose", []string{"B"}}, {"transpose", []string{"b"}},
	}
	for _, c := range cases {
		fv := get(c.fn)
		data := make([]eval.Value, len(c.args))
		for i, n := range c.args {
			data[i] = get(n)
		}
		want, err := th.CallValue(ast.Pos{}, fv, data...)
		if err != nil {
			t.Fatalf("%s(%v): %v", c.fn, c.args, err)
		}
		// Each argument on the tape alone, then all of them.
		for which := -1; which < len(c.args); which++ {
			tape := ad.NewTape()
			args := append([]eval.Value(nil), data...)
			for i := range args {
				if which < 0 || i == which {
					args[i] = onTape(tape, args[i])
				}
			}
			got, err := th.CallValue(ast.Pos{}, fv, args...)
			if err != nil {
				t.Fatalf("%s(%v) on the tape: %v", c.fn, c.args, err)
			}
			if !eval.IsAD(got) || !sameValue(plain(got), want, 1e-12) {
				t.Errorf("%s(%v) with argument %d on the tape = %v, data %v", c.fn, c.args, which, got, want)
			}
		}
	}
	ops := []struct {
		op   string
		x, y string
	}{
		{"@", "G", "A"}, {"@", "G", "b"}, {"@", "b", "G"}, {"@", "G", "B"}, {"@", "b", "r"},
		{"+", "G", "A"}, {"-", "G", "s"}, {"*", "s", "G"}, {"/", "G", "A"}, {"*", "G", "r"},
		{"-", "B", "c2"}, {"+", "B", "B"}, {"^", "A", "s"}, {"+", "x", "ell"},
	}
	for _, c := range ops {
		x, y := get(c.x), get(c.y)
		want, err := eval.Binary(ast.Pos{}, c.op, x, y)
		if err != nil {
			t.Fatal(err)
		}
		for which := 0; which < 3; which++ {
			tape := ad.NewTape()
			xa, ya := x, y
			if which != 1 {
				xa = onTape(tape, x)
			}
			if which != 0 {
				ya = onTape(tape, y)
			}
			got, err := eval.Binary(ast.Pos{}, c.op, xa, ya)
			if err != nil {
				t.Fatalf("%s %s %s on the tape: %v", c.x, c.op, c.y, err)
			}
			if !eval.IsAD(got) || !sameValue(plain(got), want, 1e-12) {
				t.Errorf("%s %s %s (case %d) = %v, data %v", c.x, c.op, c.y, which, got, want)
			}
		}
	}
	// gram with a hyperparameter on the tape.
	tape := ad.NewTape()
	sv, ellv := &eval.ADNum{T: tape, V: tape.Input(1.7)}, &eval.ADNum{T: tape, V: tape.Input(0.8)}
	rbf, _ := th.CallValue(ast.Pos{}, get("rbf"), ellv)
	s2, _ := eval.Binary(ast.Pos{}, "^", sv, eval.Num(2))
	kAD, err := eval.Binary(ast.Pos{}, "*", s2, rbf)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"x"}, {"x", "r"}} {
		data := []eval.Value{get("k")}
		onT := []eval.Value{kAD}
		for _, n := range args {
			v := get(n)
			if n == "r" {
				v = eval.NewMat(mat.NewDense(3, 1, get("r").(*eval.Vec).Data))
			}
			data, onT = append(data, v), append(onT, v)
		}
		want, err := th.CallValue(ast.Pos{}, get("gram"), data...)
		if err != nil {
			t.Fatal(err)
		}
		got, err := th.CallValue(ast.Pos{}, get("gram"), onT...)
		if err != nil {
			t.Fatal(err)
		}
		if !eval.IsAD(got) || !sameValue(plain(got), want, 1e-12) {
			t.Errorf("gram(k, %v) on the tape = %v, data %v", args, got, want)
		}
	}
}

// TestLinalgModelGradient: the gradient of a model's log density through
// gram with parameter hyperparameters, chol, solve (triangular and LU),
// inv, logdet, det, trace, diag, outer, transpose, @, matrix arithmetic,
// a matrix literal of parameters and indexing matches finite differences.
func TestLinalgModelGradient(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = [0.1, 0.7, 1.5, 2.2]
let y = [0.3, -0.2, 0.5]
model m {
  s ~ lognormal(0, 1)
  ell ~ lognormal(0, 1)
  w[4] ~ normal(0, 1)
  K = gram(s^2 * rbf(ell), x) + 0.1 * eye(4)
  L = chol(K)
  z = solve(L, w)
  M = [[s, w[1], 0.3], [w[2], 2 + ell, w[3]], [0.1, w[4], 3]]
  N = M @ transpose(M) + diag([s, ell, 1]) - outer(y, y) / 10
  target += -0.5 * (z @ z) - sum(log(diag(L))) + logdet(N) + det(M) / 10 + trace(inv(N))
  target += sum(solve(N, y)) + sum(solve(M, [1, 2, 3])) + (M @ N)[2, 3] + sum(N[3]) + trace(-M * M / (1 + s)) / 5
  target += sum(M[:, 2]) + trace(M[2:3, 1:2]) + sum(gram(s * rbf(ell), x, [0.5, 1.0]) @ [1, -1])
}
`)
	kmltest.CheckModelGradient(t, in, "m", 1e-6,
		[]float64{0.2, -0.3, 0.5, -1, 0.3, 0.8},
		[]float64{-0.4, 0.6, 1.2, 0.1, -0.7, 0})
}

// TestMultiNormalParameterCovariance: multi_normal with Sigma = s²·[[1, r],
// [r, 1]] and multi_normal_cholesky with chol of it, as observations and as
// a prior: logp equals gonum's distmv.Normal plus the priors, and the
// gradient matches finite differences.
func TestMultiNormalParameterCovariance(t *testing.T) {
	in, _ := kmltest.Run(t, `
let Y = [[0.5, -0.2], [1.1, 0.7], [-0.3, 0.4]]
model obs {
  s ~ lognormal(0, 1)
  r ~ uniform(-1, 1)
  mu ~ normal(0, 2)
  Y ~ multi_normal([mu, 0.1], s^2 * [[1, r], [r, 1]])
}
model obsL {
  s ~ lognormal(0, 1)
  r ~ uniform(-1, 1)
  mu ~ normal(0, 2)
  Y ~ multi_normal_cholesky([mu, 0.1], chol(s^2 * [[1, r], [r, 1]]))
}
model prior {
  s ~ lognormal(0, 1)
  r ~ uniform(-1, 1)
  w[2] ~ multi_normal(0.5, s^2 * [[1, r], [r, 1]])
  Y[1] ~ multi_normal(w, [[1, 0], [0, 1]])
}
let a = logp(obs, {s: 1.3, r: 0.4, mu: 0.2})
let b = logp(obsL, {s: 1.3, r: 0.4, mu: 0.2})
let c = logp(prior, {s: 1.3, r: 0.4, w: [0.3, -0.6]})
`)
	s, r, mu := 1.3, 0.4, 0.2
	sigma := mat.NewSymDense(2, []float64{s * s, s * s * r, s * s * r, s * s})
	n, _ := distmv.NewNormal([]float64{mu, 0.1}, sigma, nil)
	priors := distuv.LogNormal{Mu: 0, Sigma: 1}.LogProb(s) + math.Log(0.5)
	want := priors + distuv.Normal{Mu: 0, Sigma: 2}.LogProb(mu)
	for _, row := range [][]float64{{0.5, -0.2}, {1.1, 0.7}, {-0.3, 0.4}} {
		want += n.LogProb(row)
	}
	for _, name := range []string{"a", "b"} {
		if got := float64(kmltest.Lookup[eval.Num](t, in, name)); math.Abs(got-want) > 1e-10 {
			t.Errorf("%s = %v, distmv %v", name, got, want)
		}
	}
	nw, _ := distmv.NewNormal([]float64{0.5, 0.5}, sigma, nil)
	ny, _ := distmv.NewNormal([]float64{0.3, -0.6}, mat.NewSymDense(2, []float64{1, 0, 0, 1}), nil)
	wantC := priors + nw.LogProb([]float64{0.3, -0.6}) + ny.LogProb([]float64{0.5, -0.2})
	if got := float64(kmltest.Lookup[eval.Num](t, in, "c")); math.Abs(got-wantC) > 1e-10 {
		t.Errorf("c = %v, distmv %v", got, wantC)
	}
	for _, m := range []string{"obs", "obsL"} {
		kmltest.CheckModelGradient(t, in, m, 1e-6, []float64{0.2, -0.3, 0.5}, []float64{-0.5, 1.1, -0.8})
	}
	kmltest.CheckModelGradient(t, in, "prior", 1e-6, []float64{0.2, -0.3, 0.5, 0.1}, []float64{-0.5, 1.1, -0.8, 2})
}

// TestMultiNormalParameterCovarianceSampling samples s ~ lognormal(0, σ),
// w[2] ~ multi_normal([1, −1], s²·C) with σ = 0.3: s keeps its prior, and
// w has mean [1, −1] and variances E[s²]·Cᵢᵢ = e^{2σ²}·Cᵢᵢ. Means must be
// within 4 MCSE, sds within 4 of their MCSE from the known kurtosis.
func TestMultiNormalParameterCovarianceSampling(t *testing.T) {
	in, _ := kmltest.Run(t, `
model m {
  s ~ lognormal(0, 0.3)
  w[2] ~ multi_normal([1, -1], s^2 * [[1, 0.5], [0.5, 2]])
}
let post = sample(m, chains: 4, warmup: 500, draws: 1000, seed: 71)
`)
	ps := kmltest.Lookup[*infer.Posterior](t, in, "post").Summary
	const sig = 0.3
	ln := distuv.LogNormal{Mu: 0, Sigma: sig}
	e2 := math.Exp(2 * sig * sig)             // E[s²]
	kw := 3 * math.Exp(8*sig*sig) / (e2 * e2) // kurtosis of w: 3·E[s⁴]/E[s²]²
	want := []struct{ mean, sd, kurt float64 }{
		{ln.Mean(), ln.StdDev(), ln.ExKurtosis() + 3},
		{1, math.Sqrt(e2), kw},
		{-1, math.Sqrt(2 * e2), kw},
	}
	if ps.Divergences > 0 {
		t.Errorf("%d divergences", ps.Divergences)
	}
	for i, p := range ps.Params[:3] {
		w := want[i]
		sdMCSE := w.sd * math.Sqrt((w.kurt-1)/(4*p.ESSBulk))
		if math.Abs(p.Mean-w.mean) > 4*p.MCSEMean || math.Abs(p.SD-w.sd) > 4*sdMCSE {
			t.Errorf("%s: mean %v ± %v (want %v), sd %v ± %v (want %v)", p.Name, p.Mean, p.MCSEMean, w.mean, p.SD, sdMCSE, w.sd)
		}
	}
}

// TestLinalgOnTapeErrors: bad matrices on the tape are errors at the call,
// with positions, as on data (sample's first evaluation, at s = 1, is on
// the tape).
func TestLinalgOnTapeErrors(t *testing.T) {
	model := func(body string) string {
		return "let x = [0, 1, 2]\nmodel m {\n  s ~ lognormal(0, 1)\n" + body + "\n}\nlet p = sample(m, chains: 1, warmup: 1, draws: 1, seed: 1)\n"
	}
	for _, c := range []struct{ body, want string }{
		{"  target += sum(diag(chol([[s, 1], [0, s]])))", "t.kml:4:27: error: chol: A is not symmetric: A[2, 1] = 0 but A[1, 2] = 1"},
		{"  target += sum(diag(chol([[s, 2], [2, s]])))", "chol: A is not positive definite at these parameter values"},
		{"  target += sum(solve([[s, 1], [1, s]], [1, 2, 3]))", "solve: b has 3 rows but A is 2×2"},
		{"  target += sum(solve([[s, 1], [s, 1]], [1, 2]))", "solve: A is singular"},
		{"  target += logdet([[s, 1, 2], [1, s, 3]])", "logdet: A must be a square matrix, got 2×3"},
		{"  target += sum([[s, 1, 2], [1, s, 3]] @ [1, 2])", "shapes do not match for @: matrix 2×3 and vector of length 2"},
		{"  target += sum(diag(gram(rbf(1), [s, 1, 2])))", "gram's x must be data"},
		{"  w[2] ~ multi_normal_cholesky(0, [[s, 1], [0, s]])", "L must be lower triangular, but L[1, 2] = 1"},
		{"  w[3] ~ multi_normal(0, s * [[1, 0], [0, 1]])", "multi_normal(0, 2×2) is a 2-dimensional distribution but w has 3 elements"},
		{"  x ~ multi_normal(0, [[s, 2], [2, s]])", "multi_normal: Sigma is not positive definite at these parameter values"},
	} {
		kmltest.ExpectError(t, model(c.body), c.want)
	}
}
