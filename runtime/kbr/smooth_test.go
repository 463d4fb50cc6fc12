package kbr

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The backward pass and the prediction written out with explicit
// inverses from the filter's weights, for both transitions, and the
// full-rank low-rank pass against the exact one.
func TestSmoothMatchesDenseFormula(t *testing.T) {
	for _, tr := range []Transition{TransitionSample, TransitionOperator} {
		t.Run(string(tr), func(t *testing.T) { smoothDense(t, tr) })
	}
}

func smoothDense(t *testing.T, tr Transition) {
	r := rand.New(rand.NewPCG(43, 0x736d6f)) // "smo"
	xs, ys := rotation(r, 31, 0.3, 0, 0)
	_, obs := rotation(r, 5, 0.3, 0, 0)
	const ell, eps, delta, sdelta = 0.5, 0.01, 1e-4, 3e-3
	n := 30
	x := mat.DenseCopyOf(xs.Slice(0, n, 0, 2))
	xp := mat.DenseCopyOf(xs.Slice(1, n+1, 0, 2))
	s := Settings{Eps: eps, Delta: delta}
	f, err := NewFilter(xs, ys, rbf(t, ell), rbf(t, ell), s, tr)
	if err != nil {
		t.Fatal(err)
	}
	w, _, err := f.Run(context.Background(), obs)
	if err != nil {
		t.Fatal(err)
	}
	k := gauss(ell)
	gx := denseGram(k, x, x)
	push := mat.NewDense(n, n, nil) // the identity, or (G_X + nεI)⁻¹G_X
	for i := 0; i < n; i++ {
		push.Set(i, i, 1)
	}
	if tr == TransitionOperator {
		reg := mat.NewDense(n, n, nil)
		reg.Add(gx, scaledIdentity(n, float64(n)*eps))
		push.Mul(inverse(t, reg), gx)
	}
	gxp := denseGram(k, xp, xp)
	cross := denseGram(k, xp, x)
	steps := 5
	want := make([]*mat.VecDense, steps)
	want[steps-1] = mat.VecDenseCopyOf(w.ColView(steps - 1))
	for s := steps - 2; s >= 0; s-- {
		mu := mat.NewVecDense(n, nil)
		mu.MulVec(push, w.ColView(s))
		lam := mat.NewDiagDense(n, mu.RawVector().Data)
		var lg, a, rr mat.Dense
		lg.Mul(lam, gxp)
		a.Mul(&lg, &lg)
		a.Add(&a, scaledIdentity(n, sdelta))
		rr.Mul(&lg, inverse(t, &a))
		rr.Mul(&rr, lam)
		kv := mat.NewVecDense(n, nil)
		kv.MulVec(cross, want[s+1])
		b := mat.NewVecDense(n, nil)
		b.MulVec(&rr, kv)
		b.ScaleVec(1/mat.Sum(b), b)
		want[s] = b
	}
	sw, est, err := f.Smooth(context.Background(), w, sdelta)
	if err != nil {
		t.Fatal(err)
	}
	for s, b := range want {
		if d := maxAbsDiff(b, sw.ColView(s)); d > 1e-8*maxAbs(b) {
			t.Errorf("step %d: smoothed weights differ from the dense recursion by %g (scale %g)", s+1, d, maxAbs(b))
		}
		var m mat.VecDense
		m.MulVec(x.T(), b)
		if d := maxAbsDiff(&m, est.RowView(s)); d > 1e-10 {
			t.Errorf("step %d: smoothed estimate differs from Σβ_i X_i by %g", s+1, d)
		}
	}
	// Prediction: the pushed weights, normalised, over the successors.
	_, pest, err := f.Predict(w)
	if err != nil {
		t.Fatal(err)
	}
	for s := 0; s < steps; s++ {
		a := mat.NewVecDense(n, nil)
		a.MulVec(push, w.ColView(s))
		a.ScaleVec(1/mat.Sum(a), a)
		var m mat.VecDense
		m.MulVec(xp.T(), a)
		if d := maxAbsDiff(&m, pest.RowView(s)); d > 1e-8 {
			t.Errorf("step %d: prediction differs from Σa_i X_{i+1} by %g", s+1, d)
		}
	}
	lr, err := NewFilter(xs, ys, rbf(t, ell), rbf(t, ell), Settings{Eps: eps, Delta: delta, Rank: n + 1, Tol: 1e-300}, tr)
	if err != nil {
		t.Fatal(err)
	}
	swl, _, err := lr.Smooth(context.Background(), w, sdelta)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(sw, swl); d > 1e-6*maxAbs(sw) {
		t.Errorf("full-rank low-rank smoother differs from exact by %g (scale %g)", d, maxAbs(sw))
	}
}

