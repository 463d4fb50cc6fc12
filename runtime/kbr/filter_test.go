package kbr

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// rotation simulates the noisy (oscillatory) rotation model of §5.3: the
// angle advances by eta, the state is (1 + b sin(Mθ))(cos θ, sin θ) plus
// N(0, 0.2²I) noise, and the observation is the state plus N(0, 0.2²I).
func rotation(r *rand.Rand, steps int, eta, b, m float64) (x, y *mat.Dense) {
	x = mat.NewDense(steps, 2, nil)
	y = mat.NewDense(steps, 2, nil)
	u, v := 1.0, 0.0
	for t := 0; t < steps; t++ {
		th := math.Atan2(v, u) + eta
		g := 1 + b*math.Sin(m*th)
		u = g*math.Cos(th) + 0.2*r.NormFloat64()
		v = g*math.Sin(th) + 0.2*r.NormFloat64()
		x.Set(t, 0, u)
		x.Set(t, 1, v)
		y.Set(t, 0, u+0.2*r.NormFloat64())
		y.Set(t, 1, v+0.2*r.NormFloat64())
	}
	return x, y
}

// The filter's recursion written out with explicit inverses, for both
// transitions.
func TestFilterMatchesDenseFormula(t *testing.T) {
	for _, tr := range []Transition{TransitionSample, TransitionOperator} {
		t.Run(string(tr), func(t *testing.T) { filterDense(t, tr) })
	}
}

func filterDense(t *testing.T, tr Transition) {
	r := rand.New(rand.NewPCG(41, 0x66696c)) // "fil"
	xs, ys := rotation(r, 31, 0.3, 0, 0)
	_, obs := rotation(r, 4, 0.3, 0, 0)
	const ell, eps, delta = 0.5, 0.01, 1e-4
	n := 30
	x := mat.DenseCopyOf(xs.Slice(0, n, 0, 2))
	xp := mat.DenseCopyOf(xs.Slice(1, n+1, 0, 2))
	y := mat.DenseCopyOf(ys.Slice(0, n, 0, 2))
	k := gauss(ell)
	gx := denseGram(k, x, x)
	gx.Add(gx, scaledIdentity(n, float64(n)*eps))
	var trans mat.Dense
	trans.Mul(inverse(t, gx), denseGram(k, x, xp))
	gy := denseGram(k, y, y)
	gyr := mat.NewDense(n, n, nil)
	gyr.Add(gy, scaledIdentity(n, float64(n)*eps))
	normalise := func(v *mat.VecDense) *mat.VecDense {
		s := mat.Sum(v)
		v.ScaleVec(1/s, v)
		return v
	}
	alpha := mat.NewVecDense(n, nil)
	alpha.MulVec(inverse(t, gyr), denseGram(k, y, mat.DenseCopyOf(obs.Slice(0, 1, 0, 2))).ColView(0))
	normalise(alpha)
	want := []*mat.VecDense{mat.VecDenseCopyOf(alpha)}
	smooth := inverse(t, gx)
	smooth.Mul(smooth, denseGram(k, x, x))
	for s := 1; s < 4; s++ {
		if tr == TransitionOperator {
			alpha.MulVec(smooth, mat.VecDenseCopyOf(alpha))
		}
		mu := mat.NewVecDense(n, nil)
		mu.MulVec(&trans, alpha)
		lam := mat.NewDiagDense(n, mu.RawVector().Data)
		var lg, a, rr mat.Dense
		lg.Mul(lam, gy)
		a.Mul(&lg, &lg)
		a.Add(&a, scaledIdentity(n, delta))
		rr.Mul(&lg, inverse(t, &a))
		rr.Mul(&rr, lam)
		alpha = mat.NewVecDense(n, nil)
		alpha.MulVec(&rr, denseGram(k, y, mat.DenseCopyOf(obs.Slice(s, s+1, 0, 2))).ColView(0))
		normalise(alpha)
		want = append(want, mat.VecDenseCopyOf(alpha))
	}
	f, err := NewFilter(xs.Slice(0, n+1, 0, 2).(*mat.Dense), mat.DenseCopyOf(ys.Slice(0, n+1, 0, 2)), rbf(t, ell), rbf(t, ell), Settings{Eps: eps, Delta: delta}, tr)
	if err != nil {
		t.Fatal(err)
	}
	w, est, err := f.Run(context.Background(), obs)
	if err != nil {
		t.Fatal(err)
	}
	for s, a := range want {
		if d := maxAbsDiff(a, w.ColView(s)); d > 1e-8*maxAbs(a) {
			t.Errorf("step %d: weights differ from the dense recursion by %g (scale %g)", s+1, d, maxAbs(a))
		}
		var m mat.VecDense
		m.MulVec(x.T(), a)
		if d := maxAbsDiff(&m, est.RowView(s)); d > 1e-10 {
			t.Errorf("step %d: estimate differs from Σα_i X_i by %g", s+1, d)
		}
	}
	// At full rank the low-rank recursion is the same.
	lr, err := NewFilter(xs.Slice(0, n+1, 0, 2).(*mat.Dense), mat.DenseCopyOf(ys.Slice(0, n+1, 0, 2)), rbf(t, ell), rbf(t, ell), Settings{Eps: eps, Delta: delta, Rank: n + 1, Tol: 1e-300}, tr)
	if err != nil {
		t.Fatal(err)
	}
	wl, _, err := lr.Run(context.Background(), obs)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(w, wl); d > 1e-6*maxAbs(w) {
		t.Errorf("full-rank low-rank filter differs from exact by %g (scale %g)", d, maxAbs(w))
	}
}

