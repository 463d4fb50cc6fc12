package gp

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// LossKind is a regularised-risk loss of the MKL paper's Table 1 that no
// likelihood induces.
type LossKind int

const (
	// Hinge is the SVM's max(0, 1 − y_i u_i), labels y_i ∈ {−1, 1}.
	Hinge LossKind = iota + 1
	// EpsInsensitive is the paper's SVM regression loss
	// max(0, |y_i − u_i|/ε − 1).
	EpsInsensitive
)

// Loss is a loss with its weight per observation, C (the paper's C/n),
// and EpsInsensitive's ε.
type Loss struct {
	Kind    LossKind
	C       float64
	Epsilon float64
}

// ErrSVMDual is returned when the SVM dual's solver does not settle.
var ErrSVMDual = errors.New("gp: the SVM dual did not converge")

// SVM returns regularised-risk MKL with an SVM loss (the paper's eq. 3
// with Table 1's hinge or ε-insensitive row) on the log scale of the other
// objectives,
//
//	−½ min_u [uᵀ(K + εI)⁻¹u + C Σᵢ ℓ(yᵢ, uᵢ)] − ½ λ Σ_m θ_mᵖ,
//
// ε = MapJitter, the θ_m the weights s.Weights of k, with its gradient with
// respect to k's hyperparameters in grad (when not nil).
//
// The inner minimum is found through its dual, a box-constrained
// quadratic program (derived from the losses' convex conjugates; no bias
// term, so no equality constraint):
//
//	min_u uᵀK⁻¹u + C Σ ℓ(yᵢ, uᵢ) = 2 max_{lo ≤ w ≤ hi} Σᵢ (wᵢtᵢ − e|wᵢ|) − ½wᵀKw,
//
// u = Kw; for the hinge t = y, e = 0 and 0 ≤ yᵢwᵢ ≤ C/2; for the
// ε-insensitive loss t = y, e = ε and |wᵢ| ≤ C/(2ε). K is positive
// definite, so the dual is strictly concave and w unique, and by the
// envelope theorem the objective's derivative with respect to K is ½wwᵀ
// (the same form as Gaussian MKL's ½ααᵀ), so every kernel hyperparameter,
// not only the weights, gets its exact gradient and optimize's L-BFGS
// minimises over θ ≥ 0 (on log θ) with the rest of the model. The
// Lagrangian penalty λΣθ_mᵖ, p ≥ 1, is Kloft et al.'s (2009) p-norm MKL:
// for each λ there is a radius r with the same solution as ‖θ‖_p ≤ r.
//
// The dual is solved by svmDual: exact coordinate ascent (one variable at
// a time in closed form — what SMO does when there is no equality
// constraint to pair variables), with, every few sweeps, the active set it
// has found polished by one linear solve (the free wᵢ interpolate
// tᵢ − (Kw)ᵢ = e·sign wᵢ), kept when every coordinate's closed-form
// update then leaves it in place to 10⁻¹² relative: an exact optimum,
// where coordinate ascent alone converges only linearly.
func SVM(s Settings, k kernels.Kernel, x *mat.Dense, y []float64, loss Loss, grad []float64) (float64, error) {
	n, _ := x.Dims()
	if len(y) != n {
		return 0, fmt.Errorf("gp: %d observations for %d input rows", len(y), n)
	}
	if !(loss.C > 0) || math.IsInf(loss.C, 0) {
		return 0, fmt.Errorf("gp: the loss weight C must be positive, got %v", loss.C)
	}
	K, err := kernels.Gram(k, x)
	if err != nil {
		return 0, err
	}
	for _, v := range K.RawSymmetric().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, ErrNonFinite
		}
	}
	for i := 0; i < n; i++ {
		K.SetSym(i, i, K.At(i, i)+MapJitter)
	}
	w, dual, err := SVMDual(K, y, loss)
	if err != nil {
		return 0, err
	}
	val := -dual
	h := k.Hyper(nil)
	for _, i := range s.Weights {
		val -= 0.5 * s.Lambda * math.Pow(h[i], s.P)
	}
	if grad == nil {
		return val, nil
	}
	clear(grad)
	W := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			W.SetSym(i, j, w[i]*w[j])
		}
	}
	nh := k.NumHyper()
	Contract(grad[:nh], k, x, W)
	for _, i := range s.Weights {
		grad[i] -= 0.5 * s.Lambda * s.P * math.Pow(h[i], s.P-1)
	}
	return val, nil
}

