package dpm

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// logMarginal is the closed-form NIW marginal likelihood of the rows of x
// (Murphy 2007, eq. 266), computed from Ψ_n formed explicitly: a reference
// independent of the sampler's rank-one updates and t densities.
func logMarginal(p *Prior, x [][]float64) float64 {
	d := len(p.Mu0)
	n := float64(len(x))
	kn, nn := p.Kappa0+n, p.Nu0+n
	psi := mat.NewSymDense(d, nil)
	psi.CopySym(p.Psi0)
	if len(x) > 0 {
		mean := make([]float64, d)
		for _, r := range x {
			for j, v := range r {
				mean[j] += v / n
			}
		}
		for a := 0; a < d; a++ {
			for b := a; b < d; b++ {
				s := 0.0
				for _, r := range x {
					s += (r[a] - mean[a]) * (r[b] - mean[b])
				}
				s += p.Kappa0 * n / kn * (mean[a] - p.Mu0[a]) * (mean[b] - p.Mu0[b])
				psi.SetSym(a, b, psi.At(a, b)+s)
			}
		}
	}
	lgd := func(nu float64) float64 { // log multivariate gamma Γ_d(ν/2)
		s := float64(d*(d-1)) / 4 * math.Log(math.Pi)
		for j := 1; j <= d; j++ {
			v, _ := math.Lgamma(nu/2 + float64(1-j)/2)
			s += v
		}
		return s
	}
	ld := func(m *mat.SymDense) float64 {
		var c mat.Cholesky
		if !c.Factorize(m) {
			panic("not positive definite")
		}
		return c.LogDet()
	}
	return -n*float64(d)/2*math.Log(math.Pi) + lgd(nn) - lgd(p.Nu0) +
		p.Nu0/2*ld(p.Psi0) - nn/2*ld(psi) + float64(d)/2*math.Log(p.Kappa0/kn)
}

func testPrior(d int, mu0 []float64) *Prior {
	psi := mat.NewSymDense(d, nil)
	for j := 0; j < d; j++ {
		psi.SetSym(j, j, 0.7)
	}
	psi.SetSym(0, d-1, psi.At(0, d-1)+0.2*float64(min(1, d-1)))
	return &Prior{Mu0: mu0, Kappa0: 0.3, Nu0: float64(d) + 1.5, Psi0: psi}
}

// TestPredictiveIsMarginalRatio: a cluster's t predictive equals
// m(X ∪ {x})/m(X) by the closed form, after adds and after a remove.
func TestPredictiveIsMarginalRatio(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	d := 3
	p := testPrior(d, []float64{0.1, -0.2, 0.3})
	var pts [][]float64
	c := empty(p)
	work := make([]float64, d)
	for i := 0; i < 6; i++ {
		r := []float64{rnd.NormFloat64(), rnd.NormFloat64() + 1, 2 * rnd.NormFloat64()}
		pts = append(pts, r)
		if !c.add(r, work) {
			t.Fatal("add failed")
		}
	}
	if !c.remove(pts[2], work) {
		t.Fatal("remove failed")
	}
	pts = append(pts[:2:2], pts[3:]...)
	for k := 0; k < 5; k++ {
		x := []float64{rnd.NormFloat64(), rnd.NormFloat64(), rnd.NormFloat64()}
		want := logMarginal(p, append(pts[:len(pts):len(pts)], x)) - logMarginal(p, pts)
		if got := c.logPred(x, work); math.Abs(got-want) > 1e-9 {
			t.Errorf("point %d: logPred %v, marginal ratio %v", k, got, want)
		}
		want0 := logMarginal(p, [][]float64{x}) - logMarginal(p, nil)
		if got := empty(p).logPred(x, work); math.Abs(got-want0) > 1e-9 {
			t.Errorf("prior predictive %v, want %v", got, want0)
		}
	}
}

