package bke

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/linalg"
)

// densePosterior is eq. (8) with the landmarks as observation points, by
// plain dense solves.
func densePosterior(t *testing.T, x, z, at *mat.Dense, h Hyper, opt Options) ([]float64, *mat.Dense) {
	n, _ := x.Dims()
	m, _ := z.Dims()
	p, _ := at.Dims()
	rk, err := NewPriorKernel(h.Amp, h.Ell, opt.Prior, opt.Eta)
	if err != nil {
		t.Fatal(err)
	}
	muhat := mat.NewDense(m, 1, nil)
	for l := 0; l < m; l++ {
		var s float64
		for i := 0; i < n; i++ {
			s += seK(h.Amp, h.Ell, x.RawRowView(i), z.RawRowView(l))
		}
		muhat.Set(l, 0, s/float64(n))
	}
	a := mat.NewDense(m, m, nil)
	for j := 0; j < m; j++ {
		for l := 0; l < m; l++ {
			v := rk.Eval(z.RawRowView(j), z.RawRowView(l))
			if j == l {
				v += h.Tau2 / float64(n)
			}
			a.Set(j, l, v)
		}
	}
	rs := mat.NewDense(m, p, nil)
	rss := mat.NewDense(p, p, nil)
	for j := 0; j < p; j++ {
		for l := 0; l < m; l++ {
			rs.Set(l, j, rk.Eval(z.RawRowView(l), at.RawRowView(j)))
		}
		for k := 0; k < p; k++ {
			rss.Set(j, k, rk.Eval(at.RawRowView(j), at.RawRowView(k)))
		}
	}
	var sol, mean, v, cov mat.Dense
	if err := sol.Solve(a, muhat); err != nil {
		t.Fatal(err)
	}
	mean.Mul(rs.T(), &sol)
	if err := v.Solve(a, rs); err != nil {
		t.Fatal(err)
	}
	cov.Mul(rs.T(), &v)
	cov.Sub(rss, &cov)
	return mat.Col(nil, 0, &mean), &cov
}

func TestPosteriorMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, c := range testCases() {
		x, z, h, opt := c.setup(rng)
		at := randMatrix(rng, 4, c.dim, 1.5)
		md, err := New(x, z, opt)
		if err != nil {
			t.Fatal(err)
		}
		mean, cov, err := md.Posterior(h, at)
		if err != nil {
			t.Fatal(err)
		}
		wantMean, wantCov := densePosterior(t, x, z, at, h, opt)
		for i := range mean {
			if math.Abs(mean[i]-wantMean[i]) > 1e-10*(1+math.Abs(wantMean[i])) {
				t.Errorf("%v: mean[%d] = %g, dense %g", c, i, mean[i], wantMean[i])
			}
			for j := range mean {
				if math.Abs(cov.At(i, j)-wantCov.At(i, j)) > 1e-10*(1+math.Abs(wantCov.At(i, i))) {
					t.Errorf("%v: cov[%d,%d] = %g, dense %g", c, i, j, cov.At(i, j), wantCov.At(i, j))
				}
			}
		}
	}
}

