package dist

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

// Family is one parametric family of univariate distributions. Its methods
// take the parameters as a slice, so a model can evaluate a family at a
// different parameter vector for every observation without allocating.
type Family interface {
	// Name is the family's name in KML ("normal").
	Name() string
	// ParamNames names the parameters in order ({"mu", "sigma"}).
	ParamNames() []string
	// Check returns an error naming the parameter when p is outside the
	// family's domain ("normal: sigma must be positive, got -1").
	Check(p []float64) error
	// LogProb is the normalised log density (log mass for a discrete
	// family) at x; −Inf outside the support.
	LogProb(x float64, p []float64) float64
	// LogProbGrad returns LogProb(x, p) and its derivative in x, and writes
	// the derivatives in p into dp (len(dp) == len(p)). Discrete families
	// report 0 for the derivative in x.
	LogProbGrad(dp []float64, x float64, p []float64) (lp, dx float64)
	// Rand draws one value using r.
	Rand(r *rand.Rand, p []float64) float64
	// Mean is the mean: NaN where it is undefined (Cauchy), +Inf where it
	// is infinite (half-Cauchy).
	Mean(p []float64) float64
	// StdDev is the standard deviation, with the same conventions.
	StdDev(p []float64) float64
	// Support is the interval holding every x with positive density; a
	// model picks the transform of a parameter from it.
	Support(p []float64) (lo, hi float64)
	// Discrete reports a family of integer values.
	Discrete() bool
}

// Bounded is a family whose support's ends are parameters (uniform(lo, hi)):
// BoundParams gives their indices.
type Bounded interface{ BoundParams() (lo, hi int) }

var registry = map[string]Family{}

func register(f Family) { registry[f.Name()] = f }

// Lookup returns the family called name.
func Lookup(name string) (Family, bool) {
	f, ok := registry[name]
	return f, ok
}

// Names lists the registered families, sorted; "mixture" is made with
// NewMixture and is not among them.
func Names() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Dist pairs a family with parameters.
type Dist struct {
	Family Family
	Params []float64
}

// New returns the distribution name(params...), checking the parameters.
func New(name string, params ...float64) (Dist, error) {
	f, ok := Lookup(name)
	if !ok {
		return Dist{}, fmt.Errorf("no distribution called %q", name)
	}
	if len(params) != len(f.ParamNames()) {
		return Dist{}, fmt.Errorf("%s takes %d parameters (%s), got %d", name, len(f.ParamNames()), strings.Join(f.ParamNames(), ", "), len(params))
	}
	if err := f.Check(params); err != nil {
		return Dist{}, err
	}
	return Dist{Family: f, Params: params}, nil
}

// LogProb is the log density at x.
func (d Dist) LogProb(x float64) float64 { return d.Family.LogProb(x, d.Params) }

// Rand draws one value.
func (d Dist) Rand(r *rand.Rand) float64 { return d.Family.Rand(r, d.Params) }

// Mean is the distribution's mean.
func (d Dist) Mean() float64 { return d.Family.Mean(d.Params) }

// StdDev is the distribution's standard deviation.
func (d Dist) StdDev() float64 { return d.Family.StdDev(d.Params) }

// String writes the distribution as KML does: "normal(0, 1)".
func (d Dist) String() string {
	parts := make([]string, len(d.Params))
	for i, p := range d.Params {
		parts[i] = strconv.FormatFloat(p, 'g', -1, 64)
	}
	return d.Family.Name() + "(" + strings.Join(parts, ", ") + ")"
}

// family holds what every simple family shares: its name, parameter names
// and the domain of each parameter.
type family struct {
	name   string
	params []string
	// domain[i] says what parameter i must be: "real", "positive",
	// "nonnegative", "probability" (in [0, 1]) or "count" (a whole number ≥ 0).
	domain []string
}

func (f family) Name() string         { return f.name }
func (f family) ParamNames() []string { return f.params }
func (f family) Discrete() bool       { return false }

func (f family) Check(p []float64) error {
	if len(p) != len(f.params) {
		panic(fmt.Sprintf("dist: %s takes %d parameters, got %d", f.name, len(f.params), len(p)))
	}
	for i, x := range p {
		name := f.params[i]
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
			return fmt.Errorf("%s: %s must be finite, got %v", f.name, name, x)
		case f.domain[i] == "positive" && x <= 0:
			return fmt.Errorf("%s: %s must be positive, got %v", f.name, name, x)
		case f.domain[i] == "nonnegative" && x < 0:
			return fmt.Errorf("%s: %s must not be negative, got %v", f.name, name, x)
		case f.domain[i] == "probability" && (x < 0 || x > 1):
			return fmt.Errorf("%s: %s must be a probability in [0, 1], got %v", f.name, name, x)
		case f.domain[i] == "count" && (x < 0 || x != math.Trunc(x)):
			return fmt.Errorf("%s: %s must be a whole number ≥ 0, got %v", f.name, name, x)
		}
	}
	return nil
}

var (
	inf        = math.Inf(1)
	logSqrt2Pi = 0.5 * math.Log(2*math.Pi)
	// logPi is log π, taken once: the same bits as math.Log(math.Pi) in
	// an expression, without a logarithm per call.
	logPi = math.Log(math.Pi)
)

// Softplus is log(1 + e^u) without overflow.
func Softplus(u float64) float64 {
	if u > 35 {
		return u
	}
	if u < -35 {
		return math.Exp(u)
	}
	return math.Log1p(math.Exp(u))
}

// Logistic is 1/(1 + e^−u), without overflow.
func Logistic(u float64) float64 {
	if u >= 0 {
		return 1 / (1 + math.Exp(-u))
	}
	e := math.Exp(u)
	return e / (1 + e)
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}
