package gp

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/stdlib/kernel"
)

// hsgp(x, kernel, m, c) is the Hilbert-space approximate GP (Solin and
// Särkkä 2020; Riutort-Mayol et al. 2023) as a matrix a model multiplies
// by standard normal weights: Φ·diag(√S), n × (number of basis
// functions), with Φ the basis at the rows of x (data) and S the kernel's
// spectral density at the basis' frequencies. When the kernel's
// hyperparameters depend on model parameters the matrix is one tape
// operation (ad.VecFunc) whose Jacobian is Φ_ij ∂√S_j/∂h, so
// `hsgp(...) @ beta` costs O(n·M·(1 + hyperparameters)) per gradient,
// where the exact GP costs O(n³).
const hsgpDoc = `The Hilbert-space approximate GP (Solin and Särkkä 2020; Riutort-Mayol et al. 2023): the n × M matrix Φ·diag(√S) with Φ_ij = φ_j(x_i), the Laplacian's eigenfunctions φ_j(x) = L^(-1/2) sin(√λ_j (x - center + L)), λ_j = (jπ/(2L))², on [center - L, center + L], and S the kernel's spectral density at √λ_j, so that with beta[M] ~ normal(0, 1), f = hsgp(x, sigma^2 * rbf(ell), m: 30) @ beta is approximately a GP(0, kernel) at the rows of x and costs O(nM) per gradient. m basis functions per input column (a number, or one per column; several columns make a product basis of M = Π m functions); the box is set from x: center the midpoint of each column's range, L = c × half its range, unless L: and center: are given (as they must be to evaluate the same basis at new points). Kernels: rbf, laplacian, matern32, matern52 (isotropic or ARD), scaled and summed; the kernel's hyperparameters may be model parameters, x, m, c, L and center are data. Rule of thumb (Riutort-Mayol et al. §4, with ℓ the lengthscale over the half-range of x): c ≥ max(1.2, a·ℓ) and m ≥ b·c/ℓ, with (a, b) = (3.2, 1.75) for rbf, (4.1, 2.65) for matern52, (4.5, 3.42) for matern32.`

func registerHsgp(reg *eval.Registry) {
	reg.Register(`hsgp(x, kernel, m = 20, c = 1.5, L?, center?)`, hsgpDoc, hsgpBuiltin).AD = true
}

func hsgpBuiltin(a *eval.Args) (eval.Value, error) {
	for _, name := range []string{"x", "m", "c", "L", "center"} {
		if v := a.Value(name); v != nil && eval.IsAD(v) {
			return nil, a.Errorf(name, "hsgp's %s must be data, not a value that depends on model parameters", name)
		}
	}
	var k kernel.Arg
	var x *mat.Dense
	var mf []float64
	var c float64
	var L, center []float64
	if err := a.Unpack("x", &x, "kernel", &k, "m", &mf, "c", &c, "L?", &L, "center?", &center); err != nil {
		return nil, err
	}
	m := make([]int, len(mf))
	for i, v := range mf {
		if v != math.Trunc(v) || v < 1 || v > 1e6 {
			return nil, a.Errorf("m", "m must be whole numbers of at least 1, got %s", eval.FormatNumber(v))
		}
		m[i] = int(v)
	}
	if err := kernels.CheckData(x, "x"); err != nil {
		return nil, a.Errorf("x", "%v", err)
	}
	n, dim := x.Dims()
	if err := kernels.CheckSpectral(k.K, dim); err != nil {
		return nil, a.Errorf("kernel", "%v", err)
	}
	h, err := kernels.NewHilbert(x, m, c, L, center)
	if err != nil {
		name := "x"
		switch {
		case len(m) != 1 && len(m) != dim:
			name = "m"
		case L != nil && len(L) != 1 && len(L) != dim:
			name = "L"
		case center != nil && len(center) != 1 && len(center) != dim:
			name = "center"
		case L == nil && !(c >= 1):
			name = "c"
		case L != nil:
			name = "L"
		}
		return nil, a.Errorf(name, "%v", err)
	}
	size := 1.0
	for _, v := range h.M {
		size *= float64(v)
	}
	p := k.K.NumHyper()
	if size > 1e6 {
		return nil, a.Errorf("m", "%v basis functions are too many (the product of m over %d columns); use a smaller m", size, dim)
	}
	if err := a.CheckDense(n, h.Size()*(1+p), "hsgp's basis and its derivatives", "use a smaller m"); err != nil {
		return nil, err
	}
	phi, err := h.Basis(x)
	if err != nil {
		return nil, a.Errorf("x", "%v", err)
	}
	if !k.HasAD() {
		s := make([]float64, h.Size())
		if err := h.SqrtDensity(k.K, s, nil); err != nil {
			return nil, a.Errorf("kernel", "%v", err)
		}
		out := mat.NewDense(n, h.Size(), nil)
		raw, praw := out.RawMatrix(), phi.RawMatrix()
		for i := range n {
			for j, sj := range s {
				raw.Data[i*raw.Stride+j] = praw.Data[i*praw.Stride+j] * sj
			}
		}
		return eval.NewMat(out), nil
	}
	return hsgpOnTape(k.KernelVal, h, phi), nil
}

// hsgpOnTape is Φ·diag(√S) for a kernel whose hyperparameters depend on
// model parameters: one tape operation over those hyperparameters, which
// recomputes the M weights √S_j and their derivatives from their values at
// each replay (Φ, being data, is computed once).
func hsgpOnTape(k *kernel.KernelVal, h *kernels.Hilbert, phi *mat.Dense) eval.Value {
	base := k.K.Hyper(nil)
	var parents []ad.Var
	var pos []int // the hyperparameters that are parents, in kernel order
	var t *ad.Tape
	for i, hv := range k.Hyper {
		if a, ok := hv.(*eval.ADNum); ok {
			t = a.T
			parents = append(parents, a.V)
			pos = append(pos, i)
		}
	}
	n, size := phi.Dims()
	praw := phi.RawMatrix()
	P, q := len(base), len(parents)
	vs := t.VecFunc(parents, n*size, func(hx, val, jac []float64) {
		// Allocated per call (M·(1 + P) numbers, against the n·M filled
		// below), so the function keeps no state between replays.
		s := make([]float64, size)
		ds := make([]float64, size*P)
		hy := append([]float64(nil), base...)
		for j, i := range pos {
			hy[i] = hx[j]
		}
		kk, err := k.K.WithHyper(hy)
		if err == nil {
			err = h.SqrtDensity(kk, s, ds)
		}
		if err != nil { // a hyperparameter outside its domain: no density
			for i := range val {
				val[i] = math.NaN()
			}
			return
		}
		for i := range n {
			row := praw.Data[i*praw.Stride : i*praw.Stride+size]
			for j, f := range row {
				e := i*size + j
				val[e] = f * s[j]
				for jj, hi := range pos {
					jac[e*q+jj] = f * ds[j*P+hi]
				}
			}
		}
	})
	return &eval.ADMat{T: t, Rows: n, Cols: size, Vs: vs}
}
