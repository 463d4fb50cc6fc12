package model_test

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

// TestRelayoutOnSupport: the first run gives a parameter its transform
// from its prior's support, and lays the parameters out again when the
// transform changes the parameter's free reals or how a held value reads.
// L[3] ~ lkj_corr_cholesky has 3 free reals, as many as a plain L[3], so
// only the held value tells: a 3×3 factor must be accepted and a vector of
// 3 refused with the factor's message.
func TestRelayoutOnSupport(t *testing.T) {
	const src = `model m {
  L[3] ~ lkj_corr_cholesky(2)
  theta[3] ~ dirichlet([1, 1, 1])
  s ~ normal(0, 1)
}`
	_, c := compile(t, src, nil, all)
	if c.Dim() != 3+2+1 {
		t.Errorf("free: Dim %d, want 6\n%s", c.Dim(), c)
	}
	if got := strings.Join(c.Names(), " "); !strings.HasPrefix(got, "L.1.1 L.2.1 L.3.1 L.1.2") || !strings.Contains(got, "theta.3 s") {
		t.Errorf("names %s", got)
	}
	l := eval.NewMat(mat.NewDense(3, 3, []float64{1, 0, 0, 0.6, 0.8, 0, 0, 0, 1}))
	_, c = compile(t, src, map[string]eval.Value{"L": l}, all)
	if c.Dim() != 2+1 {
		t.Errorf("L held at a factor: Dim %d, want 3\n%s", c.Dim(), c)
	}
	in := eval.New(eval.Options{})
	if _, err := in.Eval("t.kml", src); err != nil {
		t.Fatal(err)
	}
	m, _ := in.Lookup("m")
	for _, v := range []eval.Value{&eval.Vec{Data: []float64{1, 0, 0}}, eval.Num(1)} {
		_, err := model.CompileFor(in, m.(*eval.Model), map[string]eval.Value{"L": v}, all)
		if err == nil || !strings.Contains(err.Error(), "L is the Cholesky factor of a 3×3 correlation matrix") {
			t.Errorf("L held at %s: %v", v, err)
		}
	}
}
