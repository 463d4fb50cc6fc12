package lsp

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/kml-lang/kml/internal/sandbox"
	"github.com/kml-lang/kml/lang/assist"
	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/check"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/grammar"
)

// diagnose checks src as `kml check` would check the file at path and
// returns its errors as diagnostics. Errors inside an imported file are
// shown at this file's first import, naming their own position.
func diagnose(reg *eval.Registry, path string, t *text) []diagnostic {
	dir := filepath.Dir(path)
	in := eval.New(eval.Options{Stdout: io.Discard, Stderr: io.Discard, Dirs: []string{dir}, BaseDir: dir, Registry: reg})
	err := in.Check(path, t.src)
	out := []diagnostic{}
	if err == nil {
		return out
	}
	var list ast.ErrorList
	var one *ast.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = ast.ErrorList{one}
	default:
		return append(out, diagnostic{Severity: severityError, Source: "kml", Message: err.Error(),
			Range: lspRange{End: position{Character: 1}}})
	}
	var firstImport ast.Pos
	if f, _ := grammar.Parse(path, t.src); f != nil {
		for _, s := range f.Stmts {
			if imp, ok := s.(*ast.Import); ok {
				firstImport = imp.Path.At
				break
			}
		}
	}
	for _, e := range list {
		msg := e.Msg
		if notes := e.NoteLines(); len(notes) > 0 {
			msg += "\n" + strings.Join(notes, "\n")
		}
		pos := e.Pos
		if pos.File != path && pos.IsValid() {
			msg = fmt.Sprintf("%s: %s", pos, msg)
			pos = firstImport
		}
		if !pos.IsValid() {
			pos = ast.Pos{Line: 1, Col: 1}
		}
		out = append(out, diagnostic{Range: t.span(pos), Severity: severityError, Source: "kml", Message: msg})
	}
	return out
}

// analysis is a document parsed and checked for hover, completion and
// definition: its top-level scope holds its own and its imports' names,
// with their positions.
type analysis struct {
	reg  *eval.Registry // the builtins
	path string
	text *text
	file *ast.File
	top  *check.Scope
	sb   *sandbox.Sandbox // what the document may import: its directory
}

func analyze(reg *eval.Registry, path string, t *text) *analysis {
	f, _ := grammar.Parse(path, t.src)
	sb := sandbox.NewSandbox(filepath.Dir(path))
	c := &check.Checker{Universe: reg, Importer: &fileImporter{parsed: map[string]*ast.File{}, sb: sb}}
	top := check.NewScope(c.Root())
	c.File(f, top) // errors are the diagnostics' business
	return &analysis{reg: reg, path: path, text: t, file: f, top: top, sb: sb}
}

// fileImporter reads imported files relative to the importing one, so
// that their names, with positions in them, reach the importing file's
// scope. It reads as `kml check` and the diagnostics do, inside the
// document's directory: an import from outside it, refused there, gave
// hover and go-to-definition the outside file's names (issue 38).
type fileImporter struct {
	parsed map[string]*ast.File
	sb     *sandbox.Sandbox
}

func (im *fileImporter) Import(pos ast.Pos, path string) (string, *ast.File, error) {
	real := resolveImport(pos.File, path)
	if f, ok := im.parsed[real]; ok {
		return real, f, nil
	}
	data, err := im.sb.ReadFileLimit(filepath.Dir(pos.File), path, eval.MaxSource)
	if err != nil {
		return "", nil, err
	}
	src := string(data)
	f, _ := grammar.Parse(real, src)
	im.parsed[real] = f
	return real, f, nil
}

// Key is the key Import gives file, so that a file importing itself is
// seen as a cycle.
func (im *fileImporter) Key(file string) string { return resolveImport(file, filepath.Base(file)) }

// resolveImport is the file `import "path"` in file from names.
func resolveImport(from, path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(from), path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	return abs
}

// stmtAt is the top-level statement the cursor (1-based line and rune
// column) is in: the last one starting before it. A fn ends at its last
// line; a model at the next statement, since its closing brace is no node.
func (a *analysis) stmtAt(line, col int) ast.Stmt {
	cur := ast.Pos{File: a.path, Line: line, Col: col}
	var found ast.Stmt
	for _, s := range a.file.Stmts {
		if cur.Before(s.Pos()) {
			break
		}
		found = s
	}
	if fn, ok := found.(*ast.Fn); ok && line > lastLine(fn) {
		return nil
	}
	return found
}

// lastLine is the last line a node of s starts on.
func lastLine(s ast.Stmt) int {
	last := 0
	ast.Inspect(s, func(n ast.Node) bool {
		if n != nil && n.Pos().Line > last {
			last = n.Pos().Line
		}
		return true
	})
	return last
}

// source is the text of a let or fn as written: its lines, at most
// maxSourceLines of them.
func (a *analysis) source(s ast.Stmt) string {
	from, to := s.Pos().Line, lastLine(s)
	var lines []string
	for l := from; l <= to && l < from+maxSourceLines; l++ {
		lines = append(lines, a.text.line(l-1))
	}
	if to >= from+maxSourceLines {
		lines = append(lines, "...")
	}
	return strings.Join(lines, "\n")
}

const maxSourceLines = 8

// scopeAt is the scope at the cursor: the file's, with a fn's parameters
// or a model's declarations when the cursor is inside one.
func (a *analysis) scopeAt(line, col int) *check.Scope {
	switch s := a.stmtAt(line, col).(type) {
	case *ast.Fn:
		inner := check.NewScope(a.top)
		for _, p := range s.Params {
			inner.Define(&check.Binding{Name: p.Name, Kind: check.FuncParam, Pos: p.At})
		}
		return inner
	case *ast.Model:
		inner := check.NewScope(a.top)
		for _, p := range s.Params {
			inner.Define(&check.Binding{Name: p.Name, Kind: check.DataArg, Pos: p.At})
		}
		for _, b := range modelBindings(s) {
			inner.Define(b)
		}
		return inner
	}
	return a.top
}

