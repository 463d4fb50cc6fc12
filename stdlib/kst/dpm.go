package kst

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/dpm"
)

func registerDPM(reg *eval.Registry) {
	reg.Register("dpm(x, alpha = 1, scale?, kappa0?, nu0?, iter = 100, burn?, thin = 5, seed?)",
		"A Dirichlet-process mixture of Gaussians fitted to the rows of x by collapsed Gibbs sampling, the third density of the kernel Student-t paper's Table 1. Base measure normal–inverse-Wishart: cluster means around the column means of x with precision kappa0 relative to the cluster covariance, covariance ~ IW(scale²(nu0−d−1)I, nu0). alpha: the concentration. Defaults: scale half the root-mean-square column sd, kappa0 = scale²/(mean column variance), nu0 = d + 2, burn = iter/2. After burn sweeps every thin-th sweep is kept; the density is the posterior predictive averaged over them (normalised). A density value for logpdf, novelty and classify.",
		dpmBuiltin)
}

func dpmBuiltin(a *eval.Args) (eval.Value, error) {
	var x *mat.Dense
	var iter, thin eval.PositiveInt
	var burn int
	var s dpm.Settings
	if err := a.Unpack("x", &x, "alpha", &s.Alpha, "scale?", &s.Scale, "kappa0?", &s.Kappa0, "nu0?", &s.Nu0,
		"iter", &iter, "burn?", &burn, "thin", &thin); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"alpha", s.Alpha}, {"scale", s.Scale}, {"kappa0", s.Kappa0}, {"nu0", s.Nu0}} {
		if a.Given(c.name) || c.name == "alpha" {
			if !(c.v > 0) {
				return nil, a.Errorf(c.name, "%s must be positive, got %s", c.name, eval.FormatNumber(c.v))
			}
		}
	}
	s.Iter, s.Thin = int(iter), int(thin)
	s.Burn = s.Iter / 2
	if a.Given("burn") {
		if burn < 0 || burn >= s.Iter {
			return nil, a.Errorf("burn", "burn must be from 0 to iter − 1 = %d, got %d", s.Iter-1, burn)
		}
		s.Burn = burn
	}
	seed, err := a.Seed()
	if err != nil {
		return nil, err
	}
	s.Seed = seed
	m, err := dpm.Fit(a.Context(), x, s)
	if err != nil {
		if ierr := a.Th.Context().Err(); ierr != nil {
			return nil, a.Interrupted(ierr)
		}
		return nil, a.Fail("%v", err)
	}
	u := m.Settings
	mean := 0.0
	for _, k := range m.Clusters {
		mean += float64(k) / float64(len(m.Clusters))
	}
	return &densityVal{D: m, label: fmt.Sprintf("dpm(%s, alpha: %s, scale: %s, kappa0: %s, nu0: %s, iter: %d, burn: %d, thin: %d; %d sweeps kept, %s clusters on average)",
		dataLabel(x), eval.FormatNumber(u.Alpha), eval.FormatNumber(u.Scale), eval.FormatNumber(u.Kappa0), eval.FormatNumber(u.Nu0),
		u.Iter, u.Burn, u.Thin, m.Samples(), eval.FormatNumber(mean))}, nil
}
