package model

import (
	"math"

	"github.com/kml-lang/kml/lang/eval"
	rgp "github.com/kml-lang/kml/runtime/gp"
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
	if MLPrior(obj) {
		return Terms{}, a.Errorf("objective", "objective %q is the marginal likelihood of a latent GP's hyperparameters with their priors; this model takes \"map\" (priors and likelihood) or \"ml\"", obj)
	}
	if loss, _ := a.Str("loss"); loss != "" && loss != "likelihood" {
		return Terms{}, a.Errorf("loss", "loss %q is for the \"mkl\" and \"rr\" objectives of a model with a latent GP", loss)
	}
	switch k, _ := ParseObjective(obj); k {
	case ObjMAP:
		return Terms{Prior: true, Likelihood: true}, nil
	case ObjMLM:
		return Terms{Likelihood: true}, nil
	case ObjVB, ObjMKL, ObjRR:
		return Terms{}, a.Errorf("objective", "objective %q applies to GP models with a latent function; this model takes \"map\" or \"ml\"", obj)
	}
	return Terms{}, a.Errorf("objective", "objective must be \"map\" or \"ml\", got %q", obj)
}

// LatentTerms are the density terms of objective obj for a model with a
// latent GP.
func LatentTerms(a *eval.Args, obj string) (Terms, error) {
	kind, known := ParseObjective(obj)
	lat := Objective{Name: kind}
	err := a.Unpack("p", &lat.P, "lambda", &lat.Lambda)
	if err != nil {
		return Terms{}, err
	}
	if lat.Approx, err = LatentApprox(a); err != nil {
		return Terms{}, err
	}
	if err := lossArgs(a, &lat, obj); err != nil {
		return Terms{}, err
	}
	if kind == ObjVB && lat.Approx != rgp.DefaultApprox {
		return Terms{}, a.Errorf("approx", `objective "vb" is the variational bound; for approx: %q write objective: "ml"`, lat.Approx)
	}
	if !known {
		return Terms{}, a.Errorf("objective", `objective for a model with a latent GP must be "map", "ml", "mlm", "ml_prior", "vb", "mkl" or "rr", got %q`, obj)
	}
	if MLPrior(obj) {
		return Terms{Prior: true, Likelihood: true, Latent: lat}, nil
	}
	switch kind {
	case ObjMAP:
		return Terms{Prior: true, Likelihood: true, Latent: lat}, nil
	case ObjMKL, ObjRR:
		if lat.Loss != LossLikelihood && !(lat.P >= 1) {
			return Terms{}, a.Errorf("p", "with loss %q, p must be at least 1 (p-norm MKL is convex for p ≥ 1), got %v", lat.Loss, lat.P)
		}
		if !(lat.P > 0) || math.IsInf(lat.P, 0) {
			return Terms{}, a.Errorf("p", "p must be positive, got %v", lat.P)
		}
		if !(lat.Lambda >= 0) || math.IsInf(lat.Lambda, 0) {
			return Terms{}, a.Errorf("lambda", "lambda must be non-negative, got %v", lat.Lambda)
		}
	}
	return Terms{Likelihood: true, Latent: lat}, nil
}

// Losses are the SVM losses of the MKL paper's Table 1 that the `loss:`
// argument of optimize and profile names, besides "likelihood" (the
// observation's −2 log P).
var Losses = []Loss{LossHinge, LossEpsInsensitive}

// lossArgs reads `loss:`, `C:` and `epsilon:` into lat when the builtin
// takes them; obj is the objective as the user wrote it.
func lossArgs(a *eval.Args, lat *Objective, obj string) error {
	if a.Value("loss") == nil {
		return nil
	}
	var name string
	if err := a.Unpack("loss", &name, "C", &lat.C, "epsilon", &lat.Epsilon); err != nil {
		return err
	}
	loss := Loss(name)
	switch loss {
	case "likelihood":
		return nil
	case LossHinge, LossEpsInsensitive:
	default:
		return a.Errorf("loss", `loss must be "likelihood", "hinge" or "eps_insensitive", got %q`, name)
	}
	if lat.Name != ObjMKL && lat.Name != ObjRR {
		return a.Errorf("loss", `loss %q is for the regularised-risk objectives "mkl" and "rr", not %q`, name, obj)
	}
	if !(lat.C > 0) || math.IsInf(lat.C, 0) {
		return a.Errorf("C", "C must be positive, got %v", lat.C)
	}
	if loss == LossEpsInsensitive && (!(lat.Epsilon > 0) || math.IsInf(lat.Epsilon, 0)) {
		return a.Errorf("epsilon", "epsilon must be positive, got %v", lat.Epsilon)
	}
	lat.Loss = loss
	return nil
}

// LatentApprox reads the `approx:` argument, a name in runtime/gp's table
// of approximations: "vb" (the super-Gaussian variational bound),
// "laplace" (Laplace's approximation) or "ep" (expectation propagation).
func LatentApprox(a *eval.Args) (rgp.Approx, error) {
	var name string
	if err := a.Unpack("approx", &name); err != nil {
		return "", err
	}
	if approx, ok := rgp.ParseApprox(name); ok {
		return approx, nil
	}
	return "", a.Errorf("approx", `approx must be %s, got %q`, rgp.ApproxList(), name)
}

// GPGradTol ends a GP hyperparameter optimisation when the largest
// derivative of the objective with respect to the unconstrained
// hyperparameters is below it: the objective is a sum over n observations,
// so 1e-4 leaves it within about 1e-8 of its maximum near a regular optimum,
// and irrelevant ARD lengthscales, whose derivatives vanish only
// asymptotically as they grow, stop being chased.
const GPGradTol = 1e-4
