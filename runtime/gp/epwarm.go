package gp

import (
	"gonum.org/v1/gonum/mat"
)

// EPWarm is EP (ep.go) with GPML's warm start (infEP's last_ttau and
// last_tnu): each Fit starts its sweeps from the sites the previous Fit
// converged to when EP's log marginal at those sites, under the new
// kernel matrix, is at least its value at the zero sites (the prior,
// Σ_i log ∫ P(y_i | f) N(f | 0, K_ii) df), and from zero otherwise. The
// stopping rule is EP's, so the result equals a cold EP fit's to within
// its tolerance; which start was taken is the only way the history enters,
// and a sequence of Fits from a fresh EPWarm gives the same numbers every
// time. With Student-t observations, where EP may have several fixed
// points, every Fit starts from zero. An EPWarm belongs to one sequence
// of evaluations (one optimiser run: optimize's, through model.Eval.Local,
// where the latent GP term's memo answers the replay that follows a walk
// at the same point, since a refit from converged sites moves them by
// rounding): it is not safe for concurrent use.
type EPWarm struct {
	tau, nu []float64
	// Warm and Cold count the Fits that started from the previous sites
	// and from zero.
	Warm, Cold int
}

// Fit is EP.Fit from the start GPML's rule picks.
func (w *EPWarm) Fit(K *mat.SymDense, y []float64, l Lik, needs Needs) (*Posterior, error) {
	n := K.SymmetricDim()
	var start *epStart
	if len(w.tau) == n && l.logConcave() {
		start = w.better(K, y, l)
	}
	if start != nil {
		w.Warm++
	} else {
		w.Cold++
	}
	s, err := fitEPFrom(K, y, l, start)
	if err != nil && start != nil {
		// The warm start led nowhere: from zero, as EP would.
		w.Warm--
		w.Cold++
		s, err = fitEPFrom(K, y, l, nil)
	}
	if err != nil {
		w.tau, w.nu = nil, nil
		return nil, err
	}
	w.tau = append(w.tau[:0], s.Tau...)
	w.nu = append(w.nu[:0], s.Nu...)
	return epResult(K, y, l, s, needs), nil
}

// better returns the stored sites, with the posterior they give under K,
// when EP's log marginal there is at least its value at the zero sites,
// and nil otherwise.
func (w *EPWarm) better(K *mat.SymDense, y []float64, l Lik) *epStart {
	n := K.SymmetricDim()
	s := &EPSites{Tau: w.tau, Nu: w.nu, Mu: make([]float64, n), Var: make([]float64, n)}
	sigma := fullSym(K)
	logdet, _, err := epPosterior(K, s.Tau, s.Nu, sigma, s.Mu, nil, false)
	if err != nil {
		return nil
	}
	s.logdet = logdet
	for i := range s.Var {
		s.Var[i] = sigma[i*n+i]
		if !(1/s.Var[i]-s.Tau[i] > 0) { // an improper cavity
			return nil
		}
	}
	warm := epValue(y, l, s, nil)
	// A stationary kernel has one K_ii: the integral is redone only when
	// y_i or K_ii changes.
	zero, lz := 0.0, 0.0
	for i := range y {
		if i == 0 || y[i] != y[i-1] || K.At(i, i) != K.At(i-1, i-1) {
			lz, _, _ = l.tilted(nil, y[i], 0, K.At(i, i))
		}
		zero += lz
	}
	if !(warm >= zero) {
		return nil
	}
	return &epStart{tau: w.tau, nu: w.nu, sigma: sigma}
}
