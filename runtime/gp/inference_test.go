package gp

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/runtime/kernels"
)

// contractTol are, per approximation, how far its log marginal likelihood
// may lie from the quadrature reference at n = 2 (per observation), and
// its posterior mean and standard deviation of each u_i (in true posterior
// sds). Seen: VB's bound 0.25 per observation below log Z at most (the
// Laplace likelihood) and sds 0.25 short; Laplace's approximation 0.18 per
// observation below (the Student-t, its documented limit is 0.25) and sds
// 0.34 short (the Gaussian at the mode misses the heavy tails); EP within
// 2·10⁻⁴ and 10⁻³ sd. VB must stay below log Z.
var contractTol = map[Approx]struct{ logZ, moment float64 }{
	"vb":      {0.3, 0.3},
	"laplace": {0.25, 0.4},
	"ep":      {1e-3, 0.01},
}

// TestInferenceContract fits every row of the table of approximations
// through the Inference contract, for every likelihood the row takes, and
// compares the Posterior with the quadrature reference: LogZ with log P(y),
// and Predict at the training inputs with the true posterior's means and
// variances; and at a new input the predictive's mean is k*ᵀα for the
// Posterior's Alpha.
func TestInferenceContract(t *testing.T) {
	for _, row := range Approximations() {
		tol, ok := contractTol[row.Name]
		if !ok {
			t.Errorf("approximation %q has no tolerance in contractTol: add one from its reference", row.Name)
			continue
		}
		for _, tc := range testLiks {
			if row.Refuse != nil && row.Refuse(tc.lik.Kind) != nil {
				continue
			}
			k, x, y := smallProblem(t, 2, tc.lik)
			K, _ := kernels.Gram(k, x)
			p, err := row.New().Fit(K, y, tc.lik, Needs{Gradient: true, Predictive: true})
			if err != nil {
				t.Fatalf("%s, %s: %v", row.Name, tc.name, err)
			}
			logZ, mean, vr := quadPosterior(k, x, y, tc.lik)
			if math.Abs(p.LogZ-logZ) > tol.logZ*float64(len(y)) || row.Name == "vb" && p.LogZ > logZ+1e-9 {
				t.Errorf("%s, %s: LogZ %.6f, quadrature %.6f", row.Name, tc.name, p.LogZ, logZ)
			}
			pm, pv, err := p.Predict(k, x, x)
			if err != nil {
				t.Fatal(err)
			}
			for i := range pm {
				sd := math.Sqrt(vr[i])
				if math.Abs(pm[i]-mean[i]) > tol.moment*sd || math.Abs(math.Sqrt(pv[i])-sd) > tol.moment*sd {
					t.Errorf("%s, %s: u_%d ~ (%.5f, sd %.5f), quadrature (%.5f, sd %.5f)", row.Name, tc.name, i, pm[i], math.Sqrt(pv[i]), mean[i], sd)
				}
			}
			t.Logf("%s, %s: LogZ %.6f (quadrature %.6f); mean %.4f, sd %.4f (%.4f, %.4f)", row.Name, tc.name, p.LogZ, logZ, pm[0], math.Sqrt(pv[0]), mean[0], math.Sqrt(vr[0]))
			if p.W == nil || len(p.DLik) != len(tc.lik.Params) {
				t.Errorf("%s, %s: the gradient's W or DLik is missing", row.Name, tc.name)
			}
		}
	}
}

// TestApproxTable: the names parse back to their rows, and the message
// lists them in order.
func TestApproxTable(t *testing.T) {
	for _, row := range Approximations() {
		a, ok := ParseApprox(string(row.Name))
		if info, err := a.Info(); !ok || err != nil || info.Name != row.Name {
			t.Errorf("%q does not parse back to its row", row.Name)
		}
	}
	if _, ok := ParseApprox("quadrature"); ok {
		t.Error(`"quadrature" parsed`)
	}
	if got := ApproxList(); got != `"vb", "laplace" or "ep"` {
		t.Errorf("ApproxList = %s", got)
	}
	if info, _ := Approx("").Info(); info.Name != DefaultApprox {
		t.Error("the unset approximation is not the default")
	}
	if _, err := Approx("quadrature").Info(); err == nil || err.Error() != `approx must be "vb", "laplace" or "ep", got "quadrature"` {
		t.Errorf("an approximation not in the table: %v", err)
	}
}
