package format

import (
	"strings"
	"testing"
)

// TestLayout pins the canonical layout, one rule a case.
func TestLayout(t *testing.T) {
	long := strings.Repeat("x", 30)
	for _, c := range []struct{ name, in, want string }{
		{"operators spaced, ^ tight",
			"let a=1+2*3-x^2/y%2@m\nlet b = !a&&b||c==d\n",
			"let a = 1 + 2 * 3 - x^2 / y % 2 @ m\nlet b = !a && b || c == d\n"},
		{"only needed parentheses",
			"let a = (1 + 2) * 3 + (4 * 5) - (6 - 7)\nlet b = (-1)^2 + -(x^2) + (2^3)^2 + 2^(3^2)\nlet c = (a < b) == c\n",
			"let a = (1 + 2) * 3 + 4 * 5 - (6 - 7)\nlet b = (-1)^2 + -x^2 + (2^3)^2 + 2^3^2\nlet c = (a < b) == c\n"},
		{"slice bounds keep parentheses",
			"let a = x[(h+1):(h+100), 1:2, :]\n",
			"let a = x[(h + 1):(h + 100), 1:2, :]\n"},
		{"statements a line each, blank lines at most one",
			"\n\nlet a = 1; let b = 2\n\n\n\nprint(a,b)\n\n\n",
			"let a = 1\nlet b = 2\n\nprint(a, b)\n"},
		{"comments leading, trailing and aligned",
			"# head\n\n# about a\nlet a = 1 # one\nlet bb = 22   # two\n\nlet c = 3 # three\n# tail\n",
			"# head\n\n# about a\nlet a = 1   # one\nlet bb = 22 # two\n\nlet c = 3 # three\n# tail\n"},
		{"model blocks",
			"model m {   # the model\n# priors\nmu ~ normal(0,1)\n\n\ns ~ gamma(2,2) # scale\ny ~ normal(mu, s)\ntarget += -mu\n  generated {\nyrep = draw(normal(mu, s))\n}\n# end\n}\nmodel e {}\n",
			"model m { # the model\n  # priors\n  mu ~ normal(0, 1)\n\n  s ~ gamma(2, 2) # scale\n  y ~ normal(mu, s)\n  target += -mu\n  generated {\n    yrep = draw(normal(mu, s))\n  }\n  # end\n}\nmodel e {}\n"},
		{"comments inside a call break it",
			"print(a, # first\n  b)\n",
			"print(\n  a, # first\n  b,\n)\n"},
		{"long calls: positional arguments fill, named ones a line each",
			"let fit = optimize(" + long + ", " + long + ", objective: \"mkl\", starts: 2, seed: 1)\n",
			"let fit = optimize(\n  " + long + ", " + long + ",\n  objective: \"mkl\",\n  starts: 2,\n  seed: 1,\n)\n"},
		{"long records a field a line",
			"let r = {alpha: " + long + ", beta: " + long + ", gamma: " + long + "}\n",
			"let r = {\n  alpha: " + long + ",\n  beta: " + long + ",\n  gamma: " + long + ",\n}\n"},
		{"matrices a row a line",
			"let m = [[" + long + ", 1], [" + long + ", 2], [" + long + ", 3]]\n",
			"let m = [\n  [" + long + ", 1],\n  [" + long + ", 2],\n  [" + long + ", 3],\n]\n"},
		{"long sums break after an operator",
			"let s = " + long + " + " + long + " + " + long + " + " + long + "\n",
			"let s = " + long + " + " + long + " +\n  " + long + " + " + long + "\n"},
		{"if chains",
			"fn f(x) = if x < 0 then \"negative " + long + "\" else if x == 0 then \"zero " + long + "\" else \"positive\"\n",
			"fn f(x) = if x < 0 then \"negative " + long + "\"\n  else if x == 0 then \"zero " + long + "\"\n  else \"positive\"\n"},
		{"nested if in parentheses",
			"let a = if if p then q else r then if s then t else u else v\n",
			"let a = if (if p then q else r) then (if s then t else u) else v\n"},
		{"strings and numbers as written",
			"let s = \"a\\u00e9\\n\" + 1.50e+3 + .5 + -1\n",
			"let s = \"a\\u00e9\\n\" + 1.50e+3 + .5 + -1\n"},
		{"imports and functions",
			"import   \"lib.kml\"\nfn f( a,b ,) = a+b\n",
			"import \"lib.kml\"\nfn f(a, b) = a + b\n"},
	} {
		got, err := Source("x.kml", []byte(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", c.name, got, c.want)
		}
		checkSource(t, c.name, c.in)
	}
}

func TestDiff(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
	new := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n"
	want := `--- a/x.kml
+++ b/x.kml
@@ -1,5 +1,5 @@
 a
-b
+B
 c
 d
 e
@@ -9,3 +9,4 @@
 i
 j
 k
+l
`
	if got := Diff("x.kml", old, new); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := Diff("x.kml", old, old); got != "" {
		t.Errorf("equal texts: %q", got)
	}
	if got := Diff("x.kml", "a", "b\n"); got != "--- a/x.kml\n+++ b/x.kml\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n" {
		t.Errorf("no final newline: %q", got)
	}
}

func TestSyntaxErrorReturned(t *testing.T) {
	if _, err := Source("x.kml", []byte("let a = (1 +\n")); err == nil || !strings.Contains(err.Error(), "x.kml:1:9") {
		t.Errorf("got %v", err)
	}
}
