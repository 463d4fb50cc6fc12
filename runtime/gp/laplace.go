package gp

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/linalg"
)

// LaplaceApprox is Laplace's approximation to the log marginal likelihood
// (Williams and Barber 1998; Rasmussen and Williams 2006, Algorithms 3.1,
// 3.2 and 5.1; GPML's infLaplace):
//
//	log q(y) = log P(y | f̂) − ½ f̂ᵀK⁻¹f̂ − ½ log|I + KW|,  W = −∇∇ log P(y | f̂),
//
// with f̂ the posterior mode, and q(f) = N(f̂, (K⁻¹ + W)⁻¹) the posterior.
type LaplaceApprox struct{}

// Newton settings for the mode: stop when the gradient of Ψ(f) =
// log P(y | f) − ½ fᵀK⁻¹f, ∇log P − α, is below modeTol in every entry
// relative to the largest |∂log P/∂f_i| (and 1), or below 1e-7 when Ψ has
// stopped increasing at working precision.
const (
	modeTol = 1e-12
	modeMax = 200
)

// ErrMode is returned when Newton's method does not find the mode.
var ErrMode = errors.New("gp: Newton's method did not find the posterior mode (Laplace's approximation)")

// ErrLaplaceLik refuses Laplace's approximation for the Laplace
// likelihood, whose curvature in f is zero everywhere but at the kink.
var ErrLaplaceLik = errors.New("gp: Laplace's approximation needs a likelihood with curvature; the Laplace likelihood's −∂²log P/∂f² is 0 away from its kink (W = 0), so the approximation would lose the Occam factor ½log|I + KW| and grow without bound with the kernel's scale; use approx \"vb\" or \"ep\"")

// derivs are a likelihood's log density at (y, f) and its first three
// derivatives in f.
func (l Lik) derivs(y, f float64) (lp, d1, d2, d3 float64) {
	if l.isCount() {
		return l.countDerivs(y, f)
	}
	var buf [3]float64
	lp = l.logProb(buf[:], y, f)
	switch l.Kind {
	case StudentT:
		nu, s := l.Params[0], l.Params[1]
		r := y - f
		a := nu * s * s
		q := r*r + a
		d1 = (nu + 1) * r / q
		d2 = (nu + 1) * (r*r - a) / (q * q)
		d3 = (nu + 1) * 2 * r * (r*r - 3*a) / (q * q * q)
	case Logit:
		t := (y + 1) / 2
		p := 1 / (1 + math.Exp(-f))
		d1 = t - p
		d2 = -p * (1 - p)
		d3 = -p * (1 - p) * (1 - 2*p)
	default:
		r := y - f
		d1 = math.Copysign(1, r) / l.Params[0]
	}
	return lp, d1, d2, d3
}

// paramDerivs adds to dlp, dd1 and dd2 the derivatives of log P(y | f),
// its first and its second derivative in f with respect to the
// likelihood's parameters.
func (l Lik) paramDerivs(dlp, dd1, dd2 []float64, y, f float64) {
	if l.isCount() {
		l.countParamDerivs(dlp, dd1, dd2, y, f)
		return
	}
	l.logProb(dlp, y, f)
	if l.Kind != StudentT {
		return
	}
	nu, s := l.Params[0], l.Params[1]
	r := y - f
	a := nu * s * s
	q := r*r + a
	// d1 = (ν+1) r/q, d2 = (ν+1)(r² − a)/q², a = νs².
	dd1a := -(nu + 1) * r / (q * q)
	dd1[0] += r/q + dd1a*s*s
	dd1[1] += dd1a * 2 * nu * s
	dd2a := -(nu + 1) * (3*r*r - a) / (q * q * q)
	dd2[0] += (r*r-a)/(q*q) + dd2a*s*s
	dd2[1] += dd2a * 2 * nu * s
}

// LaplaceMode is the posterior mode f̂ = Kα̂ of a latent GP with kernel
// matrix K observed through l, found by Newton's method in the stable form
// of Rasmussen and Williams' Algorithm 3.1 with B = I + W^½KW^½. Where the
// likelihood is not log-concave (Student-t) W can be negative; as GPML's
// infLaplace does, the Newton direction then uses max(W, 0), which keeps
// B positive definite and the direction one of ascent, and every step is
// halved until Ψ(f) = log P(y | f) − ½ fᵀK⁻¹f increases. It returns f̂
// and α̂ and the number of Newton steps.
func LaplaceMode(K *mat.SymDense, y []float64, l Lik) (f, alpha []float64, iters int, err error) {
	f, alpha, iters, _, err = laplaceModeFrom(K, y, l, nil)
	return f, alpha, iters, err
}

