package ktest

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestBayesStartsInTheDominantMode: two clusters 20 apart give the
// posterior of ℓ a mode at the within-cluster scale and one at the
// between-cluster scale, hundreds of nats lower. The grid finds both, the
// chains start in the higher one and every draw stays there.
func TestBayesStartsInTheDominantMode(t *testing.T) {
	rng := rand.New(rand.NewPCG(2607, 3))
	n := 120
	x := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		x.Set(i, 0, 20*float64(i%2)+rng.NormFloat64())
	}
	c, err := ChooseBayes(context.Background(), x, BayesSettings{Workers: 1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	b := c.Bayes
	if len(b.Modes) < 2 || b.Modes[0].Ell > 2 || b.Modes[1].Ell < 10 || b.Modes[1].Below < 50 || b.Modes[0].Mass < 0.99 {
		t.Fatalf("modes %+v", b.Modes)
	}
	cut := math.Sqrt(b.Modes[0].Ell * b.Modes[1].Ell)
	for _, l := range c.Ell {
		if l > cut {
			t.Errorf("draw %v in the lower mode (modes %+v)", l, b.Modes)
		}
	}
	for _, l := range b.Inits {
		if l > cut {
			t.Errorf("chain started at %v, in the lower mode", l)
		}
	}
	// The default run (2 chains of 100 iterations) may fall short of
	// summary's R-hat and ESS thresholds, which TestBayesWarnsAtSummaryThresholds
	// checks; no other warning (several modes, divergences) is due here.
	for _, w := range b.Warnings {
		if !strings.HasPrefix(w, "R-hat") && !strings.HasPrefix(w, "effective sample size") {
			t.Errorf("warning %q", w)
		}
	}
	if !(b.Rhat < 1.1) {
		t.Errorf("R-hat %v", b.Rhat)
	}
}
