package infer_test

import (
	"context"
	"math"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/runtime/hmc"
)

// TestHeldOutLogLik: the held-out points of another instance of a model
// family, at the training posterior's draws, are the normal log density of
// each held-out value at each draw's (mu, sigma), draws in post's order;
// PointCount counts the instance's points before any fit.
func TestHeldOutLogLik(t *testing.T) {
	in := eval.New(eval.Options{})
	if _, err := in.Eval("ho.kml", `
model m(y) {
  mu ~ normal(0, 3)
  sigma ~ lognormal(0, 0.5)
  y ~ normal(mu, sigma)
}
let train = m(y: [0.4, -1.1, 2.0])
let test = m(y: [0.7, 3.0])
`); err != nil {
		t.Fatal(err)
	}
	compile := func(name string) *model.Compiled {
		v, _ := in.Lookup(name)
		c, err := model.CompileFor(in, v.(*eval.Model), nil, all)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ctrain, ctest := compile("train"), compile("test")
	th := in.NewThread(context.Background())
	if n, cond, err := infer.PointCount(th, ctest); err != nil || n != 2 || cond {
		t.Fatalf("PointCount %d, %v, %v; want 2, false", n, cond, err)
	}
	post, err := infer.Sample(th.Context(), th, ctrain, hmc.Settings{Chains: 2, Warmup: 100, Draws: 30, Seed: 36, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	ll, err := infer.HeldOutLogLik(context.Background(), th, post, ctest)
	if err != nil {
		t.Fatal(err)
	}
	if len(ll) != 2 || len(ll[0]) != 60 {
		t.Fatalf("matrix %d × %d, want 2 points × 60 draws", len(ll), len(ll[0]))
	}
	lnorm := func(x, m, s float64) float64 {
		z := (x - m) / s
		return -0.5*math.Log(2*math.Pi) - math.Log(s) - 0.5*z*z
	}
	s := 0
	for _, ch := range post.Values {
		for _, d := range ch {
			for i, y := range []float64{0.7, 3.0} {
				if want := lnorm(y, d[0], d[1]); math.Abs(ll[i][s]-want) > 1e-10 {
					t.Fatalf("point %d draw %d: %v, want %v", i+1, s+1, ll[i][s], want)
				}
			}
			s++
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := infer.HeldOutLogLik(ctx, th, post, ctest); err == nil {
		t.Error("a cancelled context gave no error")
	}
}
