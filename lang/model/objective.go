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
	if loss, _ := a.Str("loss"); loss != "" && loss != "likelihood" {
		return Terms{}, a.Errorf("loss", "loss %q is for the \"mkl\" and \"rr\" objectives of a model with a latent GP", loss)
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
	lat := Objective{Name: obj}
	err := a.Unpack("p", &lat.P, "lambda", &lat.Lambda)
	if err != nil {
		return Terms{}, err
	}
	if lat.Approx, err = LatentApprox(a); err != nil {
		return Terms{}, err
	}
	if err := lossArgs(a, &lat); err != nil {
		return Terms{}, err
	}
	if obj == "vb" && lat.Approx != "vb" {
		return Terms{}, a.Errorf("approx", `objective "vb" is the variational bound; for approx: %q write objective: "ml"`, lat.Approx)
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
		if lat.Loss != "" && !(lat.P >= 1) {
			return Terms{}, a.Errorf("p", "with loss %q, p must be at least 1 (p-norm MKL is convex for p ≥ 1), got %v", lat.Loss, lat.P)
		}
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

// Losses are the SVM losses of the MKL paper's Table 1 that the `loss:`
// argument of optimize and profile names, besides "likelihood" (the
// observation's −2 log P).
var Losses = []string{"hinge", "eps_insensitive"}

// lossArgs reads `loss:`, `C:` and `epsilon:` into lat when the builtin
// takes them.
func lossArgs(a *eval.Args, lat *Objective) error {
	if a.Value("loss") == nil {
		return nil
	}
	var loss string
	if err := a.Unpack("loss", &loss, "C", &lat.C, "epsilon", &lat.Epsilon); err != nil {
		return err
	}
	switch loss {
	case "likelihood":
		return nil
	case "hinge", "eps_insensitive":
	default:
		return a.Errorf("loss", `loss must be "likelihood", "hinge" or "eps_insensitive", got %q`, loss)
	}
	if lat.Name != "mkl" && lat.Name != "rr" {
		return a.Errorf("loss", `loss %q is for the regularised-risk objectives "mkl" and "rr", not %q`, loss, lat.Name)
	}
	if !(lat.C > 0) || math.IsInf(lat.C, 0) {
		return a.Errorf("C", "C must be positive, got %v", lat.C)
	}
	if loss == "eps_insensitive" && (!(lat.Epsilon > 0) || math.IsInf(lat.Epsilon, 0)) {
		return a.Errorf("epsilon", "epsilon must be positive, got %v", lat.Epsilon)
	}
	lat.Loss = loss
	return nil
}

// Approxes are the approximations of the log marginal likelihood of a
// latent GP with non-Gaussian observations that the `approx:` argument of
// optimize, profile, sample and loglik names.
var Approxes = []string{"vb", "laplace", "ep"}

// LatentApprox reads the `approx:` argument: "vb" (the super-Gaussian
// variational bound), "laplace" (Laplace's approximation) or "ep"
// (expectation propagation).
func LatentApprox(a *eval.Args) (string, error) {
	var approx string
	if err := a.Unpack("approx", &approx); err != nil {
		return "", err
	}
	for _, v := range Approxes {
		if approx == v {
			return approx, nil
		}
	}
	return "", a.Errorf("approx", `approx must be "vb", "laplace" or "ep", got %q`, approx)
}

// GPGradTol ends a GP hyperparameter optimisation when the largest
// derivative of the objective with respect to the unconstrained
// hyperparameters is below it: the objective is a sum over n observations,
// so 1e-4 leaves it within about 1e-8 of its maximum near a regular optimum,
// and irrelevant ARD lengthscales, whose derivatives vanish only
// asymptotically as they grow, stop being chased.
const GPGradTol = 1e-4