func stateMSE(est, x *mat.Dense) float64 {
	r, c := x.Dims()
	s := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			d := est.At(i, j) - x.At(i, j)
			s += d * d
		}
	}
	return s / float64(r)
}

// On the rotation model the filter beats the raw observations (whose
// squared error is 2·0.2² = 0.08 per step), and rank 60 on 300 training
// steps stays within the documented 0.01 of the exact filter's MSE.
func TestFilterRotation(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 0x66696c))
	xs, ys := rotation(r, 301, 0.3, 0, 0)
	xt, yt := rotation(r, 60, 0.3, 0, 0)
	const ell, eps, delta = 1.4, 1e-3, 1e-3 // ell: the median distance
	exact, err := NewFilter(xs, ys, rbf(t, ell), rbf(t, ell), Settings{Eps: eps, Delta: delta}, TransitionSample)
	if err != nil {
		t.Fatal(err)
	}
	_, e1, err := exact.Run(context.Background(), yt)
	if err != nil {
		t.Fatal(err)
	}
	lr, err := NewFilter(xs, ys, rbf(t, ell), rbf(t, ell), Settings{Eps: eps, Delta: delta, Rank: 60}, TransitionSample)
	if err != nil {
		t.Fatal(err)
	}
	_, e2, err := lr.Run(context.Background(), yt)
	if err != nil {
		t.Fatal(err)
	}
	raw, m1, m2 := stateMSE(yt, xt), stateMSE(e1, xt), stateMSE(e2, xt)
	t.Logf("MSE: observations %.4f, exact filter %.4f, rank 60 %.4f", raw, m1, m2)
	if m1 >= raw {
		t.Errorf("the exact filter (MSE %.4f) does not beat the raw observations (%.4f)", m1, raw)
	}
	if math.Abs(m2-m1) > 0.01 {
		t.Errorf("rank-60 filter MSE %.4f, exact %.4f", m2, m1)
	}
}

// countdown is a context whose Err is nil for its first left calls and
// context.Canceled from then on: a cancellation at a known check.
type countdown struct {
	context.Context
	left, calls int
}

func (c *countdown) Err() error {
	c.calls++
	if c.calls > c.left {
		return context.Canceled
	}
	return nil
}

// NewFilterContext checks its context between its stages (exact and low
// rank, each transition) and stops at the first check that finds it done;
// with no cancellation it builds the filter NewFilter builds.
func TestNewFilterCancelled(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	xs, ys := rotation(r, 41, 0.3, 0, 0)
	for _, rank := range []int{0, 10} {
		for _, tr := range []Transition{TransitionSample, TransitionOperator} {
			s := Settings{Eps: 1e-3, Delta: 1e-3, Rank: rank}
			all := &countdown{Context: context.Background(), left: 1 << 30}
			if _, err := NewFilterContext(all, xs, ys, rbf(t, 1), rbf(t, 1), s, tr); err != nil {
				t.Fatal(err)
			}
			if all.calls < 3 {
				t.Errorf("rank %d, %s: %d checks", rank, tr, all.calls)
			}
			for left := range all.calls {
				ctx := &countdown{Context: context.Background(), left: left}
				f, err := NewFilterContext(ctx, xs, ys, rbf(t, 1), rbf(t, 1), s, tr)
				if err != context.Canceled || f != nil || ctx.calls != left+1 {
					t.Errorf("rank %d, %s, cancelled at check %d: err %v after %d checks", rank, tr, left+1, err, ctx.calls)
				}
			}
		}
	}
}