// SVMDual solves the dual of min_u uᵀK⁻¹u + C Σ ℓ(yᵢ, uᵢ) (see SVM) and
// returns its solution w (u = Kw) and value D, the primal minimum being 2D.
func SVMDual(K *mat.SymDense, y []float64, loss Loss) (w []float64, value float64, err error) {
	n := K.SymmetricDim()
	lo, hi := make([]float64, n), make([]float64, n)
	e := 0.0
	switch loss.Kind {
	case Hinge:
		for i, v := range y {
			if v != 1 && v != -1 {
				return nil, 0, fmt.Errorf("gp: hinge-loss labels must be ±1, got %v", v)
			}
			if v > 0 {
				hi[i] = loss.C / 2
			} else {
				lo[i] = -loss.C / 2
			}
		}
	case EpsInsensitive:
		if !(loss.Epsilon > 0) || math.IsInf(loss.Epsilon, 0) {
			return nil, 0, fmt.Errorf("gp: epsilon must be positive, got %v", loss.Epsilon)
		}
		e = loss.Epsilon
		for i := range y {
			lo[i], hi[i] = -loss.C/(2*e), loss.C/(2*e)
		}
	default:
		return nil, 0, fmt.Errorf("gp: unknown loss %d", loss.Kind)
	}
	w = make([]float64, n)
	kw := make([]float64, n) // Kw
	raw := K.RawSymmetric()
	at := func(i, j int) float64 {
		if i > j {
			i, j = j, i
		}
		return raw.Data[i*raw.Stride+j]
	}
	// update is coordinate i's closed-form optimum with the others held.
	update := func(i int) float64 {
		kii := at(i, i)
		g := y[i] - (kw[i] - kii*w[i])
		nw := 0.0
		switch {
		case g > e:
			nw = (g - e) / kii
		case g < -e:
			nw = (g + e) / kii
		}
		return math.Min(math.Max(nw, lo[i]), hi[i])
	}
	set := func(i int, v float64) {
		if d := v - w[i]; d != 0 {
			for j := 0; j < n; j++ {
				kw[j] += d * at(i, j)
			}
			w[i] = v
		}
	}
	scale := 0.0
	for i := range n {
		scale = math.Max(scale, math.Max(-lo[i], hi[i]))
	}
	optimal := func() bool {
		for i := range n {
			if math.Abs(update(i)-w[i]) > 1e-12*scale {
				return false
			}
		}
		return true
	}
	dualValue := func() float64 {
		var v float64
		for i := range n {
			v += w[i]*y[i] - e*math.Abs(w[i]) - 0.5*w[i]*kw[i]
		}
		return v
	}
	for sweep := 1; sweep <= 20000; sweep++ {
		for i := range n {
			set(i, update(i))
		}
		if sweep%5 != 0 {
			continue
		}
		if optimal() {
			return w, dualValue(), nil
		}
		if polished := polish(K, y, e, lo, hi, w); polished != nil {
			saveW, saveKW := append([]float64(nil), w...), append([]float64(nil), kw...)
			for i := range n {
				set(i, polished[i])
			}
			if optimal() {
				return w, dualValue(), nil
			}
			copy(w, saveW)
			copy(kw, saveKW)
		}
	}
	return nil, 0, ErrSVMDual
}

// polish solves for the free coordinates of w (strictly inside their box
// and not 0) with the others held: tᵢ − (Kw)ᵢ = e·sign wᵢ on the free set.
// It returns nil when the free set is empty or its system is singular.
func polish(K *mat.SymDense, t []float64, e float64, lo, hi, w []float64) []float64 {
	n := len(w)
	var free []int
	for i := range n {
		if w[i] != 0 && w[i] > lo[i] && w[i] < hi[i] {
			free = append(free, i)
		}
	}
	if len(free) == 0 {
		return nil
	}
	isFree := make([]bool, n)
	for _, i := range free {
		isFree[i] = true
	}
	kff := mat.NewSymDense(len(free), nil)
	rhs := mat.NewVecDense(len(free), nil)
	for a, i := range free {
		v := t[i] - e*math.Copysign(1, w[i])
		for j := range n {
			if !isFree[j] {
				v -= K.At(i, j) * w[j]
			}
		}
		rhs.SetVec(a, v)
		for b := a; b < len(free); b++ {
			kff.SetSym(a, b, K.At(i, free[b]))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(kff) {
		return nil
	}
	sol := mat.NewVecDense(len(free), nil)
	if linalg.IgnoreCondition(ch.SolveVecTo(sol, rhs)) != nil {
		return nil
	}
	out := append([]float64(nil), w...)
	for a, i := range free {
		out[i] = math.Min(math.Max(sol.AtVec(a), lo[i]), hi[i])
	}
	return out
}
