package gp_test

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

// checkGradient compares the gradient of c's log density at q with
// Richardson's extrapolation of two central differences (steps 1e-3 and
// 5e-4), to relative tolerance tol; what begins each failure's message.
func checkGradient(t *testing.T, in *eval.Interpreter, c *model.Compiled, q []float64, tol float64, what string) {
	t.Helper()
	d := c.NewDensityFor(in)
	grad := make([]float64, len(q))
	if _, err := d.LogDensity(grad, q); err != nil {
		t.Fatal(err)
	}
	for i := range q {
		cd := func(eps float64) float64 {
			qp := append([]float64(nil), q...)
			qm := append([]float64(nil), q...)
			qp[i] += eps
			qm[i] -= eps
			fp, _ := d.Value(qp)
			fm, _ := d.Value(qm)
			return (fp - fm) / (2 * eps)
		}
		fd := (4*cd(5e-4) - cd(1e-3)) / 3
		if math.Abs(fd-grad[i]) > tol*(1+math.Abs(fd)) {
			t.Errorf("%s: ∂/∂%s = %.8g, finite difference %.8g", what, c.Names()[i], grad[i], fd)
		}
	}
}

// startAt returns c's unconstrained point q with q[i] = 0.3 − 0.2i, a
// point away from every model's mode and symmetry.
func startAt(c *model.Compiled) []float64 {
	q := make([]float64, c.Dim())
	for i := range q {
		q[i] = 0.3 - 0.2*float64(i)
	}
	return q
}