// laplaceModeFrom is LaplaceMode with Newton's method started at α = start
// (f = K·start) instead of zero when start is not nil. The steps are a
// function of (K, y, start) alone: started at the α̂ a previous call
// returned for the same K, it returns that α̂ and f̂ to the bit after
// recomputing f = Kα̂ once, which is what lets a replayed model agree with
// its walk (LaplaceWarm). fixed says the mode passed the gradient test
// (modeTol), so that α̂ is such a fixed point; a mode accepted because Ψ
// stopped rising is not (a fresh start there may still take a step).
func laplaceModeFrom(K *mat.SymDense, y []float64, l Lik, start []float64) (f, alpha []float64, iters int, fixed bool, err error) {
	if l.Kind == Laplace {
		return nil, nil, 0, false, ErrLaplaceLik
	}
	n := K.SymmetricDim()
	alpha = make([]float64, n)
	copy(alpha, start)
	f = make([]float64, n)
	d1 := make([]float64, n)
	w := make([]float64, n)
	psi := func(a, f []float64) float64 {
		v := 0.0
		for i := range f {
			lp, _, _, _ := l.derivs(y[i], f[i])
			v += lp - 0.5*a[i]*f[i]
		}
		return v
	}
	b := make([]float64, n)
	sw := make([]float64, n)
	B := mat.NewSymDense(n, square(n))
	kf := fullSymTo(square(n), K)
	defer release(B.RawSymmetric().Data)
	defer release(kf)
	if start != nil {
		symVec(f, kf, alpha)
	}
	asc := newtonAscent{cur: psi(alpha, f)}
	kd := make([]float64, n)
	df := make([]float64, n)
	na := make([]float64, n)
	nf := make([]float64, n)
	for it := 0; it <= modeMax; it++ {
		// f = Kα afresh, so that rounding does not pull them apart.
		symVec(f, kf, alpha)
		gmax, scale := 0.0, 1.0
		for i := range f {
			_, g1, g2, _ := l.derivs(y[i], f[i])
			d1[i], w[i] = g1, math.Max(-g2, 0)
			gmax = math.Max(gmax, math.Abs(g1-alpha[i]))
			scale = math.Max(scale, math.Abs(g1))
		}
		gmax /= scale
		if gmax <= modeTol {
			return f, alpha, it, true, nil
		}
		if it == modeMax {
			break
		}
		// b = Wf + ∇log P; a = b − W^½B⁻¹W^½Kb; the step in α is a − α.
		for i := range b {
			sw[i] = math.Sqrt(w[i])
			b[i] = w[i]*f[i] + d1[i]
		}
		fillB(B, K, sw)
		t, ok := potrf(B.RawSymmetric())
		if !ok {
			return nil, nil, it, false, ErrNotPD
		}
		symVec(kd, kf, b)
		for i := range sw {
			kd[i] *= sw[i]
		}
		solveUpper(t, kd)
		da := make([]float64, n)
		for i := range da {
			da[i] = b[i] - sw[i]*kd[i] - alpha[i]
		}
		symVec(df, kf, da)
		// Halve the step until Ψ increases.
		_, ok = asc.step(func(t float64) float64 {
			for i := range na {
				na[i] = alpha[i] + t*da[i]
				nf[i] = f[i] + t*df[i]
			}
			return psi(na, nf)
		})
		if asc.stuck(ok) {
			// No ascent left at working precision: accept if the
			// gradient is small relative to the problem's scale.
			if gmax <= 1e-7 {
				return f, alpha, it, false, nil
			}
			return nil, nil, it, false, ErrMode
		}
		copy(alpha, na)
		copy(f, nf)
		iters = it + 1
	}
	return nil, nil, iters, false, ErrMode
}

// Fit is Laplace's approximation at kernel matrix K with, for
// needs.Gradient, its gradient (R&W eqs. 5.23–5.24, the implicit term
// through f̂ included) and, for needs.Predictive, the posterior given as
// α̂ = K⁻¹f̂ and R = W(I + KW)⁻¹, so that at new inputs with
// cross-covariances k* the predictive mean is k*ᵀα̂ and the variance
// k** − k*ᵀRk*. With W ≥ 0 it factors B = I + W^½KW^½ by Cholesky; with
// some W < 0 (a Student-t observation far from f̂) it takes the LU factor
// of A = I + KW instead, whose determinant is positive at a maximum of Ψ.
func (LaplaceApprox) Fit(K *mat.SymDense, y []float64, l Lik, needs Needs) (*Posterior, error) {
	p, _, err := laplaceFitFrom(K, y, l, needs, nil)
	return p, err
}

