package stdlib

import (
	"math"

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
	{"lgamma(x)", "The log of the absolute value of the gamma function, elementwise.", func(x float64) float64 {
		v, _ := math.Lgamma(x)
		return v
	}, nil},
	{"floor(x)", "The largest whole number ≤ x, elementwise.", math.Floor, nil},
	{"ceil(x)", "The smallest whole number ≥ x, elementwise.", math.Ceil, nil},
	{"round(x)", "x rounded to the nearest whole number (halves away from zero), elementwise.", math.Round, nil},
}

func init() {
	for _, u := range unaryFns {
		b := eval.Register(u.spec, u.doc, func(a *eval.Args) (eval.Value, error) {
			return elementwise(a, "x", u.f, u.df)
		})
		b.AD = u.df != nil
	}
	eval.Register("pi()", "The constant π.", func(*eval.Args) (eval.Value, error) { return eval.Num(math.Pi), nil })
}

// elementwise applies f to a number, vector or matrix; on values that
// depend on model parameters it records f with derivative df on the tape.
func elementwise(a *eval.Args, name string, f, df func(float64) float64) (eval.Value, error) {
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
		x := v.Value()
		return &eval.ADNum{T: v.T, V: v.T.Node(f(x), []ad.Var{v.V}, []float64{df(x)})}, nil
	case *eval.ADVec:
		vs := make([]ad.Var, len(v.Vs))
		for i, node := range v.Vs {
			x := v.T.Value(node)
			vs[i] = v.T.Node(f(x), []ad.Var{node}, []float64{df(x)})
		}
		return &eval.ADVec{T: v.T, Vs: vs}, nil
	}
	return nil, a.Errorf(name, "%s must be a number, vector or matrix, got %s", name, eval.Describe(a.Value(name)))
}
