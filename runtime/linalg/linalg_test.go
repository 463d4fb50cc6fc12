package linalg

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomSPD returns a d×d SPD matrix BBᵀ + d·I as a SymDense.
func randomSPD(rng *rand.Rand, d int) *mat.SymDense {
	b := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			b.Set(i, j, rng.NormFloat64())
		}
	}
	a := mat.NewSymDense(d, nil)
	a.SymOuterK(1, b)
	for i := 0; i < d; i++ {
		a.SetSym(i, i, a.At(i, i)+float64(d))
	}
	return a
}

func rowMajorSym(a *mat.SymDense) []float64 {
	d := a.SymmetricDim()
	out := make([]float64, d*d)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			out[i*d+j] = a.At(i, j)
		}
	}
	return out
}

func TestCholeskyMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{1, 2, 3, 5, 8} {
		a := randomSPD(rng, d)
		var ch mat.Cholesky
		if !ch.Factorize(a) {
			t.Fatal("gonum: not positive definite")
		}
		var want mat.TriDense
		ch.LTo(&want)
		src := rowMajorSym(a)
		l := make([]float64, d*d)
		for i := range l {
			l[i] = math.NaN() // the upper triangle must be cleared
		}
		if !Cholesky(l, src, d) {
			t.Fatalf("d=%d: not positive definite", d)
		}
		inPlace := append([]float64(nil), src...)
		if !Cholesky(inPlace, inPlace, d) {
			t.Fatalf("d=%d in place: not positive definite", d)
		}
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				if got, w := l[i*d+j], want.At(i, j); math.Abs(got-w) > 1e-12*(1+math.Abs(w)) {
					t.Errorf("d=%d: L[%d,%d] = %v, gonum %v", d, i, j, got, w)
				}
				if inPlace[i*d+j] != l[i*d+j] {
					t.Errorf("d=%d: in place L[%d,%d] = %v, out of place %v", d, i, j, inPlace[i*d+j], l[i*d+j])
				}
			}
		}
		if src[0] != a.At(0, 0) {
			t.Errorf("d=%d: a was modified", d)
		}
	}
	if Cholesky(make([]float64, 4), []float64{1, 2, 2, 1}, 2) {
		t.Error("indefinite matrix factored")
	}
	if Cholesky(make([]float64, 1), []float64{math.NaN()}, 1) {
		t.Error("NaN factored")
	}
}

func TestCholeskyJitter(t *testing.T) {
	// Positive definite: no jitter unless asked for.
	rng := rand.New(rand.NewPCG(3, 4))
	a := randomSPD(rng, 4)
	var ch mat.Cholesky
	if jit, ok := CholeskyJitter(&ch, a, false); !ok || jit != 0 {
		t.Errorf("SPD: jitter %g, ok %v", jit, ok)
	}
	mean := mat.Trace(a) / 4
	if jit, ok := CholeskyJitter(&ch, a, true); !ok || jit != JitterStart*mean {
		t.Errorf("SPD, always: jitter %g, ok %v, want %g", jit, ok, JitterStart*mean)
	}
	// Rank one: the first jitter of the schedule that gonum can factor.
	v := mat.NewDense(3, 1, []float64{1, 2, 3})
	r1 := mat.NewSymDense(3, nil)
	r1.SymOuterK(1, v)
	jit, ok := CholeskyJitter(&ch, r1, false)
	if !ok || jit <= 0 || jit > JitterMax*14/3 {
		t.Fatalf("rank one: jitter %g, ok %v", jit, ok)
	}
	shifted := func(j float64) *mat.SymDense {
		b := mat.NewSymDense(3, nil)
		b.CopySym(r1)
		for i := 0; i < 3; i++ {
			b.SetSym(i, i, b.At(i, i)+j)
		}
		return b
	}
	var want, smaller mat.Cholesky
	if !want.Factorize(shifted(jit)) {
		t.Fatal("gonum cannot factor a + jitter·I")
	}
	if jit > JitterStart*14/3*(1+1e-9) && smaller.Factorize(shifted(jit/10)) {
		t.Errorf("jitter %g is not the smallest that works", jit)
	}
	if math.Abs(ch.Det()-want.Det()) > 1e-12*want.Det() {
		t.Errorf("det %g, gonum %g", ch.Det(), want.Det())
	}
	if _, ok := CholeskyJitter(&ch, mat.NewSymDense(2, []float64{1, 0, 0, -1}), false); ok {
		t.Error("indefinite matrix factored")
	}
	if _, ok := CholeskyJitter(&ch, mat.NewSymDense(2, nil), true); ok {
		t.Error("zero matrix factored")
	}
}

