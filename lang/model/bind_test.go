package model_test

import (
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

// The checker binds each call's arguments once; the density loop, run at
// every gradient, does not bind them again.
func TestDensityLoopDoesNotBind(t *testing.T) {
	in, c := compile(t, gradientModels[1], nil, all)
	d := c.NewDensityFor(in)
	q := make([]float64, c.Dim())
	grad := make([]float64, c.Dim())
	before := eval.RuntimeBinds()
	for i := 0; i < 10; i++ {
		if _, err := d.LogDensity(grad, q); err != nil {
			t.Fatal(err)
		}
	}
	if n := eval.RuntimeBinds() - before; n != 0 {
		t.Errorf("the density bound %d calls at run time, want 0", n)
	}
}

func BenchmarkDensityGradient(b *testing.B) {
	in := eval.New(eval.Options{})
	if _, err := in.Eval("t.kml", gradientModels[1]); err != nil {
		b.Fatal(err)
	}
	m, _ := in.Lookup("m")
	c, err := model.CompileFor(in, m.(*eval.Model), nil, all)
	if err != nil {
		b.Fatal(err)
	}
	d := c.NewDensityFor(in)
	q := make([]float64, c.Dim())
	grad := make([]float64, c.Dim())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.LogDensity(grad, q); err != nil {
			b.Fatal(err)
		}
	}
}
