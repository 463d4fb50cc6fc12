package causal

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
)

// Regress's residuals are y − K(K + σ²I)⁻¹y by a dense inverse at its
// hyperparameters, which are a local maximum of the marginal likelihood,
// and on y = sin(2z) + N(0, 0.1²) the residual sd is near 0.1.
func TestRegress(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 0x7267))
	n := 80
	z := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := range y {
		v := 2*r.Float64() - 1
		z.Set(i, 0, 3*v)
		y[i] = 5 + 4*math.Sin(2*v) + 0.1*r.NormFloat64()
	}
	reg, err := Regress(context.Background(), z, y)
	if err != nil {
		t.Fatal(err)
	}
	zs, _ := Standardise(z)
	ys, sd, _ := standardiseVec(y)
	K, _ := kernels.Gram(reg.Kernel, zs)
	var c mat.Dense
	c.CloneFrom(K)
	for i := 0; i < n; i++ {
		c.Set(i, i, c.At(i, i)+reg.Noise)
	}
	var inv mat.Dense
	if err := inv.Inverse(&c); err != nil {
		t.Fatal(err)
	}
	var h, fit mat.Dense
	h.Mul(K, &inv)
	fit.Mul(&h, mat.NewDense(n, 1, ys))
	var ss float64
	for i := range ys {
		want := sd * (ys[i] - fit.At(i, 0))
		if math.Abs(reg.Resid[i]-want) > 1e-6 {
			t.Fatalf("residual %d: %g, dense %g", i, reg.Resid[i], want)
		}
		ss += want * want
	}
	if s := math.Sqrt(ss / float64(n)); s < 0.06 || s > 0.14 {
		t.Errorf("residual sd %g, want near 0.1", s)
	}
	// A local maximum: no small move of a log hyperparameter does better.
	o := &mlObjective{k: reg.Kernel, x: zs, y: ys}
	q := make([]float64, o.Dim())
	for i, v := range reg.Kernel.Hyper(nil) {
		q[i] = math.Log(v)
	}
	q[len(q)-1] = math.Log(reg.Noise - noiseFloor)
	best, _ := gp.LogMarginal(reg.Kernel, zs, ys, reg.Noise, nil)
	if math.Abs(best-reg.LogML) > 1e-8*math.Abs(best) {
		t.Errorf("LogML %g, marginal at the optimum %g", reg.LogML, best)
	}
	g := make([]float64, len(q))
	for i := range q {
		for _, step := range []float64{-0.05, 0.05} {
			p := append([]float64(nil), q...)
			p[i] += step
			v, _ := o.LogDensity(g, p)
			if v > best+1e-6 {
				t.Errorf("moving log hyperparameter %d by %g raises the marginal from %g to %g", i, step, best, v)
			}
		}
	}
	if _, err := Regress(context.Background(), mat.NewDense(10, 1, nil), make([]float64, 10)); err == nil {
		t.Error("constant inputs: want an error")
	}
}