type sqExp struct{ ell float64 }

func (k sqExp) Eval(x, y []float64) float64 {
	var q float64
	for d := range x {
		q += (x[d] - y[d]) * (x[d] - y[d])
	}
	return math.Exp(-q / (2 * k.ell * k.ell))
}

// TestGPPredict compares with the predictive formed by dense inverse.
func TestGPPredict(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const m, p, dim, noise = 7, 4, 2, 0.1
	k := sqExp{0.9}
	obs := make([]float64, m*dim)
	for i := range obs {
		obs[i] = rng.NormFloat64()
	}
	at := mat.NewDense(p, dim, nil)
	for i := 0; i < p; i++ {
		for j := 0; j < dim; j++ {
			at.Set(i, j, rng.NormFloat64())
		}
	}
	y := mat.NewVecDense(m, nil)
	for i := 0; i < m; i++ {
		y.SetVec(i, rng.NormFloat64())
	}
	a := mat.NewDense(m, m, nil)
	aSym := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			v := k.Eval(obs[i*dim:(i+1)*dim], obs[j*dim:(j+1)*dim])
			if i == j {
				v += noise
			}
			a.Set(i, j, v)
			aSym.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(aSym) {
		t.Fatal("not positive definite")
	}
	mean, cov, err := GPPredict(k, &ch, obs, dim, y, at)
	if err != nil {
		t.Fatal(err)
	}
	var ainv mat.Dense
	if err := ainv.Inverse(a); err != nil {
		t.Fatal(err)
	}
	ks := mat.NewDense(m, p, nil)
	for l := 0; l < m; l++ {
		for j := 0; j < p; j++ {
			ks.Set(l, j, k.Eval(obs[l*dim:(l+1)*dim], at.RawRowView(j)))
		}
	}
	var ay mat.VecDense
	ay.MulVec(&ainv, y)
	var wantMean mat.VecDense
	wantMean.MulVec(ks.T(), &ay)
	var aks, quad mat.Dense
	aks.Mul(&ainv, ks)
	quad.Mul(ks.T(), &aks)
	for i := 0; i < p; i++ {
		if d := math.Abs(mean[i] - wantMean.AtVec(i)); d > 1e-10 {
			t.Errorf("mean[%d] = %v, dense %v", i, mean[i], wantMean.AtVec(i))
		}
		for j := 0; j < p; j++ {
			want := k.Eval(at.RawRowView(i), at.RawRowView(j)) - quad.At(i, j)
			if d := math.Abs(cov.At(i, j) - want); d > 1e-10 {
				t.Errorf("cov[%d,%d] = %v, dense %v", i, j, cov.At(i, j), want)
			}
		}
	}
}

func TestIgnoreCondition(t *testing.T) {
	if IgnoreCondition(mat.Condition(1e20)) != nil {
		t.Error("a condition warning was not dropped")
	}
	other := errors.New("other")
	if IgnoreCondition(other) != other {
		t.Error("another error was dropped")
	}
}

func TestRowMajor(t *testing.T) {
	big := mat.NewDense(3, 4, []float64{
		1, 2, 3, 4,
		5, 6, 7, 8,
		9, 10, 11, 12,
	})
	if got := RowMajor(big); len(got) != 12 || got[5] != 6 || &got[0] != &big.RawMatrix().Data[0] {
		t.Errorf("contiguous: %v", got)
	}
	view := big.Slice(1, 3, 1, 3).(*mat.Dense) // strided
	want := []float64{6, 7, 10, 11}
	got := RowMajor(view)
	if len(got) != len(want) {
		t.Fatalf("strided: %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("strided: %v, want %v", got, want)
			break
		}
	}
}

func TestDot(t *testing.T) {
	a := []float64{1, 2, 3}
	b := []float64{4, -5, 6, 100}
	if got := Dot(a, b); got != 12 {
		t.Errorf("Dot = %v, want 12", got)
	}
	if got := Dot(nil, b); got != 0 {
		t.Errorf("Dot of nothing = %v", got)
	}
}

// TestJitters checks the schedule's values, its end and its refusals.
func TestJitters(t *testing.T) {
	var got []float64
	for j := range Jitters(2) {
		got = append(got, j)
	}
	want := []float64{2e-10, 2e-9, 2e-8, 2e-7, 2e-6, 2e-5, 2e-4}
	if len(got) != len(want) {
		t.Fatalf("Jitters(2) = %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12*want[i] {
			t.Fatalf("Jitters(2)[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	for _, mean := range []float64{0, -1, math.NaN()} {
		for j := range Jitters(mean) {
			t.Fatalf("Jitters(%v) yielded %v", mean, j)
		}
	}
}
