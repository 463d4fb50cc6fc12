package ktest_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rbke "github.com/kml-lang/kml/runtime/bke"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// Two shifted 2-D samples of 150 rows each; x is their stack.
const bklData = `
let p = cbind(draw(normal(0, 1), 150, seed: 11), draw(normal(0, 1), 150, seed: 12))
let q = cbind(draw(normal(0.5, 1), 150, seed: 13), draw(normal(0, 2), 150, seed: 14))
let x = rbind(p, q)
`

// TestBKLBuiltinIsTheTestsChoice: bkl(x) and mmd_test's "bkl" choice on the
// pooled sample x are one mechanism (the same ℓ, settings and draws), the
// settings follow the documented rule (n = 300 in 2-D: m = max(50, ⌈√300⌉)
// = 50 ≤ 300/5, τ² = m/10 = 5, 5 draws), its profile field is that mean
// on the grid, and ℓ is the global maximiser of
// the draws' mean log pseudolikelihood, checked against an independent
// evaluation of that mean on a grid of 30 lengthscales and at ℓ·(1 ± 1%).
func TestBKLBuiltinIsTheTestsChoice(t *testing.T) {
	in, _ := kmltest.Run(t, bklData+`
let b = bkl(x, seed: 7)
let t = mmd_test(p, q, "bkl", seed: 7, permutations: 20)
`)
	b := kmltest.Lookup[*eval.Record](t, in, "b")
	tr := kmltest.Lookup[*eval.Record](t, in, "t")
	tb := kmltest.Field(t, tr, "bkl").(*eval.Record)
	ell := kmltest.Num(t, b, "ell")
	if te := float64(kmltest.Field(t, tr, "ell").(eval.Num)); te != ell {
		t.Errorf("bkl(x).ell = %v, mmd_test's bkl ell = %v", ell, te)
	}
	for _, k := range []string{"landmarks", "tau2", "draws"} {
		if kmltest.Num(t, b, k) != kmltest.Num(t, tb, k) {
			t.Errorf("%s: bkl %v, mmd_test %v", k, kmltest.Num(t, b, k), kmltest.Num(t, tb, k))
		}
	}
	if m, t2, d := kmltest.Num(t, b, "landmarks"), kmltest.Num(t, b, "tau2"), kmltest.Num(t, b, "draws"); m != 50 || t2 != 5 || d != 5 {
		t.Errorf("settings m = %v, τ² = %v, draws = %v; want 50, 5, 5", m, t2, d)
	}
	if de := kmltest.Field(t, b, "draw_ell").(*eval.Vec).Data; len(de) != 5 {
		t.Errorf("draw_ell has %d entries", len(de))
	}
	x := kmltest.Lookup[*eval.Mat](t, in, "x").M
	mean := func(e float64) float64 {
		var s float64
		for r := 0; r < 5; r++ {
			rest, z := rbke.Split(x, 50, rbke.DrawSeed(7, r))
			md, err := rbke.New(rest, z, rbke.Options{})
			if err != nil {
				t.Fatal(err)
			}
			v, err := md.LogDensity(rbke.Hyper{Ell: []float64{e}, Tau2: 5}, nil)
			if err != nil {
				t.Fatal(err)
			}
			s += v
		}
		return s / 5
	}
	best := mean(ell)
	prof := kmltest.Field(t, b, "profile").(*eval.Record)
	pe, _ := prof.Attr("ell")
	pl, _ := prof.Attr("logp")
	grid, logp := pe.(*eval.Vec).Data, pl.(*eval.Vec).Data
	if len(grid) != 100 || len(logp) != 100 {
		t.Fatalf("profile has %d lengthscales and %d values, want 100", len(grid), len(logp))
	}
	for _, k := range []int{0, 37, 62, 99} {
		if want := mean(grid[k]); math.Abs(logp[k]-want) > 1e-9*math.Abs(want) {
			t.Errorf("profile at ℓ = %v: %v, the draws' mean is %v", grid[k], logp[k], want)
		}
		if logp[k] > best {
			t.Errorf("profile at ℓ = %v: %v above the chosen ℓ's %v", grid[k], logp[k], best)
		}
	}
	for _, e := range []float64{ell * 1.01, ell / 1.01} {
		if v := mean(e); v > best+1e-9*math.Abs(best) {
			t.Errorf("mean log pseudolikelihood %v at ℓ = %v beats %v at the chosen ℓ = %v", v, e, best, ell)
		}
	}
	for k := 0; k < 30; k++ {
		e := 0.01 * math.Pow(1e4, float64(k)/29)
		if v := mean(e); v > best+1e-9*math.Abs(best) {
			t.Errorf("grid point ℓ = %v has %v > %v at the chosen ℓ = %v", e, v, best, ell)
		}
	}
}

