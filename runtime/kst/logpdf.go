package kst

import (
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/kernels"
)

// Density is an unnormalised density fitted to data: a kernel Student-t
// Model or a KDE.
type Density interface {
	// Dim is the input dimension.
	Dim() int
	// LogPDF writes the log density of each row of x into dst (length the
	// number of rows). Rows are processed in parallel in blocks of fixed
	// size, so the values do not depend on the number of cores.
	LogPDF(dst []float64, x *mat.Dense) error
}

// GradDensity is a Density with the gradient of its log density in x at
// one point, for samplers and for models that use it.
type GradDensity interface {
	Density
	// LogPDFGrad returns log q(x) and writes ∇_x log q(x) into grad.
	LogPDFGrad(grad, x []float64) float64
}

var (
	_ GradDensity = (*Model)(nil)
	_ GradDensity = (*KDE)(nil)
)

// blockRows is the number of query points evaluated together: one N×block
// matrix of kernel values and one blocked triangular solve.
const blockRows = 64

// checkQuery validates query points against a density of dimension d.
func checkQuery(dst []float64, x *mat.Dense, d int) error {
	if x == nil || x.IsEmpty() {
		return fmt.Errorf("no points given")
	}
	r, c := x.Dims()
	if c != d {
		return fmt.Errorf("the points have %d columns but the density was fitted to %d", c, d)
	}
	if len(dst) != r {
		panic(fmt.Sprintf("kst: %d outputs for %d points", len(dst), r))
	}
	return kernels.CheckData(x, "the points")
}

// eachBlock runs body on the row blocks [i0, i1) of an r-row query, spread
// over GOMAXPROCS goroutines. Blocks are fixed, so results are deterministic.
func eachBlock(r int, body func(i0, i1 int)) {
	par.Blocks(r, blockRows, runtime.GOMAXPROCS(0), func(_, i0, i1 int) { body(i0, i1) })
}

// LogPDF writes log q(x) for each row of x: the predictive density of the
// package comment, times the Jacobian factor for kernels that are not
// shift-invariant.
func (m *Model) LogPDF(dst []float64, x *mat.Dense) error {
	if err := checkQuery(dst, x, m.d); err != nil {
		return err
	}
	r, _ := x.Dims()
	eachBlock(r, func(i0, i1 int) {
		m.logpdfBlock(dst[i0:i1], x.Slice(i0, i1, 0, m.d).(*mat.Dense))
	})
	return nil
}

// logpdfBlock evaluates one block of points.
func (m *Model) logpdfBlock(dst []float64, x *mat.Dense) {
	b, _ := x.Dims()
	kx, err := kernels.CrossN(m.k, m.x, x, 1) // N×b
	if err != nil {
		panic("kst: " + err.Error()) // inputs were checked
	}
	colSum := make([]float64, b)
	raw := kx.RawMatrix()
	for i := 0; i < m.n; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+b]
		for j, v := range row {
			colSum[j] += v
		}
	}
	// W = L⁻¹ K_x, with B = LLᵀ = UᵀU.
	blas64.Trsm(blas.Left, blas.Trans, 1, m.chol.RawU().(*mat.TriDense).RawTriangular(), raw)
	w := make([]float64, m.n)
	for j := 0; j < b; j++ {
		for i := 0; i < m.n; i++ {
			w[i] = raw.Data[i*raw.Stride+j]
		}
		xj := x.RawRowView(j)
		dst[j] = m.logq(m.k.Eval(xj, xj), colSum[j], w)
		if !m.shift {
			dst[j] += LogJacobian(m.k, xj)
		}
	}
}

// logq is log q without the Jacobian, from k(x,x), 1ᵀk_x and L⁻¹k_x (which
// it overwrites).
func (m *Model) logq(kxx, sumKx float64, w []float64) float64 {
	return -m.exponent() * math.Log(m.gamma+m.quad(kxx, sumKx, w))
}

// quad is φ̃ᵀΛ_N⁻¹φ̃, clamped at 0 against rounding (it is a squared norm).
func (m *Model) quad(kxx, sumKx float64, w []float64) float64 {
	s2 := m.h.Sigma0 * m.h.Sigma0
	c := m.c
	// w ← L⁻¹v, v = k_x − K1/(N+β).
	var ww, uw float64
	for i, v := range w {
		v -= m.t[i] / c
		w[i] = v
		ww += v * v
		uw += m.u[i] * v
	}
	ff := kxx - 2*sumKx/c + m.sumK/(c*c)
	vav := ww - uw*uw/(m.h.Beta+m.uu)
	return max(ff/s2-vav/(s2*s2), 0)
}
