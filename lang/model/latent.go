package model

import (
	"math/rand/v2"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model/dists"
	rgp "github.com/kml-lang/kml/runtime/gp"
)

// Latent is the value of a latent function `f ~ gp(X, KERNEL)` inside a
// model. It stands for the location of an observation, `y ~ normal(f, s)`,
// and is integrated out (or optimised over) there rather than sampled:
// the density calls LogLik for that observation instead of the
// distribution's own log density. stdlib's gp builtin returns one.
type Latent interface {
	eval.Value
	// LogLik returns the log likelihood term of data observed through lik,
	// whose parameter at index loc is this latent function, under the
	// objective ev.Objective(): a Num, or an *eval.ADNum on the tape when
	// the kernel or lik's other parameters depend on model parameters.
	LogLik(ev *Eval, lik *dists.DistVal, loc int, data eval.Value) (eval.Value, error)
}

// ClassLatent is a latent function with one GP per class, `f ~ gp(X,
// KERNEL, classes: C)`, observed as `c ~ categorical_logit(f)` with labels
// 1..C: the density calls ClassLogLik for that observation.
type ClassLatent interface {
	Latent
	// Classes is C, or 0 for a latent function with one GP.
	Classes() int
	// ClassLogLik returns the log likelihood term of the labels data under
	// the objective ev.Objective(), as LogLik does.
	ClassLogLik(ev *Eval, data eval.Value) (eval.Value, error)
}

// Objective says how the latent function is handled: the objective Name,
// for the marginal likelihood the approximation Approx, and the loss. Each
// is a typed value parsed once where optimize, profile, loglik, sample and
// predict read their arguments (LatentTerms, LatentApprox, ParseObjective)
// and printed back by its String.
type Objective struct {
	Name ObjectiveKind
	// Approx is the approximation of the marginal likelihood for
	// non-Gaussian observations, a row of runtime/gp's table (unset: VB's
	// bound for one GP, Laplace's for a multi-class GP).
	Approx rgp.Approx
	// P and Lambda are the MKL and RR regulariser λ‖θ‖ₚᵖ.
	P, Lambda float64
	// Loss, when not LossLikelihood, replaces the observation's −2 log P
	// by an SVM loss of the MKL paper's Table 1 weighted by C per
	// observation, with Epsilon the ε of LossEpsInsensitive; for the
	// "mkl" and "rr" objectives.
	Loss       Loss
	C, Epsilon float64
	// ResolveOnly says the model's walks only resolve the observations of
	// its latent function (optimize's method "svgp", which fits the
	// latent GP itself): LogLik then contributes 0 without computing.
	ResolveOnly bool
}

// ObjectiveKind is the objective of a model with a latent GP:
//
//	ObjMLM   the log marginal likelihood (exact for Gaussian noise,
//	         Approx otherwise);
//	ObjVB    the super-Gaussian variational lower bound;
//	ObjMAP   joint MAP: the latent function maximised with its GP prior;
//	ObjMKL   MKL: the latent maximised, log|K| replaced by λ‖θ‖ₚᵖ;
//	ObjRR    ridge regression's MKL relaxation for Gaussian noise;
//
// and ObjUnset for predict from a model with values.
type ObjectiveKind string

// The objectives, by the names the `objective:` argument gives them.
const (
	ObjUnset ObjectiveKind = ""
	ObjMLM   ObjectiveKind = "mlm"
	ObjVB    ObjectiveKind = "vb"
	ObjMAP   ObjectiveKind = "map"
	ObjMKL   ObjectiveKind = "mkl"
	ObjRR    ObjectiveKind = "rr"
)

// ParseObjective returns the objective named s ("ml" is ObjMLM, and so
// are MLPrior's names: the latent GP's term is the same, only the priors
// join it).
func ParseObjective(s string) (ObjectiveKind, bool) {
	switch k := ObjectiveKind(s); k {
	case ObjMLM, ObjVB, ObjMAP, ObjMKL, ObjRR:
		return k, true
	case "ml":
		return ObjMLM, true
	}
	if MLPrior(s) {
		return ObjMLM, true
	}
	return ObjUnset, false
}

// MLPrior reports whether s names type-II MAP for a model with a latent
// GP, "ml_prior" (or "mlm_prior"): the marginal likelihood of the
// hyperparameters (or its approximation) plus their log priors, the
// objective a GPflow or GPyTorch model with priors on its
// hyperparameters minimises, and PyMC's find_MAP of a marginal GP.
func MLPrior(s string) bool { return s == "ml_prior" || s == "mlm_prior" }

// String is the objective's name.
func (k ObjectiveKind) String() string { return string(k) }

// Marginal reports whether k is the marginal likelihood (or its bound),
// the objective that Approx approximates; ObjUnset counts.
func (k ObjectiveKind) Marginal() bool { return k == ObjUnset || k == ObjMLM || k == ObjVB }

// Loss is the loss of the `loss:` argument: LossLikelihood (the
// observation's −2 log P) or an SVM loss of the MKL paper's Table 1.
type Loss string

// The losses, by their names.
const (
	LossLikelihood     Loss = ""
	LossHinge          Loss = "hinge"
	LossEpsInsensitive Loss = "eps_insensitive"
)

// String is the loss's name, "" for the likelihood.
func (l Loss) String() string { return string(l) }

// HasLatent reports whether m declares a latent function.
func HasLatent(m *eval.Model) bool { return len(m.Latents) > 0 }

// LatentObservation is one observation of a latent function: data ~ lik,
// with the latent function as lik's parameter Loc, or (Lik nil) labels
// data ~ categorical_logit(f) of a ClassLatent.
type LatentObservation struct {
	Latent Latent
	Lik    *dists.DistVal
	Loc    int
	Data   eval.Value
}

// LatentSampler is a Latent that forward sampling (Forward: the prior and
// posterior predictive, SBC) can draw at its inputs.
type LatentSampler interface {
	Latent
	// DrawLatent draws the latent function's values at its n inputs from
	// r, at the hyperparameters it was made with (plain numbers): from
	// the GP prior N(0, K_θ(X)) when data is nil, else from its posterior
	// given data observed through lik, with the latent function lik's
	// parameter loc — exact for normal noise, else the Gaussian q(f) of
	// approx (unset: VB's). method says which: "prior", "exact" or the
	// approximation's name.
	DrawLatent(r *rand.Rand, lik *dists.DistVal, loc int, data eval.Value, approx rgp.Approx) (f []float64, method string, err error)
}