// TestBKLBuiltinGivenLandmarks: with landmark points, bkl keeps every row
// and maximises one profile, as runtime/bke's BKL on the same data and
// landmarks; τ² is m/10 unless given.
func TestBKLBuiltinGivenLandmarks(t *testing.T) {
	in, _ := kmltest.Run(t, bklData+`
let z = cbind(draw(normal(0, 1.5), 20, seed: 15), draw(normal(0, 1.5), 20, seed: 16))
let b1 = bkl(x, landmarks: z, noise: 1)
let b2 = bkl(x, landmarks: z)
`)
	x := kmltest.Lookup[*eval.Mat](t, in, "x").M
	z := kmltest.Lookup[*eval.Mat](t, in, "z").M
	for _, c := range []struct {
		name string
		tau2 float64
	}{{"b1", 1}, {"b2", 2}} {
		b := kmltest.Lookup[*eval.Record](t, in, c.name)
		want, err := rbke.BKL(x, z, rbke.BKLSettings{Tau2: c.tau2})
		if err != nil {
			t.Fatal(err)
		}
		if got := kmltest.Num(t, b, "ell"); math.Abs(got-want.Ell) > 1e-12*want.Ell {
			t.Errorf("%s: ℓ = %v, BKL gives %v", c.name, got, want.Ell)
		}
		if kmltest.Num(t, b, "landmarks") != 20 || kmltest.Num(t, b, "draws") != 1 || kmltest.Num(t, b, "tau2") != c.tau2 {
			t.Errorf("%s: record %s", c.name, b)
		}
	}
}

func TestBKLBuiltinErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"bkl(x, landmarks: x[1:20, :], draws: 3)", "draws: applies only to a landmark count"},
		{"bkl(x, noise: -1)", "noise (τ²) must be positive"},
		{"bkl(x, landmarks: 300)", "cannot hold out 300 landmarks from 300 rows"},
		{`bkl(x, landmarks: "many")`, `landmarks must be a count or "auto"`},
		{"bkl(x, landmarks: [[1, 2, 3]])", "the landmarks have 3 columns and the data 2"},
		{"bkl(rbind(x, [0 / 0, 1]))", "is NaN: values must be finite"},
	}
	for _, c := range cases {
		kmltest.ExpectError(t, bklData+c.src, c.want)
	}
}

// TestBKLDrawsStopsWhenCancelled: a cancelled context stops BKLDraws
// with the context's error.
func TestBKLDrawsStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x := mat.NewDense(100, 1, nil)
	for i := 0; i < 100; i++ {
		x.Set(i, 0, math.Sin(float64(i)))
	}
	_, err := rbke.BKLDraws(ctx, x, 20, 3, 1, rbke.BKLSettings{Tau2: 2})
	if err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("got %v, want context canceled", err)
	}
}

// TestBKLBuiltinSensitivity: sensitivity: true reports ℓ̂ over m/2, m, 2m ×
// τ²/4, τ², 4τ² with the choice itself at the centre, each cell bkl at
// those settings, and the ratio of the extremes.
func TestBKLBuiltinSensitivity(t *testing.T) {
	in, _ := kmltest.Run(t, bklData+`
let b = bkl(x, seed: 7, draws: 1, sensitivity: true)
let c = bkl(x, seed: 7, draws: 1, landmarks: 100, noise: 1.25)
`)
	b := kmltest.Lookup[*eval.Record](t, in, "b")
	s := kmltest.Field(t, b, "sensitivity").(*eval.Record)
	ms := kmltest.Field(t, s, "landmarks").(*eval.Vec).Data
	ts := kmltest.Field(t, s, "tau2").(*eval.Vec).Data
	ell := kmltest.Field(t, s, "ell").(*eval.Mat).M
	if ms[0] != 25 || ms[1] != 50 || ms[2] != 100 || ts[0] != 1.25 || ts[1] != 5 || ts[2] != 20 {
		t.Errorf("grid %v × %v, want [25 50 100] × [1.25 5 20]", ms, ts)
	}
	if ell.At(1, 1) != kmltest.Num(t, b, "ell") {
		t.Errorf("centre %v, choice %v", ell.At(1, 1), kmltest.Num(t, b, "ell"))
	}
	if c := kmltest.Num(t, kmltest.Lookup[*eval.Record](t, in, "c"), "ell"); ell.At(2, 0) != c {
		t.Errorf("m = 100, τ² = 1.25: %v, bkl at those settings %v", ell.At(2, 0), c)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			lo, hi = math.Min(lo, ell.At(i, j)), math.Max(hi, ell.At(i, j))
		}
	}
	if r := kmltest.Num(t, s, "ratio"); math.Abs(r-hi/lo) > 1e-12*r {
		t.Errorf("ratio %v, want %v", r, hi/lo)
	}
	kmltest.ExpectError(t, bklData+`bkl(x, landmarks: x[1:20, :], sensitivity: true)`, "give landmarks as a count")
}

