package format

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	kast "github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/grammar"
)

// corpus is every KML program in the repository: examples, testdata, the
// benchmarks, and the seeds of the fuzz tests.
func corpus(t testing.TB) map[string]string {
	root := filepath.Join("..", "..")
	files := map[string]string{}
	for _, dir := range []string{"examples", "testdata", "bench", "lang"} {
		filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if strings.HasSuffix(path, ".kml") {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				files[path] = string(b)
			}
			// Go's fuzzing corpus: "go test fuzz v1" then string("...").
			if strings.Contains(path, filepath.Join("testdata", "fuzz")) {
				b, _ := os.ReadFile(path)
				for _, l := range strings.Split(string(b), "\n") {
					if q, ok := strings.CutPrefix(l, "string("); ok {
						if s, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
							files[path] = s
						}
					}
				}
			}
			return nil
		})
	}
	for file, vars := range map[string][]string{
		"../check/fuzz_test.go":     {"fuzzSeeds"},
		"../../stdlib/fuzz_test.go": {"fuzzScripts"},
	} {
		for i, s := range stringSlices(t, file, vars) {
			files[file+"#"+strconv.Itoa(i)] = s
		}
	}
	if len(files) < 40 {
		t.Fatalf("only %d programs found", len(files))
	}
	return files
}

// stringSlices reads the string literals of the named []string variables
// of a Go file.
func stringSlices(t testing.TB, file string, names []string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || len(vs.Values) != 1 {
			return true
		}
		for _, name := range names {
			if vs.Names[0].Name != name {
				continue
			}
			lit, _ := vs.Values[0].(*ast.CompositeLit)
			if lit == nil {
				t.Fatalf("%s: %s is not a literal", file, name)
			}
			for _, e := range lit.Elts {
				if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
					s, err := strconv.Unquote(b.Value)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, s)
				}
			}
		}
		return true
	})
	if len(out) == 0 {
		t.Fatalf("%s: no seeds in %v", file, names)
	}
	return out
}

func comments(t testing.TB, src string) []string {
	toks, err := grammar.Tokens("x.kml", src)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tok := range toks {
		if tok.Kind == grammar.Comment {
			out = append(out, tok.Text)
		}
	}
	return out
}

// checkSource checks what the formatter promises on one program: the
// result parses to the same tree, keeps every comment in order, and is
// its own formatting.
func checkSource(t testing.TB, name, src string) {
	file, perr := grammar.Parse(name, src)
	out, err := Source(name, []byte(src))
	if perr != nil {
		var list kast.ErrorList
		if err == nil || !errors.As(err, &list) {
			t.Errorf("%s: does not parse, but Source returned %v", name, err)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	again, err := grammar.Parse(name, string(out))
	if err != nil {
		t.Errorf("%s: the result does not parse: %v\n%s", name, err, out)
		return
	}
	if !Equal(file, again) {
		t.Errorf("%s: the result's tree differs:\n%s", name, out)
	}
	if a, b := strings.Join(comments(t, src), "\n"), strings.Join(comments(t, string(out)), "\n"); a != b {
		t.Errorf("%s: comments changed:\n%s\n---\n%s", name, a, b)
	}
	twice, err := Source(name, out)
	if err != nil || string(twice) != string(out) {
		t.Errorf("%s: not idempotent (%v):\n%s\n---\n%s", name, err, out, twice)
	}
}

func TestCorpus(t *testing.T) {
	for name, src := range corpus(t) {
		checkSource(t, name, src)
	}
}

// TestExamplesFormatted keeps examples/ in the canonical layout.
func TestExamplesFormatted(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.kml"))
	for _, f := range files {
		src, _ := os.ReadFile(f)
		out, err := Source(f, src)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != string(src) {
			t.Errorf("%s is not formatted; run kml fmt -w on it:\n%s", f, Diff(f, string(src), string(out)))
		}
	}
}

func FuzzSource(f *testing.F) {
	for _, src := range corpus(f) {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkSource(t, "fuzz.kml", src)
	})
}
