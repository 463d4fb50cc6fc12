package kernels

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Hilbert is the reduced-rank basis of a Hilbert-space Gaussian process
// (Solin and Särkkä 2020; Riutort-Mayol, Bürkner, Andersen, Solin and
// Vehtari 2023): on the box Π_d [Center_d − L_d, Center_d + L_d], the
// eigenfunctions of the Laplacian with Dirichlet boundary conditions,
//
//	φ_j(x) = L^(−1/2) sin(√λ_j (x − centre + L)),  λ_j = (jπ/(2L))²,  j = 1..m,
//
// in one dimension, and in D dimensions the products of one function per
// dimension (M[0]·M[1]·… basis functions, the first dimension varying
// slowest) with eigenvalue Σ_d λ_{j_d}. A stationary kernel then has
// k(x, x′) ≈ Σ_j S(ω_j) φ_j(x) φ_j(x′), ω_j the vector of √λ_{j_d} and S
// the kernel's spectral density (spectral.go), so a latent function is
// f = Φ·diag(√S)·β with β ~ N(0, I): the basis Φ depends on the inputs
// only, and the kernel's hyperparameters enter through the m weights √S.
type Hilbert struct {
	M      []int     // basis functions per dimension
	L      []float64 // the box's half-width per dimension
	Center []float64 // the box's centre per dimension
	freq   []float64 // Size()×D: √λ of each basis function per dimension
}

// NewHilbert sets the box from the rows of x: centre the midpoint of each
// column's range (PyMC's choice) and L = c·max_i |x_id − centre_d|, unless
// center or L is given (one number for every dimension or one per
// column); m is the number of basis functions, one number or one per
// column. c must be at least 1 (Riutort-Mayol et al. recommend c ≥ 1.2):
// the approximation is forced to zero at ±L.
func NewHilbert(x *mat.Dense, m []int, c float64, L, center []float64) (*Hilbert, error) {
	if err := CheckData(x, "x"); err != nil {
		return nil, err
	}
	n, dim := x.Dims()
	spread := func(name string, v []float64) ([]float64, error) {
		switch len(v) {
		case 1:
			out := make([]float64, dim)
			for d := range out {
				out[d] = v[0]
			}
			return out, nil
		case dim:
			return append([]float64(nil), v...), nil
		}
		return nil, fmt.Errorf("%s has %d values but x has %d columns (give one, or one per column)", name, len(v), dim)
	}
	ms := make([]float64, len(m))
	for i, v := range m {
		if v < 1 {
			return nil, fmt.Errorf("m must be at least 1, got %d", v)
		}
		ms[i] = float64(v)
	}
	mf, err := spread("m", ms)
	if err != nil {
		return nil, err
	}
	h := &Hilbert{M: make([]int, dim)}
	for d := range mf {
		h.M[d] = int(mf[d])
	}
	if center != nil {
		if h.Center, err = spread("center", center); err != nil {
			return nil, err
		}
	} else {
		h.Center = make([]float64, dim)
		for d := range dim {
			lo, hi := math.Inf(1), math.Inf(-1)
			for i := range n {
				lo, hi = min(lo, x.At(i, d)), max(hi, x.At(i, d))
			}
			h.Center[d] = (lo + hi) / 2
		}
	}
	if L != nil {
		if h.L, err = spread("L", L); err != nil {
			return nil, err
		}
	} else {
		if !(c >= 1) || math.IsInf(c, 0) {
			return nil, fmt.Errorf("c must be at least 1 (the box must hold the data; 1.2 or more is recommended), got %v", c)
		}
		h.L = make([]float64, dim)
		for d := range dim {
			s := 0.0
			for i := range n {
				s = max(s, math.Abs(x.At(i, d)-h.Center[d]))
			}
			if s == 0 {
				return nil, fmt.Errorf("column %d of x has no spread, so the box cannot be set from it; give L", d+1)
			}
			h.L[d] = c * s
		}
	}
	for d, l := range h.L {
		if !(l > 0) || math.IsInf(l, 0) {
			return nil, fmt.Errorf("L must be positive and finite, got %v", l)
		}
		if math.IsNaN(h.Center[d]) || math.IsInf(h.Center[d], 0) {
			return nil, fmt.Errorf("center must be finite, got %v", h.Center[d])
		}
	}
	size := h.Size()
	h.freq = make([]float64, size*dim)
	idx := make([]int, dim) // the current basis function's index per dimension, from 0
	for j := range size {
		for d := range dim {
			h.freq[j*dim+d] = float64(idx[d]+1) * math.Pi / (2 * h.L[d])
		}
		for d := dim - 1; d >= 0; d-- { // the last dimension varies fastest
			if idx[d]++; idx[d] < h.M[d] {
				break
			}
			idx[d] = 0
		}
	}
	return h, nil
}

