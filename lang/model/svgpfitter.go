package model

import "context"

// An SVGPFitter is a latent function that a stochastic variational GP
// (runtime/gp.SVGP) can fit: optimize's method "svgp" moves q(v), the
// kernel's hyperparameters and the likelihood's parameters together on
// minibatches instead of maximising the model's objective by L-BFGS.
type SVGPFitter interface {
	// SVGPParams returns, as the observation o resolved them, the
	// kernel's hyperparameters then the likelihood's parameters: the
	// numbers SVGP learns (lang/infer maps the model's free parameters
	// onto them).
	SVGPParams(o LatentObservation) ([]float64, error)
	// SVGP fits from start (SVGPParams' layout), learning the entries
	// where learn is set and holding the others.
	SVGP(ctx context.Context, o LatentObservation, learn []bool, start []float64, set SVGPSettings) (*SVGPRun, error)
}

// SVGPSettings are optimize's settings for method "svgp": minibatch size,
// steps, the natural-gradient step size for q and Adam's step size for
// the parameters' logarithms, and the seed of the minibatches' shuffles
// (and of k-means inducing points).
type SVGPSettings struct {
	Batch, Steps int
	Gamma, LR    float64
	Seed         uint64
	// Resume, when not nil, is the Fitted of an earlier run of the same
	// model to continue (optimize's resume:): its q, parameters, Adam
	// moments and place in the minibatches' shuffles, left unchanged.
	Resume any
}

// SVGPRun is where a stochastic variational fit ended.
type SVGPRun struct {
	// Params are SVGPParams' numbers at the end, ELBO the bound over all
	// the data there.
	Params []float64
	ELBO   float64
	// Inducing is the number of inducing points, Batch the minibatch size
	// used, Epochs the passes over the data the steps made, Quad the
	// Gauss–Hermite nodes per expectation, or for classes Draws the base
	// normals of the softmax's.
	Inducing, Batch, Quad, Draws int
	Epochs                       float64
	// TotalSteps counts the steps of this run and of the runs it resumed.
	TotalSteps int
	// Fitted is the fitted approximation, which predict reads.
	Fitted any
}
