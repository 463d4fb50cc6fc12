package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// svmProblem is a small seeded problem: the rows of x, real targets (for
// the ε-insensitive loss) and their signs (for the hinge), and the kernel
// θ₁ rbf(ℓ) + θ₂ linear(0.5).
func svmProblem(n int, theta []float64, ell float64) (*mat.Dense, []float64, []float64, kernels.Kernel) {
	x, y := testData(n, 2, 47)
	labels := make([]float64, n)
	for i, v := range y {
		labels[i] = math.Copysign(1, v)
	}
	rbf, _ := kernels.NewRBF([]float64{ell})
	lin, _ := kernels.NewLinear(0.5)
	a, _ := kernels.NewScaled(theta[0], rbf)
	b, _ := kernels.NewScaled(theta[1], lin)
	k, _ := kernels.NewSum(a, b)
	return x, y, labels, k
}

// primal is min_u's objective uᵀK⁻¹u + C Σ ℓ(yᵢ, uᵢ) at u, with K⁻¹ from
// a dense LU inverse.
func primal(K *mat.SymDense, u, y []float64, loss Loss) float64 {
	n := len(u)
	var inv mat.Dense
	if err := inv.Inverse(K); err != nil {
		return math.NaN()
	}
	uv := mat.NewVecDense(n, u)
	v := mat.Inner(uv, &inv, uv)
	for i := range u {
		switch loss.Kind {
		case Hinge:
			v += loss.C * math.Max(0, 1-y[i]*u[i])
		case EpsInsensitive:
			v += loss.C * math.Max(0, math.Abs(y[i]-u[i])/loss.Epsilon-1)
		}
	}
	return v
}

// projectedAscent solves the SVM dual by projected gradient ascent with
// step 1/‖K‖_F (an independent, slow method), for comparison.
func projectedAscent(K *mat.SymDense, y []float64, loss Loss, iters int) []float64 {
	n := len(y)
	lo, hi := make([]float64, n), make([]float64, n)
	e := 0.0
	for i := range y {
		if loss.Kind == Hinge {
			if y[i] > 0 {
				hi[i] = loss.C / 2
			} else {
				lo[i] = -loss.C / 2
			}
		} else {
			e = loss.Epsilon
			lo[i], hi[i] = -loss.C/(2*e), loss.C/(2*e)
		}
	}
	step := 1 / mat.Norm(K, 2)
	w := make([]float64, n)
	for range iters {
		kw := mat.NewVecDense(n, nil)
		kw.MulVec(K, mat.NewVecDense(n, w))
		for i := range w {
			// A proximal step for the −e|w| term: soft threshold.
			z := w[i] + step*(y[i]-kw.AtVec(i))
			z = math.Copysign(math.Max(math.Abs(z)-step*e, 0), z)
			w[i] = math.Min(math.Max(z, lo[i]), hi[i])
		}
	}
	return w
}

// TestSVMDual: the dual solution's u = Kw attains the primal minimum: the
// primal at u, computed densely, equals twice the dual value (zero
// duality gap is a certificate of optimality for both), and w agrees with
// an independent proximal projected-gradient solution.
func TestSVMDual(t *testing.T) {
	for _, loss := range []Loss{{Kind: Hinge, C: 2}, {Kind: Hinge, C: 0.3}, {Kind: EpsInsensitive, C: 1, Epsilon: 0.2}, {Kind: EpsInsensitive, C: 5, Epsilon: 0.05}} {
		x, y, labels, k := svmProblem(25, []float64{1.3, 0.4}, 0.9)
		K, _ := kernels.Gram(k, x)
		for i := range 25 {
			K.SetSym(i, i, K.At(i, i)+3e-3)
		}
		t0 := y
		if loss.Kind == Hinge {
			t0 = labels
		}
		w, d, err := SVMDual(K, t0, loss)
		if err != nil {
			t.Fatal(err)
		}
		u := mat.NewVecDense(25, nil)
		u.MulVec(K, mat.NewVecDense(25, w))
		p := primal(K, u.RawVector().Data, t0, loss)
		if math.Abs(p-2*d) > 1e-9*(1+math.Abs(p)) {
			t.Errorf("%+v: primal %.12g at u = Kw, twice the dual %.12g", loss, p, 2*d)
		}
		ref := projectedAscent(K, t0, loss, 150000)
		for i := range w {
			if math.Abs(w[i]-ref[i]) > 1e-6*(1+math.Abs(ref[i])) {
				t.Errorf("%+v: w[%d] = %.9g, projected gradient %.9g", loss, i, w[i], ref[i])
				break
			}
		}
	}
}