func fit1D(t *testing.T, xs []float64, s Settings) *Model {
	t.Helper()
	m, err := Fit(context.Background(), mat.NewDense(len(xs), 1, xs), s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestIntegratesToOne: the 1-D predictive density integrates to one over
// the line (x = tan θ, midpoint rule in θ).
func TestIntegratesToOne(t *testing.T) {
	rnd := rand.New(rand.NewPCG(2, 2))
	xs := make([]float64, 30)
	for i := range xs {
		xs[i] = rnd.NormFloat64()*0.3 + float64(i%3)*2
	}
	m := fit1D(t, xs, Settings{Iter: 30, Seed: 3})
	const q = 20000
	pts := mat.NewDense(q, 1, nil)
	jac := make([]float64, q)
	for i := 0; i < q; i++ {
		th := -math.Pi/2 + (float64(i)+0.5)*math.Pi/q
		pts.Set(i, 0, math.Tan(th))
		jac[i] = 1 / (math.Cos(th) * math.Cos(th))
	}
	lp := make([]float64, q)
	if err := m.LogPDF(lp, pts); err != nil {
		t.Fatal(err)
	}
	s := 0.0
	for i, v := range lp {
		s += math.Exp(v) * jac[i] * math.Pi / q
	}
	if math.Abs(s-1) > 1e-4 {
		t.Errorf("the density integrates to %v", s)
	}
}

// partitions lists every set partition of 0..n−1 as block labels.
func partitions(n int) [][]int {
	var out [][]int
	var rec func(z []int, k int)
	rec = func(z []int, k int) {
		if len(z) == n {
			out = append(out, append([]int(nil), z...))
			return
		}
		for c := 0; c <= k; c++ {
			rec(append(z, c), max(k, c+1))
		}
	}
	rec(nil, 0)
	return out
}

// exact enumerates the partitions of tiny data: the posterior over the
// number of clusters and the posterior predictive density at xs.
func exact(p *Prior, alpha float64, data [][]float64, xs [][]float64) (pk []float64, pred []float64) {
	n := len(data)
	parts := partitions(n)
	logw := make([]float64, len(parts))
	top := math.Inf(-1)
	for i, z := range parts {
		blocks := map[int][][]float64{}
		for j, c := range z {
			blocks[c] = append(blocks[c], data[j])
		}
		w := 0.0
		for _, b := range blocks {
			g, _ := math.Lgamma(float64(len(b)))
			w += math.Log(alpha) + g + logMarginal(p, b)
		}
		logw[i] = w
		top = max(top, w)
	}
	z := 0.0
	for i := range logw {
		logw[i] = math.Exp(logw[i] - top)
		z += logw[i]
	}
	pk = make([]float64, n+1)
	pred = make([]float64, len(xs))
	for i, zz := range parts {
		w := logw[i] / z
		blocks := map[int][][]float64{}
		for j, c := range zz {
			blocks[c] = append(blocks[c], data[j])
		}
		pk[len(blocks)] += w
		for q, x := range xs {
			v := alpha / (float64(n) + alpha) * math.Exp(logMarginal(p, [][]float64{x})-logMarginal(p, nil))
			for _, b := range blocks {
				v += float64(len(b)) / (float64(n) + alpha) *
					math.Exp(logMarginal(p, append(b[:len(b):len(b)], x))-logMarginal(p, b))
			}
			pred[q] += w * v
		}
	}
	return pk, pred
}

// TestAgainstEnumeration: for n = 5 points in 1-D, the sampler's
// predictive density and its distribution of the number of clusters match
// the exact posterior by enumerating all 52 partitions. This checks that
// the Gibbs chain leaves the posterior invariant (and mixes) as well as
// the predictive formula.
func TestAgainstEnumeration(t *testing.T) {
	data := []float64{-1.2, -0.9, 0.4, 1.5, 1.7}
	s := Settings{Alpha: 0.8, Scale: 0.6, Kappa0: 0.5, Nu0: 3.5, Iter: 40000, Burn: 100, Thin: 1, Seed: 4}
	m := fit1D(t, data, s)
	mean := 0.0
	for _, v := range data {
		mean += v / float64(len(data))
	}
	psi := mat.NewSymDense(1, []float64{s.Scale * s.Scale * (s.Nu0 - 2)})
	p := &Prior{Mu0: []float64{mean}, Kappa0: s.Kappa0, Nu0: s.Nu0, Psi0: psi}
	xs := []float64{-3, -1, 0, 0.5, 1.6, 4}
	rows := make([][]float64, len(xs))
	for i, v := range xs {
		rows[i] = []float64{v}
	}
	dat := make([][]float64, len(data))
	for i, v := range data {
		dat[i] = []float64{v}
	}
	pk, pred := exact(p, s.Alpha, dat, rows)
	lp := make([]float64, len(xs))
	if err := m.LogPDF(lp, mat.NewDense(len(xs), 1, xs)); err != nil {
		t.Fatal(err)
	}
	for i := range xs {
		if r := math.Exp(lp[i]) / pred[i]; math.Abs(r-1) > 0.01 {
			t.Errorf("x = %v: sampler %v, enumeration %v", xs[i], math.Exp(lp[i]), pred[i])
		}
	}
	freq := make([]float64, len(data)+1)
	for _, k := range m.Clusters {
		freq[k] += 1 / float64(len(m.Clusters))
	}
	for k := 1; k <= len(data); k++ {
		if math.Abs(freq[k]-pk[k]) > 0.015 {
			t.Errorf("P(K = %d): sampler %.4f, enumeration %.4f", k, freq[k], pk[k])
		}
	}
	t.Logf("P(K) exact %.3f, sampled %.3f", pk[1:], freq[1:])
}

// TestSettingsErrors: bad settings and NaN data are errors, not panics.
func TestSettingsErrors(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{0, 1, 2, 3, 4, 5})
	for _, s := range []Settings{{Alpha: -1}, {Scale: math.Inf(1)}, {Nu0: 2.5}, {Iter: 10, Burn: 10}, {Thin: -1}} {
		if _, err := Fit(context.Background(), x, s); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
	bad := mat.NewDense(2, 1, []float64{0, math.NaN()})
	if _, err := Fit(context.Background(), bad, Settings{}); err == nil {
		t.Error("NaN data: no error")
	}
	m, err := Fit(context.Background(), x, Settings{Iter: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.LogPDF(make([]float64, 1), mat.NewDense(1, 2, []float64{math.NaN(), 0})); err == nil {
		t.Error("NaN point: no error")
	}
}
