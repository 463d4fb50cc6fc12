package model

import (
	"math"

	"github.com/kml-lang/kml/lang/eval"
)

// The objectives optimize and profile maximise: which terms of the log
// density count, and for a model with a latent GP which approximation and
// which kernel-learning objective (Terms.Latent) the latent family uses.

// ObjectiveTerms are the density terms of the `objective:` argument of
// optimize and profile for model m: "map" or "ml" (priors and observations,
// or observations alone), and for a model with a latent GP the objectives of
// LatentTerms.
func ObjectiveTerms(a *eval.Args, m *eval.Model) (Terms, error) {
	var obj string
	if err := a.Unpack("objective", &obj); err != nil {
		return Terms{}, err
	}
	if HasLatent(m) {
		return LatentTerms(a, obj)
	}
	switch obj {
	case "map":
		return Terms{Prior: true, Likelihood: true}, nil
	case "ml", "mlm":
		return Terms{Likelihood: true}, nil
	case "vb", "mkl", "rr":
		return Terms{}, a.Errorf("objective", "objective %q applies to GP models with a latent function; this model takes \"map\" or \"ml\"", obj)
	}
	return Terms{}, a.Errorf("objective", "objective must be \"map\" or \"ml\", got %q", obj)
}

// LatentTerms are the density terms of objective obj for a model with a
// latent GP.
func LatentTerms(a *eval.Args, obj string) (Terms, error) {
	var approx string
	lat := Objective{Name: obj}
	if err := a.Unpack("p", &lat.P, "lambda", &lat.Lambda, "approx", &approx); err != nil {
		return Terms{}, err
	}
	switch approx {
	case "vb":
		lat.Approx = approx
	case "laplace":
		return Terms{}, a.Errorf("approx", `approx: "laplace" is not available in this version of KML; use "vb", the variational bound`)
	default:
		return Terms{}, a.Errorf("approx", `approx must be "vb", got %q`, approx)
	}
	switch obj {
	case "map":
		return Terms{Prior: true, Likelihood: true, Latent: lat}, nil
	case "ml", "mlm":
		lat.Name = "mlm"
		return Terms{Likelihood: true, Latent: lat}, nil
	case "vb":
		return Terms{Likelihood: true, Latent: lat}, nil
	case "mkl", "rr":
		if !(lat.P > 0) || math.IsInf(lat.P, 0) {
			return Terms{}, a.Errorf("p", "p must be positive, got %v", lat.P)
		}
		if !(lat.Lambda >= 0) || math.IsInf(lat.Lambda, 0) {
			return Terms{}, a.Errorf("lambda", "lambda must be non-negative, got %v", lat.Lambda)
		}
		return Terms{Likelihood: true, Latent: lat}, nil
	}
	return Terms{}, a.Errorf("objective", `objective for a model with a latent GP must be "map", "ml", "mlm", "vb", "mkl" or "rr", got %q`, obj)
}

// GPGradTol ends a GP hyperparameter optimisation when the largest
// derivative of the objective with respect to the unconstrained
// hyperparameters is below it: the objective is a sum over n observations,
// so 1e-4 leaves it within about 1e-8 of its maximum near a regular optimum,
// and irrelevant ARD lengthscales, whose derivatives vanish only
// asymptotically as they grow, stop being chased.
const GPGradTol = 1e-4
