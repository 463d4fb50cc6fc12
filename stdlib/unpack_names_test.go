package stdlib_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// argNameMethods are the eval.Args methods whose first argument names a
// parameter (Unpack names one in every other argument).
var argNameMethods = map[string]bool{"Num": true, "Int": true, "Str": true, "Bool": true, "Floats": true,
	"Matrix": true, "Record": true, "Length": true, "PositiveInt": true, "Value": true, "Given": true,
	"PosOf": true, "Errorf": true}

var specRE = regexp.MustCompile(`^(\w+)\(.*\)$`)

// TestUnpackNames reads the library's source and checks, for every
// registered builtin, that each parameter name its body (and the helpers it
// passes its arguments to) unpacks or reports at is in its signature, so a
// misspelt name fails here rather than as an internal error at run time.
func TestUnpackNames(t *testing.T) {
	fset := token.NewFileSet()
	// The library is one package per domain (stdlib/DOMAIN/*.go); helpers
	// are keyed "DOMAIN.Name", so a call kernel.Unpack(a, "k") from another
	// domain is followed as a call of Unpack inside its own is.
	files, _ := filepath.Glob("*/*.go")
	funcs := map[string]*ast.FuncDecl{}
	tables := map[string]*ast.CompositeLit{}
	dirs := map[string]bool{}
	var parsed []*ast.File
	dirOf := map[*ast.File]string{}
	for _, name := range files {
		dirs[filepath.Dir(name)] = true
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
		dir := filepath.Dir(name)
		dirOf[f] = dir
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					funcs[dir+"."+d.Name.Name] = d
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if vs, ok := s.(*ast.ValueSpec); ok && len(vs.Names) == 1 && len(vs.Values) == 1 {
						if cl, ok := vs.Values[0].(*ast.CompositeLit); ok {
							tables[dir+"."+vs.Names[0].Name] = cl
						}
					}
				}
			}
		}
	}
	str := func(e ast.Expr) (string, bool) {
		if bl, ok := e.(*ast.BasicLit); ok && bl.Kind == token.STRING {
			s, err := strconv.Unquote(bl.Value)
			return s, err == nil
		}
		return "", false
	}
	// names collects the parameter names fn's body uses, with where.
	type use struct {
		name string
		pos  token.Pos
	}
	var names func(dir string, typ *ast.FuncType, body *ast.BlockStmt, seen map[*ast.BlockStmt]bool) []use
	names = func(dir string, typ *ast.FuncType, body *ast.BlockStmt, seen map[*ast.BlockStmt]bool) []use {
		if body == nil || seen[body] {
			return nil
		}
		seen[body] = true
		args := map[string]bool{} // the *eval.Args parameters
		for _, f := range typ.Params.List {
			if se, ok := f.Type.(*ast.StarExpr); ok {
				if sel, ok := se.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Args" {
					for _, n := range f.Names {
						args[n.Name] = true
					}
				}
			}
		}
		isArgs := func(e ast.Expr) bool { id, ok := e.(*ast.Ident); return ok && args[id.Name] }
		var out []use
		ast.Inspect(body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			callee, calleeDir := "", dir
			switch fn := call.Fun.(type) {
			case *ast.SelectorExpr:
				if id, ok := fn.X.(*ast.Ident); ok && dirs[id.Name] {
					callee, calleeDir = fn.Sel.Name, id.Name
					break
				}
				if !isArgs(fn.X) {
					return true
				}
				step := 0
				if fn.Sel.Name == "Unpack" {
					step = 2
				} else if argNameMethods[fn.Sel.Name] {
					step = len(call.Args) + 1
				}
				for i := 0; step > 0 && i < len(call.Args); i += step {
					if s, ok := str(call.Args[i]); ok {
						out = append(out, use{strings.TrimSuffix(s, "?"), call.Args[i].Pos()})
					}
				}
			case *ast.Ident:
				callee = fn.Name
			}
			if callee != "" {
				d, ok := funcs[calleeDir+"."+callee]
				if !ok {
					return true
				}
				passes := false
				for _, x := range call.Args {
					passes = passes || isArgs(x)
				}
				if !passes {
					return true
				}
				out = append(out, names(calleeDir, d.Type, d.Body, seen)...)
				// A literal passed for a helper's parameter called name.
				var params []string
				for _, f := range d.Type.Params.List {
					for _, n := range f.Names {
						params = append(params, n.Name)
					}
				}
				for i, x := range call.Args {
					if s, ok := str(x); ok && i < len(params) && params[i] == "name" {
						out = append(out, use{s, x.Pos()})
					}
				}
			}
			return true
		})
		return out
	}
	check := func(dir string, specs []string, typ *ast.FuncType, body *ast.BlockStmt, at token.Pos) {
		uses := names(dir, typ, body, map[*ast.BlockStmt]bool{})
		if len(uses) == 0 {
			return
		}
		if len(specs) == 0 {
			t.Errorf("%s: cannot tell which builtin this body is registered as", fset.Position(at))
		}
		for _, spec := range specs {
			m := specRE.FindStringSubmatch(spec)
			sig, ok := eval.Builtins.Lookup(m[1])
			if !ok {
				t.Errorf("%s: %s is not registered", fset.Position(at), m[1])
				continue
			}
			for _, u := range uses {
				found := false
				for _, p := range sig.Params {
					found = found || p.Name == u.name
				}
				if !found {
					t.Errorf("%s: %s has no parameter %q", fset.Position(u.pos), sig, u.name)
				}
			}
		}
	}
	var stack []ast.Node
	checked := 0
	for _, f := range parsed {
		dir := dirOf[f]
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			var typ *ast.FuncType
			var body *ast.BlockStmt
			switch fn := call.Args[len(call.Args)-1].(type) {
			case *ast.FuncLit:
				typ, body = fn.Type, fn.Body
			case *ast.Ident:
				if d, ok := funcs[dir+"."+fn.Name]; ok {
					typ, body = d.Type, d.Body
				}
			}
			if body == nil {
				return true
			}
			var specs []string
			if s, ok := str(call.Args[0]); ok {
				if !specRE.MatchString(s) {
					return true
				}
				specs = []string{s}
			} else if sel, ok := call.Args[0].(*ast.SelectorExpr); ok && sel.Sel.Name == "spec" {
				// Registered in a loop over a table of {spec, ...} literals.
				for i := len(stack) - 1; i >= 0; i-- {
					rs, ok := stack[i].(*ast.RangeStmt)
					if !ok {
						continue
					}
					if id, ok := rs.X.(*ast.Ident); ok && tables[dir+"."+id.Name] != nil {
						for _, el := range tables[dir+"."+id.Name].Elts {
							if cl, ok := el.(*ast.CompositeLit); ok && len(cl.Elts) > 0 {
								if s, ok := str(cl.Elts[0]); ok {
									specs = append(specs, s)
								}
							}
						}
					}
					break
				}
			} else {
				return true
			}
			checked++
			check(dir, specs, typ, body, call.Pos())
			return true
		})
	}
	if checked < 40 {
		t.Errorf("found only %d registrations; is the search still right?", checked)
	}
}
