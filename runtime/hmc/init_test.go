package hmc

import (
	"context"
	"testing"

	"github.com/kml-lang/kml/runtime/internal/testmodel"
)

// TestPathfinderFindsTwoEqualModesAndRhatFlagsThem: with Pathfinder
// initialisation (the default) chains start in both of two equal modes.
func TestPathfinderFindsTwoEqualModesAndRhatFlagsThem(t *testing.T) {
	m := testmodel.Mixture1{W: []float64{0.5, 0.5}, Mu: []float64{-8, 8}, Sd: []float64{1, 1}}
	r, err := Sample(context.Background(), factory(m), Settings{Chains: 4, Warmup: 300, Draws: 300, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	left, right := 0, 0
	for _, ch := range r.Chains {
		mean, _ := meanVar(column1(ch))
		if mean < 0 {
			left++
		} else {
			right++
		}
	}
	if left == 0 || right == 0 {
		t.Fatalf("chains found one mode only: %d left, %d right", left, right)
	}
	rh := Rhat(column(r, 0, ident))
	if !(rh > 1.1) {
		t.Errorf("R-hat %v does not flag chains in different modes", rh)
	}
	t.Logf("%d chains in the left mode, %d in the right, R-hat %.1f", left, right, rh)
}

func column1(ch *Chain) []float64 {
	out := make([]float64, len(ch.Draws))
	for i, d := range ch.Draws {
		out[i] = d[0]
	}
	return out
}
