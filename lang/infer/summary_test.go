package infer

import (
	"context"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/kml-lang/kml/runtime/hmc"
	"github.com/kml-lang/kml/runtime/inference"
)

func TestSummaryJSONAndCSV(t *testing.T) {
	r, err := hmc.Sample(context.Background(), func() (inference.Model, error) { return stdNormal{2}, nil }, hmc.Settings{Chains: 2, Warmup: 100, Draws: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	values := [][][]float64{r.Chains[0].Draws, r.Chains[1].Draws}
	s := hmc.Summarize([]string{"w.1", "w.2"}, values, r, 10)
	b := summaryJSON(s)
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	var top []string
	for k := range obj {
		top = append(top, k)
	}
	sort.Strings(top)
	if want := []string{"chains", "diagnostics", "divergences", "draws", "params", "seconds", "warmup"}; !reflect.DeepEqual(top, want) {
		t.Errorf("top-level keys %v, want %v", top, want)
	}
	p := obj["params"].(map[string]any)["w.1"].(map[string]any)
	var keys []string
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if want := []string{"ess_bulk", "ess_tail", "mean", "q5", "q50", "q95", "rhat", "sd"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("parameter keys %v, want %v", keys, want)
	}
	// Parameters keep model order in the text.
	if i, j := strings.Index(string(b), `"w.1"`), strings.Index(string(b), `"w.2"`); !(i >= 0 && i < j) {
		t.Errorf("parameters out of order: %s", b)
	}
	var csv strings.Builder
	if err := writeCSV(&csv, []string{"w.1", "w.2"}, values, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	if lines[0] != "chain,draw,w.1,w.2,lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__" {
		t.Errorf("header %q", lines[0])
	}
	if len(lines) != 1+2*50 || !strings.HasPrefix(lines[50], "1,50,") || !strings.HasPrefix(lines[51], "2,1,") {
		t.Errorf("%d lines; line 50 %q, line 51 %q", len(lines), lines[50], lines[51])
	}
}

// stdNormal is a standard normal in d dimensions.
type stdNormal struct{ d int }

func (m stdNormal) Dim() int { return m.d }
func (m stdNormal) LogDensity(grad, q []float64) (float64, error) {
	lp := 0.0
	for i, x := range q {
		lp -= 0.5 * x * x
		grad[i] = -x
	}
	return lp, nil
}
