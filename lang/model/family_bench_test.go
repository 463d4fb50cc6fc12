package model_test

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

// benchBodies are the models BenchmarkModelInstantiate compiles: a
// regression, and one whose simplex prior makes Compile lay the
// parameters out twice (the compile cache saves the second layout).
var benchBodies = map[string]string{
	"regression": `{
  beta[cols(x)] ~ normal(0, 3)
  s ~ gamma(2, 1)
  y ~ normal(x @ beta, s)
}`,
	"simplex": `{
  theta[cols(x)] ~ dirichlet(rep(1, cols(x)))
  s ~ gamma(2, 1)
  y ~ normal(x @ theta, s)
}`,
}

// BenchmarkModelInstantiate compares, for new data of the same shapes
// (200×3 and 200), re-instantiating a model declared with data arguments
// and compiling the instance (the cache knows its layout) against what
// fitting new data cost before: declaring the model anew over the data
// (parse, check, declare) and compiling it. Both end with a compiled
// density ready for a sampler.
func BenchmarkModelInstantiate(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	data := func() (eval.Value, eval.Value) {
		x := mat.NewDense(200, 3, nil)
		y := make([]float64, 200)
		for i := range 200 {
			for j := range 3 {
				x.Set(i, j, r.NormFloat64())
			}
			y[i] = r.NormFloat64()
		}
		return eval.NewMat(x), &eval.Vec{Data: y}
	}
	for _, name := range []string{"regression", "simplex"} {
		body := benchBodies[name]
		b.Run(name+"/reinstantiate", func(b *testing.B) {
			in := eval.New(eval.Options{})
			if _, err := in.Eval("b.kml", "model m(x, y) "+body); err != nil {
				b.Fatal(err)
			}
			fam, _ := in.Lookup("m")
			th := in.NewThread(nil)
			x, y := data()
			for b.Loop() {
				v, err := th.CallValue(ast.Pos{}, fam, x, y)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := model.CompileFor(in, v.(*eval.Model), nil, all); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/declare", func(b *testing.B) {
			x, y := data()
			for b.Loop() {
				// A fresh session per data set, as a script that fits new
				// data by declaring the model again; making it is not timed.
				b.StopTimer()
				in := eval.New(eval.Options{})
				in.Define("x", x)
				in.Define("y", y)
				b.StartTimer()
				if _, err := in.Eval("b.kml", "model m "+body); err != nil {
					b.Fatal(err)
				}
				v, _ := in.Lookup("m")
				if _, err := model.CompileFor(in, v.(*eval.Model), nil, all); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
