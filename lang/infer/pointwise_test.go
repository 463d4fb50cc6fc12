package infer_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/runtime/hmc"
)

// TestPointwiseLogLik: the S×N matrix holds, for each point of y and for
// the scalar observation, the normal log density at every draw, chains one
// after another as post.Values; a cancelled context stops it.
func TestPointwiseLogLik(t *testing.T) {
	in := eval.New(eval.Options{})
	if _, err := in.Eval("pw.kml", `
let y = [0.4, -1.1, 2.0]
model m {
  mu ~ normal(0, 3)
  sigma ~ lognormal(0, 0.5)
  y ~ normal(mu, sigma)
  0.5 ~ normal(mu, 2)
}
`); err != nil {
		t.Fatal(err)
	}
	v, _ := in.Lookup("m")
	c, err := model.CompileFor(in, v.(*eval.Model), nil, all)
	if err != nil {
		t.Fatal(err)
	}
	th := in.NewThread(context.Background())
	post, err := infer.Sample(th.Context(), th, c, hmc.Settings{Chains: 2, Warmup: 100, Draws: 40, Seed: 36, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	ll, err := infer.PointwiseLogLik(context.Background(), th, post)
	if err != nil {
		t.Fatal(err)
	}
	if len(ll) != 4 || len(ll[0]) != 80 {
		t.Fatalf("matrix %d × %d, want 4 points × 80 draws", len(ll), len(ll[0]))
	}
	lnorm := func(x, m, s float64) float64 {
		z := (x - m) / s
		return -0.5*math.Log(2*math.Pi) - math.Log(s) - 0.5*z*z
	}
	s := 0
	for _, ch := range post.Values {
		for _, d := range ch {
			mu, sigma := d[0], d[1]
			for i, want := range []float64{lnorm(0.4, mu, sigma), lnorm(-1.1, mu, sigma), lnorm(2, mu, sigma), lnorm(0.5, mu, 2)} {
				if math.Abs(ll[i][s]-want) > 1e-10 {
					t.Fatalf("point %d draw %d: %v, want %v", i+1, s+1, ll[i][s], want)
				}
			}
			s++
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := infer.PointwiseLogLik(ctx, th, post); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
