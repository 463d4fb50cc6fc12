package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/grammar"
)

// testUniverse is a few builtins with the shapes of the real library's.
type testUniverse map[string]*Signature

func (u testUniverse) Lookup(n string) (*Signature, bool) { s, ok := u[n]; return s, ok }
func (u testUniverse) Names() []string {
	var out []string
	for n := range u {
		out = append(out, n)
	}
	return out
}

var universe = testUniverse{
	"gamma":     {Name: "gamma", Params: []Param{{Name: "alpha"}, {Name: "beta"}}},
	"normal":    {Name: "normal", Params: []Param{{Name: "mu"}, {Name: "sigma"}}},
	"rbf":       {Name: "rbf", Params: []Param{{Name: "ell"}}},
	"gp":        {Name: "gp", Params: []Param{{Name: "x"}, {Name: "kernel"}}},
	"print":     {Name: "print", Variadic: "values"},
	"landmarks": {Name: "landmarks", Params: []Param{{Name: "x"}, {Name: "m"}, {Name: "seed", Optional: true}, {Name: "method", Optional: true}}},
	"profile":   {Name: "profile", Params: []Param{{Name: "m"}}, AnyNamed: true},
	"mean":      {Name: "mean", Params: []Param{{Name: "x"}}},
}

type mapImporter map[string]string

func (m mapImporter) Import(pos ast.Pos, path string) (string, *ast.File, error) {
	src, ok := m[path]
	if !ok {
		return "", nil, ast.Errorf(pos, "cannot import %q: no such file", path)
	}
	f, err := grammar.Parse(path, src)
	return path, f, err
}

func checkSrc(t *testing.T, src string, files mapImporter) (*ast.File, error) {
	t.Helper()
	f, err := grammar.Parse("t.kml", src)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	c := &Checker{Universe: universe, Importer: files}
	return f, c.File(f, NewScope(c.Root()))
}

// Key names the file being checked as Import names it.
func (m mapImporter) Key(file string) string {
	if _, ok := m[file]; ok {
		return file
	}
	return ""
}

// TestSelfImport checks that a file importing itself is one cycle error,
// without a clash between its names and those of a second copy of it.
func TestSelfImport(t *testing.T) {
	files := mapImporter{"self.kml": "import \"self.kml\"\nlet s = 1"}
	f, err := grammar.Parse("self.kml", files["self.kml"])
	if err != nil {
		t.Fatal(err)
	}
	c := &Checker{Universe: universe, Importer: files}
	err = c.File(f, NewScope(c.Root()))
	want := "self.kml:1:8: error: import cycle: self.kml → self.kml"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestCheckErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"let x = 1\nprint(y)", "2:7: error: undefined: y"},
		{"let gamma2 = 1\nprint(gamma3)", "2:7: error: undefined: gamma3; did you mean gamma2?"},
		{"let landmark = 1\nprint(landmraks(landmark, 3))", "did you mean landmarks?"},
		{"let x = 1\nlet x = 2", "2:5: error: \"x\" is already defined at line 1:5; a name is bound once in a scope"},
		{"let z = landmarks(1, 2, seeed: 3)", "1:25: error: landmarks has no argument \"seeed\"; did you mean \"seed\"?"},
		{"let z = landmarks(1, 2, seed: 3, seed: 4)", "1:34: error: argument \"seed\" is given twice"},
		{"let z = landmarks(1, m: 2, x: 3)", "1:28: error: argument \"x\" is given twice (once by position)"},
		{"let z = landmarks(1)", "1:18: error: missing argument \"m\" in call to landmarks(x, m, seed?, method?)"},
		{"let z = gamma(1, 2, 3)", "1:21: error: too many arguments to gamma(alpha, beta): it takes 2 positional arguments"},
		{"fn f(a, b) = a + b\nlet z = f(1)", "2:10: error: missing argument \"b\" in call to f(a, b)"},
		{"fn f(a, a) = a", "1:9: error: \"a\" is already defined"},
		{"fn f(n) = if n < 1 then 1 else n * f(n - 1)\nprint(f(3))", ""},
		{"model m {\n  y ~ normal(mu, 1)\n  mu ~ normal(0, 1)\n}", "2:14: error: \"mu\" is used before it is declared (line 3); declare it earlier in the model"},
		{"model m {\n  a ~ normal(0, 1)\n  a ~ normal(0, 2)\n}", "3:3: error: \"a\" is already declared in this model at line 2:3"},
		{"let y = 1\nmodel m {\n  a ~ normal(0, 1)\n  y = a\n}", "4:3: error: \"y\" is already bound outside the model (at line 1:5)"},
		{"let y = 1\nmodel m {\n  a ~ normal(0, 1)\n  y + a ~ normal(0, 1)\n}", "4:7: error: the left of `~` must be data bound outside the model, but \"a\" is a model parameter of the model"},
		{"model m {\n  w[k] ~ normal(0, 1)\n}", "2:5: error: undefined: k"},
		{"import \"a.kml\"", "b.kml:1:8: error: import cycle: a.kml → b.kml → a.kml"},
		{"import \"nope.kml\"", "1:8: error: cannot import \"nope.kml\": no such file"},
		{"import \"c.kml\"\nprint(cval)\nlet cval = 2", "3:5: error: \"cval\" is already defined"},
		{"let x = profile(1, ell: 2, tau: 3)", ""},
		{"let x = 1\nlet y = x[1, 2, 3]", "2:10: error: at most two indices"},
		{"model m {\n  mean ~ normal(0, 1)\n}", ""},
		{"print(1, 2, y: 3)", "1:13: error: print has no argument \"y\""},
	}
	files := mapImporter{
		"a.kml": "import \"b.kml\"\nlet a = 1",
		"b.kml": "import \"a.kml\"\nlet b = 1",
		"c.kml": "let cval = 1",
	}
	for _, c := range cases {
		_, err := checkSrc(t, c.src, files)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: unexpected error %v", c.src, err)
			}
			continue
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%q:\n got  %s\n want %s", c.src, got, c.want)
		}
	}
}

func TestAllErrorsAtOnce(t *testing.T) {
	_, err := checkSrc(t, "print(a)\nprint(b)\nmodel m {\n  x ~ normal(q, 1)\n}", nil)
	list := err.(ast.ErrorList)
	if len(list) != 3 {
		t.Fatalf("want 3 errors, got %v", err)
	}
	for i, line := range []int{1, 2, 4} {
		if list[i].Pos.Line != line {
			t.Errorf("error %d on line %d, want %d", i, list[i].Pos.Line, line)
		}
	}
}

func TestTildeClassification(t *testing.T) {
	src := `let x = 1
let y = 2
let X = 3
model m {
  ell ~ gamma(1, 1)
  w[2] ~ normal(0, 1)
  k = rbf(ell)
  f ~ gp(X, k)
  x ~ normal(0, ell)
  y[1:2] ~ normal(0, 1)
  x[1] ~ normal(w[1], 1)
}`
	f, err := checkSrc(t, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range f.Stmts[3].(*ast.Model).Body {
		if td, ok := s.(*ast.Tilde); ok {
			name := "-"
			if td.Name != nil {
				name = td.Name.Name
			}
			got = append(got, fmt.Sprintf("%s:%s", td.Kind, name))
		}
	}
	want := "parameter:ell vector parameter:w latent function:f observation:- observation:- observation:-"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "abc", 0}, {"kitten", "sitting", 3}, {"τ2", "τ3", 1}, {"", "ab", 2}} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
