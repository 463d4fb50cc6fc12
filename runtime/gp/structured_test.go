package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// testKernels are kernels of both LogMarginal paths: the structured sums
// first, then kernels only the generic path handles.
func testKernels(t *testing.T, d int) (fast, generic []kernels.Kernel) {
	iso, _ := kernels.NewRBF([]float64{1.3})
	lin, _ := kernels.NewLinear(0.4)
	sIso, _ := kernels.NewScaled(0.8, iso)
	c, _ := kernels.NewScaled(0.5, kernels.Constant{})
	isoLin, _ := kernels.NewSum(sIso, lin)
	k2, _ := kernels.NewSum(isoLin, c)
	two, _ := kernels.NewSum(testKernel(t, d), sIso) // two RBF terms
	white, _ := kernels.NewSum(iso, kernels.White{})
	fast = []kernels.Kernel{testKernel(t, d), k2, two, white}

	m, _ := kernels.NewMatern(5, []float64{0.9})
	sm, _ := kernels.NewScaled(1.2, m)
	mw, _ := kernels.NewSum(sm, lin)
	prod, _ := kernels.NewProduct(iso, lin)
	nested, _ := kernels.NewScaled(2, sIso)
	generic = []kernels.Kernel{mw, prod, nested}
	return fast, generic
}

// TestStructuredMatchesGeneric compares fillSym with kernels.Gram and
// contractSym with Contract, on a random symmetric W.
func TestStructuredMatchesGeneric(t *testing.T) {
	const n, d = 30, 3
	x, y := testData(n, d, 5)
	xs := linalg.RowMajor(x)
	fast, generic := testKernels(t, d)
	for _, k := range generic {
		if _, ok := structured(k, d); ok {
			t.Errorf("%s taken as structured", k)
		}
	}
	for _, k := range fast {
		terms, ok := structured(k, d)
		if !ok {
			t.Fatalf("%s not taken as structured", k)
		}
		g, err := kernels.Gram(k, x)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float64, n*n)
		fillSym(got, terms, xs, n, d, []float64{0.1})
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				want := g.At(i, j)
				if i == j {
					want += 0.1
				}
				if math.Abs(got[i*n+j]-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("%s: K[%d,%d] = %.15g, Gram %.15g", k, i, j, got[i*n+j], want)
				}
			}
		}
		w := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				w.SetSym(i, j, y[i]*y[j]-0.3*y[(i+j)%n])
			}
		}
		nh := k.NumHyper()
		want, have := make([]float64, nh), make([]float64, nh)
		Contract(want, k, x, w)
		contractSym(have, terms, xs, n, d, w.RawSymmetric().Data)
		// Again with the RBF values kept by the fill.
		cached := make([]float64, nh)
		for m := range terms {
			if terms[m].kind == termRBF {
				terms[m].cache = make([]float64, n*n)
			}
		}
		fillSym(got, terms, xs, n, d, []float64{0.1})
		contractSym(cached, terms, xs, n, d, w.RawSymmetric().Data)
		for h := range want {
			if math.Abs(have[h]-want[h]) > 1e-10*(1+math.Abs(want[h])) {
				t.Errorf("%s: ∂/∂%s = %.12g, Contract %.12g", k, k.HyperNames()[h], have[h], want[h])
			}
			if math.Abs(cached[h]-want[h]) > 1e-10*(1+math.Abs(want[h])) {
				t.Errorf("%s: ∂/∂%s = %.12g from the cache, Contract %.12g", k, k.HyperNames()[h], cached[h], want[h])
			}
		}
	}
}

// TestLogMarginalGradientPaths checks the value against the dense
// computation and every derivative against central differences, for the
// kernels of both paths.
func TestLogMarginalGradientPaths(t *testing.T) {
	x, y := testData(20, 3, 6)
	fast, generic := testKernels(t, 3)
	const noise = 0.07
	for _, k := range append(fast, generic...) {
		nh := k.NumHyper()
		grad := make([]float64, nh+1)
		got, err := LogMarginal(k, x, y, noise, grad)
		if err != nil {
			t.Fatal(err)
		}
		if want := denseLogMarginal(k, x, y, noise); math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("%s: log marginal %.12g, dense %.12g", k, got, want)
		}
		h0 := k.Hyper(nil)
		for i := 0; i <= nh; i++ {
			f := func(delta float64) float64 {
				if i == nh {
					return denseLogMarginal(k, x, y, noise+delta)
				}
				h := append([]float64(nil), h0...)
				h[i] += delta
				kk, err := k.WithHyper(h)
				if err != nil {
					t.Fatal(err)
				}
				return denseLogMarginal(kk, x, y, noise)
			}
			const eps = 1e-5
			fd := (f(eps) - f(-eps)) / (2 * eps)
			if math.Abs(fd-grad[i]) > 1e-5*(1+math.Abs(fd)) {
				t.Errorf("%s: derivative %d = %.9g, finite difference %.9g", k, i, grad[i], fd)
			}
		}
	}
}
