package kernels

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/kml-lang/kml/runtime/linalg"
	"github.com/kml-lang/kml/runtime/rng"
)

// IncompleteCholesky factorises the Gram matrix of x approximately as LLᵀ
// by pivoted incomplete Cholesky (Fine & Scheinberg 2001; Bach & Jordan
// 2002): each step takes the row with the largest remaining diagonal. It
// stops when the trace of the residual K − LLᵀ falls to tol or the rank
// reaches maxRank (0: n), and returns L (n×r) and the pivots in order. The
// residual is positive semi-definite, so every entry of K − LLᵀ is at most
// its trace in absolute value. Cost: O(nr²) and nr kernel evaluations.
func IncompleteCholesky(k Kernel, x *mat.Dense, tol float64, maxRank int) (*mat.Dense, []int, error) {
	if err := checkInputs(k, x, nil); err != nil {
		return nil, nil, err
	}
	n, dim := x.Dims()
	if maxRank <= 0 || maxRank > n {
		maxRank = n
	}
	data := linalg.RowMajor(x)
	diag := make([]float64, n)
	for i := range diag {
		xi := data[i*dim : (i+1)*dim]
		diag[i] = k.Eval(xi, xi)
	}
	cols := make([][]float64, 0, maxRank) // L's columns
	var pivots []int
	used := make([]bool, n)
	for len(cols) < maxRank {
		trace, p := 0.0, -1
		for i, v := range diag {
			if used[i] {
				continue
			}
			trace += v
			if p < 0 || v > diag[p] {
				p = i
			}
		}
		if trace <= tol || p < 0 || diag[p] <= 0 {
			break
		}
		kp, err := Cross(k, x, mat.NewDense(1, dim, data[p*dim:(p+1)*dim]))
		if err != nil {
			return nil, nil, err
		}
		piv := math.Sqrt(diag[p])
		col := make([]float64, n)
		for i := 0; i < n; i++ {
			if used[i] {
				continue
			}
			s := kp.At(i, 0)
			for _, c := range cols {
				s -= c[i] * c[p]
			}
			col[i] = s / piv
		}
		col[p] = piv
		used[p] = true
		for i := range diag {
			if !used[i] {
				diag[i] = math.Max(diag[i]-col[i]*col[i], 0)
			}
		}
		diag[p] = 0
		cols = append(cols, col)
		pivots = append(pivots, p)
	}
	l := mat.NewDense(n, max(len(cols), 1), nil)
	for j, c := range cols {
		l.SetCol(j, c)
	}
	if len(cols) == 0 {
		return mat.NewDense(n, 1, nil), nil, nil
	}
	return l, pivots, nil
}

// Nystrom returns Φ (n×m) with K ≈ ΦΦᵀ = K_xz (K_zz + εI)⁻¹ K_zx, the
// Nyström approximation on the landmarks z, with jitter ε = 1e-10 times the
// mean diagonal of K_zz (more, up to 1e-4 of it, if needed to factorise:
// linalg.CholeskyJitter).
func Nystrom(k Kernel, x, z *mat.Dense) (*mat.Dense, error) {
	kxz, err := Cross(k, x, z)
	if err != nil {
		return nil, err
	}
	kzz, err := Gram(k, z)
	if err != nil {
		return nil, err
	}
	var ch mat.Cholesky
	if _, ok := linalg.CholeskyJitter(&ch, kzz, true); !ok {
		return nil, fmt.Errorf("the Gram matrix of the landmarks is not positive definite even with jitter %g × its mean diagonal", linalg.JitterMax)
	}
	var c mat.TriDense
	ch.LTo(&c)
	// Φ = K_xz C⁻ᵀ: solve C Φᵀ = K_zx.
	var phiT mat.Dense
	if err := phiT.Solve(&c, kxz.T()); err != nil {
		return nil, err
	}
	var phi mat.Dense
	phi.CloneFrom(phiT.T())
	return &phi, nil
}

// RFF is a random Fourier feature map (Rahimi & Recht 2007) with
// k(x, y) ≈ φ(x)ᵀφ(y), φ(x) = √(2c/F)·cos(Wx + b): frequencies W drawn from
// the kernel's spectral density and phases b uniform on [0, 2π).
type RFF struct {
	W     *mat.Dense // F×D
	B     []float64
	scale float64
}

// NewRFF draws F features for kernel k on D-dimensional inputs: rbf (normal
// frequencies), laplacian and matern12/32/52 (multivariate Student-t
// frequencies with 2ν degrees of freedom), isotropic or ARD, optionally
// scaled by a constant.
func NewRFF(k Kernel, dim, features int, seed uint64) (*RFF, error) {
	c, k := SplitScaled(k)
	st, ok := k.(*Stationary)
	if !ok || st.kind == profRQ {
		return nil, fmt.Errorf("random Fourier features need an rbf, laplacian or matern kernel, got %s", k)
	}
	if d := st.Dim(); d != 0 && d != dim {
		return nil, fmt.Errorf("%s has %d lengthscales but the inputs have %d dimensions", st, d, dim)
	}
	if features < 1 {
		return nil, fmt.Errorf("need at least one feature, got %d", features)
	}
	rnd := rng.New(seed, rng.RFF)
	var chi distuv.ChiSquared
	nu2 := map[profile]float64{profMatern12: 1, profMatern32: 3, profMatern52: 5}[st.kind]
	if st.kind != profRBF {
		chi = distuv.ChiSquared{K: nu2, Src: rnd}
	}
	w := mat.NewDense(features, dim, nil)
	b := make([]float64, features)
	for f := 0; f < features; f++ {
		s := 1.0
		if st.kind != profRBF {
			s = math.Sqrt(nu2 / chi.Rand())
		}
		for d := 0; d < dim; d++ {
			l := st.Ell[0]
			if len(st.Ell) > 1 {
				l = st.Ell[d]
			}
			w.Set(f, d, rnd.NormFloat64()*s/l)
		}
		b[f] = 2 * math.Pi * rnd.Float64()
	}
	return &RFF{W: w, B: b, scale: math.Sqrt(2 * c / float64(features))}, nil
}

// Features returns φ(x) for each row of x (n×F).
func (r *RFF) Features(x *mat.Dense) (*mat.Dense, error) {
	if err := CheckData(x, "the data"); err != nil {
		return nil, err
	}
	if _, d := x.Dims(); d != r.W.RawMatrix().Cols {
		return nil, fmt.Errorf("the features were drawn for %d dimensions, the data has %d", r.W.RawMatrix().Cols, d)
	}
	var z mat.Dense
	z.Mul(x, r.W.T())
	n, f := z.Dims()
	for i := 0; i < n; i++ {
		for j := 0; j < f; j++ {
			z.Set(i, j, r.scale*math.Cos(z.At(i, j)+r.B[j]))
		}
	}
	return &z, nil
}
