// Command filearrows counts the file-to-file arrows inside one or more Go
// packages and how many of them run back up.
//
// An arrow A → B means a file A uses a name declared in file B of the same
// package (types.Info.Uses, type-checked against the export data that
// `go list -export` gives go/importer). The files are put on floors by
// the arrows: the strongly connected components of the graph are rooms,
// and an arrow runs back up when it lies inside a room of several files —
// a cycle, which no layering of the files can point downwards. It is how
// DESIGN-REVIEW-style "back-up arrows" are counted in this repository
// (issue 35's before/after figures for lang/model).
//
// usage: go run ./scripts/filearrows PKGDIR...
package main

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: filearrows PKGDIR...")
		os.Exit(2)
	}
	for _, dir := range os.Args[1:] {
		if err := count(dir); err != nil {
			fmt.Fprintf(os.Stderr, "filearrows: %s: %v\n", dir, err)
			os.Exit(1)
		}
	}
}

func count(dir string) error {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return err
	}
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			return err
		}
		if strings.HasSuffix(f.Name.Name, "_test") || !buildable(n) {
			continue
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	exports, err := exportData(dir)
	if err != nil {
		return err
	}
	lookup := func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	pkg, err := conf.Check(dir, fset, files, info)
	if err != nil {
		return err
	}
	fileOf := func(p token.Pos) string { return filepath.Base(fset.Position(p).Filename) }
	edges := map[[2]string]bool{}
	nodes := map[string]bool{}
	for _, f := range files {
		nodes[fileOf(f.Pos())] = true
	}
	for id, obj := range info.Uses {
		if obj == nil || obj.Pkg() != pkg || !obj.Pos().IsValid() {
			continue
		}
		if obj.Parent() != nil && obj.Parent() != pkg.Scope() {
			// A local, a parameter: declared in the same file.
			if _, isVar := obj.(*types.Var); isVar && !obj.(*types.Var).IsField() {
				continue
			}
		}
		a, b := fileOf(id.Pos()), fileOf(obj.Pos())
		if a != b {
			edges[[2]string{a, b}] = true
		}
	}
	// Tarjan's strongly connected components.
	adj := map[string][]string{}
	for e := range edges {
		adj[e[0]] = append(adj[e[0]], e[1])
	}
	index, low, comp := map[string]int{}, map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	next, ncomp := 0, 0
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range adj[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = ncomp
				if w == v {
					break
				}
			}
			ncomp++
		}
	}
	var sorted []string
	for n := range nodes {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		if _, seen := index[n]; !seen {
			visit(n)
		}
	}
	back := 0
	size := map[int]int{}
	for _, n := range sorted {
		size[comp[n]]++
	}
	var cyc []string
	for e := range edges {
		if comp[e[0]] == comp[e[1]] {
			back++
			cyc = append(cyc, e[0]+" → "+e[1])
		}
	}
	sort.Strings(cyc)
	biggest := 0
	for _, s := range size {
		biggest = max(biggest, s)
	}
	up := upArrows(sorted, edges)
	fmt.Printf("%s: %d files, %d arrows; %d run back up against the best layering found, %d lie inside cycles; largest cycle %d files\n",
		dir, len(nodes), len(edges), up, back, biggest)
	if os.Getenv("VERBOSE") != "" {
		for _, c := range cyc {
			fmt.Println("  ", c)
		}
	}
	return nil
}

// upArrows lays the files out top to bottom with Eades, Lin and Smyth's
// greedy ordering for the feedback arc set (sinks go to the bottom, sources
// to the top, otherwise the file with the most outgoing minus incoming
// arrows goes next from the top) and counts the arrows that point up.
func upArrows(nodes []string, edges map[[2]string]bool) int {
	left := map[string]bool{}
	for _, n := range nodes {
		left[n] = true
	}
	deg := func(n string) (in, out int) {
		for e := range edges {
			if left[e[0]] && left[e[1]] {
				if e[0] == n {
					out++
				}
				if e[1] == n {
					in++
				}
			}
		}
		return
	}
	var top, bottom []string
	for len(left) > 0 {
		changed := true
		for changed {
			changed = false
			for _, n := range nodes {
				if !left[n] {
					continue
				}
				in, out := deg(n)
				switch {
				case out == 0:
					bottom = append([]string{n}, bottom...)
				case in == 0:
					top = append(top, n)
				default:
					continue
				}
				delete(left, n)
				changed = true
			}
		}
		best, bestScore := "", 0
		for _, n := range nodes {
			if !left[n] {
				continue
			}
			in, out := deg(n)
			if best == "" || out-in > bestScore {
				best, bestScore = n, out-in
			}
		}
		if best != "" {
			top = append(top, best)
			delete(left, best)
		}
	}
	pos := map[string]int{}
	for i, n := range append(top, bottom...) {
		pos[n] = i
	}
	up := 0
	for e := range edges {
		if pos[e[1]] < pos[e[0]] {
			up++
		}
	}
	return up
}

// exportData maps every package dir depends on to its export data file,
// as `go list -export -deps` builds them.
func exportData(dir string) (map[string]string, error) {
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}", "./"+filepath.Clean(dir)).Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v", err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, " "); ok && file != "" {
			m[path] = file
		}
	}
	return m, nil
}

// buildable leaves out files for other architectures (name_GOOS/GOARCH).
func buildable(name string) bool {
	base := strings.TrimSuffix(filepath.Base(name), ".go")
	for _, other := range []string{"_arm64", "_386", "_arm", "_windows", "_darwin", "_other", "_noasm"} {
		if strings.HasSuffix(base, other) {
			return false
		}
	}
	return true
}
