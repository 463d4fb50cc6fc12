package gp_test

import (
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/runtime/inference"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// gpEvalsSrc is a GP classification on 40 seeded points of one input with
// noisy labels, whose ML-II optimum is finite.
const gpEvalsSrc = `
let x = draw(normal(0, 1.5), 60, seed: 3)
let c = sin(1.5 * x) + draw(normal(0, 0.5), 60, seed: 4) > 0
model cls {
  ell ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  f ~ gp(x, a * rbf(ell))
  c ~ bernoulli_logit(f)
}
`

// TestOptimizeEvaluations counts the evaluations of Laplace's
// approximation an ML-II fit makes besides the optimiser's own: replay is
// verified at the optimiser's first points (four replays), and the checks
// after the fit find the optimum's value and gradient remembered, so they
// pay only for Check's walk and the curvature check's four gradients.
// Before (39 evaluations here, the optimiser's 21 among them), the replay
// decision walked and replayed at four invented points (eight), and the
// checks evaluated the optimum three more times and the absent-parameter
// check two shifted points.
func TestOptimizeEvaluations(t *testing.T) {
	in, _ := kmltest.Run(t, gpEvalsSrc)
	mv, _ := in.Lookup("cls")
	c, err := model.CompileFor(in, mv.(*eval.Model), nil, model.Terms{Likelihood: true, Latent: model.Objective{Name: "mlm", Approx: "laplace"}})
	if err != nil {
		t.Fatal(err)
	}
	before := c.Evaluations()
	opt, err := infer.Optimize(t.Context(), in.NewThread(nil), c, inference.Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	got, lbfgs := c.Evaluations()-before, int64(opt.Evaluations)
	t.Logf("%d evaluations, %d of them L-BFGS's; %v", got, lbfgs, opt.Values)
	if want := lbfgs + 4 + 1 + 4; got > want {
		t.Errorf("the fit made %d evaluations, L-BFGS %d of them: want at most %d", got, lbfgs, want)
	}
	for _, w := range opt.Warnings {
		if strings.Contains(w, "objective") {
			t.Errorf("warning %q", w)
		}
	}
}
