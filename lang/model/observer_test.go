package model_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

// trace is an observer that writes down every call in order, in a scope
// the test chooses.
type trace struct {
	model.Watch
	scope model.Scope
	calls []string
}

func (tr *trace) Scope() model.Scope { return tr.scope }
func (tr *trace) Param(name string, x eval.Value) {
	tr.calls = append(tr.calls, fmt.Sprintf("param %s=%v", name, x))
}
func (tr *trace) Derived(name string, v eval.Value) {
	tr.calls = append(tr.calls, fmt.Sprintf("derived %s=%v", name, v))
}
func (tr *trace) Generated(name string, v eval.Value) {
	tr.calls = append(tr.calls, fmt.Sprintf("generated %s=%v", name, v))
}

// TestRunObserver runs one model in each public scope with an observer
// from outside the package: the free parameters (not the held one) and the
// derived quantities are told in statement order, on the constrained scale;
// the generated block runs only in ScopeGenerated; and ScopeValues skips
// target += (and the priors and observations), whose NaN a density run
// reports.
func TestRunObserver(t *testing.T) {
	in := eval.New(eval.Options{})
	src := `
let y = [-1.0, 0.5]
model m {
  mu ~ normal(0, 10)
  h ~ normal(0, 1)
  sigma ~ exponential(1)
  two = sigma * 2
  y ~ normal(mu, sigma)
  target += log(sigma - 0.5)
  generated {
    big = mu > 0
  }
}
`
	if _, err := in.Eval("observer.kml", src); err != nil {
		t.Fatal(err)
	}
	v, _ := in.Lookup("m")
	c, err := model.CompileFor(in, v.(*eval.Model), map[string]eval.Value{"h": eval.Num(0.5)}, model.Terms{Prior: true, Likelihood: true, Jacobian: true})
	if err != nil {
		t.Fatal(err)
	}
	d := c.NewDensityFor(in)
	q := []float64{1.5, 0} // mu = 1.5, sigma = e⁰ = 1
	for _, tc := range []struct {
		scope model.Scope
		want  string
	}{
		{model.ScopeDensity, "param mu=1.5; param sigma=1; derived two=2"},
		{model.ScopeCheck, "param mu=1.5; param sigma=1; derived two=2"},
		{model.ScopeValues, "param mu=1.5; param sigma=1; derived two=2"},
		{model.ScopeGenerated, "param mu=1.5; param sigma=1; derived two=2; generated big=true"},
	} {
		tr := &trace{scope: tc.scope}
		if err := d.Run(q, tr); err != nil {
			t.Fatalf("scope %d: %v", tc.scope, err)
		}
		if got := strings.Join(tr.calls, "; "); got != tc.want {
			t.Errorf("scope %d: told\n%s\nwant\n%s", tc.scope, got, tc.want)
		}
	}
	dc := model.DerivedCollector{Generate: true}
	if err := d.Run(q, &dc); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(dc.Out); got != "[{two [2] false} {big [1] false}]" {
		t.Errorf("DerivedCollector kept %s", got)
	}
	// sigma = e⁻² < 0.5: log of a negative number in target +=.
	low := []float64{1.5, -2}
	if err := d.Run(low, &trace{scope: model.ScopeDensity}); err == nil {
		t.Error("a density run should report target += log(negative)")
	}
	if err := d.Run(low, &trace{scope: model.ScopeValues}); err != nil {
		t.Errorf("a values run should skip target +=: %v", err)
	}
}