// TestSVMDualLarger: at n = 400, where the solver shrinks its active set
// and goes through its stages, the duality gap at u = Kw is zero (to
// 1e-9) and every coordinate is at its closed-form optimum to 1e-9.
func TestSVMDualLarger(t *testing.T) {
	const n = 400
	for _, loss := range []Loss{{Kind: Hinge, C: 2}, {Kind: EpsInsensitive, C: 3, Epsilon: 0.1}} {
		x, y, labels, k := svmProblem(n, []float64{1.3, 0.4}, 0.5)
		K, _ := kernels.Gram(k, x)
		for i := range n {
			K.SetSym(i, i, K.At(i, i)+MapJitter)
		}
		t0 := y
		if loss.Kind == Hinge {
			t0 = labels
		}
		w, d, err := SVMDual(K, t0, loss)
		if err != nil {
			t.Fatal(err)
		}
		u := mat.NewVecDense(n, nil)
		u.MulVec(K, mat.NewVecDense(n, w))
		// The primal at u = Kw, its uᵀK⁻¹u being wᵀu (K's inverse is too
		// ill-conditioned here to take).
		p := mat.Dot(u, mat.NewVecDense(n, w))
		for i := range n {
			if loss.Kind == Hinge {
				p += loss.C * math.Max(0, 1-t0[i]*u.AtVec(i))
			} else {
				p += loss.C * math.Max(0, math.Abs(t0[i]-u.AtVec(i))/loss.Epsilon-1)
			}
		}
		if math.Abs(p-2*d) > 1e-9*(1+math.Abs(p)) {
			t.Errorf("%+v: primal %.12g at u = Kw, twice the dual %.12g", loss, p, 2*d)
		}
		// Each coordinate at its own optimum with the others held.
		e, box := 0.0, loss.C/2
		if loss.Kind == EpsInsensitive {
			e, box = loss.Epsilon, loss.C/(2*loss.Epsilon)
		}
		for i := range n {
			kii := K.At(i, i)
			g := t0[i] - u.AtVec(i) + kii*w[i]
			nw := 0.0
			if g > e {
				nw = (g - e) / kii
			} else if g < -e {
				nw = (g + e) / kii
			}
			lo, hi := -box, box
			if loss.Kind == Hinge {
				lo, hi = math.Min(0, t0[i]*box), math.Max(0, t0[i]*box)
			}
			nw = math.Min(math.Max(nw, lo), hi)
			if math.Abs(nw-w[i]) > 1e-9*box {
				t.Errorf("%+v: w[%d] = %.12g, its coordinate optimum %.12g", loss, i, w[i], nw)
				break
			}
		}
	}
}

// TestSVMGradient: SVM's gradient against central differences in every
// hyperparameter (the two weights and the lengthscale), with p = 1.5.
func TestSVMGradient(t *testing.T) {
	for _, loss := range []Loss{{Kind: Hinge, C: 1}, {Kind: EpsInsensitive, C: 1, Epsilon: 0.1}} {
		x, y, labels, k := svmProblem(20, []float64{1.3, 0.4}, 0.9)
		if loss.Kind == Hinge {
			y = labels
		}
		s := Settings{Kind: MKL, P: 1.5, Lambda: 0.7, Weights: Weights(k)}
		h := k.Hyper(nil)
		grad := make([]float64, len(h))
		if _, err := SVM(s, k, x, y, loss, grad); err != nil {
			t.Fatal(err)
		}
		for j := range h {
			f := func(d float64) float64 {
				hh := append([]float64(nil), h...)
				hh[j] += d
				kk, _ := k.WithHyper(hh)
				v, err := SVM(s, kk, x, y, loss, nil)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			step := 1e-6 * (1 + math.Abs(h[j]))
			fd := (f(step) - f(-step)) / (2 * step)
			if math.Abs(fd-grad[j]) > 1e-5*(1+math.Abs(fd)) {
				t.Errorf("%+v: ∂/∂h[%d] = %.9g, central difference %.9g", loss, j, grad[j], fd)
			}
		}
	}
}
