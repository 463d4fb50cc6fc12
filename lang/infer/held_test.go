package infer_test

import (
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// TestPosteriorHeldMemory: a bound posterior counts its draws against the
// memory budget, 8 bytes for each scalar, each free real and each of the
// sampler's seven columns of every draw, and binding it again releases them.
func TestPosteriorHeldMemory(t *testing.T) {
	in := eval.New(eval.Options{})
	if _, err := in.Eval("p.kml", `
model m {
  mu ~ normal(0, 1)
  w[2] ~ normal(0, 1)
}
let post = sample(m, chains: 2, warmup: 50, draws: 40, seed: 1)
`); err != nil {
		t.Fatal(err)
	}
	if got, want := in.MemoryLive(), int64(8*2*40*(3+3+7)); got != want {
		t.Errorf("a posterior of 2 chains × 40 draws of 3 scalars holds %d bytes, want %d", got, want)
	}
	if _, err := in.Eval("q.kml", "let post = 0"); err != nil {
		t.Fatal(err)
	}
	if got := in.MemoryLive(); got != 0 {
		t.Errorf("%d bytes live after post is bound again, want 0", got)
	}
}
