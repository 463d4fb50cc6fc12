package stdlib_test

import (
	"go/build"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/kml-lang/kml/"

// allowedImports are the only imports from one library domain to another
// (design review §7.2): every domain may use the kernel values, the
// distributions use the on-tape linear algebra of core, and the CI test is
// an HSIC test. A new arrow is a design decision: add it here with why.
var allowedImports = map[string]map[string]bool{
	"dists":  {"core": true},
	"causal": {"ktest": true},
}

// domains lists stdlib's sub-packages: every directory but testdata and
// internal (the tests' shared support, which no domain imports).
func domains(t *testing.T) []string {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "testdata" && e.Name() != "internal" {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	if len(out) < 12 {
		t.Fatalf("found %d domain packages under stdlib, want 12 or more: %v", len(out), out)
	}
	return out
}

// TestStdlibImports fails on an import between domain packages that
// allowedImports does not list.
func TestStdlibImports(t *testing.T) {
	for _, d := range domains(t) {
		p, err := build.ImportDir(d, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range p.Imports {
			other, ok := strings.CutPrefix(imp, module+"stdlib/")
			if !ok || other == "kernel" || allowedImports[d][other] {
				continue
			}
			t.Errorf("stdlib/%s imports stdlib/%s, which the layout does not allow (see allowedImports)", d, other)
		}
	}
}

// TestOnlyPlotReachesGonumPlot fails if any domain package but stdlib/plot
// depends, directly or through other module packages, on gonum.org/v1/plot,
// so that an embedder who leaves plot out does not link it.
func TestOnlyPlotReachesGonumPlot(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	memo := map[string]string{} // module package → a path to gonum/plot, or ""
	var reaches func(pkg string, seen map[string]bool) string
	reaches = func(pkg string, seen map[string]bool) string {
		if r, ok := memo[pkg]; ok {
			return r
		}
		if seen[pkg] {
			return ""
		}
		seen[pkg] = true
		p, err := build.ImportDir(filepath.Join(root, strings.TrimPrefix(pkg, module)), 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, "gonum.org/v1/plot") {
				memo[pkg] = pkg + " → " + imp
				return memo[pkg]
			}
			if strings.HasPrefix(imp, module) {
				if r := reaches(imp, seen); r != "" {
					memo[pkg] = pkg + " → " + r
					return memo[pkg]
				}
			}
		}
		memo[pkg] = ""
		return ""
	}
	for _, d := range domains(t) {
		r := reaches(module+"stdlib/"+d, map[string]bool{})
		if d == "plot" {
			if r == "" {
				t.Errorf("stdlib/plot no longer imports gonum.org/v1/plot: is the test still right?")
			}
			continue
		}
		if r != "" {
			t.Errorf("stdlib/%s reaches gonum/plot: %s", d, r)
		}
	}
}