// Size is the number of basis functions, Π_d M[d].
func (h *Hilbert) Size() int {
	s := 1
	for _, m := range h.M {
		s *= m
	}
	return s
}

// Dim is the input dimension.
func (h *Hilbert) Dim() int { return len(h.M) }

// Freq returns the frequency vector ω_j (√λ per dimension) of basis
// function j, a view that must not be changed.
func (h *Hilbert) Freq(j int) []float64 {
	d := h.Dim()
	return h.freq[j*d : (j+1)*d]
}

// Basis returns Φ, n×Size(), Φ_ij = φ_j(x_i). A row outside the box is an
// error: the basis vanishes at its edges, so the approximation is not
// valid there (give a larger L).
func (h *Hilbert) Basis(x *mat.Dense) (*mat.Dense, error) {
	if err := CheckData(x, "x"); err != nil {
		return nil, err
	}
	n, dim := x.Dims()
	if dim != h.Dim() {
		return nil, fmt.Errorf("the basis is for %d columns, x has %d", h.Dim(), dim)
	}
	for i := range n {
		for d := range dim {
			if v := x.At(i, d); math.Abs(v-h.Center[d]) > h.L[d] {
				return nil, fmt.Errorf("x[%d, %d] = %v is outside the approximation's domain [%v, %v] (center ± L); give a larger L", i+1, d+1, v, h.Center[d]-h.L[d], h.Center[d]+h.L[d])
			}
		}
	}
	size := h.Size()
	// The one-dimensional functions first: per dimension, n×M[d].
	one := make([][]float64, dim)
	for d := range dim {
		m, l := h.M[d], h.L[d]
		f := make([]float64, n*m)
		norm := 1 / math.Sqrt(l)
		for i := range n {
			z := x.At(i, d) - h.Center[d] + l
			for j := range m {
				f[i*m+j] = norm * math.Sin(float64(j+1)*math.Pi/(2*l)*z)
			}
		}
		one[d] = f
	}
	phi := mat.NewDense(n, size, nil)
	raw := phi.RawMatrix()
	idx := make([]int, dim)
	for j := range size {
		for i := range n {
			v := 1.0
			for d := range dim {
				v *= one[d][i*h.M[d]+idx[d]]
			}
			raw.Data[i*raw.Stride+j] = v
		}
		for d := dim - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < h.M[d] {
				break
			}
			idx[d] = 0
		}
	}
	return phi, nil
}

// SqrtDensity writes √S(ω_j) of kernel k for each basis function into s
// (length Size()) and, when jac is not nil, ∂√S(ω_j)/∂h into
// jac[j·p + i] for the kernel's hyperparameters h (p = k.NumHyper()).
// Where S underflows to 0 the derivative is written as 0.
func (h *Hilbert) SqrtDensity(k Kernel, s, jac []float64) error {
	if err := CheckSpectral(k, h.Dim()); err != nil {
		return err
	}
	p := k.NumHyper()
	var g []float64
	if jac != nil {
		g = make([]float64, p)
	}
	for j := range h.Size() {
		v, err := SpectralDensity(k, h.Freq(j), g)
		if err != nil {
			return err
		}
		r := math.Sqrt(v)
		s[j] = r
		if jac != nil {
			for i := range p {
				if r > 0 {
					jac[j*p+i] = g[i] / (2 * r)
				} else {
					jac[j*p+i] = 0
				}
			}
		}
	}
	return nil
}
