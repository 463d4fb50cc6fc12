package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of the script tests")

// TestScripts runs every testdata/*.kml at the repository root with
// `kml run` and compares stdout, stderr and the exit status with
// testdata/NAME.golden: the stdout, then "--- stderr" and the stderr if
// any, then "--- exit N" if N ≠ 0. A first line "# args: ..." adds
// command-line options. Run with -update to rewrite the goldens.
func TestScripts(t *testing.T) {
	root := repoRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "testdata", "*.kml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".kml")
		t.Run(name, func(t *testing.T) {
			rel := filepath.Join("testdata", filepath.Base(file))
			got := runScript(t, root, rel)
			golden := filepath.Join(root, "testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("no golden file (run go test ./cmd/kml -update): %v", err)
			}
			if got != string(want) {
				t.Errorf("%s: output differs from %s\n--- got:\n%s\n--- want:\n%s", rel, golden, got, want)
			}
		})
	}
}

// runScript runs one script from the repository root and renders its
// output in the golden format.
func runScript(t *testing.T, root, rel string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"run", rel}
	if first, _, _ := strings.Cut(string(src), "\n"); strings.HasPrefix(first, "# args:") {
		args = append(args, strings.Fields(strings.TrimPrefix(first, "# args:"))...)
	}
	var stdout, stderr bytes.Buffer
	wd, _ := os.Getwd()
	if err := os.Chdir(root); err != nil {
		t.Fatal(err)
	}
	status := run(args, strings.NewReader(""), &stdout, &stderr)
	os.Chdir(wd)
	out := stdout.String()
	if stderr.Len() > 0 {
		out += "--- stderr\n" + stderr.String()
	}
	// Absolute paths differ between checkouts.
	out = strings.ReplaceAll(out, root, "$ROOT")
	if status != 0 {
		out += fmt.Sprintf("--- exit %d\n", status)
	}
	return out
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("repository root not found at %s", dir)
	}
	return dir
}

// runInDefaultSuite are the examples that TestExamples runs, in their quick
// versions: at least one per family (the language, BKE, KST, MMD and HSIC
// tests, NUTS on a GP model), about 9 s of CPU in all. The others (the GP,
// KBR and digits examples, each 3-26 s at full settings, and ozone_pc,
// whose three PC graphs take 3.9 s of CPU even quick, which at load 40 put
// cmd/kml past go test's 10 minutes; pc is tested in runtime/causal and by
// TestInterruptFamilies) only parse and check here; every example runs at
// its full settings with `go test -tags examples ./cmd/kml`
// (examples_test.go), which .ci/run calls.
var runInDefaultSuite = []string{
	"basics.kml",
	"bke_embedding.kml",
	"bke_grid.kml",
	"bkl_settings.kml",
	"goodness_of_fit.kml",
	"independence.kml",
	"kst_fantasy.kml",
	"kst_toy.kml",
	"mkl_logdet_bounds.kml",
	"model_data.kml",
	"poisson_gp.kml",
	"two_sample.kml",
	"two_sample_grid.kml",
	"workflow.kml",
}

// TestExamples checks every program in examples/ with `kml check`, and runs
// the quick versions of those in runInDefaultSuite, side by side, and
// expects success.
func TestExamples(t *testing.T) {
	dir, files := copyExamples(t, true)
	runs := map[string]bool{}
	for _, name := range runInDefaultSuite {
		runs[name] = true
	}
	for _, name := range files {
		t.Run("check/"+name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if status := run([]string{"check", filepath.Join(dir, name)}, strings.NewReader(""), &stdout, &stderr); status != 0 {
				t.Errorf("kml check %s exited %d:\n%s%s", name, status, stdout.String(), stderr.String())
			}
		})
		delete(runs, name)
	}
	for name := range runs {
		t.Errorf("runInDefaultSuite names %s, which is not in examples/", name)
	}
	for _, name := range runInDefaultSuite {
		t.Run("run/"+name, func(t *testing.T) {
			t.Parallel()
			runExample(t, dir, name)
		})
	}
}

// copyExamples copies examples/ and its data to a temporary directory (the
// examples write their pictures next to themselves), applying the "# quick:"
// lines if quick is set, and returns the directory and the programs' names.
// A long example shrinks itself for TestExamples with lines
// "# quick: let NAME = VALUE", each replacing the line that binds NAME.
//
// An example with a line "# ci: quick" is copied in its quick version even
// for the full run: its full settings take longer than the whole examples
// run may (gp_large.kml's 10⁵-point ML-II fit), so CI runs it quick and
// the full run is made by hand, as its comment says.
func copyExamples(t *testing.T, quickly bool) (dir string, names []string) {
	t.Helper()
	root := repoRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "examples", "*.kml"))
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	dir = t.TempDir()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if quickly || bytes.Contains(data, []byte("\n# ci: quick\n")) {
			data = quick(data)
		}
		os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644)
		names = append(names, filepath.Base(f))
	}
	// The data the examples read.
	inputs, _ := filepath.Glob(filepath.Join(root, "examples", "data", "*"))
	os.Mkdir(filepath.Join(dir, "data"), 0o755)
	for _, f := range inputs {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "data", filepath.Base(f)), data, 0o644)
	}
	return dir, names
}

// runExample runs dir/name with `kml run` and expects success.
func runExample(t *testing.T, dir, name string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if status := run([]string{"run", filepath.Join(dir, name)}, strings.NewReader(""), &stdout, &stderr); status != 0 {
		t.Errorf("%s exited %d:\n%s%s", name, status, stdout.String(), stderr.String())
	}
}

// A file that cannot be read is a run-time failure (status 1), whatever
// the reason: the command line itself was well formed.
func TestUnreadableFileIsRuntimeError(t *testing.T) {
	for _, path := range []string{filepath.Join(t.TempDir(), "missing.kml"), t.TempDir()} {
		var stdout, stderr bytes.Buffer
		if status := run([]string{"run", path}, strings.NewReader(""), &stdout, &stderr); status != exitRuntime || !strings.HasPrefix(stderr.String(), "error: ") {
			t.Errorf("kml run %s: status %d, want 1 (%s)", path, status, stderr.String())
		}
	}
}

// quick applies an example's "# quick: let NAME = VALUE" lines.
func quick(src []byte) []byte {
	lines := strings.Split(string(src), "\n")
	for _, l := range lines {
		q, ok := strings.CutPrefix(l, "# quick: ")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(q, "let "), "=")
		prefix := "let " + strings.TrimSpace(name) + " ="
		for i, m := range lines {
			if strings.HasPrefix(m, prefix) {
				lines[i] = q
			}
		}
	}
	return []byte(strings.Join(lines, "\n"))
}
