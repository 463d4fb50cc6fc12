package inference

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kml-lang/kml/runtime/rng"
)

// gauss2 is a correlated 2-D Gaussian: mean (1, −2), sds (1, 3),
// correlation 0.8.
type gauss2 struct{}

var g2Mean = []float64{1, -2}
var g2Cov = [4]float64{1, 0.8 * 3, 0.8 * 3, 9}

func (gauss2) Dim() int { return 2 }

func (gauss2) LogDensity(grad, q []float64) (float64, error) {
	det := g2Cov[0]*g2Cov[3] - g2Cov[1]*g2Cov[2]
	p := [4]float64{g2Cov[3] / det, -g2Cov[1] / det, -g2Cov[2] / det, g2Cov[0] / det}
	d0, d1 := q[0]-g2Mean[0], q[1]-g2Mean[1]
	grad[0] = -(p[0]*d0 + p[1]*d1)
	grad[1] = -(p[2]*d0 + p[3]*d1)
	return 0.5 * (d0*grad[0] + d1*grad[1]), nil
}

// funnel is Neal's funnel: v ~ normal(0, 3), x_1..x_n ~ normal(0, exp(v/2))
// (n = 1 in a zero value), a posterior no Gaussian fits.
type funnel struct{ n int }

func (f funnel) Dim() int { return 1 + max(f.n, 1) }

func (f funnel) LogDensity(grad, q []float64) (float64, error) {
	n := float64(max(f.n, 1))
	v := q[0]
	lp := -v*v/18 - n*v/2
	grad[0] = -v/9 - n/2
	for i := 1; i < len(q); i++ {
		x := q[i]
		lp -= 0.5 * x * x * math.Exp(-v)
		grad[0] += 0.5 * x * x * math.Exp(-v)
		grad[i] = -x * math.Exp(-v)
	}
	return lp, nil
}

// TestPSISSmoothsOnlyTheTail: the ratios below the tail keep their values,
// and none exceeds the largest raw ratio.
func TestPSISSmoothsOnlyTheTail(t *testing.T) {
	r := rng.New(3, rng.Stream(0x74657374))
	lw := make([]float64, 1000)
	for i := range lw {
		lw[i] = 2 * r.NormFloat64()
	}
	out, k := PSIS(lw)
	top := math.Inf(-1)
	for _, l := range lw {
		top = math.Max(top, l)
	}
	changed := 0
	for i := range lw {
		if math.Abs(out[i]-lw[i]) > 1e-12 {
			changed++
		}
		if out[i] > top+1e-12 {
			t.Fatalf("smoothed weight %v above the largest raw one %v", out[i], top)
		}
	}
	if changed > 95 { // M = ⌈min(200, 3√1000)⌉ = 95
		t.Errorf("%d weights changed, more than the tail of 95", changed)
	}
	// lognormal ratios with σ = 2 have a heavy but finite-variance-ish tail:
	// k̂ between 0.3 and 1 (Vehtari et al. 2024, Fig. 2 region).
	if !(k > 0.3 && k < 1.1) {
		t.Errorf("k̂ = %v for lognormal(0, 2) ratios", k)
	}
}

