package gp_test

import (
	"bytes"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	_ "github.com/kml-lang/kml/stdlib"
)

// predictFitSrc fits a latent GP classifier under EP and predicts from
// optimize's record and from the model with values; the test predicts
// from a record built by hand in optimize's shape too (in Go: `model` is
// a keyword, so KML source cannot name the field).
const predictFitSrc = `
let x = [[0.1, 1.0], [0.5, -0.3], [0.9, 0.4], [1.3, 1.1], [1.7, -0.8], [2.1, 0.2], [2.6, 0.9], [3.0, -0.1]]
let c = [1, 1, 0, 1, 0, 0, 1, 0]
let xnew = [[0.3, 0.2], [1.9, -0.4], [2.8, 0.5]]
model cls {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  f ~ gp(x, a * rbf(ell))
  c ~ bernoulli_logit(f)
}
let fit = optimize(cls, objective: "ml", approx: "ep")
let at = {ell: fit.ell, a: fit.a}
let from_fit = predict(fit, xnew)
let from_values = predict(cls, xnew, values: at, approx: "ep")
let from_vb = predict(cls, xnew, values: at)
`

// TestPredictReadsOptimum: optimize keeps its typed objective beside the
// record it returns, and predict reads it there: the same predictive as
// the model with values and approx: "ep", and as a record built by hand,
// which predict parses; VB's differs, so the approximation was read.
func TestPredictReadsOptimum(t *testing.T) {
	var out bytes.Buffer
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out})
	if _, err := in.Eval("t.kml", predictFitSrc); err != nil {
		var b bytes.Buffer
		in.Sources().Print(&b, err)
		t.Fatal(b.String())
	}
	eval1 := func(src string) {
		t.Helper()
		if _, err := in.Eval("t.kml", src); err != nil {
			var b bytes.Buffer
			in.Sources().Print(&b, err)
			t.Fatal(b.String())
		}
	}
	rec := func(name string) *eval.Record {
		v, ok := in.Lookup(name)
		r, isRec := v.(*eval.Record)
		if !ok || !isRec {
			t.Fatalf("%s is not a record", name)
		}
		return r
	}
	hand := eval.NewRecord()
	for _, name := range rec("fit").AttrNames() {
		v, _ := rec("fit").Attr(name)
		hand.Set(name, v)
	}
	if err := in.Define("hand", hand); err != nil {
		t.Fatal(err)
	}
	eval1("let from_hand = predict(hand, xnew)")
	fit, ok := model.LatentFitOf(rec("fit"))
	if !ok {
		t.Fatal("optimize kept no typed objective beside its record")
	}
	if fit.Objective.Name != model.ObjMLM || fit.Objective.Approx != "ep" || fit.Model == nil {
		t.Errorf("kept %+v, want objective mlm, approx ep and the model", fit)
	}
	if _, ok := model.LatentFitOf(rec("hand")); ok {
		t.Error("a record built by hand has a typed objective")
	}
	mean := func(name string) []float64 {
		v, _ := rec(name).Attr("f_mean")
		xs, _ := eval.ToFloats(v)
		return xs
	}
	want := mean("from_values")
	for _, name := range []string{"from_fit", "from_hand"} {
		got := mean(name)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: f_mean[%d] = %v, from the model with values %v", name, i, got[i], want[i])
			}
		}
	}
	vb := mean("from_vb")
	same := true
	for i := range want {
		same = same && vb[i] == want[i]
	}
	if same {
		t.Error("VB's predictive equals EP's: the test cannot tell which approximation predict used")
	}
}