// laplaceFitFrom is Fit with the mode's Newton steps started at α = start;
// fixed is laplaceModeFrom's.
func laplaceFitFrom(K *mat.SymDense, y []float64, l Lik, needs Needs, start []float64) (*Posterior, bool, error) {
	n := K.SymmetricDim()
	f, alpha, iters, fixed, err := laplaceModeFrom(K, y, l, start)
	if err != nil {
		return nil, false, err
	}
	w := make([]float64, n)
	d3 := make([]float64, n)
	val := 0.0
	for i := range f {
		lp, _, d2, g3 := l.derivs(y[i], f[i])
		val += lp - 0.5*alpha[i]*f[i]
		w[i], d3[i] = -d2, g3
	}
	logdet, R, err := laplaceDet(K, w, needs.Gradient || needs.Predictive)
	if err != nil {
		return nil, false, err
	}
	val -= 0.5 * logdet
	p := &Posterior{LogZ: val, Alpha: alpha, DLik: make([]float64, len(l.Params)), Iterations: iters}
	if needs.Predictive {
		p.r = R
	}
	if !needs.Gradient {
		return p, fixed, nil
	}
	// Σ = (K⁻¹ + W)⁻¹ = K − KRK; s2 = ∂(−½log|I + KW|)/∂f̂ = ½ diag(Σ) ∇³log P;
	// u = (I + WK)⁻¹s2 = s2 − RKs2, so that ∂f̂/∂h enters as uᵀ∂Kα̂
	// (∂f̂ = (I + KW)⁻¹∂K α̂) and ∂f̂/∂φ as (Ku)ᵀ∂(∇log P)/∂φ.
	kf, rf := fullSymTo(square(n), K), fullSymTo(square(n), R)
	defer release(kf)
	defer release(rf)
	if !needs.Predictive {
		release(R.RawSymmetric().Data) // rf is all that is read of it
	}
	krk := diagSandwichFull(n, kf, rf)
	s2 := make([]float64, n)
	sigma := make([]float64, n)
	for i := range s2 {
		sigma[i] = kf[i*n+i] - krk[i]
		s2[i] = 0.5 * sigma[i] * d3[i]
	}
	ks2, rks2 := make([]float64, n), make([]float64, n)
	symVec(ks2, kf, s2)
	symVec(rks2, rf, ks2)
	u := make([]float64, n)
	for i := range u {
		u[i] = s2[i] - rks2[i]
	}
	ku := make([]float64, n)
	symVec(ku, kf, u)
	// W is scratch too: NonGaussian, the one caller that asks for the
	// gradient, releases it once ContractSym has read it.
	wc := mat.NewSymDense(n, square(n))
	wr := wc.RawSymmetric()
	for i := 0; i < n; i++ {
		wi, ri := wr.Data[i*wr.Stride:], rf[i*n:]
		for j := i; j < n; j++ {
			wi[j] = alpha[i]*alpha[j] - ri[j] + alpha[i]*u[j] + u[i]*alpha[j]
		}
	}
	p.W = wc
	np := len(l.Params)
	if np == 0 {
		return p, fixed, nil
	}
	dlp := make([]float64, np)
	dd1 := make([]float64, np)
	dd2 := make([]float64, np)
	dl := p.DLik
	for i := range f {
		clear(dlp)
		clear(dd1)
		clear(dd2)
		l.paramDerivs(dlp, dd1, dd2, y[i], f[i])
		for p := range dl {
			dl[p] += dlp[p] + 0.5*sigma[i]*dd2[p] + ku[i]*dd1[p]
		}
	}
	return p, fixed, nil
}

// laplaceDet returns log|I + KW| and, if needR, R = W(I + KW)⁻¹ (a
// symmetric matrix): by the Cholesky factor of B = I + W^½KW^½ when
// W ≥ 0, otherwise by the LU factor of I + KW. R is nil unless needR.
func laplaceDet(K *mat.SymDense, w []float64, needR bool) (float64, *mat.SymDense, error) {
	n := K.SymmetricDim()
	neg := false
	for _, v := range w {
		neg = neg || v < 0
	}
	var R *mat.SymDense
	if needR {
		R = mat.NewSymDense(n, square(n))
	}
	var logdet float64
	if !neg {
		sw := make([]float64, n)
		for i := range sw {
			sw[i] = math.Sqrt(w[i])
		}
		// B's factor and inverse in place by blas3's potrf and potri,
		// without mat.Cholesky's condition estimate.
		B := mat.NewSymDense(n, square(n))
		defer release(B.RawSymmetric().Data)
		fillB(B, K, sw)
		t, ok := potrf(B.RawSymmetric())
		if !ok {
			return 0, nil, ErrNotPD
		}
		logdet = logDetUpper(t)
		if needR {
			if !potri(t) {
				return 0, nil, ErrNotPD
			}
			bi, r := t.Data, R.RawSymmetric()
			for i := 0; i < n; i++ {
				bri, rri := bi[i*t.Stride:], r.Data[i*r.Stride:]
				for j := i; j < n; j++ {
					rri[j] = sw[i] * bri[j] * sw[j]
				}
			}
		}
	} else {
		A := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				v := K.At(i, j) * w[j]
				if i == j {
					v++
				}
				A.Set(i, j, v)
			}
		}
		var lu mat.LU
		lu.Factorize(A)
		ld, sign := lu.LogDet()
		if sign <= 0 || math.IsNaN(ld) || math.IsInf(ld, 0) {
			return 0, nil, fmt.Errorf("gp: I + KW is not positive definite at the mode found (Laplace's approximation with a likelihood that is not log-concave)")
		}
		logdet = ld
		if needR {
			var ai mat.Dense
			if err := linalg.IgnoreCondition(ai.Inverse(A)); err != nil {
				return 0, nil, err
			}
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					R.SetSym(i, j, 0.5*(w[i]*ai.At(i, j)+w[j]*ai.At(j, i)))
				}
			}
		}
	}
	return logdet, R, nil
}
