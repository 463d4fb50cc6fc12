package model

import (
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model/dists"
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

// Objective says how the latent function is handled: its Name is one of
//
//	""/"mlm"  the log marginal likelihood (exact for Gaussian noise,
//	          Approx otherwise);
//	"vb"      the super-Gaussian variational lower bound;
//	"map"     joint MAP: the latent function maximised with its GP prior;
//	"mkl"     MKL: the latent maximised, log|K| replaced by λ‖θ‖ₚᵖ;
//	"rr"      ridge regression's MKL relaxation for Gaussian noise.
type Objective struct {
	Name string
	// Approx is the approximation of the marginal likelihood for
	// non-Gaussian observations: "vb" (the default, also for ""),
	// "laplace" or "ep".
	Approx string
	// P and Lambda are the MKL and RR regulariser λ‖θ‖ₚᵖ.
	P, Lambda float64
	// Loss, when not "", replaces the observation's −2 log P by an SVM
	// loss of the MKL paper's Table 1 ("hinge" or "eps_insensitive")
	// weighted by C per observation, with Epsilon the ε of
	// "eps_insensitive"; for the "mkl" and "rr" objectives.
	Loss       string
	C, Epsilon float64
}

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