// linearGaussian simulates x_{t+1} = a x_t + N(0, q), y_t = x_t + N(0, rr)
// in one dimension, started from the stationary law.
func linearGaussian(r *rand.Rand, steps int, a, q, rr float64) (x, y *mat.Dense) {
	x = mat.NewDense(steps, 1, nil)
	y = mat.NewDense(steps, 1, nil)
	v := r.NormFloat64() * math.Sqrt(q/(1-a*a))
	for t := 0; t < steps; t++ {
		if t > 0 {
			v = a*v + math.Sqrt(q)*r.NormFloat64()
		}
		x.Set(t, 0, v)
		y.Set(t, 0, v+math.Sqrt(rr)*r.NormFloat64())
	}
	return x, y
}

// kalmanRTS is the exact filter and Rauch–Tung–Striebel smoother for
// linearGaussian, started from the stationary law.
func kalmanRTS(y *mat.Dense, a, q, rr float64) (filt, smooth []float64) {
	steps, _ := y.Dims()
	m := make([]float64, steps)  // filtered means
	p := make([]float64, steps)  // filtered variances
	pp := make([]float64, steps) // predicted variances
	mp, vp := 0.0, q/(1-a*a)
	for t := 0; t < steps; t++ {
		if t > 0 {
			mp, vp = a*m[t-1], a*a*p[t-1]+q
		}
		pp[t] = vp
		k := vp / (vp + rr)
		m[t] = mp + k*(y.At(t, 0)-mp)
		p[t] = (1 - k) * vp
	}
	s := append([]float64(nil), m...)
	for t := steps - 2; t >= 0; t-- {
		g := p[t] * a / pp[t+1]
		s[t] = m[t] + g*(s[t+1]-a*m[t])
	}
	return m, s
}

// On a linear-Gaussian model the Kalman filter and RTS smoother are
// exact. The KBR smoother (default smoothing δ) learned from 200 training pairs must beat the
// KBR filter clearly (MSE below 0.85 of it; RTS gets about 0.65 of
// Kalman here), and both KBR estimates must come within 1.5 × the exact
// ones' MSE over 200 test steps (at 200 pairs the learned transition and
// observation models cost about 30%; at 400 pairs KBR is within 2–3%, too
// slow for the unit tests).
func TestSmootherLinearGaussian(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 0x727473)) // "rts"
	const a, q, rr = 0.9, 0.1, 0.5
	xs, ys := linearGaussian(r, 201, a, q, rr)
	xt, yt := linearGaussian(r, 200, a, q, rr)
	f, err := NewFilter(xs, ys, rbf(t, 0.8), rbf(t, 1.2), Settings{Eps: 1e-3, Delta: 1e-4}, TransitionSample)
	if err != nil {
		t.Fatal(err)
	}
	w, filt, err := f.Run(context.Background(), yt)
	if err != nil {
		t.Fatal(err)
	}
	_, smooth, err := f.Smooth(context.Background(), w, 0)
	if err != nil {
		t.Fatal(err)
	}
	kf, rts := kalmanRTS(yt, a, q, rr)
	mse := func(v []float64) float64 {
		s := 0.0
		for i, e := range v {
			d := e - xt.At(i, 0)
			s += d * d
		}
		return s / float64(len(v))
	}
	mf, ms := stateMSE(filt, xt), stateMSE(smooth, xt)
	mkf, mrts := mse(kf), mse(rts)
	t.Logf("MSE: observations %.4f, Kalman %.4f, RTS %.4f, KBR filter %.4f, KBR smoother %.4f", stateMSE(yt, xt), mkf, mrts, mf, ms)
	if !(mrts < mkf) {
		t.Fatalf("reference: RTS %.4f does not beat Kalman %.4f", mrts, mkf)
	}
	if !(ms < 0.85*mf) {
		t.Errorf("the KBR smoother (MSE %.4f) does not beat the KBR filter (%.4f) by 15%%", ms, mf)
	}
	if mf > 1.5*mkf {
		t.Errorf("KBR filter MSE %.4f, more than 1.5 × Kalman's %.4f", mf, mkf)
	}
	if ms > 1.5*mrts {
		t.Errorf("KBR smoother MSE %.4f, more than 1.5 × RTS's %.4f", ms, mrts)
	}
}
