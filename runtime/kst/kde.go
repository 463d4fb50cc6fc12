package kst

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// KDE is the Parzen-window density q(x) = (1/N) Σ_i k(x, x_i), the baseline
// the paper compares with. It is unnormalised unless the kernel integrates
// to one (KML's rbf does not: divide by (2π)^{d/2} Π ℓ_d for that).
type KDE struct {
	k    kernels.Kernel
	x    *mat.Dense
	n, d int
}

// NewKDE keeps a copy of the rows of x.
func NewKDE(k kernels.Kernel, x *mat.Dense) (*KDE, error) {
	if x == nil || x.IsEmpty() {
		return nil, fmt.Errorf("kde: needs at least one training point, got none")
	}
	if err := kernels.CheckData(x, "the data"); err != nil {
		return nil, fmt.Errorf("kde: %v", err)
	}
	n, d := x.Dims()
	if kd := k.Dim(); kd != 0 && kd != d {
		return nil, fmt.Errorf("kde: %s has %d lengthscales but the data has %d columns", k, kd, d)
	}
	return &KDE{k: k, x: mat.DenseCopyOf(x), n: n, d: d}, nil
}

func (e *KDE) Dim() int               { return e.d }
func (e *KDE) N() int                 { return e.n }
func (e *KDE) Kernel() kernels.Kernel { return e.k }

// LogPDF writes log((1/N) Σ_i k(x, x_i)) for each row of x; −Inf where every
// kernel value underflows.
func (e *KDE) LogPDF(dst []float64, x *mat.Dense) error {
	if err := checkQuery(dst, x, e.d); err != nil {
		return err
	}
	r, _ := x.Dims()
	if c, st, ok := kernels.AsRBF(e.k); ok && c > 0 {
		e.logpdfRBF(dst, x, st.Ell, c)
		return nil
	}
	eachBlock(r, func(i0, i1 int) {
		kx, err := kernels.CrossN(e.k, x.Slice(i0, i1, 0, e.d).(*mat.Dense), e.x, 1)
		if err != nil {
			panic("kde: " + err.Error()) // inputs were checked
		}
		for j := i0; j < i1; j++ {
			s := 0.0
			for _, v := range kx.RawRowView(j - i0) {
				s += v
			}
			dst[j] = math.Log(s / float64(e.n))
		}
	})
	return nil
}

// logpdfRBF is LogPDF for the kernel c·rbf(ell), in log space: log k =
// log c − u/2 with u the scaled squared distance, summed by log-sum-exp, so
// a point far from every training point (at a small lengthscale) keeps a
// finite log density where the kernel values themselves underflow.
func (e *KDE) logpdfRBF(dst []float64, x *mat.Dense, ell []float64, c float64) {
	r, _ := x.Dims()
	inv := make([]float64, e.d)
	for j := range inv {
		l := ell[0]
		if len(ell) > 1 {
			l = ell[j]
		}
		inv[j] = 1 / l
	}
	eachBlock(r, func(i0, i1 int) {
		lk := make([]float64, e.n)
		for q := i0; q < i1; q++ {
			xq := x.RawRowView(q)
			top := math.Inf(-1)
			for i := 0; i < e.n; i++ {
				u := 0.0
				for j, v := range e.x.RawRowView(i) {
					t := (xq[j] - v) * inv[j]
					u += t * t
				}
				lk[i] = -u / 2
				top = max(top, lk[i])
			}
			s := 0.0
			for _, v := range lk {
				s += math.Exp(v - top)
			}
			dst[q] = addLog(top+math.Log(s/float64(e.n)), c)
		}
	})
}

// addLog is v + log c, and v itself when c = 1 (bit for bit, even −0).
func addLog(v, c float64) float64 {
	if c == 1 {
		return v
	}
	return v + math.Log(c)
}

// LogPDFGrad returns log q(x) at one point and writes ∇_x log q(x) into
// grad: Σ_i ∇k(x, x_i) / Σ_i k(x, x_i), computed with weights relative to
// the largest kernel value for rbf, so it stays finite where the values
// underflow (for c·rbf too: c cancels from the gradient).
func (e *KDE) LogPDFGrad(grad, x []float64) float64 {
	clear(grad)
	if c, st, ok := kernels.AsRBF(e.k); ok && c > 0 {
		lk := make([]float64, e.n)
		top := math.Inf(-1)
		for i := 0; i < e.n; i++ {
			u := 0.0
			for j, v := range e.x.RawRowView(i) {
				t := (x[j] - v) / ell(st.Ell, j)
				u += t * t
			}
			lk[i] = -u / 2
			top = max(top, lk[i])
		}
		s := 0.0
		for i := 0; i < e.n; i++ {
			w := math.Exp(lk[i] - top)
			s += w
			for j, v := range e.x.RawRowView(i) {
				l := ell(st.Ell, j)
				grad[j] -= w * (x[j] - v) / (l * l)
			}
		}
		for j := range grad {
			grad[j] /= s
		}
		return addLog(top+math.Log(s/float64(e.n)), c)
	}
	g := make([]float64, e.d)
	s := 0.0
	for i := 0; i < e.n; i++ {
		s += e.k.GradX(g, x, e.x.RawRowView(i))
		for j, v := range g {
			grad[j] += v
		}
	}
	for j := range grad {
		grad[j] /= s
	}
	return math.Log(s / float64(e.n))
}

// ell is lengthscale j of an isotropic or ARD list.
func ell(l []float64, j int) float64 {
	if len(l) == 1 {
		return l[0]
	}
	return l[j]
}
