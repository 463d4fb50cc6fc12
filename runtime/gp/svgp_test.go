package gp

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/internal/fulltest"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/rng"
)

// svgpFullStep is one full-batch natural-gradient step of size gamma,
// the hyperparameters held.
func svgpFullStep(t *testing.T, s *SVGP, x *mat.Dense, y []float64, gamma float64) {
	t.Helper()
	if _, err := s.Fit(context.Background(), x, y, SVGPSettings{Steps: 1, Gamma: gamma}); err != nil {
		t.Fatal(err)
	}
}

// TestSVGPExactGaussian: with a normal likelihood, Z = X and one
// full-batch natural-gradient step of size 1 from the prior, q is the
// exact posterior: the ELBO equals log N(y | 0, K + σ²I), q(u) the exact
// posterior of f at X, and the predictive at new points the exact GP
// predictive. With Z a subset of X the same step gives Titsias' collapsed
// bound, SGPR's.
func TestSVGPExactGaussian(t *testing.T) {
	x, y := testData(40, 2, 501)
	xnew, _ := testData(7, 2, 502)
	k := sgprKernel()
	sigma := 0.3
	lik := Lik{Kind: Normal, Params: []float64{sigma}}
	s, err := NewSVGP(k, lik, x)
	if err != nil {
		t.Fatal(err)
	}
	svgpFullStep(t, s, x, y, 1)
	got, err := s.Bound(x, y, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := denseLogMarginal(k, x, y, sigma*sigma)
	if math.Abs(got-want) > 1e-6 {
		t.Errorf("ELBO %.12g, exact log marginal %.12g", got, want)
	}
	// q(u) against the exact posterior N(K C⁻¹y, K − K C⁻¹K), C = K + σ²I.
	mu, cov, err := s.PosteriorU()
	if err != nil {
		t.Fatal(err)
	}
	K, _ := kernels.Gram(k, x)
	c := mat.NewDense(40, 40, nil)
	c.Copy(K)
	for i := 0; i < 40; i++ {
		c.Set(i, i, c.At(i, i)+sigma*sigma)
	}
	var cinvK, pc mat.Dense
	if err := cinvK.Solve(c, K); err != nil {
		t.Fatal(err)
	}
	pc.Mul(K, &cinvK)
	var pm mat.VecDense
	pm.MulVec(cinvK.T(), mat.NewVecDense(40, y))
	for i := 0; i < 40; i++ {
		if math.Abs(mu[i]-pm.AtVec(i)) > 1e-6 {
			t.Fatalf("posterior mean %d: %.10g, exact %.10g", i, mu[i], pm.AtVec(i))
		}
		for j := 0; j < 40; j++ {
			if w := K.At(i, j) - pc.At(i, j); math.Abs(cov.At(i, j)-w) > 1e-6 {
				t.Fatalf("posterior cov (%d, %d): %.10g, exact %.10g", i, j, cov.At(i, j), w)
			}
		}
	}
	pmean, pvar, err := s.Predict(xnew)
	if err != nil {
		t.Fatal(err)
	}
	emean, evar, err := SitesPredict(k, x, y, []float64{sigma * sigma}, xnew)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pmean {
		if math.Abs(pmean[i]-emean[i]) > 1e-6 || math.Abs(pvar[i]-evar[i]) > 1e-6 {
			t.Errorf("predictive %d: %.10g ± %.10g, exact %.10g ± %.10g", i, pmean[i], pvar[i], emean[i], evar[i])
		}
	}
	// At the optimal q the ELBO's gradient at fixed q is the exact log
	// marginal's (the envelope theorem), σ² → σ by the chain rule.
	nh := k.NumHyper()
	g := make([]float64, nh+1)
	if _, err := s.Bound(x, y, 0, g); err != nil {
		t.Fatal(err)
	}
	wg := make([]float64, nh+1)
	if _, err := LogMarginal(k, x, y, sigma*sigma, wg); err != nil {
		t.Fatal(err)
	}
	wg[nh] *= 2 * sigma
	for i := range g {
		if math.Abs(g[i]-wg[i]) > 1e-6*(1+math.Abs(wg[i])) {
			t.Errorf("gradient %d at the optimal q: %.10g, exact log marginal's %.10g", i, g[i], wg[i])
		}
	}
	// Z ⊂ X: the optimal q gives Titsias' bound.
	z := x.Slice(0, 9, 0, 2).(*mat.Dense)
	s2, _ := NewSVGP(k, lik, z)
	svgpFullStep(t, s2, x, y, 1)
	got2, err := s2.Bound(x, y, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	want2, err := SGPRLogMarginal(k, x, z, y, sigma*sigma, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got2-want2) > 1e-8*(1+math.Abs(want2)) {
		t.Errorf("ELBO at the optimal q with 9 inducing points %.12g, SGPR %.12g", got2, want2)
	}
}

// TestSVGPGradient checks Bound's gradient in every kernel hyperparameter
// and likelihood parameter against central differences (q(v) held in
// whitened coordinates), for the five likelihoods (the counts
// ⌊exp(0.8 + y_i)⌋, 0 to about 8), at a q(v) a few damped steps from the
// prior, with the rows cut into blocks of 17.
func TestSVGPGradient(t *testing.T) {
	defer func(b int) { svgpBlock = b }(svgpBlock)
	svgpBlock = 17
	x, y := testData(60, 2, 503)
	z, _ := testData(10, 2, 504)
	labels := make([]float64, len(y))
	counts := make([]float64, len(y))
	for i, v := range y {
		labels[i] = 1
		if v < 0 {
			labels[i] = -1
		}
		counts[i] = math.Floor(math.Exp(0.8 + v))
	}
	cases := []struct {
		name string
		lik  Lik
		y    []float64
	}{
		{"normal", Lik{Kind: Normal, Params: []float64{0.4}}, y},
		{"logit", Lik{Kind: Logit}, labels},
		{"student_t", Lik{Kind: StudentT, Params: []float64{4, 0.3}}, y},
		{"poisson_log", Lik{Kind: Poisson}, counts},
		{"neg_binomial_2_log", Lik{Kind: NegBinomial, Params: []float64{2.5}}, counts},
	}
	for _, c := range cases {
		k := sgprKernel()
		s, err := NewSVGP(k, c.lik, z)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			svgpFullStep(t, s, x, c.y, 0.5)
		}
		nh := k.NumHyper()
		grad := make([]float64, nh+len(c.lik.Params))
		if _, err := s.Bound(x, c.y, 0, grad); err != nil {
			t.Fatal(err)
		}
		h0 := k.Hyper(nil)
		names := append(k.HyperNames(), "lik.1", "lik.2")
		for i := range grad {
			f := func(delta float64) float64 {
				s2 := *s
				s2.Lik = Lik{Kind: c.lik.Kind, Params: append([]float64(nil), c.lik.Params...)}
				if i < nh {
					h := append([]float64(nil), h0...)
					h[i] += delta
					s2.K, _ = k.WithHyper(h)
				} else {
					s2.Lik.Params[i-nh] += delta
				}
				v, err := s2.Bound(x, c.y, 0, nil)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			const eps = 1e-5
			fd := (f(eps) - f(-eps)) / (2 * eps)
			if math.Abs(fd-grad[i]) > 1e-6*(1+math.Abs(fd)) {
				t.Errorf("%s: ∂ELBO/∂%s = %.9g, finite difference %.9g", c.name, names[i], grad[i], fd)
			}
		}
	}
}

// TestSVGPMinibatchScaling: over the minibatches of one partition of the
// rows, the n/|B|-scaled estimates average to the full ELBO exactly.
func TestSVGPMinibatchScaling(t *testing.T) {
	x, y := testData(60, 2, 505)
	z, _ := testData(6, 2, 506)
	s, _ := NewSVGP(sgprKernel(), Lik{Kind: StudentT, Params: []float64{3, 0.5}}, z)
	svgpFullStep(t, s, x, y, 0.7)
	full, err := s.Bound(x, y, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.state(s.K)
	if err != nil {
		t.Fatal(err)
	}
	kl, _ := st.kl()
	rule := newGH(DefaultSVGPQuad)
	mean := 0.0
	for b0 := 0; b0 < 60; b0 += 15 {
		acc := s.newAcc(s.K, false, false)
		if err := s.batch(st, s.K, rule, x.Slice(b0, b0+15, 0, 2).(*mat.Dense), y[b0:b0+15], 4, acc); err != nil {
			t.Fatal(err)
		}
		mean += (acc.ell - kl) / 4
	}
	if math.Abs(mean-full) > 1e-10*(1+math.Abs(full)) {
		t.Errorf("mean of the minibatch estimates %.12g, full ELBO %.12g", mean, full)
	}
}

// TestSVGPQuadrature checks the Gauss–Hermite expectation E[log P(y | f)],
// f ~ N(μ, v), and its derivatives in μ, v and the likelihood's
// parameters against the trapezoid rule on μ ± 14 sd with 4001 nodes
// (derivatives by central differences of that reference).
func TestSVGPQuadrature(t *testing.T) {
	dense := func(l Lik, y, mu, v float64) float64 {
		const nodes = 4001
		sd := math.Sqrt(v)
		lo, hi := mu-14*sd, mu+14*sd
		h := (hi - lo) / (nodes - 1)
		dp := make([]float64, 3)
		sum := 0.0
		for i := 0; i < nodes; i++ {
			f := lo + float64(i)*h
			w := h
			if i == 0 || i == nodes-1 {
				w /= 2
			}
			dens := math.Exp(-0.5*(f-mu)*(f-mu)/v) / math.Sqrt(2*math.Pi*v)
			var lp float64
			if l.Kind == Normal {
				s := l.Params[0]
				lp = -0.5*math.Log(2*math.Pi*s*s) - 0.5*(y-f)*(y-f)/(s*s)
			} else {
				lp = l.logProb(dp, y, f)
			}
			sum += w * dens * lp
		}
		return sum
	}
	// The tolerances are the rules' accuracy: 20 nodes (the default) are
	// good to 10⁻⁷ for the logistic and a few 10⁻⁵ for a Student-t whose
	// scale is below q's sd; 100 nodes to 10⁻⁶ there.
	cases := []struct {
		l        Lik
		y, mu, v float64
		nodes    int
		tol      float64
	}{
		{Lik{Kind: Logit}, 1, 0.7, 0.5, 20, 1e-9},
		{Lik{Kind: Logit}, -1, 2.5, 3, 20, 2e-7},
		{Lik{Kind: Normal, Params: []float64{0.6}}, 0.3, -0.2, 0.8, 20, 1e-9},
		{Lik{Kind: StudentT, Params: []float64{4, 0.5}}, 0.4, 0.1, 0.3, 20, 5e-5},
		{Lik{Kind: StudentT, Params: []float64{2.5, 1.2}}, -1, 0.5, 1.5, 20, 5e-5},
		{Lik{Kind: StudentT, Params: []float64{4, 0.5}}, 0.4, 0.1, 0.3, 100, 1e-6},
	}
	for _, c := range cases {
		rule := newGH(c.nodes)
		dp := make([]float64, len(c.l.Params))
		e, dmu, dv := c.l.expected(rule, c.y, c.mu, c.v, dp)
		want := dense(c.l, c.y, c.mu, c.v)
		const eps = 1e-4
		wmu := (dense(c.l, c.y, c.mu+eps, c.v) - dense(c.l, c.y, c.mu-eps, c.v)) / (2 * eps)
		wv := (dense(c.l, c.y, c.mu, c.v+eps) - dense(c.l, c.y, c.mu, c.v-eps)) / (2 * eps)
		if math.Abs(e-want) > c.tol || math.Abs(dmu-wmu) > c.tol+1e-6 || math.Abs(dv-wv) > c.tol+1e-6 {
			t.Errorf("%v (%d nodes) y=%g N(%g, %g): E %.10g dμ %.10g dv %.10g; reference %.10g %.10g %.10g",
				c.l, c.nodes, c.y, c.mu, c.v, e, dmu, dv, want, wmu, wv)
		}
		for j := range dp {
			up := Lik{Kind: c.l.Kind, Params: append([]float64(nil), c.l.Params...)}
			dn := Lik{Kind: c.l.Kind, Params: append([]float64(nil), c.l.Params...)}
			up.Params[j] += eps
			dn.Params[j] -= eps
			wp := (dense(up, c.y, c.mu, c.v) - dense(dn, c.y, c.mu, c.v)) / (2 * eps)
			if math.Abs(dp[j]-wp) > c.tol+1e-6 {
				t.Errorf("%v: ∂E/∂p%d = %.10g, reference %.10g", c.l, j+1, dp[j], wp)
			}
		}
	}
}

// classData is a two-class problem in two dimensions: labels drawn from
// P(y = 1 | x) = σ(3 sin(1.5 x₁) + x₂), n rows.
func classData(n int, seed uint64) (*mat.Dense, []float64) {
	r := rng.New(seed, testStream.Index(50))
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		a, b := 2*r.Float64()-1, 2*r.Float64()-1
		x.Set(i, 0, 2*a)
		x.Set(i, 1, 2*b)
		p := 1 / (1 + math.Exp(-(3*math.Sin(3*a) + 2*b)))
		y[i] = -1
		if r.Float64() < p {
			y[i] = 1
		}
	}
	return x, y
}

// svgpVsLaplace fits, at fixed hyperparameters (3·rbf(0.8)), the exact
// Laplace approximation and SVGP through m greedy inducing points with
// full-batch natural-gradient steps of size 1 on n classData points, and
// returns both held-out log-losses on n fresh points, each with the
// predictive probability ∫σ(f)q(f)df by Gauss–Hermite quadrature, SVGP's
// ELBO and its trace, and (with ep) EP's log evidence.
func svgpVsLaplace(t *testing.T, n, m, steps int, ep bool) (svLoss, lapLoss, elbo, epLogZ float64, trace []float64) {
	t.Helper()
	x, y := classData(n, 1)
	xt, yt := classData(n, 2)
	rbf, _ := kernels.NewRBF([]float64{0.8})
	k, _ := kernels.NewScaled(3, rbf)
	lik := Lik{Kind: Logit}
	rule := newGH(DefaultSVGPQuad)
	logLoss := func(mean, fvar []float64) float64 {
		ll := 0.0
		for i := range mean {
			p := 0.0
			sd := math.Sqrt2 * math.Sqrt(fvar[i])
			for j, tj := range rule.t {
				p += rule.w[j] / (1 + math.Exp(-(mean[i] + sd*tj)))
			}
			if yt[i] < 0 {
				p = 1 - p
			}
			ll -= math.Log(p)
		}
		return ll / float64(len(mean))
	}
	K, _ := kernels.Gram(k, x)
	post, err := LaplaceApprox{}.Fit(K, y, lik, Needs{Predictive: true})
	if err != nil {
		t.Fatal(err)
	}
	lm, lv, err := post.Predict(k, x, xt)
	if err != nil {
		t.Fatal(err)
	}
	if ep {
		p, err := EP{}.Fit(K, y, lik, Needs{})
		if err != nil {
			t.Fatal(err)
		}
		epLogZ = p.LogZ
	}
	z, err := GreedyVariance(k, x, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := NewSVGP(k, lik, z)
	res, err := s.Fit(context.Background(), x, y, SVGPSettings{Steps: steps, Gamma: 1})
	if err != nil {
		t.Fatal(err)
	}
	sm, sv, err := s.Predict(xt)
	if err != nil {
		t.Fatal(err)
	}
	svLoss, lapLoss = logLoss(sm, sv), logLoss(lm, lv)
	t.Logf("n = %d: held-out log-loss: SVGP (m = %d) %.5f, Laplace %.5f (%+.2f%%); ELBO %.4f, Laplace log q %.4f, EP %.4f",
		n, m, svLoss, lapLoss, 100*(svLoss-lapLoss)/lapLoss, res.ELBO, post.LogZ, epLogZ)
	return svLoss, lapLoss, res.ELBO, epLogZ, s.Trace
}

// TestSVGPClassifyNearLaplace: at fixed hyperparameters, on 300 training
// and 300 held-out points, SVGP's held-out log-loss through 60 greedy
// inducing points and 30 full-batch natural-gradient steps (step 1) lies
// within 2% of the exact Laplace fit's (−0.01% here); its ELBO lies below
// EP's approximate log evidence, as a bound must (Laplace's log q, not a
// bound, lies below both here); and the steps have settled.
func TestSVGPClassifyNearLaplace(t *testing.T) {
	svLoss, lapLoss, elbo, epLogZ, trace := svgpVsLaplace(t, 300, 60, 30, true)
	if math.Abs(svLoss-lapLoss) > 0.02*lapLoss {
		t.Errorf("SVGP's held-out log-loss %.5f, Laplace's %.5f", svLoss, lapLoss)
	}
	if !(elbo < epLogZ) {
		t.Errorf("SVGP's ELBO %.5f is not below EP's log evidence %.5f", elbo, epLogZ)
	}
	// The full-batch steps have settled: the last two ELBOs agree.
	if n := len(trace); math.Abs(trace[n-1]-elbo) > 1e-6 {
		t.Errorf("the ELBO still moves after 30 steps: %.8g then %.8g", trace[n-1], elbo)
	}
}

// TestSVGPClassifyNearLaplace3000 is the size: 3000 training and
// 3000 held-out points, 256 greedy inducing points, held-out log-loss
// within 1% of the exact Laplace fit's at the same hyperparameters
// (0.40206 against 0.40155, +0.13%, about 8 CPU-seconds).
func TestSVGPClassifyNearLaplace3000(t *testing.T) {
	fulltest.Require(t, "exact Laplace at n = 3000, tens of CPU-seconds")
	svLoss, lapLoss, _, _, _ := svgpVsLaplace(t, 3000, 256, 30, false)
	if math.Abs(svLoss-lapLoss) > 0.01*lapLoss {
		t.Errorf("SVGP's held-out log-loss %.5f, Laplace's %.5f", svLoss, lapLoss)
	}
}

// TestSVGPFitLearns: a seeded minibatch fit with Adam on the
// hyperparameters (batch 50 of 300 rows, 150 steps) raises the ELBO from
// the prior's, moves every hyperparameter, and repeats exactly with the
// same seed; a cancelled context stops it.
func TestSVGPFitLearns(t *testing.T) {
	x, y := classData(300, 3)
	rbf, _ := kernels.NewRBF([]float64{2})
	k, _ := kernels.NewScaled(1, rbf)
	z, err := GreedyVariance(k, x, 30, 0)
	if err != nil {
		t.Fatal(err)
	}
	run := func() (*SVGP, *SVGPResult) {
		s, _ := NewSVGP(k, Lik{Kind: Logit}, z)
		res, err := s.Fit(context.Background(), x, y, SVGPSettings{Batch: 50, Steps: 150, Gamma: 0.1, LR: 0.02, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		return s, res
	}
	s, res := run()
	s0, _ := NewSVGP(k, Lik{Kind: Logit}, z)
	e0, _ := s0.Bound(x, y, 0, nil)
	h0, h1 := k.Hyper(nil), s.K.Hyper(nil)
	t.Logf("ELBO %.3f → %.3f; hyperparameters %v → %v; %.1f epochs", e0, res.ELBO, h0, h1, res.Epochs)
	if !(res.ELBO > e0+10) {
		t.Errorf("the fit's ELBO %.4f, the prior's %.4f", res.ELBO, e0)
	}
	for i := range h0 {
		if h0[i] == h1[i] {
			t.Errorf("hyperparameter %d did not move", i)
		}
	}
	s2, res2 := run()
	if res2.ELBO != res.ELBO || s2.K.String() != s.K.String() {
		t.Errorf("the same seed gave ELBO %v and %v, kernels %s and %s", res.ELBO, res2.ELBO, s.K, s2.K)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s3, _ := NewSVGP(k, Lik{Kind: Logit}, z)
	if _, err := s3.Fit(ctx, x, y, SVGPSettings{Batch: 50, Steps: 1000, Gamma: 0.1}); err == nil {
		t.Error("a cancelled fit returned no error")
	}
}

// countdownCtx is a context whose Err turns to Canceled after a number of
// calls, to stop a computation at a chosen check.
type countdownCtx struct {
	context.Context
	left int
}

func (c *countdownCtx) Err() error {
	if c.left <= 0 {
		return context.Canceled
	}
	c.left--
	return nil
}

// TestSVGPStopsInsideAFullBatch: a full-batch step over three row blocks
// checks the context between blocks, so a cancellation after the step's
// first block stops the fit there (before, a whole batch of 10⁵ rows was
// one step that Ctrl-C could not enter). Both the one-GP and the
// C-class fits.
func TestSVGPStopsInsideAFullBatch(t *testing.T) {
	n := 3 * svgpBlock
	x, y := classData(n, 11)
	rbf, _ := kernels.NewRBF([]float64{2})
	k, _ := kernels.NewScaled(1, rbf)
	z := mat.DenseCopyOf(x.Slice(0, 5, 0, 2))
	s, _ := NewSVGP(k, Lik{Kind: Logit}, z)
	// One check at the step's start, one before the first block.
	ctx := &countdownCtx{Context: context.Background(), left: 2}
	if _, err := s.Fit(ctx, x, y, SVGPSettings{Steps: 1, Gamma: 1}); err != context.Canceled {
		t.Errorf("cancelled inside the batch: error %v, want context.Canceled", err)
	}
	if len(s.Trace) != 0 {
		t.Errorf("the step finished (%d ELBO values) after its context was cancelled", len(s.Trace))
	}
	labels := make([]int, n)
	for i, v := range y {
		labels[i] = (int(v) + 1) / 2 // ±1 to classes 0, 1
	}
	sm, err := NewSVGPMulti(k, z, 2, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx = &countdownCtx{Context: context.Background(), left: 2}
	if _, err := sm.Fit(ctx, x, labels, SVGPSettings{Steps: 1, Gamma: 1}); err != context.Canceled {
		t.Errorf("C classes, cancelled inside the batch: error %v, want context.Canceled", err)
	}
}
