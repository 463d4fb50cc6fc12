package gp

import (
	"context"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// sameSVGPBits fails unless a and b hold the same q(v), parameters and
// trace to the bit.
func sameSVGPBits(t *testing.T, what string, lamA, lamB []*mat.SymDense, bA, bB [][]float64, parA, parB, trA, trB []float64) {
	t.Helper()
	eq := func(x, y []float64) bool {
		return slices.EqualFunc(x, y, func(u, v float64) bool { return math.Float64bits(u) == math.Float64bits(v) })
	}
	if !eq(parA, parB) || !eq(trA, trB) {
		t.Fatalf("%s: parameters %v and %v, traces of %d and %d steps", what, parA, parB, len(trA), len(trB))
	}
	for c := range lamA {
		if !eq(lamA[c].RawSymmetric().Data, lamB[c].RawSymmetric().Data) || !eq(bA[c], bB[c]) {
			t.Fatalf("%s: q(v) of class %d differs", what, c)
		}
	}
}

// TestSVGPResume: a minibatch fit with Adam of 12 steps, cloned and
// resumed for 28 more (with the shuffle's pass boundary crossed in
// between), gives what one fit of 40 steps gives, to the bit: q(v), the
// kernel's and likelihood's parameters and the ELBO trace; the fit that
// was cloned is left as it was; and resuming with another batch size or
// seed, or an SVGP never fitted, is refused. The same for the softmax
// SVGP of three classes.
func TestSVGPResume(t *testing.T) {
	ctx := context.Background()
	x, y := classData(300, 11)
	rbf, _ := kernels.NewRBF([]float64{1.5})
	k, _ := kernels.NewScaled(1, rbf)
	z, err := GreedyVariance(k, x, 20, 0)
	if err != nil {
		t.Fatal(err)
	}
	set := SVGPSettings{Batch: 64, Steps: 40, Gamma: 0.2, LR: 0.03, Seed: 9}
	whole, _ := NewSVGP(k, Lik{Kind: Logit}, z)
	resWhole, err := whole.Fit(ctx, x, y, set)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := NewSVGP(k, Lik{Kind: Logit}, z)
	set.Steps = 12
	if _, err := first.Fit(ctx, x, y, set); err != nil {
		t.Fatal(err)
	}
	kept := first.Clone()
	second := first.Clone()
	set.Steps, set.Resume = 28, true
	res, err := second.Fit(ctx, x, y, set)
	if err != nil {
		t.Fatal(err)
	}
	par := func(s *SVGP) []float64 { return append(s.K.Hyper(nil), s.Lik.Params...) }
	sameSVGPBits(t, "12 + 28 steps against 40", []*mat.SymDense{second.Lam}, []*mat.SymDense{whole.Lam},
		[][]float64{second.B}, [][]float64{whole.B}, par(second), par(whole), second.Trace, whole.Trace)
	if res.ELBO != resWhole.ELBO || res.Steps != 40 || resWhole.Steps != 40 {
		t.Errorf("ELBO %v after 12 + 28 steps (%d counted), %v after 40 (%d)", res.ELBO, res.Steps, resWhole.ELBO, resWhole.Steps)
	}
	sameSVGPBits(t, "the clone resumed, its original", []*mat.SymDense{first.Lam}, []*mat.SymDense{kept.Lam},
		[][]float64{first.B}, [][]float64{kept.B}, par(first), par(kept), first.Trace, kept.Trace)
	for _, bad := range []SVGPSettings{
		{Batch: 32, Steps: 1, Gamma: 0.2, Seed: 9, Resume: true},
		{Batch: 64, Steps: 1, Gamma: 0.2, Seed: 8, Resume: true},
	} {
		if _, err := first.Clone().Fit(ctx, x, y, bad); err == nil {
			t.Errorf("resumed with batch %d, seed %d: no error", bad.Batch, bad.Seed)
		}
	}
	fresh, _ := NewSVGP(k, Lik{Kind: Logit}, z)
	if _, err := fresh.Fit(ctx, x, y, set); err == nil {
		t.Error("an SVGP never fitted was resumed")
	}

	x3, y3 := threeClassData(200, 4)
	k3, _ := kernels.NewScaled(2, rbf)
	z3, err := GreedyVariance(k3, x3, 15, 0)
	if err != nil {
		t.Fatal(err)
	}
	set3 := SVGPSettings{Batch: 50, Steps: 20, Gamma: 0.5, LR: 0.03, Seed: 2}
	whole3, _ := NewSVGPMulti(k3, z3, 3, 40, 1)
	if _, err := whole3.Fit(ctx, x3, y3, set3); err != nil {
		t.Fatal(err)
	}
	part3, _ := NewSVGPMulti(k3, z3, 3, 40, 1)
	set3.Steps = 7
	if _, err := part3.Fit(ctx, x3, y3, set3); err != nil {
		t.Fatal(err)
	}
	rest3 := part3.Clone()
	set3.Steps, set3.Resume = 13, true
	if _, err := rest3.Fit(ctx, x3, y3, set3); err != nil {
		t.Fatal(err)
	}
	sameSVGPBits(t, "softmax: 7 + 13 steps against 20", rest3.Lam, whole3.Lam, rest3.B, whole3.B,
		rest3.K.Hyper(nil), whole3.K.Hyper(nil), rest3.Trace, whole3.Trace)
}
