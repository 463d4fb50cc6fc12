package dists

import (
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model/dists"
)

// The distributions that give a parameter a support of its own: dirichlet
// (a simplex) and lkj_corr_cholesky (the Cholesky factor of a correlation
// matrix).
func registerConstrained(reg *eval.Registry) {
	reg.Register("dirichlet(alpha)",
		"The Dirichlet distribution on the simplex (K positive numbers summing to 1) with concentrations alpha, a vector of K ≥ 2 positive numbers (it may depend on model parameters); mean alpha/sum(alpha). As a prior, theta[K] ~ dirichlet(alpha) makes theta a simplex (K − 1 free reals, Stan's stick-breaking transform); as an observation, y ~ dirichlet(alpha) for a simplex y or the rows of an n×K matrix. draw gives a simplex, or n of them as the rows of a matrix.",
		func(a *eval.Args) (eval.Value, error) {
			switch v := a.Value("alpha").(type) {
			case *eval.Vec:
				if len(v.Data) < 2 {
					return nil, a.Errorf("alpha", "alpha needs at least 2 elements, got %d", len(v.Data))
				}
				for i, x := range v.Data {
					if !(x > 0) || math.IsInf(x, 1) {
						return nil, a.Errorf("alpha", "alpha must be positive and finite, got %s at element %d", eval.FormatNumber(x), i+1)
					}
				}
			case *eval.ADVec:
				if len(v.Vs) < 2 {
					return nil, a.Errorf("alpha", "alpha needs at least 2 elements, got %d", len(v.Vs))
				}
			default:
				return nil, a.Errorf("alpha", "alpha must be a vector of K positive concentrations, got %s", eval.Describe(v))
			}
			return &dists.Dirichlet{Alpha: a.Value("alpha")}, nil
		}).AD = true
	reg.Register("lkj_corr_cholesky(eta, K?)",
		"The LKJ distribution of a K×K correlation matrix Ω, density ∝ det(Ω)^(eta − 1) (eta > 0; 1 is uniform), as a density of its Cholesky factor L, as Stan's lkj_corr_cholesky. As a prior, L[K] ~ lkj_corr_cholesky(eta) declares L a K×K lower-triangular matrix with unit-length rows (K(K − 1)/2 free reals); eta may depend on model parameters. K is needed only to draw (a K×K matrix, or a list of n).",
		func(a *eval.Args) (eval.Value, error) {
			d := &dists.LKJCholesky{Eta: a.Value("eta")}
			switch v := a.Value("eta").(type) {
			case eval.Num:
				if !(v > 0) || math.IsInf(float64(v), 1) {
					return nil, a.Errorf("eta", "eta must be positive and finite, got %s", eval.FormatNumber(float64(v)))
				}
			case *eval.ADNum:
			default:
				return nil, a.Errorf("eta", "eta must be a number, got %s", eval.Describe(v))
			}
			if a.Given("K") {
				k, err := a.Int("K")
				if err != nil {
					return nil, err
				}
				if k < 2 || k > eval.MaxParamSize {
					return nil, a.Errorf("K", "K must be a whole number from 2 to %d, got %d", eval.MaxParamSize, k)
				}
				d.K = k
			}
			return d, nil
		}).AD = true
}
