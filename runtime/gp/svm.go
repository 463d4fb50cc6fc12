package gp

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/interrupt"
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
// The dual is solved by SVMDual: greedy coordinate ascent (one variable
// at a time in closed form, the one that raises the dual most — what
// libsvm's SMO does when there is no equality constraint to pair
// variables) with shrinking, and, once the active set has settled, the
// free coordinates polished by one linear solve (the free wᵢ interpolate
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
// It writes the lower triangle of K's backing array (a copy of the upper
// one; K's value, which lives in the upper triangle, does not change).
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
	rows := newSymRows(K)
	set := func(i int, v float64) {
		if d := v - w[i]; d != 0 {
			floats.AddScaled(kw, d, rows.row(i))
			w[i] = v
		}
	}
	scale := 0.0
	for i := range n {
		scale = math.Max(scale, math.Max(-lo[i], hi[i]))
	}
	tol := 1e-12 * scale
	act := &svmActive{y: y, kw: kw, w: w, lo: lo, hi: hi, diag: rows.diag, e: e}
	optimal := func() bool {
		for i := range n {
			if math.Abs(act.next(i)-w[i]) > tol {
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
	// Greedy coordinate ascent with shrinking, in stages. Each step moves
	// the active coordinate whose closed-form update raises the dual most
	// (libsvm's second-order working-set choice, one variable wide as there
	// is no equality constraint): an O(active) scan and an O(n) update of
	// Kw along a row. Every 64 steps (or fewer, when fewer are active) the
	// coordinates that sit at a bound of their box (or at 0) and would stay
	// there are dropped, as libsvm's shrinking does. A
	// stage ends when no active coordinate would move more than its
	// tolerance (from 10⁻³ of the box, libsvm's default, down by 10⁻³ a
	// stage to 10⁻¹²); then every coordinate is checked, and when none
	// would move more than the stage's tolerance the free ones are solved
	// for exactly (polish). The answer is returned only when no
	// coordinate's update would move it more than 10⁻¹² of the box.
	act.all(n)
	stage := math.Max(1e-3*scale, tol)
	for step := 0; step < 2000*n+10000; step++ {
		if step%max(min(len(act.idx), 64), 1) == 0 {
			act.shrink()
			interrupt.Check()
		}
		i, v, moved := act.pick()
		if moved > stage && i >= 0 {
			set(i, v)
			continue
		}
		// The active set has settled: check every coordinate.
		act.all(n)
		_, _, moved = act.pick()
		if moved <= tol {
			return w, dualValue(), nil
		}
		if moved > stage {
			continue
		}
		if refine(act, rows, n, set, optimal) {
			return w, dualValue(), nil
		}
		stage = math.Max(stage*1e-3, tol)
	}
	return nil, 0, ErrSVMDual
}

// svmActive is the working set of SVMDual's greedy steps, over the
// solver's own slices.
type svmActive struct {
	idx                    []int
	y, kw, w, lo, hi, diag []float64
	e                      float64
}

func (a *svmActive) all(n int) {
	a.idx = a.idx[:0]
	for i := range n {
		a.idx = append(a.idx, i)
	}
}

// next is coordinate i's closed-form optimum with the others held.
func (a *svmActive) next(i int) float64 {
	kii := a.diag[i]
	g := a.y[i] - a.kw[i] + kii*a.w[i]
	nw := 0.0
	if g > a.e {
		nw = (g - a.e) / kii
	} else if g < -a.e {
		nw = (g + a.e) / kii
	}
	if nw < a.lo[i] {
		nw = a.lo[i]
	} else if nw > a.hi[i] {
		nw = a.hi[i]
	}
	return nw
}

// pick returns the active coordinate whose update raises the dual most,
// its new value, and the largest move of any active coordinate (i < 0
// when none would move).
func (a *svmActive) pick() (bi int, bv, moved float64) {
	best := 0.0
	bi = -1
	for _, i := range a.idx {
		v := a.next(i)
		d := v - a.w[i]
		if d == 0 {
			continue
		}
		moved = max(moved, math.Abs(d))
		g := d*(a.y[i]-a.kw[i]) - a.e*(math.Abs(v)-math.Abs(a.w[i])) - 0.5*a.diag[i]*d*d
		if g > best {
			best, bi, bv = g, i, v
		}
	}
	return bi, bv, moved
}

// shrink drops the coordinates at a bound (or at 0) that would stay there.
func (a *svmActive) shrink() {
	keep := a.idx[:0]
	for _, i := range a.idx {
		w := a.w[i]
		if (w != a.lo[i] && w != a.hi[i] && w != 0) || a.next(i) != w {
			keep = append(keep, i)
		}
	}
	a.idx = keep
}

// symRows gives the rows of a symmetric matrix stored in its upper
// triangle as contiguous slices: newSymRows mirrors the upper triangle
// into the lower one of the same backing array (which gonum's SymDense
// never reads; a view with a longer stride is copied first), so that row
// i is the array's i-th row and the update of Kw along it one vector
// operation.
type symRows struct {
	data   []float64
	stride int
	diag   []float64
}

func newSymRows(k *mat.SymDense) *symRows {
	raw := k.RawSymmetric()
	n, st := raw.N, raw.Stride
	r := &symRows{data: raw.Data, stride: st, diag: make([]float64, n)}
	if st != n {
		// A view into a larger matrix: rows of its own.
		full := make([]float64, n*n)
		for i := range n {
			copy(full[i*n+i:(i+1)*n], raw.Data[i*st+i:i*st+n])
		}
		r.data, r.stride = full, n
	}
	kernels.Mirror(r.data, n)
	for i := range n {
		r.diag[i] = r.data[i*n+i]
	}
	return r
}

func (r *symRows) row(i int) []float64 {
	return r.data[i*r.stride : i*r.stride+len(r.diag)]
}

// freeSolve solves for the free coordinates of w (not 0 and strictly
// inside their box) with the others held: tᵢ − (Kw)ᵢ = e·sign wᵢ on the
// free set. It returns the free set and its solution (nil when the set is
// empty or its system is not positive definite to rounding).
func freeSolve(a *svmActive, rows *symRows) (free []int, sol []float64) {
	for i, w := range a.w {
		if w != 0 && w > a.lo[i] && w < a.hi[i] {
			free = append(free, i)
		}
	}
	if len(free) == 0 {
		return nil, nil
	}
	// The held coordinates' part of (Kw)ᵢ is kw's less the free ones'.
	kff := mat.NewSymDense(len(free), nil)
	rhs := mat.NewVecDense(len(free), nil)
	for c, i := range free {
		ki := rows.row(i)
		v := a.y[i] - a.e*math.Copysign(1, a.w[i]) - a.kw[i]
		for b, j := range free {
			v += ki[j] * a.w[j]
			if b >= c {
				kff.SetSym(c, b, ki[j])
			}
		}
		rhs.SetVec(c, v)
	}
	var ch mat.Cholesky
	if !ch.Factorize(kff) {
		return nil, nil
	}
	x := mat.NewVecDense(len(free), nil)
	if linalg.IgnoreCondition(ch.SolveVecTo(x, rhs)) != nil {
		return nil, nil
	}
	return free, x.RawVector().Data
}

// refine is a primal active-set method from the current point: it moves
// the free coordinates towards the dual's maximum over them (freeSolve),
// stopping at the first that reaches a bound of its box or 0 (which then
// leaves the free set), and, at that maximum, moves the coordinate that
// raises the dual most (which joins it), until every coordinate is at its
// closed-form optimum (it returns true) or after 2n + 50 moves. Each move
// raises the dual, the method converges in a finite number of moves, and
// where K is ill-conditioned (a kernel sum with a linear part, little
// jitter) it finishes in tens of moves what coordinate ascent does not in
// millions.
func refine(a *svmActive, rows *symRows, n int, set func(int, float64), optimal func() bool) bool {
	a.all(n)
	for range 2*n + 50 {
		free, sol := freeSolve(a, rows)
		if free == nil {
			i, v, _ := a.pick()
			if i < 0 {
				return optimal()
			}
			set(i, v)
			continue
		}
		// The ratio test: the longest step towards sol inside the boxes
		// with each free coordinate keeping its sign.
		alpha, hit, hitAt := 1.0, -1, 0.0
		for c, i := range free {
			w, d := a.w[i], sol[c]-a.w[i]
			lo, hi := a.lo[i], a.hi[i]
			if w > 0 {
				lo = 0
			} else {
				hi = 0
			}
			var b float64
			switch {
			case d > 0 && w+d > hi:
				b = hi
			case d < 0 && w+d < lo:
				b = lo
			default:
				continue
			}
			if r := (b - w) / d; r < alpha {
				alpha, hit, hitAt = r, i, b
			}
		}
		for c, i := range free {
			v := a.w[i] + alpha*(sol[c]-a.w[i])
			if i == hit {
				v = hitAt
			}
			set(i, math.Min(math.Max(v, a.lo[i]), a.hi[i]))
		}
		if hit >= 0 {
			continue
		}
		if optimal() {
			return true
		}
		i, v, _ := a.pick()
		if i < 0 {
			return false
		}
		set(i, v)
	}
	return false
}