// TestPosteriorIsShrinkageEstimator checks §4.2: with the prior covariance
// replaced by the kernel k itself and the data as observation points, the
// GP posterior mean is the S-KMSE of Muandet et al. (2013),
// Σ_i β_i k(·, x_i) with β = (1/n)(K + nλI)⁻¹K1, when λ = τ²/n².
func TestPosteriorIsShrinkageEstimator(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, dim := range []int{1, 2} {
		const n = 15
		x := randMatrix(rng, n, dim, 1)
		at := randMatrix(rng, 5, dim, 1.5)
		ell := 0.8
		tau2 := 0.7
		lambda := tau2 / (n * n)
		// The normalised prior with lengthscale ℓ/√2 is the SE kernel of
		// lengthscale ℓ: exp(−|δ|²/(4(ℓ/√2)²)) = exp(−|δ|²/(2ℓ²)).
		k, err := NewPriorKernel(1, []float64{ell / math.Sqrt2}, Normalised, 0)
		if err != nil {
			t.Fatal(err)
		}
		kxx := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				kxx.SetSym(i, j, seK(1, []float64{ell}, x.RawRowView(i), x.RawRowView(j)))
			}
		}
		// S-KMSE, computed directly.
		a := mat.NewDense(n, n, nil)
		a.Copy(kxx)
		for i := 0; i < n; i++ {
			a.Set(i, i, a.At(i, i)+n*lambda)
		}
		k1 := mat.NewVecDense(n, nil)
		k1.MulVec(kxx, mat.NewVecDense(n, ones(n)))
		var beta mat.VecDense
		if err := beta.SolveVec(a, k1); err != nil {
			t.Fatal(err)
		}
		beta.ScaleVec(1/float64(n), &beta)

		// The GP route.
		y := mat.NewVecDense(n, nil)
		for i := 0; i < n; i++ {
			y.SetVec(i, k1.AtVec(i)/n)
		}
		noisy := mat.NewSymDense(n, nil)
		noisy.CopySym(kxx)
		for i := 0; i < n; i++ {
			noisy.SetSym(i, i, noisy.At(i, i)+tau2/n)
		}
		var chol mat.Cholesky
		if !chol.Factorize(noisy) {
			t.Fatal("not positive definite")
		}
		obs := append([]float64(nil), x.RawMatrix().Data...)
		mean, _, err := linalg.GPPredict(k, &chol, obs, dim, y, at)
		if err != nil {
			t.Fatal(err)
		}
		for j := range mean {
			var want float64
			for i := 0; i < n; i++ {
				want += beta.AtVec(i) * seK(1, []float64{ell}, at.RawRowView(j), x.RawRowView(i))
			}
			if math.Abs(mean[j]-want) > 1e-12*(1+math.Abs(want)) {
				t.Errorf("D=%d: posterior mean %.15g, S-KMSE %.15g", dim, mean[j], want)
			}
		}
	}
}

func ones(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// TestDrawPosterior compares the moments of many seeded draws with
// Posterior's mean and covariance (within five standard errors).
func TestDrawPosterior(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	x := randMatrix(rng, 60, 1, 1)
	z := randMatrix(rng, 8, 1, 1)
	at := mat.NewDense(3, 1, []float64{-1, 0, 0.5})
	md, err := New(x, z, Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := Hyper{Ell: []float64{0.6}, Tau2: 2}
	mean, cov, err := md.Posterior(h, at)
	if err != nil {
		t.Fatal(err)
	}
	const draws = 20000
	sum := make([]float64, 3)
	sum2 := mat.NewDense(3, 3, nil)
	d := make([]float64, 3)
	draw := rand.New(rand.NewPCG(47, 48))
	for k := 0; k < draws; k++ {
		if err := md.DrawPosterior(d, nil, h, at, draw); err != nil {
			t.Fatal(err)
		}
		for i := range d {
			sum[i] += d[i]
			for j := range d {
				sum2.Set(i, j, sum2.At(i, j)+(d[i]-mean[i])*(d[j]-mean[j]))
			}
		}
	}
	for i := range sum {
		sd := math.Sqrt(cov.At(i, i))
		if got := sum[i] / draws; math.Abs(got-mean[i]) > 5*sd/math.Sqrt(draws) {
			t.Errorf("mean of draws at %d: %g, posterior mean %g (sd %g)", i, got, mean[i], sd)
		}
		for j := range sum {
			got := sum2.At(i, j) / draws
			se := math.Sqrt((cov.At(i, i)*cov.At(j, j) + cov.At(i, j)*cov.At(i, j)) / draws)
			if math.Abs(got-cov.At(i, j)) > 5*se {
				t.Errorf("covariance of draws [%d,%d]: %g, posterior %g (se %g)", i, j, got, cov.At(i, j), se)
			}
		}
	}
}

func TestPosteriorErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(49, 50))
	md, err := New(randMatrix(rng, 10, 2, 1), randMatrix(rng, 4, 2, 1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := Hyper{Ell: []float64{1}, Tau2: 1}
	if _, _, err := md.Posterior(h, randMatrix(rng, 3, 1, 1)); err == nil {
		t.Error("evaluation points with the wrong number of columns accepted")
	}
	bad := randMatrix(rng, 3, 2, 1)
	bad.Set(1, 0, math.NaN())
	if _, _, err := md.Posterior(h, bad); err == nil {
		t.Error("NaN evaluation point accepted")
	}
}
