package bke_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/runtime/hmc"
	_ "github.com/kml-lang/kml/stdlib"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestBKEPosteriorAgreesWithQuadrature samples the posterior of ell with τ²
// fixed at 1 and compares it with the same posterior computed by quadrature
// of exp(logp) over ell: the mean and sd must agree within 4 Monte Carlo
// standard errors, with R-hat ≤ 1.01, no divergences and bulk ESS ≥ 400 from
// 4 × 1000 draws.
func TestBKEPosteriorAgreesWithQuadrature(t *testing.T) {
	in, _ := kmltest.Run(t, kmltest.BKEData+`
model m {
  ell ~ gamma(1, 1)
  x ~ bke(rbf(ell), noise: 1, landmarks: z)
}
let post = sample(m, chains: 4, warmup: 1000, draws: 1000, seed: 3)
let s = summary(post)
`)
	post := kmltest.Lookup[*infer.Posterior](t, in, "post")
	s := post.Summary
	p := s.Params[0]
	if p.Rhat > 1.01 || s.Divergences > 0 || p.ESSBulk < 400 {
		t.Errorf("R-hat %.3f, %d divergences, bulk ESS %.0f: want ≤ 1.01, 0, ≥ 400", p.Rhat, s.Divergences, p.ESSBulk)
	}
	// The posterior density on a window of ±12 sd around the sample mean,
	// integrated by Simpson's rule with 2001 points.
	lo, hi := math.Max(p.Mean-12*p.SD, 1e-6), p.Mean+12*p.SD
	const n = 2001
	in2, _ := kmltest.Run(t, kmltest.BKEData+`
model m {
  ell ~ gamma(1, 1)
  x ~ bke(rbf(ell), noise: 1, landmarks: z)
}
let prof = profile(m, ell: linspace(`+eval.FormatNumber(lo)+`, `+eval.FormatNumber(hi)+`, 2001))
`)
	prof := kmltest.Lookup[*eval.Record](t, in2, "prof")
	gv, _ := prof.Attr("ell")
	lv, _ := prof.Attr("logp")
	grid, lp := gv.(*eval.Vec).Data, lv.(*eval.Vec).Data
	top := math.Inf(-1)
	for _, v := range lp {
		top = math.Max(top, v)
	}
	var z0, z1, z2 float64
	h := (grid[n-1] - grid[0]) / (n - 1)
	for i, v := range lp {
		w := 2.0
		switch {
		case i == 0 || i == n-1:
			w = 1
		case i%2 == 1:
			w = 4
		}
		d := w * math.Exp(v-top) * h / 3
		z0 += d
		z1 += d * grid[i]
		z2 += d * grid[i] * grid[i]
	}
	mean := z1 / z0
	sd := math.Sqrt(z2/z0 - mean*mean)
	// Monte Carlo standard errors of the mean and of the sd (the latter by
	// the delta method on E[(ell − mean)²]).
	chains := make([][]float64, len(post.Values))
	dev := make([][]float64, len(post.Values))
	for c, ch := range post.Values {
		for _, d := range ch {
			chains[c] = append(chains[c], d[0])
			dev[c] = append(dev[c], (d[0]-mean)*(d[0]-mean))
		}
	}
	seMean := hmc.MCSEMean(chains)
	seSD := hmc.MCSEMean(dev) / (2 * sd)
	t.Logf("quadrature: mean %.6f sd %.6f; NUTS: mean %.6f (MCSE %.2g) sd %.6f (MCSE %.2g), ESS %.0f, R-hat %.3f",
		mean, sd, p.Mean, seMean, p.SD, seSD, p.ESSBulk, p.Rhat)
	if math.Abs(p.Mean-mean) > 4*seMean {
		t.Errorf("posterior mean %v, quadrature %v (MCSE %v)", p.Mean, mean, seMean)
	}
	if math.Abs(p.SD-sd) > 4*seSD {
		t.Errorf("posterior sd %v, quadrature %v (MCSE %v)", p.SD, sd, seSD)
	}
}

// TestBKEFreeNoiseIsFlagged samples the model with ell and τ² both free
// under Gamma(1, 1) priors on one-dimensional data, whose posterior runs into
// the degenerate region; the summary must say so.
func TestBKEFreeNoiseIsFlagged(t *testing.T) {
	in, _ := kmltest.Run(t, kmltest.BKEData+`
model free {
  ell ~ gamma(1, 1)
  tau2 ~ gamma(1, 1)
  x ~ bke(rbf(ell), noise: tau2, landmarks: z)
}
let post = sample(free, chains: 2, warmup: 300, draws: 200, seed: 1)
`)
	post := kmltest.Lookup[*infer.Posterior](t, in, "post")
	var found bool
	for _, w := range post.Summary.Warnings {
		if strings.HasPrefix(w, "bke: ") && strings.Contains(w, "degenerate") {
			found = true
		}
	}
	if !found {
		t.Errorf("no degeneracy warning in %q", post.Summary.Warnings)
	}
}

func TestBKEErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"model m {\n ell ~ gamma(1, 1)\n x ~ bke(matern32(ell), noise: 1, landmarks: z)\n}\nprint(logp(m, {ell: 1}))",
			"bke needs rbf(ell), c * rbf(ell) or a sum of them (c1 * rbf(l1) + c2 * rbf(l2) + ...), got matern32(1)"},
		{"model m {\n ell ~ gamma(1, 1)\n x ~ bke(rbf(ell), noise: -1, landmarks: z)\n}\nprint(logp(m, {ell: 1}))",
			"noise (τ²) must be positive"},
		{"model m {\n ell ~ gamma(1, 1)\n x ~ bke(rbf(ell), noise: 1, landmarks: z, prior: \"gaussian\")\n}\nprint(logp(m, {ell: 1}))",
			`prior "gaussian" needs eta`},
		{"model m {\n ell ~ gamma(1, 1)\n x ~ bke(rbf(ell), noise: 1, landmarks: [[1, 2]])\n}\nprint(logp(m, {ell: 1}))",
			"the data is 100×1 but the landmarks are 1×2"},
	}
	for _, c := range cases {
		var out bytes.Buffer
		in := eval.New(eval.Options{Stdout: &out, Stderr: &out})
		_, err := in.Eval("t.kml", kmltest.BKEData+c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

func TestEmbeddingAndWitness(t *testing.T) {
	in, _ := kmltest.Run(t, kmltest.BKEData+`
model m {
  ell ~ gamma(1, 1)
  x ~ bke(rbf(ell), noise: 1, landmarks: z)
}
let post = sample(m, chains: 2, warmup: 200, draws: 100, seed: 5)
let grid = linspace(-3, 3, 13)
let e = embedding(post, p, at: grid, draws: 50, seed: 1)
let w = witness(post, p, post, q, at: grid, draws: 50, seed: 1)
let same = witness(post, p, post, p, at: grid, draws: 50, seed: 1)
let fixed = embedding(m, p, at: grid, values: {ell: 0.3})
`)
	e := kmltest.Lookup[*eval.Record](t, in, "e")
	mean, _ := e.Attr("mean")
	lower, _ := e.Attr("lower")
	upper, _ := e.Attr("upper")
	for i := range mean.(*eval.Vec).Data {
		m, l, u := mean.(*eval.Vec).Data[i], lower.(*eval.Vec).Data[i], upper.(*eval.Vec).Data[i]
		if !(l <= m && m <= u) {
			t.Errorf("point %d: band [%v, %v] does not hold the mean %v", i, l, u, m)
		}
	}
	// The witness of a sample against itself is 0 in mean (each draw pairs
	// two independent GP draws, so the band straddles 0).
	same := kmltest.Lookup[*eval.Record](t, in, "same")
	sm, _ := same.Attr("mean")
	for i, v := range sm.(*eval.Vec).Data {
		if math.Abs(v) > 1e-12 {
			t.Errorf("witness of p against itself: mean %v at point %d", v, i)
		}
	}
	fixed := kmltest.Lookup[*eval.Record](t, in, "fixed")
	if _, ok := fixed.Attr("sd"); !ok {
		t.Error("the fixed-hyperparameter embedding has no sd")
	}
}

// TestBKEModelGradient checks the gradient path from the bke family back
// through the kernel's hyperparameters and τ² onto the model parameters,
// including a scaled ARD kernel built from expressions of the parameters.
func TestBKEModelGradient(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = cbind(draw(normal(0, 1), 60, seed: 1), draw(normal(0, 2), 60, seed: 2))
let z = landmarks(x, 8, seed: 3)
model m {
  le[2] ~ normal(0, 1)
  amp ~ gamma(2, 2)
  tau2 ~ gamma(2, 2)
  k = amp * rbf(exp(le) + 0.3)
  x ~ bke(k, noise: tau2 / 2, landmarks: z)
}
`)
	kmltest.CheckModelGradient(t, in, "m", 1e-5, []float64{0.2, -0.4, 0.3, -0.1})
}
