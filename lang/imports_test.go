package lang_test

import (
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/kml-lang/kml/"

// layers is the model stack, lowest first (design review §7): the
// inference services consume a model's density, a model uses the
// distributions, and the distributions are values of the interpreter.
// A package may depend on the layers below it, never on one above.
// A layer that does not exist yet is skipped.
var layers = []string{"lang/eval", "lang/model/dists", "lang/model", "lang/infer"}

// forbidden are module packages that the packages under a prefix (the
// prefix's own package and those below it) must not depend on, directly
// or through other module packages, with why.
var forbidden = []struct {
	under string
	not   []string
	why   string
}{
	{"lang/model", []string{"runtime/hmc", "runtime/inference", "lang/infer"},
		"what a model means does not depend on how it is fitted; the samplers and optimisers are lang/infer's"},
	{"lang", []string{"stdlib"},
		"the language does not depend on its library; the commands and the root package wire the library in"},
}

// TestLangImports fails on a dependency that the layers or forbidden do
// not allow. It reads the imports of the non-test files, as go list's
// Imports does.
func TestLangImports(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	g := importGraph(t, root)
	pkgs := packagesUnder(g, "lang")
	if len(pkgs) < 10 {
		t.Fatalf("found %d packages under lang, want 10 or more: %v", len(pkgs), pkgs)
	}
	rank := map[string]int{}
	for i, l := range layers {
		if _, ok := g[l]; ok {
			rank[l] = i
		}
	}
	for _, p := range pkgs {
		reached := g.reach(p)
		if r, ok := rank[p]; ok {
			for q, path := range reached {
				if rq, ok := rank[q]; ok && rq > r {
					t.Errorf("%s depends on %s (%s), a layer above it: the stack is %s", p, q, path, stack())
				}
			}
		}
		for _, f := range forbidden {
			if !under(p, f.under) {
				continue
			}
			for _, not := range f.not {
				for q, path := range reached {
					if !under(q, not) {
						continue
					}
					t.Errorf("%s depends on %s (%s): %s", p, q, path, f.why)
				}
			}
		}
	}
}

// stack is the layers as arrows of dependency, highest first.
func stack() string {
	s := slices.Clone(layers)
	slices.Reverse(s)
	return strings.Join(s, " → ")
}

// graph maps each module package (its path inside the module) to the
// module packages its non-test files import.
type graph map[string][]string

// importGraph reads every package of the module under root.
func importGraph(t *testing.T, root string) graph {
	g := graph{}
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() {
			return nil
		}
		if name := e.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		p, err := build.ImportDir(path, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		var imps []string
		for _, imp := range p.Imports {
			if q, ok := strings.CutPrefix(imp, module); ok {
				imps = append(imps, q)
			}
		}
		g[rel] = imps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// reach maps every module package p depends on to a path from p to it.
func (g graph) reach(p string) map[string]string {
	out := map[string]string{}
	queue := []string{p}
	paths := map[string]string{p: p}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, y := range g[x] {
			if _, seen := paths[y]; seen {
				continue
			}
			paths[y] = paths[x] + " → " + y
			out[y] = paths[y]
			queue = append(queue, y)
		}
	}
	return out
}

// packagesUnder lists the packages at or below prefix, sorted.
func packagesUnder(g graph, prefix string) []string {
	var out []string
	for p := range g {
		if under(p, prefix) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// under reports whether p is prefix or a package below it.
func under(p, prefix string) bool {
	return p == prefix || strings.HasPrefix(p, prefix+"/")
}