// TestBKLVariantPublished: variant: "published" reaches the density BKL
// maximises (bkl and mmd_test's "bkl" agree and report it, and the chosen ℓ
// is the maximiser of the draws' mean Published log density, on 2-column
// data, beside the derived choice it differs from), hsic_test takes it,
// and another value is refused with what is accepted.
func TestBKLVariantPublished(t *testing.T) {
	in, _ := kmltest.Run(t, bklData+`
let b = bkl(x, seed: 7, draws: 2, variant: "published")
let d = bkl(x, seed: 7, draws: 2)
let t = mmd_test(p, q, "bkl", seed: 7, permutations: 20, draws: 2, variant: "published")
let h = hsic_test(p, q, "bkl", "bkl", permutations: 20, seed: 7, draws: 2, variant: "published")
`)
	b := kmltest.Lookup[*eval.Record](t, in, "b")
	d := kmltest.Lookup[*eval.Record](t, in, "d")
	tb := kmltest.Field(t, kmltest.Lookup[*eval.Record](t, in, "t"), "bkl").(*eval.Record)
	hb := kmltest.Field(t, kmltest.Lookup[*eval.Record](t, in, "h"), "bkl").(*eval.Record)
	for name, r := range map[string]*eval.Record{"bkl": b, "mmd_test's bkl": tb, "hsic_test's bkl.x": kmltest.Field(t, hb, "x").(*eval.Record)} {
		if v := kmltest.Field(t, r, "variant"); v != eval.Str("published") {
			t.Errorf("%s: variant %v, want \"published\"", name, v)
		}
	}
	if v := kmltest.Field(t, d, "variant"); v != eval.Str("derived") {
		t.Errorf("default variant %v, want \"derived\"", v)
	}
	ell := kmltest.Num(t, b, "ell")
	if kmltest.Num(t, d, "ell") == ell {
		t.Errorf("published and derived choose the same ℓ = %v", ell)
	}
	x := kmltest.Lookup[*eval.Mat](t, in, "x").M
	mean := func(e float64) float64 {
		var s float64
		for r := 0; r < 2; r++ {
			rest, z := rbke.Split(x, 50, rbke.DrawSeed(7, r))
			md, err := rbke.New(rest, z, rbke.Options{Variant: rbke.Published})
			if err != nil {
				t.Fatal(err)
			}
			v, err := md.LogDensity(rbke.Hyper{Ell: []float64{e}, Tau2: 5}, nil)
			if err != nil {
				t.Fatal(err)
			}
			s += v
		}
		return s / 2
	}
	best := mean(ell)
	for _, e := range []float64{ell * 1.01, ell / 1.01} {
		if v := mean(e); v > best+1e-9*math.Abs(best) {
			t.Errorf("published mean %v at ℓ = %v beats %v at the chosen ℓ = %v", v, e, best, ell)
		}
	}
	for k := 0; k < 30; k++ {
		e := 0.01 * math.Pow(1e4, float64(k)/29)
		if v := mean(e); v > best+1e-9*math.Abs(best) {
			t.Errorf("grid point ℓ = %v has %v > %v at the chosen ℓ = %v", e, v, best, ell)
		}
	}
	kmltest.ExpectError(t, bklData+`bkl(x, variant: "stan")`, `variant must be "derived"`)
}
