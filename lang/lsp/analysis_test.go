package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
)

// TestImports checks definitions across an import, the import line
// itself, and where an error inside an imported file is shown.
func TestImports(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib.kml")
	os.WriteFile(lib, []byte("# helpers\nfn twice(x) = 2 * x\nlet oops = nope\n"), 0o644)
	main := filepath.Join(dir, "main.kml")
	src := "import \"lib.kml\"\nlet y = twice(3)\n"
	d := &document{uri: pathToURI(main), path: main, text: newText(src)}
	s := &server{}
	a := analyze(builtins, main, d.text)

	locs, _ := s.definition(d, a, 2, 10, position{})
	l, ok := locs.([]location)
	if !ok || len(l) != 1 || l[0].URI != pathToURI(lib) || l[0].Range.Start != (position{1, 3}) {
		t.Errorf("definition of twice: %+v", locs)
	}
	locs, _ = s.definition(d, a, 1, 10, position{})
	if l, ok := locs.([]location); !ok || len(l) != 1 || l[0].URI != pathToURI(lib) || l[0].Range.Start != (position{}) {
		t.Errorf("definition on the import line: %+v", locs)
	}
	h, _ := s.hover(d, a, 2, 10, position{})
	if hv, ok := h.(hover); !ok || !strings.Contains(hv.Contents.Value, "lib.kml:2:4") {
		t.Errorf("hover on twice: %+v", h)
	}

	diags := diagnose(builtins, main, d.text)
	if len(diags) != 1 || diags[0].Range.Start != (position{0, 7}) || !strings.Contains(diags[0].Message, "lib.kml:3:12: undefined: nope") {
		t.Errorf("diagnostics for an error in an import: %+v", diags)
	}

	// Inside a fn its parameters complete; after it they do not.
	fsrc := "fn f(alpha, beta) =\n  al\nlet z = al\n"
	fd := &document{path: main, text: newText(fsrc)}
	fa := analyze(builtins, main, fd.text)
	c, _ := s.complete(fd, fa, 2, 5, position{1, 4})
	if !hasLabel(c.(completionList), "alpha") {
		t.Errorf("completion in fn body: %+v", c)
	}
	c, _ = s.complete(fd, fa, 3, 11, position{2, 10})
	if hasLabel(c.(completionList), "alpha") {
		t.Errorf("completion after the fn offers its parameter: %+v", c)
	}
}

func hasLabel(l completionList, label string) bool {
	for _, it := range l.Items {
		if it.Label == label {
			return true
		}
	}
	return false
}

// TestPositions checks the conversions between KML's rune columns and
// LSP's UTF-16 ones.
func TestPositions(t *testing.T) {
	tx := newText("a\nlet 𝛼 = \"é\" + b\n")
	if p := tx.toLSP(2, 15); p != (position{1, 15}) {
		t.Errorf("toLSP(2, 15) = %+v, want {1 15}", p)
	}
	if l, c := tx.fromLSP(position{1, 15}); l != 2 || c != 15 {
		t.Errorf("fromLSP({1 15}) = %d:%d, want 2:15", l, c)
	}
	if off := tx.offset(position{1, 15}); tx.src[off:off+1] != "b" {
		t.Errorf("offset({1 15}) = %d, at %q", off, tx.src[off:])
	}
	if r := tx.span(astPos(2, 5)); r != (lspRange{Start: position{1, 4}, End: position{1, 6}}) {
		t.Errorf("span of 𝛼 = %+v", r)
	}
}

func astPos(line, col int) ast.Pos { return ast.Pos{Line: line, Col: col} }

// TestServesItsRegistry: the checks, hover and completion know the builtins
// of the registry the server was given, and no others: a registry holding
// one builtin of an embedder's own describes it and finds the library's
// chol undefined.
func TestServesItsRegistry(t *testing.T) {
	r := eval.NewRegistry()
	r.Register("only_here(x)", "Doubles x (an embedder's builtin).", func(a *eval.Args) (eval.Value, error) {
		x, err := a.Num("x")
		return eval.Num(2 * x), err
	})
	dir := t.TempDir()
	path := filepath.Join(dir, "a.kml")
	src := "let y = only_here(3)\nlet z = chol(y)\n"
	d := &document{uri: pathToURI(path), path: path, text: newText(src)}
	diags := diagnose(r, path, d.text)
	if len(diags) != 1 || !strings.Contains(diags[0].Message, "undefined: chol") {
		t.Errorf("diagnostics with the embedder's registry: %+v", diags)
	}
	s := &server{reg: r}
	h, _ := s.hover(d, analyze(r, path, d.text), 1, 10, position{})
	if hv, ok := h.(hover); !ok || !strings.Contains(hv.Contents.Value, "Doubles x") {
		t.Errorf("hover on only_here: %+v", h)
	}
	if diags := diagnose(builtins, path, d.text); len(diags) != 1 || !strings.Contains(diags[0].Message, "undefined: only_here") {
		t.Errorf("diagnostics with the library's registry: %+v", diags)
	}
}

// TestOutsideImportUnread: an import from outside the document's directory,
// refused by the diagnostics as by kml check, gives hover and
// go-to-definition nothing of the outside file either (issue 38: they read
// it), directly or through a link.
func TestOutsideImportUnread(t *testing.T) {
	top := t.TempDir()
	in, out := filepath.Join(top, "in"), filepath.Join(top, "out")
	os.Mkdir(in, 0o755)
	os.Mkdir(out, 0o755)
	os.WriteFile(filepath.Join(out, "lib.kml"), []byte("fn secret(x) = 2 * x\n"), 0o644)
	os.Symlink(filepath.Join(out, "lib.kml"), filepath.Join(in, "link.kml"))
	main := filepath.Join(in, "main.kml")
	s := &server{}
	for _, imp := range []string{"../out/lib.kml", "link.kml"} {
		d := &document{uri: pathToURI(main), path: main, text: newText("import \"" + imp + "\"\nlet y = secret(3)\n")}
		a := analyze(builtins, main, d.text)
		if h, _ := s.hover(d, a, 2, 10, position{}); h != nil {
			t.Errorf("import %q: hover on secret shows %+v", imp, h)
		}
		if l, _ := s.definition(d, a, 2, 10, position{}); l != nil {
			t.Errorf("import %q: definition of secret: %+v", imp, l)
		}
		if l, _ := s.definition(d, a, 1, 10, position{}); l != nil {
			t.Errorf("import %q: definition on the import line: %+v", imp, l)
		}
		diags := diagnose(builtins, main, d.text)
		if len(diags) == 0 || !strings.Contains(diags[0].Message, "outside the directories") {
			t.Errorf("import %q: diagnostics %+v", imp, diags)
		}
	}
}
