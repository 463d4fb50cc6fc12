package dists

import (
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
)

// Distribution is a distribution value: what may follow `~`, for a
// parameter or for data. A univariate family applies elementwise
// (DistVal); the others are multivariate or give a parameter a support of
// its own (MultiNormal, Dirichlet, LKJCholesky, CategoricalLogit). The
// optional capabilities are Drawer and LogPDFer (drawlogpdf.go).
//
// LogDensity is the log density of x summed over its elements or rows, on
// tape t when t is not nil (x or the distribution's parameters may then
// be tape values); what names x in messages. An x outside the support is
// a *SupportError.
//
// Support is where the distribution's values lie as the prior of parameter
// p (NumPyro's support), checked against p's shape; BijectTo maps it to the
// parameter's Transform. It is asked on the model's first run, with the
// distribution's parameters at the starting point; a distribution that
// cannot be a prior (a discrete one) says why.
type Distribution interface {
	eval.Value
	LogDensity(t *ad.Tape, x eval.Value, what string) (eval.Value, error)
	Support(p eval.ModelParam) (Constraint, error)
}

// Every distribution value satisfies the contract and both capabilities.
var (
	_ Distribution = (*DistVal)(nil)
	_ Distribution = (*MultiNormal)(nil)
	_ Distribution = (*Dirichlet)(nil)
	_ Distribution = (*LKJCholesky)(nil)
	_ Distribution = (*CategoricalLogit)(nil)
	_ Drawer       = (*DistVal)(nil)
	_ Drawer       = (*MultiNormal)(nil)
	_ Drawer       = (*Dirichlet)(nil)
	_ Drawer       = (*LKJCholesky)(nil)
	_ Drawer       = (*CategoricalLogit)(nil)
	_ LogPDFer     = (*DistVal)(nil)
	_ LogPDFer     = (*MultiNormal)(nil)
	_ LogPDFer     = (*Dirichlet)(nil)
	_ LogPDFer     = (*LKJCholesky)(nil)
	_ LogPDFer     = (*CategoricalLogit)(nil)
)
