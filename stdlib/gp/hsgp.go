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
// spectral density at the basis' frequencies, followed by 2m + 1 columns
// of the cosine series for each periodic term (kernels.HSFeatures). When
// the kernel's hyperparameters depend on model parameters the matrix is
// one tape operation (ad.VecFunc) whose Jacobian is ∂F_ic/∂h, so
// `hsgp(...) @ beta` costs O(n·M·(1 + hyperparameters)) per gradient,
// where the exact GP costs O(n³).
const hsgpDoc = `The Hilbert-space approximate GP (Solin and Särkkä 2020; Riutort-Mayol et al. 2023): the n × M matrix Φ·diag(√S) with Φ_ij = φ_j(x_i), the Laplacian's eigenfunctions φ_j(x) = L^(-1/2) sin(√λ_j (x - center + L)), λ_j = (jπ/(2L))², on [center - L, center + L], and S the kernel's spectral density at √λ_j, so that with beta[M] ~ normal(0, 1), f = hsgp(x, sigma^2 * rbf(ell), m: 30) @ beta is approximately a GP(0, kernel) at the rows of x and costs O(nM) per gradient. m basis functions per input column (a number, or one per column; several columns make a product basis of M = Π m functions); the box is set from x: center the midpoint of each column's range, L = c × half its range, unless L: and center: are given (as they must be to evaluate the same basis at new points). Kernels: rbf, laplacian, matern32, matern52 (isotropic or ARD), periodic on one column, scaled and summed. A periodic term is approximated by its cosine series (Solin and Särkkä 2014; Riutort-Mayol et al. §5): exp(-2 sin²(πτ/p)/ℓ²) = Σ_j q_j² cos(jω₀τ), ω₀ = 2π/p, q_0² = e^(-a)I_0(a), q_j² = 2e^(-a)I_j(a), a = ℓ^(-2), giving 2m + 1 columns q_0, q_j cos(jω₀x), q_j sin(jω₀x), j = 1..m, that need no box (m ≥ max(12, 6/ℓ) leaves out less than 1e-7 of the variance); in a sum the stationary terms' M columns come first, then each periodic term's. A product periodic(ell, p) * k, k stationary, on one column, is weighted on the box's basis by Σ_j q_j² (S_k(ω - jω₀) + S_k(ω + jω₀))/2 (m must reach its harmonics); other products and rq are refused. The kernel's hyperparameters may be model parameters, x, m, c, L and center are data. Rule of thumb (Riutort-Mayol et al. §4, with ℓ the lengthscale over the half-range of x): c ≥ max(1.2, a·ℓ) and m ≥ b·c/ℓ, with (a, b) = (3.2, 1.75) for rbf, (4.1, 2.65) for matern52, (4.5, 3.42) for matern32.`

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
	if err := kernels.CheckHilbert(k.K, dim); err != nil {
		return nil, a.Errorf("kernel", "%v", err)
	}
	var h *kernels.Hilbert
	size := 0.0 // the box's basis functions, Π m
	if kernels.HilbertNeedsBox(k.K) {
		var err error
		h, err = kernels.NewHilbert(x, m, c, L, center)
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
		size = 1
		for _, v := range h.M {
			size *= float64(v)
		}
		if size > 1e6 {
			return nil, a.Errorf("m", "%v basis functions are too many (the product of m over %d columns); use a smaller m", size, dim)
		}
	} else if len(m) != 1 {
		return nil, a.Errorf("m", "m has %d values but a periodic kernel takes one (its harmonics)", len(m))
	}
	f, err := kernels.NewHSFeatures(k.K, h, x, m[0])
	if err != nil {
		return nil, a.Errorf("x", "%v", err)
	}
	p := k.K.NumHyper()
	if err := a.CheckDense(n, f.Cols()*(1+p), "hsgp's basis and its derivatives", "use a smaller m"); err != nil {
		return nil, err
	}
	if !k.HasAD() {
		out := mat.NewDense(n, f.Cols(), nil)
		if err := f.Eval(k.K, nil, out.RawMatrix().Data, nil); err != nil {
			return nil, a.Errorf("kernel", "%v", err)
		}
		return eval.NewMat(out), nil
	}
	return hsgpOnTape(k.KernelVal, f, n), nil
}

// hsgpOnTape is the features F for a kernel whose hyperparameters depend
// on model parameters: one tape operation over those hyperparameters,
// which recomputes F and its Jacobian from their values at each replay
// (the Hilbert basis Φ, being data, is computed once by NewHSFeatures; a
// periodic term's columns depend on its period and are recomputed).
func hsgpOnTape(k *kernel.KernelVal, f *kernels.HSFeatures, n int) eval.Value {
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
	cols := f.Cols()
	vs := t.VecFunc(parents, n*cols, func(hx, val, jac []float64) {
		hy := append([]float64(nil), base...)
		for j, i := range pos {
			hy[i] = hx[j]
		}
		kk, err := k.K.WithHyper(hy)
		if err == nil {
			err = f.Eval(kk, pos, val, jac)
		}
		if err != nil { // a hyperparameter outside its domain
			for i := range val {
				val[i] = math.NaN()
			}
		}
	})
	return &eval.ADMat{T: t, Rows: n, Cols: cols, Vs: vs}
}
