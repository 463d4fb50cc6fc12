package kst_test

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/dpm"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// dpm(...) in KML is the runtime's sampler with the same seed, and its
// density goes through logpdf, novelty and classify like kst's.
func TestDPMBindingAgreesWithRuntime(t *testing.T) {
	in, _ := kmltest.Run(t, kstData+`
let d = dpm(x, alpha: 0.5, iter: 20, thin: 2, seed: 9)
let a = logpdf(d, [-1, 0, 2])
let n = novelty(d, [-1, 0, 2])
let lab = rbind([0, 1, 0], [0.2, 1, 0], [2, 0, 1], [2.2, 0, 1], [1.9, 0, 1])
let c = classify(dpm(lab, iter: 20, seed: 1), [0.1, 2.1], labels: 2).label
`)
	x := kmltest.Lookup[*eval.Vec](t, in, "x").Data
	m, err := dpm.Fit(context.Background(), mat.NewDense(len(x), 1, x), dpm.Settings{Alpha: 0.5, Iter: 20, Burn: 10, Thin: 2, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, 3)
	if err := m.LogPDF(want, mat.NewDense(3, 1, []float64{-1, 0, 2})); err != nil {
		t.Fatal(err)
	}
	a := kmltest.Lookup[*eval.Vec](t, in, "a").Data
	n := kmltest.Lookup[*eval.Vec](t, in, "n").Data
	for i := range want {
		if a[i] != want[i] || n[i] != -want[i] {
			t.Errorf("point %d: logpdf %v, novelty %v; runtime %v", i, a[i], n[i], want[i])
		}
	}
	if c := kmltest.Lookup[*eval.Vec](t, in, "c").Data; c[0] != 1 || c[1] != 2 {
		t.Errorf("classify gave %v, want [1 2]", c)
	}
}

func TestDPMErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"dpm([], iter: 5)", "t.kml:5:1: error: dpm: needs at least one point"},
		{"dpm(x, alpha: -1)", "t.kml:5:15: error: dpm: alpha must be positive"},
		{"dpm(x, scale: 0)", "scale must be positive"},
		{"dpm(xm, nu0: 2.5)", "nu0 must exceed d + 1 = 3"},
		{"dpm(x, iter: 10, burn: 10)", "burn must be from 0 to iter − 1 = 9"},
		{"dpm([1, 0 / 0])", "NaN in row 2, column 1"},
		{"logpdf(dpm(xm, iter: 4), [[1, 2, 3]])", "3 columns but the density was fitted to 2"},
		{"novelty(dpm(x, iter: 4), [1, 0 / 0])", "NaN in row 2"},
	}
	expectErrors(t, cases)
}