// modelBindings are the names a model declares, in order.
func modelBindings(m *ast.Model) []*check.Binding {
	var out []*check.Binding
	for _, st := range m.Body {
		switch st := st.(type) {
		case *ast.Tilde:
			if st.Name == nil {
				continue // an observation
			}
			kind := check.ModelParam
			if st.Kind == ast.Latent {
				kind = check.Latent
			}
			out = append(out, &check.Binding{Name: st.Name.Name, Kind: kind, Pos: st.Name.At})
		case *ast.Assign:
			out = append(out, &check.Binding{Name: st.Name.Name, Kind: check.Derived, Pos: st.Name.At})
		case *ast.Generated:
			for _, as := range st.Body {
				out = append(out, &check.Binding{Name: as.Name.Name, Kind: check.Derived, Pos: as.Name.At})
			}
		}
	}
	return out
}

// target is what the cursor is on.
type target struct {
	id      *ast.Ident
	call    *ast.Call   // when id is a named argument's name, its call
	field   bool        // id names a record field: not a name in scope
	import_ *ast.Import // when the cursor is on an import's path
}

// at finds what is under the cursor (1-based line, rune column); a cursor
// just after a name is on it, as editors place it after typing.
func (a *analysis) at(line, col int) target {
	var t target
	named := map[*ast.Ident]*ast.Call{}
	fields := map[*ast.Ident]bool{}
	ast.Inspect(a.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Call:
			for _, na := range n.Named {
				named[na.Name] = n
			}
		case *ast.Record:
			for _, f := range n.Fields {
				fields[f.Name] = true
			}
		case *ast.Import:
			p := n.Path.At
			end := p.Col + len([]rune(n.Path.Value)) + 2
			if p.Line == line && p.Col <= col && col <= end {
				t.import_ = n
			}
		case *ast.Ident:
			p := n.At
			if p.File == a.path && p.Line == line && p.Col <= col && col <= p.Col+len([]rune(n.Name)) {
				t = target{id: n, call: named[n], field: fields[n]}
			}
		}
		return true
	})
	return t
}

// hoverText is the markdown shown over binding b.
func (a *analysis) hoverText(b *check.Binding) string {
	var s strings.Builder
	switch b.Kind {
	case check.Builtin:
		bi, ok := a.reg.Get(b.Name)
		if !ok {
			return ""
		}
		fmt.Fprintf(&s, "```text\n%s```\nbuiltin", assist.BuiltinHelp(bi))
		return s.String()
	case check.Func:
		def := a.stmtFor(b)
		if def != nil {
			fmt.Fprintf(&s, "```kml\n%s\n```\n", a.source(def))
		} else {
			fmt.Fprintf(&s, "```kml\nfn %s\n```\n", b.Sig)
		}
		s.WriteString("function")
	case check.Let:
		if let, ok := a.stmtFor(b).(*ast.Let); ok {
			fmt.Fprintf(&s, "```kml\n%s\n```\n%s", a.source(let), staticKind(let.Value))
		} else {
			fmt.Fprintf(&s, "`%s`: value", b.Name)
		}
	case check.ModelName:
		m, ok := a.stmtFor(b).(*ast.Model)
		head := b.Name
		if b.Sig != nil {
			head = b.Sig.String()
		}
		fmt.Fprintf(&s, "```kml\nmodel %s\n```\nmodel", head)
		if ok {
			for _, p := range m.Params {
				fmt.Fprintf(&s, "\n- `%s`: %s", p.Name, check.DataArg)
			}
			for _, d := range modelBindings(m) {
				fmt.Fprintf(&s, "\n- `%s`: %s", d.Name, d.Kind)
			}
		}
	default:
		fmt.Fprintf(&s, "`%s`: %s", b.Name, b.Kind)
	}
	if b.Pos.IsValid() {
		where := fmt.Sprintf("line %d", b.Pos.Line)
		if b.Pos.File != a.path {
			where = b.Pos.String()
		}
		fmt.Fprintf(&s, " (defined at %s)", where)
	}
	return s.String()
}

// stmtFor is the top-level statement of this file that binds b, or nil.
func (a *analysis) stmtFor(b *check.Binding) ast.Stmt {
	if b.Pos.File != a.path {
		return nil
	}
	for _, s := range a.file.Stmts {
		var name *ast.Ident
		switch s := s.(type) {
		case *ast.Let:
			name = s.Name
		case *ast.Fn:
			name = s.Name
		case *ast.Model:
			name = s.Name
		}
		if name != nil && name.At == b.Pos {
			return s
		}
	}
	return nil
}

// staticKind says what a let's value is, as far as its syntax shows
// without running it (`:type` at the REPL gives the value's shape).
func staticKind(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Number:
		return "value: number"
	case *ast.String:
		return "value: string"
	case *ast.Bool:
		return "value: bool"
	case *ast.Vector:
		return fmt.Sprintf("value: vector of %d", len(e.Elems))
	case *ast.Record:
		return "value: record"
	case *ast.Call:
		if id, ok := e.Fn.(*ast.Ident); ok {
			return fmt.Sprintf("value: the result of %s(...)", id.Name)
		}
	}
	return "value"
}

// completionKind is the LSP kind of a name's completion item.
func completionKind(b *check.Binding) int {
	switch {
	case b == nil:
		return kindVariable
	case b.Kind == check.Builtin || b.Kind == check.Func:
		return kindFunction
	case b.Kind == check.ModelName:
		return kindModule
	}
	return kindVariable
}
