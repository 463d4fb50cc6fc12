package gp

import (
	"fmt"
	"strings"
)

// Approx names an approximation of the log marginal likelihood of a latent
// GP with non-Gaussian observations: a Name in the table approximations,
// parsed once where the user's `approx:` argument is read (ParseApprox).
// The zero value is unset: DefaultApprox for one GP, Laplace's for a
// multi-class GP.
type Approx string

// DefaultApprox is the approximation when none is named: VB's bound.
const DefaultApprox Approx = "vb"

// ApproxInfo is one row of the table of approximations.
type ApproxInfo struct {
	// Name is the user's name for it, the value of `approx:`.
	Name Approx
	// New returns the Inference that fits it.
	New func() Inference
	// Warm, when not nil, returns an Inference for one sequence of
	// evaluations by one goroutine (an optimiser run, a chain) whose Fits
	// start from where the previous one ended and agree with New's to
	// within rounding or the inner solve's tolerance (LaplaceWarm,
	// EPWarm).
	Warm func() Inference
	// Says ends the warning that a fit uses it: "the marginal likelihood
	// of the hyperparameters is ...".
	Says string
	// Refuse, when not nil, returns why it does not take a likelihood.
	Refuse func(LikKind) error
	// Classes says a multi-class GP has it (MultiLaplace).
	Classes bool
}

// approximations is the table: a new approximation is a file that
// implements Inference and one row here.
var approximations = []ApproxInfo{
	{Name: DefaultApprox, New: func() Inference { return VB{} },
		Says:   "the variational (VB) lower bound, so this is an approximation",
		Refuse: refuseVBLik},
	{Name: "laplace", New: func() Inference { return LaplaceApprox{} },
		Warm:   func() Inference { return &LaplaceWarm{} },
		Says:   "Laplace's approximation (Gaussian at the posterior mode)",
		Refuse: refuseLaplaceLik, Classes: true},
	{Name: "ep", New: func() Inference { return EP{} },
		Warm: func() Inference { return &EPWarm{} },
		Says: "expectation propagation's approximation"},
}

// refuseLaplaceLik is Laplace's approximation's refusal of the Laplace
// likelihood (ErrLaplaceLik).
func refuseLaplaceLik(k LikKind) error {
	if k == Laplace {
		return ErrLaplaceLik
	}
	return nil
}

// refuseVBLik is the VB bound's refusal of the count likelihoods
// (ErrCountVB), which no Gaussian bounds from below.
func refuseVBLik(k LikKind) error {
	if k == Poisson || k == NegBinomial {
		return ErrCountVB
	}
	return nil
}

// For is the approximation a stands for with likelihood kind k: a itself,
// except that unset (a caller that names none, such as kml check
// --explain or predict from a model with values) is Laplace's for the
// count likelihoods, which DefaultApprox's bound refuses.
func (a Approx) For(k LikKind) Approx {
	if a == "" && (k == Poisson || k == NegBinomial) {
		return "laplace"
	}
	return a
}

// Approximations returns the table's rows in order.
func Approximations() []ApproxInfo { return append([]ApproxInfo(nil), approximations...) }

// ParseApprox returns the approximation named s, if the table has one.
func ParseApprox(s string) (Approx, bool) {
	for _, r := range approximations {
		if string(r.Name) == s {
			return r.Name, true
		}
	}
	return "", false
}

// Info returns a's row of the table, DefaultApprox's when a is unset, or
// an error naming the table's approximations when it has no such row.
func (a Approx) Info() (ApproxInfo, error) {
	if a == "" {
		a = DefaultApprox
	}
	for _, r := range approximations {
		if r.Name == a {
			return r, nil
		}
	}
	return ApproxInfo{}, fmt.Errorf("approx must be %s, got %q", ApproxList(), string(a))
}

// String is the approximation's name, "" when unset.
func (a Approx) String() string { return string(a) }

// ApproxList is the table's names quoted and joined for a message:
// `"vb", "laplace" or "ep"`.
func ApproxList() string {
	q := make([]string, len(approximations))
	for i, r := range approximations {
		q[i] = `"` + string(r.Name) + `"`
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
