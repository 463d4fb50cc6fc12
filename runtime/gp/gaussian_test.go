package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// denseGaussian evaluates each objective from its definition: the latent
// function at its optimum û = K(K + σ²I)⁻¹y, then the log prior and log
// likelihood at û (MAP), or the penalised fit (MKL, RR), with dense
// inverses and determinants.
func denseGaussian(s Settings, k kernels.Kernel, x *mat.Dense, y []float64, noise float64) float64 {
	if s.Kind == MLM {
		return denseLogMarginal(k, x, y, noise)
	}
	n, _ := x.Dims()
	K := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			K.Set(i, j, k.Eval(x.RawRowView(i), x.RawRowView(j)))
		}
	}
	C := mat.DenseCopyOf(K)
	Ke := mat.DenseCopyOf(K)
	for i := 0; i < n; i++ {
		C.Set(i, i, C.At(i, i)+noise)
		Ke.Set(i, i, Ke.At(i, i)+MapJitter)
	}
	var cinv, kinv mat.Dense
	_ = cinv.Inverse(C)
	_ = kinv.Inverse(Ke)
	yv := mat.NewVecDense(n, y)
	var u, t mat.VecDense
	t.MulVec(&cinv, yv)
	u.MulVec(K, &t)
	prior := mat.Inner(&u, &kinv, &u)
	var fit float64
	for i, v := range y {
		fit += (v - u.AtVec(i)) * (v - u.AtVec(i)) / noise
	}
	nf := float64(n)
	switch s.Kind {
	case MAP:
		logdet, _ := mat.LogDet(Ke)
		return -0.5*(prior+logdet+nf*math.Log(2*math.Pi)) - 0.5*(fit+nf*math.Log(2*math.Pi*noise))
	case MKL, RR:
		reg := 0.0
		h := k.Hyper(nil)
		for _, i := range s.Weights {
			reg += s.Lambda * math.Pow(h[i], s.P)
		}
		// uᵀK⁻¹u without the jitter: K is positive definite here.
		var kin mat.Dense
		_ = kin.Inverse(K)
		v := -0.5 * (mat.Inner(&u, &kin, &u) + fit + reg)
		if s.Kind == MKL {
			v -= 0.5 * nf * math.Log(2*math.Pi*noise)
		}
		return v
	}
	panic("unknown kind")
}

func TestGaussianObjectives(t *testing.T) {
	x, y := testData(15, 2, 5)
	k := testKernel(t, 2)
	noise := 0.12
	w := Weights(k)
	if len(w) != 3 || w[0] != 0 || w[1] != 3 || w[2] != 5 {
		t.Fatalf("weights at %v, want [0 3 5]", w)
	}
	h0 := k.Hyper(nil)
	names := append(k.HyperNames(), "noise")
	for _, s := range []Settings{{Kind: MLM}, {Kind: MAP}, {Kind: MKL, P: 1, Lambda: 0.7, Weights: w}, {Kind: RR, P: 2, Lambda: 1.3, Weights: w}} {
		grad := make([]float64, len(h0)+1)
		got, err := Gaussian(s, k, x, y, noise, grad)
		if err != nil {
			t.Fatal(err)
		}
		want := denseGaussian(s, k, x, y, noise)
		if math.Abs(got-want) > 1e-7*(1+math.Abs(want)) {
			t.Errorf("kind %d: %.10g, dense %.10g", s.Kind, got, want)
		}
		for i := range grad {
			f := func(delta float64) float64 {
				if i == len(h0) {
					return denseGaussian(s, k, x, y, noise+delta)
				}
				h := append([]float64(nil), h0...)
				h[i] += delta
				kk, _ := k.WithHyper(h)
				return denseGaussian(s, kk, x, y, noise)
			}
			const eps = 1e-6
			fd := (f(eps) - f(-eps)) / (2 * eps)
			if math.Abs(fd-grad[i]) > 1e-4*(1+math.Abs(fd)) {
				t.Errorf("kind %d: ∂/∂%s = %.8g, finite difference %.8g", s.Kind, names[i], grad[i], fd)
			}
		}
	}
}
