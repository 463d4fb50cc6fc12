package ktest

import (
	"github.com/kml-lang/kml/lang/eval"
	rktest "github.com/kml-lang/kml/runtime/ktest"
)

// registerBKL adds bkl, the tests' "bkl" kernel choice as a builtin of its
// own. It lives here, beside the tests' options and record, so that there
// is one implementation of BKL's settings (not one per package).
func registerBKL(reg *eval.Registry) {
	reg.Register(`bkl(x, landmarks = "auto", noise = "auto", draws?, seed?)`,
		`Bayesian kernel learning: the rbf lengthscale maximising the BKE marginal pseudolikelihood of x with τ² = noise, found globally (a log-spaced grid of 100 lengthscales, then golden-section refinement of the best three local maxima), by the same rules and code as the kernel tests' "bkl" choice: landmarks m rows of x held out (default max(50, ⌈√n⌉), at most n/5, more than the columns), noise τ² (default m/10), the profile averaged over draws landmark draws (default 5); landmarks may instead be the landmark points (a matrix, one draw, every row of x kept). Returns {ell, landmarks, tau2, draws, draw_ell, maxima, fragile, profile} (profile: {ell, logp}, the mean log pseudolikelihood on the grid): rbf(bkl(x).ell) replaces rbf(median_heuristic(x)). Warns when the choice is fragile.`,
		bklBuiltin)
}

// bklBuiltin is the kernel tests' "bkl" choice on x alone: the same
// options, rules (rktest.ChooseBKL) and record (BKLRecord),
// with the chosen lengthscale as its first field and the mean profile as
// its last.
func bklBuiltin(a *eval.Args) (eval.Value, error) {
	x, err := a.Matrix("x")
	if err != nil {
		return nil, err
	}
	o, err := BKLOptionsOrPoints(a)
	if err != nil {
		return nil, err
	}
	seed, err := a.Seed()
	if err != nil {
		return nil, err
	}
	c, err := rktest.ChooseBKL(a.Context(), x, seed, o)
	if err != nil {
		if e := a.Context().Err(); e != nil {
			return nil, a.Interrupted(e)
		}
		return nil, a.Errorf("x", "%v", err)
	}
	WarnFragile(a, "x", c)
	rec := eval.NewRecord().Set("ell", eval.Num(c.Ell[0]))
	b := BKLRecord(c)
	for _, k := range b.AttrNames() {
		v, _ := b.Attr(k)
		rec.Set(k, v)
	}
	// The whole mean profile (100 values) only here, for plotting; the
	// tests' records keep to its maxima.
	rec.Set("profile", eval.NewRecord().Set("ell", &eval.Vec{Data: c.Grid}).Set("logp", &eval.Vec{Data: c.Profile}))
	return rec, nil
}
