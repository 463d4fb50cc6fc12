package ktest

import (
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rktest "github.com/kml-lang/kml/runtime/ktest"
)

// registerBKL adds bkl, the tests' "bkl" kernel choice as a builtin of its
// own. It lives here, beside the tests' options and record, so that there
// is one implementation of BKL's settings (not one per package).
func registerBKL(reg *eval.Registry) {
	reg.Register(`bkl(x, landmarks = "auto", noise = "auto", variant = "derived", draws?, seed?, sensitivity = false)`,
		`Bayesian kernel learning: the rbf lengthscale maximising the BKE marginal pseudolikelihood of x with τ² = noise, found globally (a log-spaced grid of 100 lengthscales, then golden-section refinement of the best three local maxima), by the same rules and code as the kernel tests' "bkl" choice: landmarks m rows of x held out (default max(50, ⌈√n⌉), at most n/5, more than the columns), noise τ² (default m/10), the profile averaged over draws landmark draws (default 5); variant: the density maximised, "derived" (default) or "published" (the authors' Stan program, as in bke); landmarks may instead be the landmark points (a matrix, one draw, every row of x kept). Returns {ell, landmarks, tau2, variant, draws, draw_ell, maxima, fragile, profile} (profile: {ell, logp}, the mean log pseudolikelihood on the grid): rbf(bkl(x).ell) replaces rbf(median_heuristic(x)). sensitivity: true also chooses ℓ at m/2, m, 2m landmarks × τ²/4, τ², 4τ² (the same number of draws and seed; about 8 more choices, 3 of them at 2m) and adds sensitivity: {landmarks, tau2, ell (a 3×3 matrix, rows by landmarks), ratio (largest ℓ over smallest)}, the choice being fragile when ratio > 2. Warns when the choice is fragile.`,
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
	var sens bool
	if err := a.Unpack("sensitivity", &sens); err != nil {
		return nil, err
	}
	if sens && o.Points != nil {
		return nil, a.Errorf("sensitivity", "the sensitivity varies the landmark count: give landmarks as a count or \"auto\"")
	}
	c, err := rktest.ChooseBKL(a.Context(), x, seed, o)
	if err != nil {
		if e := a.Context().Err(); e != nil {
			return nil, a.Interrupted(e)
		}
		return nil, a.Errorf("x", "%v", err)
	}
	var sr *eval.Record
	if sens {
		st, err := rktest.ChooseBKLSensitivity(a.Context(), x, seed, &c)
		if err != nil {
			if e := a.Context().Err(); e != nil {
				return nil, a.Interrupted(e)
			}
			return nil, a.Errorf("sensitivity", "%v", err)
		}
		ms := make([]float64, len(st.M))
		for i, m := range st.M {
			ms[i] = float64(m)
		}
		em := mat.NewDense(len(st.M), len(st.Tau2), nil)
		for i, row := range st.Ell {
			em.SetRow(i, row)
		}
		sr = eval.NewRecord().Set("landmarks", &eval.Vec{Data: ms}).Set("tau2", &eval.Vec{Data: st.Tau2}).
			Set("ell", eval.NewMat(em)).Set("ratio", eval.Num(st.Ratio))
	}
	WarnFragile(a, "x", c)
	rec := eval.NewRecord().Set("ell", eval.Num(c.Ell[0]))
	b := BKLRecord(c)
	for _, k := range b.AttrNames() {
		v, _ := b.Attr(k)
		rec.Set(k, v)
	}
	if sr != nil {
		rec.Set("sensitivity", sr)
	}
	// The whole mean profile (100 values) only here, for plotting; the
	// tests' records keep to its maxima.
	rec.Set("profile", eval.NewRecord().Set("ell", &eval.Vec{Data: c.Grid}).Set("logp", &eval.Vec{Data: c.Profile}))
	return rec, nil
}
