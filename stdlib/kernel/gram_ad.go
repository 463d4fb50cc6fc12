package kernel

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/kernels"
)

// gramOnTape is gram(k, x) or gram(k, x, y) for a kernel whose
// hyperparameters depend on model parameters: one tape operation whose
// Jacobian with respect to those hyperparameters is the kernel library's
// ∂K/∂θ (kernels.GramGrad, CrossGrad), so the matrix's adjoint flows to
// them.
func gramOnTape(k *KernelVal, x, y *mat.Dense) (eval.Value, error) {
	base := k.K.Hyper(nil)
	var t *ad.Tape
	var parents []ad.Var
	var pos []int // the hyperparameters that are parents, in kernel order
	for i, h := range k.Hyper {
		if a, ok := h.(*eval.ADNum); ok {
			t = a.T
			parents = append(parents, a.V)
			pos = append(pos, i)
		}
	}
	n, _ := x.Dims()
	m := n
	if y != nil {
		m, _ = y.Dims()
	}
	// The recording computes the matrix once, at the kernel's own values:
	// an error then (inputs the kernel does not accept) is reported.
	var recErr error
	p := len(parents)
	vs := t.VecFunc(parents, n*m, func(hx, val, jac []float64) {
		h := append([]float64(nil), base...)
		for j, i := range pos {
			h[i] = hx[j]
		}
		nan := func() {
			for i := range val {
				val[i] = math.NaN()
			}
		}
		kk, err := k.K.WithHyper(h)
		if err != nil {
			nan()
			return
		}
		var g mat.Matrix
		var dg []mat.Matrix
		if y == nil {
			s, ds, err := kernels.GramGrad(kk, x)
			if recErr = err; err != nil {
				nan()
				return
			}
			g = s
			for _, d := range ds {
				dg = append(dg, d)
			}
		} else {
			c, dc, err := kernels.CrossGrad(kk, x, y)
			if recErr = err; err != nil {
				nan()
				return
			}
			g = c
			for _, d := range dc {
				dg = append(dg, d)
			}
		}
		for r := 0; r < n; r++ {
			for c := 0; c < m; c++ {
				e := r*m + c
				val[e] = g.At(r, c)
				for j, i := range pos {
					jac[e*p+j] = dg[i].At(r, c)
				}
			}
		}
	})
	if recErr != nil {
		return nil, recErr
	}
	return &eval.ADMat{T: t, Rows: n, Cols: m, Vs: vs}, nil
}
