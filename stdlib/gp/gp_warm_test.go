package gp_test

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestLaplaceWarmReplays: a Density an optimiser drives starts each
// evaluation of Laplace's approximation from the last mode
// (rgp.LaplaceWarm; rgp.MultiWarm for a multi-class GP) and each of EP's
// from the last sites (rgp.EPWarm), kept by model.Eval.Local, and still replays its recording: the replay
// at each of the optimiser's first points agrees to the bit with the walk
// there (Laplace's same-K rule; for EP, whose refit moves converged sites
// by rounding, the term's memo), so the status is "replayed" after the
// four verified points. Its log density and gradient along a path of
// nearby points, as L-BFGS makes them, and after a jump, equal a cold
// Density's (a sampler's, which keeps no state: every inner solve from
// zero) to 10⁻⁹ (Laplace) and 10⁻⁸ (EP, whose sites stop at relative
// moves of 10⁻¹¹), and differ from them in the last bits at some point
// (the warm start is taken).
func TestLaplaceWarmReplays(t *testing.T) {
	for _, c := range []struct {
		name, src, model, approx string
		tol                      float64
	}{
		{"laplace", gpEvalsSrc, "cls", "laplace", 1e-9},
		{"ep", gpEvalsSrc, "cls", "ep", 1e-8},
		{"classes", gpMultiSrc, "mc", "laplace", 1e-9}, // rgp.MultiWarm
	} {
		t.Run(c.name, func(t *testing.T) { testWarmReplays(t, c.src, c.model, c.approx, c.tol) })
	}
}

func testWarmReplays(t *testing.T, src, name, approx string, tol float64) {
	in, _ := kmltest.Run(t, src)
	mv, _ := in.Lookup(name)
	c, err := model.CompileFor(in, mv.(*eval.Model), nil, model.Terms{Likelihood: true, Latent: model.Objective{Name: "mlm", Approx: rgp.Approx(approx)}})
	if err != nil {
		t.Fatal(err)
	}
	warm := c.NewDensityFor(in)
	warm.Optimizing()
	cold := c.NewDensityFor(in)
	path := [][]float64{{0, 0}, {0.1, 0.2}, {0.15, 0.35}, {0.2, 0.3}, {0.22, 0.31}, {0.22, 0.31}, {1.5, 3}, {0.23, 0.3}}
	gw, gc := make([]float64, 2), make([]float64, 2)
	differ := 0
	for i, q := range path {
		lw, err := warm.LogDensity(gw, q)
		if err != nil {
			t.Fatal(err)
		}
		lc, err := cold.LogDensity(gc, q)
		if err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(lw) != math.Float64bits(lc) || math.Float64bits(gw[0]) != math.Float64bits(gc[0]) {
			differ++
		}
		if d := math.Abs(lw - lc); !(d <= tol) {
			t.Errorf("point %d %v: log density %.15g warm, %.15g cold", i, q, lw, lc)
		}
		for j := range gw {
			if d := math.Abs(gw[j] - gc[j]); !(d <= tol*math.Max(1, math.Abs(gc[j]))) {
				t.Errorf("point %d %v: gradient[%d] %.15g warm, %.15g cold", i, q, j, gw[j], gc[j])
			}
		}
	}
	// The warm start is taken: its inner solves end elsewhere within
	// their tolerance, and the numbers differ from the cold ones in the
	// last bits.
	if differ == 0 {
		t.Errorf("the optimiser's Density gave the cold numbers to the bit at all %d points: no warm start", len(path))
	}
	t.Logf("%d of %d points differ from the cold Density's in the last bits", differ, len(path))
	if s := warm.ReplayStatus(); s != "replayed" {
		t.Errorf("the optimiser's Density: %s", s)
	}
}
