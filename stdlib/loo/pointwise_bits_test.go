package loo_test

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestPointwiseBitIdentical: the pointwise log likelihood loo takes (with
// scalar parameters read once and normal's log σ prepared once) is, to the
// bit, gonum's distuv log density of each element at each draw, for a
// normal with scalar parameters, one with a vector mean, and a Poisson.
func TestPointwiseBitIdentical(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = [0.3, -1.2, 2.5, 0.1, 0.9, -0.4]
let x = [1.0, 0.5, -0.3, 2.0, -1.0, 0.2]
let c = [2, 0, 3, 1]
model m {
  mu ~ normal(0, 5)
  sigma ~ lognormal(0, 1)
  b ~ normal(0, 1)
  lam ~ gamma(2, 1)
  y ~ normal(mu, sigma)
  x ~ normal(b * y, sigma)
  c ~ poisson(lam)
}
let post = sample(m, seed: 7, chains: 2, draws: 200, warmup: 200)
`)
	post := kmltest.Lookup[*infer.Posterior](t, in, "post")
	ll, err := infer.PointwiseLogLik(context.Background(), in.NewThread(nil), post)
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) []float64 {
		v, _ := post.Attr(name)
		return v.(*eval.Vec).Data
	}
	mu, sigma, b, lam := col("mu"), col("sigma"), col("b"), col("lam")
	y := []float64{0.3, -1.2, 2.5, 0.1, 0.9, -0.4}
	x := []float64{1.0, 0.5, -0.3, 2.0, -1.0, 0.2}
	c := []float64{2, 0, 3, 1}
	if len(ll) != len(y)+len(x)+len(c) {
		t.Fatalf("%d points", len(ll))
	}
	for s := range mu {
		var want []float64
		for _, v := range y {
			want = append(want, distuv.Normal{Mu: mu[s], Sigma: sigma[s]}.LogProb(v))
		}
		for i, v := range x {
			want = append(want, distuv.Normal{Mu: b[s] * y[i], Sigma: sigma[s]}.LogProb(v))
		}
		for _, v := range c {
			want = append(want, distuv.Poisson{Lambda: lam[s]}.LogProb(v))
		}
		for i, w := range want {
			if math.Float64bits(ll[i][s]) != math.Float64bits(w) {
				t.Fatalf("point %d draw %d: %v, distuv %v", i+1, s+1, ll[i][s], w)
			}
		}
	}
}
