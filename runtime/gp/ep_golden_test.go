package gp

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// epGolden is one EP fit's results: the log marginal, its gradient (kernel
// hyperparameters, then the likelihood's parameters), and the posterior
// (mean, variances, α with μ = Kα).
type epGolden struct {
	Name                 string
	LogZ                 float64
	Grad, Mu, Var, Alpha []float64
}

// epGoldenCases are the EP tests' problems: the four of epCases at n = 12
// (laplaceProblem), the two counts at n = 12 (countProblem), the logistic
// at n = 60 (smallProblem) and TestEPSeparable's separable labels at
// amplitudes 1, 100 and 10⁴.
func epGoldenCases(t *testing.T) []struct {
	name string
	k    kernels.Kernel
	x    *mat.Dense
	y    []float64
	lik  Lik
} {
	type c = struct {
		name string
		k    kernels.Kernel
		x    *mat.Dense
		y    []float64
		lik  Lik
	}
	var cs []c
	for _, tc := range epCases {
		k, x, y := laplaceProblem(t, 12, tc.lik, tc.outlier)
		cs = append(cs, c{tc.name, k, x, y, tc.lik})
	}
	for _, tc := range countLiks {
		k, x, y := countProblem(t, 12)
		cs = append(cs, c{tc.name, k, x, y, tc.lik})
	}
	k, x, y := smallProblem(t, 60, Lik{Kind: Logit})
	cs = append(cs, c{"logit-60", k, x, y, Lik{Kind: Logit}})
	xs, _ := testData(40, 2, 5)
	ys := make([]float64, 40)
	for i := range ys {
		ys[i] = math.Copysign(1, xs.At(i, 0))
	}
	for _, a := range []float64{1, 100, 1e4} {
		rbf, _ := kernels.NewRBF([]float64{0.5})
		k, _ := kernels.NewScaled(a, rbf)
		cs = append(cs, c{fmt.Sprintf("separable-%g", a), k, xs, ys, Lik{Kind: Logit}})
	}
	return cs
}

// TestEPGolden: EP's log marginal, gradient and posterior on the EP tests'
// problems equal, to 10⁻⁸ (absolute for the log marginal, relative to
// max(1, |value|) for the rest), those of the EP before its rank-one
// updates went through the BLAS and the logistic's tilted integrals were
// carried from node to node (testdata/ep_before.json, written by this test
// with KML_EP_GOLDEN=write from commit d67be7c's ep.go), except where that
// EP's Simpson rule was itself less accurate: TestEPSeparable's labels at
// amplitudes 100 and 10⁴, whose cavities are wide (variances to 10⁴ and
// 10⁶, where the rule erred by 10⁻⁶ and more). There the results equal,
// to 10⁻⁹, those of EP with every tilted integral by the Gauss–Legendre
// panels alone (tiltedLogitRule, a second rule, also checked against the
// Gauss–Kronrod reference by TestTiltedLogit), and the log shows how far
// the old results were from both.
func TestEPGolden(t *testing.T) {
	got := epGoldenRun(t)
	const file = "testdata/ep_before.json"
	if os.Getenv("KML_EP_GOLDEN") == "write" {
		b, _ := json.MarshalIndent(got, "", " ")
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var want []epGolden
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(got) {
		t.Fatalf("%d cases, %d stored", len(got), len(want))
	}
	// The second rule's results, for the wide cases.
	epTiltedLogit = func(y, m, v float64) (float64, float64, float64, int) {
		return tiltedLogitRule(y, m, v, epGLNodes, epGLWidth, epGLDrop, epGLRange)
	}
	panels := epGoldenRun(t)
	epTiltedLogit = tiltedLogit
	worst, worstWide, oldWide := 0.0, 0.0, 0.0
	for i, w := range want {
		if wide := w.Name == "separable-100" || w.Name == "separable-10000"; wide {
			worstWide = math.Max(worstWide, epGoldenCompare(t, got[i], panels[i], 1e-9))
			oldWide = math.Max(oldWide, epGoldenCompare(nil, w, panels[i], 0))
			continue
		}
		worst = math.Max(worst, epGoldenCompare(t, got[i], w, 1e-8))
	}
	t.Logf("largest difference from before: %.2e; wide cavities: from the panels' results %.2e (before: %.2e)", worst, worstWide, oldWide)
}

// epGoldenCompare is the largest difference of g from w (as TestEPGolden
// measures it), each above tol reported to t (unless t is nil).
func epGoldenCompare(t *testing.T, g, w epGolden, tol float64) float64 {
	d := math.Abs(g.LogZ - w.LogZ)
	worst := d
	if t != nil && !(d <= tol) {
		t.Errorf("%s: log Z %.12g, want %.12g", w.Name, g.LogZ, w.LogZ)
	}
	for _, v := range []struct {
		what      string
		got, want []float64
	}{{"gradient", g.Grad, w.Grad}, {"mean", g.Mu, w.Mu}, {"variance", g.Var, w.Var}, {"alpha", g.Alpha, w.Alpha}} {
		for j := range v.want {
			d := math.Abs(v.got[j]-v.want[j]) / math.Max(1, math.Abs(v.want[j]))
			worst = math.Max(worst, d)
			if t != nil && !(d <= tol) {
				t.Errorf("%s: %s[%d] %.12g, want %.12g", w.Name, v.what, j, v.got[j], v.want[j])
			}
		}
	}
	return worst
}

// epGoldenRun is TestEPGolden's results on epGoldenCases.
func epGoldenRun(t *testing.T) []epGolden {
	var got []epGolden
	for _, c := range epGoldenCases(t) {
		g := epGolden{Name: c.name, Grad: make([]float64, c.k.NumHyper()+len(c.lik.Params))}
		var err error
		if g.LogZ, err = NonGaussian(Settings{Approx: EP{}}, c.k, c.x, c.y, c.lik, g.Grad); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		K, _ := kernels.Gram(c.k, c.x)
		s, err := FitEP(K, c.y, c.lik)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p, err := EP{}.Fit(K, c.y, c.lik, Needs{Predictive: true})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		g.Mu, g.Var, g.Alpha = s.Mu, s.Var, p.Alpha
		got = append(got, g)
	}
	return got
}
