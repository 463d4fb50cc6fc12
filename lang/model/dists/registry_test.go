package dists

import (
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
)

// mvn is multi_normal(0, I₂).
func mvn(t *testing.T) *MultiNormal {
	m, err := NewMultiNormal(&eval.Vec{Data: []float64{0, 0}}, mat.NewTriDense(2, mat.Lower, []float64{1, 0, 0, 1}), "")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func vecParam(name string, k int) eval.ModelParam { return eval.ModelParam{Name: name, Size: k} }

// TestRegistryTransforms: each prior's support reaches, through the
// registry, the transform onto it, and each transform is checked as the
// simplex and Cholesky ones are (checkTransform): the tape's values are
// Constrain's, Unconstrain inverts it, the derivatives and the
// log-Jacobian match finite differences.
func TestRegistryTransforms(t *testing.T) {
	fam := func(name string) dist.Family {
		f, ok := dist.Lookup(name)
		if !ok {
			t.Fatalf("no family %s", name)
		}
		return f
	}
	num := func(xs ...float64) []eval.Value {
		out := make([]eval.Value, len(xs))
		for i, x := range xs {
			out[i] = eval.Num(x)
		}
		return out
	}
	id := func(x []float64) []float64 { return x }
	for _, c := range []struct {
		prior    Distribution
		p        eval.ModelParam
		describe string
		u        []float64
		free     func([]float64) []float64
	}{
		{&DistVal{Family: fam("normal"), Params: num(0, 1)}, vecParam("b", 0), "identity onto (-Inf, Inf)", []float64{0.3}, id},
		{&DistVal{Family: fam("normal"), Params: num(0, 1)}, vecParam("b", 3), "identity onto (-Inf, Inf)", []float64{0.3, -1, 2}, id},
		{&DistVal{Family: fam("gamma"), Params: num(2, 1)}, vecParam("s", 0), "log onto (0, Inf)", []float64{-0.4}, id},
		{&DistVal{Family: fam("uniform"), Params: num(-1, 3)}, vecParam("a", 2), "scaled logit onto (-1, 3)", []float64{0.7, -2}, id},
		{&DistVal{Family: fam("normal"), Params: num(0, 1), Ordered: true}, vecParam("c", 3), "ordered: x₁ = u₁, xₖ = xₖ₋₁ + exp(uₖ)", []float64{-1, 0.2, -0.5}, id},
		{mvn(t), vecParam("m", 2), "identity onto (-Inf, Inf)", []float64{1, -1}, id},
		{&Dirichlet{Alpha: &eval.Vec{Data: []float64{1, 2, 3}}}, vecParam("theta", 3), "simplex (stick-breaking) of 3 elements", []float64{0.1, -0.3},
			func(x []float64) []float64 { return x[:2] }},
		{&LKJCholesky{Eta: eval.Num(2)}, vecParam("L", 2), "Cholesky factor of a 2×2 correlation matrix (tanh of canonical partial correlations)", []float64{0.4},
			func(x []float64) []float64 { return x[1:2] }},
	} {
		tr, err := TransformFor(c.prior, c.p)
		if err != nil {
			t.Errorf("%s for %s: %v", c.prior, c.p.Name, err)
			continue
		}
		if got := tr.Describe(); got != c.describe {
			t.Errorf("%s for %s: transform %q, want %q", c.prior, c.p.Name, got, c.describe)
		}
		if tr.NeedsPrior() {
			t.Errorf("%s for %s: a fixed support's transform says it needs the prior", c.prior, c.p.Name)
		}
		checkTransform(t, tr, c.u, c.free)
	}
}

// TestOrderedTransformAdmits: a held ordered vector must increase, and a
// value that does not cannot start a fit.
func TestOrderedTransformAdmits(t *testing.T) {
	tr, err := BijectTo(OrderedVector{}, vecParam("c", 3))
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Admits(&eval.Vec{Data: []float64{-1, 0, 2}}) || tr.Admits(&eval.Vec{Data: []float64{0, 0, 2}}) {
		t.Error("ordered Admits does not follow the order")
	}
	if _, err := tr.Unconstrain("c", &eval.Vec{Data: []float64{1, 0, 2}}); err == nil || !strings.Contains(err.Error(), "is ordered") {
		t.Errorf("Unconstrain of an unordered vector: %v", err)
	}
}

// TestMovingTransform: bounds that depend on another parameter make a
// transform that reads the prior at each evaluation, refuses a starting
// value, and reports crossed bounds.
func TestMovingTransform(t *testing.T) {
	f, _ := dist.Lookup("uniform")
	tp := ad.NewTape()
	a := tp.Input(0.5)
	prior := &DistVal{Family: f, Params: []eval.Value{eval.Num(0), &eval.ADNum{T: tp, V: a}}}
	tr, err := TransformFor(prior, vecParam("b", 0))
	if err != nil {
		t.Fatal(err)
	}
	if !tr.NeedsPrior() {
		t.Fatal("uniform(0, a) with a a parameter: the transform does not read its prior")
	}
	if _, err := tr.Unconstrain("b", eval.Num(0.2)); err == nil {
		t.Error("a moving transform accepted a starting value")
	}
	x, logJ, ok := tr.Record(tp, []ad.Var{tp.Input(0)}, prior)
	if !ok || len(logJ) != 1 {
		t.Fatalf("Record: ok %v, %d log-Jacobian terms", ok, len(logJ))
	}
	// u = 0 is the middle of (0, a), and log |dx/du| = log(a/4).
	if v := x.(*eval.ADNum).Value(); math.Abs(v-0.25) > 1e-15 {
		t.Errorf("x(0) on (0, 0.5) = %v, want 0.25", v)
	}
	if j := tp.Value(logJ[0]); math.Abs(j-math.Log(0.125)) > 1e-15 {
		t.Errorf("log-Jacobian %v, want log(1/8)", j)
	}
	crossed := &DistVal{Family: f, Params: []eval.Value{eval.Num(1), &eval.ADNum{T: tp, V: a}}}
	if _, _, ok := tr.Record(tp, []ad.Var{tp.Input(0)}, crossed); ok {
		t.Error("Record on (1, 0.5) did not report the crossed bounds")
	}
}

// unknownSupport is a support no transform is registered for.
type unknownSupport struct{}

func (unknownSupport) constraint() {}

func TestBijectToUnknownSupport(t *testing.T) {
	if _, err := BijectTo(unknownSupport{}, vecParam("x", 0)); err == nil {
		t.Error("BijectTo found a transform for an unregistered support")
	}
}

// TestDiscretePriorsRefused: a distribution that cannot be a prior says so
// through its Support.
func TestDiscretePriorsRefused(t *testing.T) {
	f, _ := dist.Lookup("poisson")
	for _, d := range []Distribution{
		&DistVal{Family: f, Params: []eval.Value{eval.Num(2)}},
		&CategoricalLogit{Beta: &eval.Vec{Data: []float64{0, 1}}},
	} {
		if _, err := TransformFor(d, vecParam("k", 0)); err == nil || !strings.Contains(err.Error(), "discrete prior") {
			t.Errorf("%s as a prior: %v", d, err)
		}
	}
}

// TestNoModelImport: lang/model imports this package, so it must not
// import lang/model (nor anything under it).
func TestNoModelImport(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			if p := strings.Trim(im.Path.Value, `"`); p == "github.com/kml-lang/kml/lang/model" || strings.HasPrefix(p, "github.com/kml-lang/kml/lang/model/") {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
