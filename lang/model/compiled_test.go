package model_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestCompiledLayout compiles the models of testdata/compiled.kml and
// compares each one's slots and transforms with testdata/compiled.golden:
// the compiler's decisions (which coordinate holds which parameter, which
// transform its prior's support gives, what is held) as a reviewable text.
func TestCompiledLayout(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "compiled.kml"))
	if err != nil {
		t.Fatal(err)
	}
	in := eval.New(eval.Options{})
	if _, err := in.Eval("compiled.kml", string(src)); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		model string
		fixed map[string]eval.Value
		terms model.Terms
	}{
		{"scalars", nil, model.Terms{Prior: true, Likelihood: true, Jacobian: true}},
		{"scalars", map[string]eval.Value{"tau2": eval.Num(0.5)}, model.Terms{Likelihood: true}},
		{"vectors", nil, model.Terms{Prior: true, Likelihood: true, Jacobian: true}},
		{"vectors", map[string]eval.Value{"w": eval.Num(0)}, model.Terms{Prior: true, Likelihood: true}},
	}
	var out []string
	for _, c := range cases {
		v, ok := in.Lookup(c.model)
		if !ok {
			t.Fatalf("no model %s", c.model)
		}
		comp, err := model.CompileFor(in, v.(*eval.Model), c.fixed, c.terms)
		if err != nil {
			t.Fatalf("%s: %v", c.model, err)
		}
		out = append(out, comp.String())
	}
	got := strings.Join(out, "\n\n") + "\n"
	golden := filepath.Join("testdata", "compiled.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("no golden file (run go test ./lang/model -update): %v", err)
	}
	if got != string(want) {
		t.Errorf("compiled layout:\n%s\nwant:\n%s", got, want)
	}
}
