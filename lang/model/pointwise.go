package model

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model/dists"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
)

// Leave-one-out cross-validation and WAIC need the log likelihood point by
// point, at every posterior draw. A run tells its observer each observation
// statement (Observation, Family, Latent); PointwiseCollector turns them
// into one log density per point: a univariate observation of a vector is
// one point per element, as is categorical_logit's vector of categories,
// and a matrix observed by multi_normal one point per row; any other
// multivariate observation (a vector by multi_normal, dirichlet) is one
// point for the statement, as Stan users write log_lik.

// ScopePointwise is ScopeDensity for PointwiseCollector, which takes each
// univariate observation's points itself: such a statement's summed log
// density is not formed on the tape (its Observation has no LogLik), which
// would cost as much again as the points.
const ScopePointwise Scope = scopeFirst + 1

// Observation is one `DATA ~ DIST` statement as a run evaluated it.
type Observation struct {
	Stmt   *ast.Tilde
	Data   eval.Value
	Dist   dists.Distribution // nil when Family is not
	Family Family
	// LogLik is the statement's log density, a Num or *eval.ADNum; nil
	// for a univariate distribution in ScopePointwise.
	LogLik eval.Value
}

// Pointwise returns the observation's log density point by point: one per
// element for a univariate distribution and for categorical_logit, one per
// row of a matrix observed by multi_normal, else one for the statement.
func (o Observation) Pointwise() ([]float64, error) {
	if o.Family != nil {
		return nil, &NotPointwise{What: o.Family.String()}
	}
	if dv, ok := o.Dist.(*dists.DistVal); ok {
		if out, ok := appendScalarPoints(nil, dv, o.Data); ok {
			return out, nil
		}
		// The values alone, off the tape: LogPDF's plain path then takes
		// each element's density directly, where on the tape it would
		// record a node per element.
		plain := *dv
		plain.Params = make([]eval.Value, len(dv.Params))
		for i, p := range dv.Params {
			plain.Params[i] = offTape(p)
		}
		v, err := plain.LogPDF(o.Stmt.At, offTape(o.Data))
		if err != nil {
			return nil, err
		}
		return peekAll(v)
	}
	if cl, ok := o.Dist.(*dists.CategoricalLogit); ok && !cl.OfLatent {
		return categoricalPoints(cl, o.Data)
	}
	if mn, ok := o.Dist.(*dists.MultiNormal); ok {
		if m, ok := o.Data.(*eval.Mat); ok {
			if r, _ := m.Dims(); r > 1 {
				return o.rowPoints(mn, m)
			}
		}
	}
	return peekAll(o.LogLik)
}

// appendScalarPoints appends to dst LogPDF's plain path for a univariate distribution whose
// parameters are all numbers (normal(mu, sigma) with scalar mu and sigma,
// the common case) observing a number or a vector: the parameters are read
// and checked once, not per element, and a dist.Fixed family prepares its
// density once (normal's log σ). The values are LogPDF's to the bit. ok is
// false for anything else (vector parameters, a parameter outside its
// domain, whose error LogPDF words), which takes LogPDF.
func appendScalarPoints(dst []float64, dv *dists.DistVal, data eval.Value) (out []float64, ok bool) {
	var xs []float64
	switch x := data.(type) {
	case eval.Num:
		xs = []float64{float64(x)}
	case *eval.Vec:
		xs = x.Data
	default:
		return nil, false
	}
	p := make([]float64, len(dv.Params))
	for j, par := range dv.Params {
		switch par := par.(type) {
		case eval.Num:
			p[j] = float64(par)
		case *eval.ADNum:
			p[j] = par.T.Peek(par.V)
		default:
			return nil, false
		}
	}
	if dv.Family.Check(p) != nil {
		return nil, false
	}
	out = slices.Grow(dst, len(xs))
	if f, ok := dv.Family.(dist.Fixed); ok {
		lp := f.Fixed(p)
		for _, x := range xs {
			out = append(out, lp(x))
		}
		return out, true
	}
	for _, x := range xs {
		out = append(out, dv.Family.LogProb(x, p))
	}
	return out, true
}

// rowPoints is the log density of each row of a matrix observed by
// multi_normal: each row is one point, as Stan's log_lik[i] for y[i].
func (o Observation) rowPoints(mn *dists.MultiNormal, m *eval.Mat) ([]float64, error) {
	var t *ad.Tape
	if lp, ok := o.LogLik.(*eval.ADNum); ok {
		t = lp.T
	}
	r, _ := m.Dims()
	out := make([]float64, r)
	for i := range out {
		lp, err := mn.LogDensity(t, &eval.Vec{Data: mat.Row(nil, i, m.M)}, "a row")
		if err != nil {
			return nil, err
		}
		xs, err := peekAll(lp)
		if err != nil {
			return nil, err
		}
		out[i] = xs[0]
	}
	return out, nil
}

// categoricalPoints is log softmax(beta)_{yᵢ} for each category yᵢ observed
// (the statement's density, already checked, is their sum).
func categoricalPoints(cl *dists.CategoricalLogit, data eval.Value) ([]float64, error) {
	beta, err := peekAll(cl.Beta)
	if err != nil {
		return nil, err
	}
	ys, ok := eval.ToFloats(data)
	if !ok {
		return nil, fmt.Errorf("categorical_logit observes categories, got %s", eval.Describe(data))
	}
	m := math.Inf(-1)
	for _, b := range beta {
		m = math.Max(m, b)
	}
	z := 0.0
	for _, b := range beta {
		z += math.Exp(b - m)
	}
	lse := m + math.Log(z)
	out := make([]float64, len(ys))
	for i, y := range ys {
		out[i] = beta[int(y)-1] - lse
	}
	return out, nil
}

