package ktest

import (
	"fmt"

	"github.com/kml-lang/kml/lang/eval"
	rbke "github.com/kml-lang/kml/runtime/bke"
	rktest "github.com/kml-lang/kml/runtime/ktest"
)

// BKLOptions reads the settings of the "bkl" kernel choice shared by
// mmd_test, hsic_test, ci_test and pc: landmarks (a count or "auto"),
// noise (τ² or "auto") and draws (landmark draws averaged).
func BKLOptions(a *eval.Args) (rktest.BKLOptions, error) { return bklOptions(a, false) }

// BKLOptionsOrPoints is BKLOptions where landmarks may also be the
// landmark points themselves (a matrix with the data's columns, or a
// vector for one column), as the bkl builtin takes them.
func BKLOptionsOrPoints(a *eval.Args) (rktest.BKLOptions, error) { return bklOptions(a, true) }

func bklOptions(a *eval.Args, points bool) (rktest.BKLOptions, error) {
	var o rktest.BKLOptions
	var err error
	switch v := a.Value("landmarks").(type) {
	case eval.Str:
		if v != "auto" {
			return o, a.Errorf("landmarks", `landmarks must be a count or "auto", got %q`, string(v))
		}
	case *eval.Mat, *eval.Vec:
		if !points {
			return o, a.Errorf("landmarks", `landmarks must be a count or "auto", got %s`, eval.Describe(v))
		}
		if o.Points, err = a.Matrix("landmarks"); err != nil {
			return o, err
		}
		if a.Given("draws") {
			return o, a.Errorf("draws", "given landmark points are one draw; draws: applies only to a landmark count")
		}
	default:
		if o.Landmarks, err = a.IntIn("landmarks", 1, eval.MaxLength); err != nil {
			return o, err
		}
	}
	switch v := a.Value("noise").(type) {
	case eval.Str:
		if v != "auto" {
			return o, a.Errorf("noise", `noise must be τ² (a positive number) or "auto", got %q`, string(v))
		}
	default:
		if o.Tau2, err = a.Num("noise"); err != nil {
			return o, err
		}
		if !(o.Tau2 > 0) || o.Tau2 > 1e300 {
			return o, a.Errorf("noise", "noise (τ²) must be positive and finite, got %g", o.Tau2)
		}
	}
	if a.Given("draws") { // else the default of 5
		if o.Draws, err = a.IntIn("draws", 1, 1000); err != nil {
			return o, err
		}
	}
	if o.Variant, err = Variant(a); err != nil {
		return o, err
	}
	return o, nil
}

// Variant reads variant: "derived" or "published", the BKE density the
// "bkl" and "bayes" choices use.
func Variant(a *eval.Args) (rbke.Variant, error) {
	switch v, _ := a.Str("variant"); v {
	case "derived":
		return rbke.Derived, nil
	case "published":
		return rbke.Published, nil
	}
	return 0, a.Errorf("variant", `variant must be "derived" (the derivation) or "published" (the authors' Stan program), got %s`, eval.Describe(a.Value("variant")))
}

// BKLRecord is a BKL choice's settings and profile as a record: landmarks,
// tau2, variant, draws, draw_ell (each draw's own choice), maxima (the mean
// profile's local maxima, [{ell, logp}], best first) and fragile (why the
// choice is fragile, "" if it is not).
func BKLRecord(c rktest.Chosen) *eval.Record {
	maxima := &eval.List{}
	for _, m := range c.Maxima {
		maxima.Elems = append(maxima.Elems, eval.NewRecord().Set("ell", eval.Num(m.Ell)).Set("logp", eval.Num(m.LogDensity)))
	}
	return eval.NewRecord().Set("landmarks", eval.Num(c.Landmarks)).Set("tau2", eval.Num(c.Tau2)).
		Set("variant", eval.Str(c.Variant.String())).Set("draws", eval.Num(c.Draws)).Set("draw_ell", &eval.Vec{Data: c.DrawEll}).
		Set("maxima", maxima).Set("fragile", eval.Str(c.Fragile))
}

// WarnFragile warns at the call when a BKL choice is fragile.
func WarnFragile(a *eval.Args, what string, c rktest.Chosen) {
	if c.Choice == rktest.ChoiceBKL && c.Fragile != "" {
		a.Th.Interp().Warn(a.Pos, fmt.Sprintf("bkl: the lengthscale of %s (ℓ = %.3g) is fragile: %s; compare the maxima in the result's bkl field, or set landmarks:, noise: or draws:", what, c.Ell[0], c.Fragile))
	}
}
