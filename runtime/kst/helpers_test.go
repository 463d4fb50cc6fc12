package kst

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/rng"
)

// testStream gives each test its own random stream.
func testStream(seed uint64, name string) *rand.Rand {
	var s uint64
	for _, c := range name {
		s = s*131 + uint64(c)
	}
	return rng.New(seed, rng.Stream(s))
}

// parabola is the linear kernel on the explicit features φ(x) = (x, x²) of
// a one-dimensional input: k(x, y) = xy + x²y².
type parabola struct{}

var _ kernels.Kernel = parabola{}

func phi(x float64) []float64 { return []float64{x, x * x} }

func (parabola) NumHyper() int                                 { return 0 }
func (parabola) Hyper(dst []float64) []float64                 { return dst }
func (parabola) HyperNames() []string                          { return nil }
func (p parabola) WithHyper([]float64) (kernels.Kernel, error) { return p, nil }
func (parabola) Dim() int                                      { return 1 }
func (parabola) String() string                                { return "parabola()" }
func (parabola) Eval(x, y []float64) float64                   { return x[0]*y[0] + x[0]*x[0]*y[0]*y[0] }
func (p parabola) GradHyper(_, x, y []float64) float64         { return p.Eval(x, y) }
func (p parabola) GradX(dst, x, y []float64) float64 {
	dst[0] = y[0] + 2*x[0]*y[0]*y[0]
	return p.Eval(x, y)
}

// mixtureData draws n points from 0.6·N(−1, 0.4²) + 0.4·N(1.5, 0.3²).
func mixtureData(r *rand.Rand, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		if r.Float64() < 0.6 {
			out[i] = -1 + 0.4*r.NormFloat64()
		} else {
			out[i] = 1.5 + 0.3*r.NormFloat64()
		}
	}
	return out
}

func column(xs []float64) *mat.Dense { return mat.NewDense(len(xs), 1, append([]float64(nil), xs...)) }

// features is the N×2 matrix of φ(x_i).
func features(xs []float64) *mat.Dense {
	f := mat.NewDense(len(xs), 2, nil)
	for i, x := range xs {
		f.SetRow(i, phi(x))
	}
	return f
}

// niwStudentT is the normal–inverse-Wishart predictive log density (up to
// its constant) of feature vectors, computed directly in feature space
// with Λ_N = σ0² I + Σ(φ_i − φ̄)(φ_i − φ̄)ᵀ + (Nβ/(N+β)) φ̄φ̄ᵀ. With
// paper = true it uses the paper's eq. (3) instead, which drops the last
// term.
func niwStudentT(t *testing.T, data [][]float64, h Hyper, paper bool) func(f []float64) float64 {
	n := float64(len(data))
	D := len(data[0])
	mean := make([]float64, D)
	for _, f := range data {
		for j, v := range f {
			mean[j] += v / n
		}
	}
	lam := mat.NewSymDense(D, nil)
	for i := 0; i < D; i++ {
		lam.SetSym(i, i, h.Sigma0*h.Sigma0)
	}
	for _, f := range data {
		for i := 0; i < D; i++ {
			for j := i; j < D; j++ {
				lam.SetSym(i, j, lam.At(i, j)+(f[i]-mean[i])*(f[j]-mean[j]))
			}
		}
	}
	if !paper {
		w := n * h.Beta / (n + h.Beta)
		for i := 0; i < D; i++ {
			for j := i; j < D; j++ {
				lam.SetSym(i, j, lam.At(i, j)+w*mean[i]*mean[j])
			}
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(lam); err != nil {
		t.Fatal(err)
	}
	gamma := (1 + h.Beta + n) / (h.Beta + n)
	return func(f []float64) float64 {
		d := make([]float64, D)
		for j := range d {
			d[j] = f[j] - n*mean[j]/(n+h.Beta)
		}
		dv := mat.NewVecDense(D, d)
		q := mat.Inner(dv, &inv, dv)
		return -(1 + n + h.Alpha) / 2 * math.Log(gamma+q)
	}
}

func logpdf(t *testing.T, d Density, x *mat.Dense) []float64 {
	t.Helper()
	r, _ := x.Dims()
	out := make([]float64, r)
	if err := d.LogPDF(out, x); err != nil {
		t.Fatal(err)
	}
	return out
}

// relClose reports |a − b| ≤ tol·max(1, |b|).
func relClose(a, b, tol float64) bool { return math.Abs(a-b) <= tol*max(1, math.Abs(b)) }