func TestLaplaceIsTheGaussianOfAGaussian(t *testing.T) {
	res, cov, err := Laplace(context.Background(), gauss2{}, g2Mean, 4000, 11, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cov {
		if math.Abs(c-g2Cov[i]) > 1e-6*math.Abs(g2Cov[i]) {
			t.Errorf("cov[%d] = %v, want %v", i, c, g2Cov[i])
		}
	}
	// Draws: mean within 4 standard errors, the covariance within 10%.
	var m [2]float64
	for _, d := range res.Draws {
		m[0] += d[0] / 4000
		m[1] += d[1] / 4000
	}
	var c [4]float64
	for _, d := range res.Draws {
		a, b := d[0]-m[0], d[1]-m[1]
		c[0] += a * a / 3999
		c[1] += a * b / 3999
		c[3] += b * b / 3999
	}
	for i := range 2 {
		if se := math.Sqrt(g2Cov[3*i] / 4000); math.Abs(m[i]-g2Mean[i]) > 4*se {
			t.Errorf("mean %d = %v, want %v ± %v", i, m[i], g2Mean[i], 4*se)
		}
	}
	for _, i := range []int{0, 1, 3} {
		if math.Abs(c[i]-g2Cov[i]) > 0.1*math.Abs(g2Cov[i]) {
			t.Errorf("sample cov[%d] = %v, want %v", i, c[i], g2Cov[i])
		}
	}
	if !math.IsInf(res.Khat, -1) {
		t.Errorf("k̂ = %v; the ratios are constant, so −Inf", res.Khat)
	}
}

func TestLaplaceRefusesASaddle(t *testing.T) {
	if _, _, err := Laplace(context.Background(), funnel{}, []float64{0, 0}, 10, 1, nil); err != nil {
		t.Logf("%v", err)
	}
	// At v = −4.5 + x²e^{-v}/... the funnel's mode in v with x = 0 is
	// v = −4.5; its Hessian there is negative definite, so that works.
	if _, _, err := Laplace(context.Background(), funnel{}, []float64{-4.5, 0}, 10, 1, nil); err != nil {
		t.Errorf("the funnel's conditional mode: %v", err)
	}
	// A saddle of x² − y²: not negative definite.
	if _, _, err := Laplace(context.Background(), saddle{}, []float64{0, 0}, 10, 1, nil); err == nil {
		t.Errorf("a saddle point gave no error")
	}
}

type saddle struct{}

func (saddle) Dim() int { return 2 }
func (saddle) LogDensity(grad, q []float64) (float64, error) {
	grad[0], grad[1] = 2*q[0], -2*q[1]
	return q[0]*q[0] - q[1]*q[1], nil
}

func models(m Model, n int) []Model {
	out := make([]Model, n)
	for i := range out {
		out[i] = m
	}
	return out
}

// TestPathfinderFitMoments: on a correlated Gaussian the L-BFGS inverse
// Hessian with 5 pairs is exact in 2-D, so the moments match to Monte Carlo
// error after resampling (1000 draws: 4 se on the mean, 10% on the sd), and
// k̂ is small; on a 20-D funnel k̂ exceeds 0.7.
func TestPathfinderFitMoments(t *testing.T) {
	res, err := PathfinderFit(context.Background(), models(gauss2{}, 2), PathfinderSettings{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Draws) != 1000 || len(res.PathELBO) != 4 {
		t.Fatalf("%d draws, %d paths", len(res.Draws), len(res.PathELBO))
	}
	for i := range 2 {
		m, v := 0.0, 0.0
		for _, d := range res.Draws {
			m += d[i] / 1000
		}
		for _, d := range res.Draws {
			v += (d[i] - m) * (d[i] - m) / 999
		}
		sd := math.Sqrt(g2Cov[3*i])
		if math.Abs(m-g2Mean[i]) > 4*sd/math.Sqrt(1000) || math.Abs(math.Sqrt(v)-sd) > 0.1*sd {
			t.Errorf("coordinate %d: mean %v sd %v, want %v and %v", i, m, math.Sqrt(v), g2Mean[i], sd)
		}
	}
	if res.Khat > 0.5 {
		t.Errorf("k̂ = %v on a Gaussian", res.Khat)
	}
	bad, err := PathfinderFit(context.Background(), models(funnel{n: 19}, 2), PathfinderSettings{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !(bad.Khat > 0.7) {
		t.Errorf("k̂ = %v on the funnel, want above 0.7", bad.Khat)
	}
	t.Logf("k̂: Gaussian %.3f, funnel %.3f", res.Khat, bad.Khat)
}

// slow is a Gaussian that takes a millisecond per evaluation and counts
// on after the evaluations made once ctx is cancelled.
type slow struct {
	gauss2
	ctx   context.Context
	after *atomic.Int64
}

func (s slow) LogDensity(grad, q []float64) (float64, error) {
	if s.ctx.Err() != nil {
		s.after.Add(1)
	}
	time.Sleep(time.Millisecond)
	return s.gauss2.LogDensity(grad, q)
}

// TestApproximationsStopOnCancel: cancelled 100 ms in, pathfinder and
// laplace return an error having made few evaluations after the cancel
// (the draws look at the context every 64: at most that many per path,
// two paths here), where uncancelled they would make hundreds of
// thousands.
// Counting evaluations rather than timing the return keeps the test valid
// on a crowded machine.
func TestApproximationsStopOnCancel(t *testing.T) {
	const most = 2*64 + 10
	var after atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := PathfinderFit(ctx, models(slow{gauss2{}, ctx, &after}, 2), PathfinderSettings{Seed: 1, Draws: 100000, SingleDraws: 100000})
	if err == nil || after.Load() > most {
		t.Errorf("pathfinder: err %v after %d evaluations past the cancel", err, after.Load())
	}
	var after2 atomic.Int64
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel2)
	_, _, err = Laplace(ctx2, slow{gauss2{}, ctx2, &after2}, g2Mean, 100000, 1, nil)
	if err == nil || after2.Load() > most {
		t.Errorf("laplace: err %v after %d evaluations past the cancel", err, after2.Load())
	}
	t.Logf("evaluations after the cancel: pathfinder %d, laplace %d", after.Load(), after2.Load())
}

// TestPathfinderFitResamplesAwayAMinorMode: paths that end in a minor mode
// 200 nats below the main one have a far lower ELBO and draws of negligible
// importance weight, so no resampled draw is there; with one path that
// ends in the minor mode, its own draws are returned as they are.
func TestPathfinderFitResamplesAwayAMinorMode(t *testing.T) {
	m := minorMode()
	res, err := PathfinderFit(context.Background(), models(m, 2), PathfinderSettings{Seed: 3, Paths: 8})
	if err != nil {
		t.Fatal(err)
	}
	lowPaths := 0
	for _, e := range res.PathELBO {
		if e < -100 {
			lowPaths++
		}
	}
	if lowPaths == 0 {
		t.Fatalf("no path ended in the minor mode (ELBOs %v); pick a seed that shows it", res.PathELBO)
	}
	for _, d := range res.Draws {
		if math.Abs(d[0]-10) > 3 {
			t.Fatalf("a resampled draw at %v, outside the main mode", d[0])
		}
	}
	t.Logf("%d of 8 paths in the minor mode; ELBOs %v", lowPaths, res.PathELBO)
	one, err := PathfinderFit(context.Background(), models(m, 1), PathfinderSettings{Seed: 3, Paths: 1, SingleDraws: 50, Draws: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Draws) != 50 || len(one.LogQ) != 50 {
		t.Errorf("one path: %d draws, want its 50", len(one.Draws))
	}
}
