package core

import (
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
)

// unaryFn is an elementwise function with its derivative (nil for the
// functions that do not take model parameters).
type unaryFn struct {
	spec, doc string
	f, df     func(float64) float64
}

// tapeOps are the tape's own operations for some of unaryFns (the same
// value and derivative to the bit): a replay computes them inline, where a
// Func node costs a call through its closure and a copy of its parents.
var tapeOps = map[string]func(t *ad.Tape, x ad.Var) ad.Var{
	"exp(x)": (*ad.Tape).Exp, "log(x)": (*ad.Tape).Log, "sqrt(x)": (*ad.Tape).Sqrt,
}

var unaryFns = []unaryFn{
	{"exp(x)", "e^x, elementwise.", math.Exp, math.Exp},
	{"log(x)", "The natural logarithm, elementwise.", math.Log, func(x float64) float64 { return 1 / x }},
	{"sqrt(x)", "The square root, elementwise.", math.Sqrt, func(x float64) float64 { return 0.5 / math.Sqrt(x) }},
	{"abs(x)", "The absolute value, elementwise.", math.Abs, func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	}},
	{"log1p(x)", "log(1 + x), accurate for small x, elementwise.", math.Log1p, func(x float64) float64 { return 1 / (1 + x) }},
	{"expm1(x)", "e^x − 1, accurate for small x, elementwise.", math.Expm1, math.Exp},
	{"sin(x)", "The sine (radians), elementwise.", math.Sin, math.Cos},
	{"cos(x)", "The cosine (radians), elementwise.", math.Cos, func(x float64) float64 { return -math.Sin(x) }},
	{"tan(x)", "The tangent (radians), elementwise.", math.Tan, func(x float64) float64 { c := math.Cos(x); return 1 / (c * c) }},
	{"tanh(x)", "The hyperbolic tangent, elementwise.", math.Tanh, func(x float64) float64 { t := math.Tanh(x); return 1 - t*t }},
	{"logit(p)", "log(p / (1 − p)), elementwise.", func(p float64) float64 { return math.Log(p / (1 - p)) }, func(p float64) float64 { return 1 / (p * (1 - p)) }},
	{"inv_logit(x)", "1 / (1 + e^−x), the logistic function, elementwise (stable for large |x|).", invLogit, func(x float64) float64 { p := invLogit(x); return p * (1 - p) }},
	{"lgamma(x)", "The log of the absolute value of the gamma function, elementwise.", func(x float64) float64 {
		v, _ := math.Lgamma(x)
		return v
	}, nil},
	{"floor(x)", "The largest whole number ≤ x, elementwise.", math.Floor, nil},
	{"ceil(x)", "The smallest whole number ≥ x, elementwise.", math.Ceil, nil},
	{"round(x)", "x rounded to the nearest whole number (halves away from zero), elementwise.", math.Round, nil},
}

func registerMath(reg *eval.Registry) {
	for _, u := range unaryFns {
		arg := u.spec[strings.Index(u.spec, "(")+1 : len(u.spec)-1]
		b := reg.Register(u.spec, u.doc, func(a *eval.Args) (eval.Value, error) {
			return elementwise(a, arg, u.f, u.df, tapeOps[u.spec])
		})
		b.AD = u.df != nil
	}
	for _, r := range []struct {
		spec, doc string
		f         func(a *eval.Args) (eval.Value, error)
	}{
		{"log_sum_exp(x)", "log(Σ e^xᵢ) over a vector, computed without overflow.", logSumExp},
		{"softmax(x)", "The vector e^xᵢ / Σ e^xⱼ (sums to 1).", func(a *eval.Args) (eval.Value, error) { return softmax(a, false) }},
		{"log_softmax(x)", "The vector xᵢ − log_sum_exp(x).", func(a *eval.Args) (eval.Value, error) { return softmax(a, true) }},
	} {
		reg.Register(r.spec, r.doc, r.f).AD = true
	}
	b := reg.Register("atan2(y, x)", "The angle of the point (x, y) in (−π, π], elementwise; a number broadcasts against a vector.", atan2)
	b.AD = true
	reg.Register("pi()", "The constant π.", func(*eval.Args) (eval.Value, error) { return eval.Num(math.Pi), nil })
}

// elementwise applies f to a number, vector or matrix; on values that
// depend on model parameters it records f with derivative df on the tape,
// as the tape's operation op when there is one.
func elementwise(a *eval.Args, name string, f, df func(float64) float64, op func(*ad.Tape, ad.Var) ad.Var) (eval.Value, error) {
	switch v := a.Value(name).(type) {
	case eval.Num:
		return eval.Num(f(float64(v))), nil
	case *eval.Vec:
		out := make([]float64, len(v.Data))
		for i, x := range v.Data {
			out[i] = f(x)
		}
		return &eval.Vec{Data: out}, nil
	case *eval.Mat:
		var m mat.Dense
		m.Apply(func(_, _ int, x float64) float64 { return f(x) }, v.M)
		return eval.NewMat(&m), nil
	case *eval.ADNum:
		if op != nil {
			return &eval.ADNum{T: v.T, V: op(v.T, v.V)}, nil
		}
		return &eval.ADNum{T: v.T, V: v.T.Func([]ad.Var{v.V}, tapeFn(f, df))}, nil
	case *eval.ADVec:
		vs := make([]ad.Var, len(v.Vs))
		if op != nil {
			for i, node := range v.Vs {
				vs[i] = op(v.T, node)
			}
			return &eval.ADVec{T: v.T, Vs: vs}, nil
		}
		fn := tapeFn(f, df)
		for i, node := range v.Vs {
			vs[i] = v.T.Func([]ad.Var{node}, fn)
		}
		return &eval.ADVec{T: v.T, Vs: vs}, nil
	}
	return nil, a.Errorf(name, "%s must be a number, vector or matrix, got %s", name, eval.Describe(a.Value(name)))
}