// offTape is v's value without its tape: a number or vector of numbers.
func offTape(v eval.Value) eval.Value {
	switch v.(type) {
	case *eval.ADNum:
		xs, _ := peekAll(v)
		return eval.Num(xs[0])
	case *eval.ADVec:
		xs, _ := peekAll(v)
		return &eval.Vec{Data: xs}
	}
	return v
}

// peekAll is a number's or vector's values, read off the tape.
func peekAll(v eval.Value) ([]float64, error) {
	switch v := v.(type) {
	case eval.Num:
		return []float64{float64(v)}, nil
	case *eval.ADNum:
		return []float64{v.T.Peek(v.V)}, nil
	case *eval.Vec:
		return v.Data, nil
	case *eval.ADVec:
		out := make([]float64, len(v.Vs))
		for i, x := range v.Vs {
			out[i] = v.T.Peek(x)
		}
		return out, nil
	}
	return nil, fmt.Errorf("a log density must be a number or a vector, got %s", eval.Describe(v))
}

// PointwiseFamily is an observation family that can give its log
// likelihood point by point at one draw. A family whose points are not
// independent given the parameters (a GP with f integrated out) gives each
// point's density given the others, log p(y_i | y_−i, θ) (Rasmussen and
// Williams 2006, §5.4.2): PSIS over the draws then mixes these exact
// conditional LOO densities (Vehtari et al. 2016). A family without it is
// refused by loo and waic. This is the seam through which GP models supply
// their own leave-one-out.
type PointwiseFamily interface {
	Family
	Pointwise(ev *Eval, data eval.Value) ([]float64, error)
}

// PointwiseLatent is PointwiseFamily for a latent function's observation
// (`y ~ normal(f, s)` with f ~ gp(...)): lik and loc are as in
// Latent.LogLik. A latent GP implements it to give its approximate LOO
// densities (Vehtari et al. 2016: the cavity distributions of EP, or
// Laplace's).
type PointwiseLatent interface {
	Latent
	Pointwise(ev *Eval, lik *dists.DistVal, loc int, data eval.Value) ([]float64, error)
}

// PointwiseCollector collects one run's pointwise log likelihood: each
// observation's points in statement order, and the first observation that
// cannot be split into points (Refused), which loo and waic report.
type PointwiseCollector struct {
	Watch
	ev      *Eval
	Out     []float64
	Refused error
	// Conditional says some points came from a PointwiseFamily or a
	// PointwiseLatent: their values are densities given the other points
	// (a GP's), not given the parameters alone, so the points are not
	// independent given the parameters and cannot be scored apart from
	// the data they were left out of (kfold refuses them).
	Conditional bool
}

// NewPointwiseCollector makes the collector for runs of d.
func NewPointwiseCollector(d *Density) *PointwiseCollector {
	return &PointwiseCollector{ev: &d.ev}
}

// Reset empties the collector for the next draw.
func (pc *PointwiseCollector) Reset() { pc.Out, pc.Refused = pc.Out[:0], nil }

// Scope is ScopePointwise: the collector takes univariate observations'
// points from their distributions.
func (pc *PointwiseCollector) Scope() Scope { return ScopePointwise }

func (pc *PointwiseCollector) Observed(o Observation) {
	if pc.Refused != nil {
		return
	}
	if dv, ok := o.Dist.(*dists.DistVal); ok && o.Family == nil {
		if out, ok := appendScalarPoints(pc.Out, dv, o.Data); ok {
			pc.Out = out // in place: no slice per statement and draw
			return
		}
	}
	var xs []float64
	var err error
	if pf, ok := o.Family.(PointwiseFamily); ok {
		xs, err = pf.Pointwise(pc.ev, o.Data)
		pc.Conditional = true
	} else {
		xs, err = o.Pointwise()
	}
	if err != nil {
		pc.Refused = ast.Errorf(o.Stmt.At, "%v", err)
		return
	}
	pc.Out = append(pc.Out, xs...)
}

func (pc *PointwiseCollector) Latent(o LatentObservation) {
	if pc.Refused != nil {
		return
	}
	pl, ok := o.Latent.(PointwiseLatent)
	if !ok || o.Lik == nil {
		pc.Refused = &NotPointwise{What: "a latent GP (f ~ gp(...))", Latent: true}
		return
	}
	xs, err := pl.Pointwise(pc.ev, o.Lik, o.Loc, o.Data)
	if err != nil {
		pc.Refused = err
		return
	}
	pc.Conditional = true
	pc.Out = append(pc.Out, xs...)
}

// NotPointwise is the refusal of an observation without pointwise log
// likelihoods.
type NotPointwise struct {
	What   string
	Latent bool
}

func (e *NotPointwise) Error() string {
	if len(e.What) >= 4 && e.What[:4] == "bke(" {
		return "bke is a pseudolikelihood (a kernel-embedding score of the data), not a predictive density: its leave-one-out values would not estimate predictive performance"
	}
	if e.Latent {
		return fmt.Sprintf("leave-one-out of an observation of %s is not yet available: this latent function does not give its points' densities given the others", e.What)
	}
	return fmt.Sprintf("the observation family %s does not give its log likelihood point by point", e.What)
}
