package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// check --explain runs the slice of the program its models need (never a
// fit, never the program's output), explains each model, and reports one
// whose data come from a fit as not explained.
func TestCheckExplain(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "m.kml")
	src := `let y = [0.1, -0.3, 0.8]
print("not shown")
model plain {
  mu ~ normal(0, 1)
  y ~ normal(mu, 1)
}
model branchy {
  a ~ normal(0, 1)
  b = if a > 0 then a else -2 * a
  y ~ normal(b, 1)
}
let fit = optimize(branchy)
print(fit)
model later {
  s ~ gamma(2, 2)
  y ~ normal(0, s)
}
let m2 = fit.a + y
model after_fit {
  s ~ gamma(2, 2)
  m2 ~ normal(0, s)
}
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if status := run([]string{"check", "--explain", file}, strings.NewReader(""), &stdout, &stderr); status != exitOK {
		t.Fatalf("status %d, stderr %s", status, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	want := []string{
		"model plain: replayed",
		"model branchy: walked: the value of a is read at ",
		"model later: replayed",
		"model after_fit: not explained: its data come from a fit, at " + file + ":12:",
	}
	if len(lines) != len(want) {
		t.Fatalf("output:\n%s", stdout.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want it to start %q", i+1, lines[i], w)
		}
	}

	// A model that fails at its starting point is a positioned runtime
	// error.
	bad := filepath.Join(dir, "bad.kml")
	if err := os.WriteFile(bad, []byte("let y = [-1, 2]\nmodel m {\n  s ~ gamma(2, 2)\n  y ~ gamma(2, s)\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	status := run([]string{"check", "--explain", bad}, strings.NewReader(""), &stdout, &stderr)
	if status != exitRuntime || !strings.Contains(stderr.String(), "bad.kml:4:5: error: y has element 1") || strings.Contains(stderr.String(), "goroutine") {
		t.Errorf("status %d, stderr %q", status, stderr.String())
	}
}

// check --explain replays a GP model with count observations, whose
// gradient node it takes under Laplace's approximation (no approx is
// named there, and the default VB bound refuses counts).
func TestCheckExplainCounts(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.kml")
	src := `let x = [0, 1, 2, 3]
let y = [2, 0, 5, 1]
model pois {
  ell ~ lognormal(0, 1)
  phi ~ lognormal(0, 1)
  f ~ gp(x, rbf(ell) + 2 * constant())
  y ~ neg_binomial_2_log(f, phi)
}
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if status := run([]string{"check", "--explain", file}, strings.NewReader(""), &stdout, &stderr); status != exitOK {
		t.Fatalf("status %d, stderr %s", status, stderr.String())
	}
	if got := strings.TrimSpace(stdout.String()); got != "model pois: replayed" {
		t.Errorf("output %q", got)
	}
}