// tapeFn is f with derivative df as a tape function of one parent.
func tapeFn(f, df func(float64) float64) ad.Fn {
	return func(x, d []float64) float64 {
		d[0] = df(x[0])
		return f(x[0])
	}
}

// atan2 is the two-argument arctangent over numbers and vectors, either of
// which may depend on model parameters.
func atan2(a *eval.Args) (eval.Value, error) {
	ys, yVec, err := elems(a, "y")
	if err != nil {
		return nil, err
	}
	xs, xVec, err := elems(a, "x")
	if err != nil {
		return nil, err
	}
	if len(ys) != len(xs) && len(ys) != 1 && len(xs) != 1 {
		return nil, a.Fail("y has %d elements and x has %d; they must match, or one must be a number", len(ys), len(xs))
	}
	out := make([]eval.Value, max(len(ys), len(xs)))
	for i := range out {
		y, x := ys[min(i, len(ys)-1)], xs[min(i, len(xs)-1)]
		// ∂/∂y atan2(y, x) = x/r², ∂/∂x = −y/r².
		out[i] = eval.FuncNode([]eval.Value{y, x}, func(v, d []float64) float64 {
			yv, xv := v[0], v[1]
			r2 := xv*xv + yv*yv
			d[0], d[1] = xv/r2, -yv/r2
			return math.Atan2(yv, xv)
		})
	}
	if !yVec && !xVec {
		return out[0], nil
	}
	return vector(out), nil
}

// elems splits a number or vector argument into numbers (ADNum elements for
// a vector on the tape); vec says whether it was a vector.
func elems(a *eval.Args, name string) (xs []eval.Value, vec bool, err error) {
	switch v := a.Value(name).(type) {
	case eval.Num, *eval.ADNum:
		return []eval.Value{v}, false, nil
	case *eval.Vec:
		xs = make([]eval.Value, len(v.Data))
		for i, x := range v.Data {
			xs[i] = eval.Num(x)
		}
	case *eval.ADVec:
		xs = make([]eval.Value, len(v.Vs))
		for i, node := range v.Vs {
			xs[i] = &eval.ADNum{T: v.T, V: node}
		}
	default:
		return nil, false, a.Errorf(name, "%s must be a number or vector, got %s", name, eval.Describe(v))
	}
	if len(xs) == 0 {
		return nil, false, a.Errorf(name, "%s is empty", name)
	}
	return xs, true, nil
}

// vector joins numbers into a Vec, or an ADVec when any is on the tape.
func vector(xs []eval.Value) eval.Value {
	var t *ad.Tape
	for _, x := range xs {
		if n, ok := x.(*eval.ADNum); ok {
			t = n.T
			break
		}
	}
	if t == nil {
		data := make([]float64, len(xs))
		for i, x := range xs {
			data[i] = float64(x.(eval.Num))
		}
		return &eval.Vec{Data: data}
	}
	vs := make([]ad.Var, len(xs))
	for i, x := range xs {
		switch x := x.(type) {
		case *eval.ADNum:
			vs[i] = x.V
		case eval.Num:
			vs[i] = t.Node(float64(x), nil, nil)
		}
	}
	return &eval.ADVec{T: t, Vs: vs}
}

func invLogit(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// vectorArg reads a vector (on the tape or not) as elements and values.
func vectorArg(a *eval.Args, name string) ([]eval.Value, []float64, error) {
	xs, vec, err := elems(a, name)
	if err != nil {
		return nil, nil, err
	}
	if !vec {
		return nil, nil, a.Errorf(name, "%s must be a vector, got %s", name, eval.Describe(a.Value(name)))
	}
	fs := make([]float64, len(xs))
	for i, x := range xs {
		fs[i], _ = eval.PeekFloat(x) // the nodes made from xs recompute them
	}
	return xs, fs, nil
}

// lse is log Σ e^xᵢ, shifted by the maximum so that no term overflows.
func lse(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	if math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for _, x := range xs {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}

func logSumExp(a *eval.Args) (eval.Value, error) {
	xs, _, err := vectorArg(a, "x")
	if err != nil {
		return nil, err
	}
	return eval.FuncNode(xs, func(v, d []float64) float64 {
		l := lse(v)
		// ∂/∂xᵢ = softmax(x)ᵢ.
		for i, x := range v {
			d[i] = math.Exp(x - l)
		}
		return l
	}), nil
}

// softmax is e^xᵢ/Σe^xⱼ, or its log; on the tape each output depends on every
// input: ∂sᵢ/∂xⱼ = sᵢ(δᵢⱼ − sⱼ), ∂log sᵢ/∂xⱼ = δᵢⱼ − sⱼ.
func softmax(a *eval.Args, log bool) (eval.Value, error) {
	xs, fs, err := vectorArg(a, "x")
	if err != nil {
		return nil, err
	}
	out := make([]eval.Value, len(fs))
	for i := range out {
		out[i] = eval.FuncNode(xs, func(v, d []float64) float64 {
			l := lse(v)
			si := math.Exp(v[i] - l)
			for j := range d {
				sj := math.Exp(v[j] - l)
				d[j] = -sj
				if i == j {
					d[j]++
				}
				if !log {
					d[j] *= si
				}
			}
			if log {
				return v[i] - l
			}
			return si
		})
	}
	return vector(out), nil
}
