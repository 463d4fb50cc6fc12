package main

import (
	"fmt"
	"io"
	"os"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/grammar"
	"github.com/kml-lang/kml/lang/model"
)

// fitBuiltins are the calls that fit a model: a statement that makes one
// is never run by check --explain.
var fitBuiltins = map[string]bool{"sample": true, "optimize": true, "profile": true}

// explainFile prints, for each model file declares, whether its log
// density is replayed or walked and why. It runs only the slice of the
// program the models need: each model's declaration and, before it, the
// top-level let, fn and import statements whose names it uses, directly
// or through one another (output discarded). Then it compiles each model
// as sample would and takes one gradient at the origin of the
// unconstrained scale. Nothing is fitted, and no statement sees a result
// that is not what `kml run` would give it. A model whose data come from a
// fit (its slice calls sample, optimize or profile) is reported as not
// explained.
func explainFile(file string, opts eval.Options, stdout, stderr io.Writer) int {
	src, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitRuntime
	}
	f, err := grammar.Parse(file, string(src))
	if err != nil { // CheckFile has parsed it already
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitStatic
	}
	type explained struct {
		name  string
		fitAt ast.Pos // where the model's slice fits a model, if it does
	}
	var models []explained
	keep := map[ast.Pos]bool{}
	for i, st := range f.Stmts {
		m, ok := st.(*ast.Model)
		if !ok {
			continue
		}
		slice := programSlice(f.Stmts[:i], usedNames(m))
		e := explained{name: m.Name.Name}
		for _, s := range slice {
			if at, ok := fitCall(s); ok {
				e.fitAt = at
				break
			}
		}
		if e.fitAt == (ast.Pos{}) {
			for _, s := range slice {
				keep[s.Pos()] = true
			}
			keep[m.Pos()] = true
		}
		models = append(models, e)
	}
	if len(models) == 0 {
		fmt.Fprintf(stdout, "%s declares no model\n", file)
		return exitOK // nothing to explain, so nothing is run
	}
	ctx, relay := interruptible()
	opts.Stdout, opts.Context = io.Discard, ctx
	opts.KeepStmt = func(p ast.Pos) bool { return keep[p] }
	in := eval.New(opts)
	defer relay(stderr, in)()
	if _, err := in.EvalFile(file); err != nil {
		return report(in, err, stderr)
	}
	th := in.NewThread(ctx)
	for _, e := range models {
		if e.fitAt != (ast.Pos{}) {
			fmt.Fprintf(stdout, "model %s: not explained: its data come from a fit, at %s\n", e.name, e.fitAt)
			continue
		}
		v, _ := in.Lookup(e.name)
		m, ok := v.(*eval.Model)
		if !ok {
			fmt.Fprintf(stdout, "model %s: not explained: the name is bound to %s at the end of the slice\n", e.name, eval.Describe(v))
			continue
		}
		st, err := model.Explain(th, m.Decl().At, m)
		if err != nil {
			return report(in, err, stderr)
		}
		fmt.Fprintf(stdout, "model %s: %s\n", e.name, st)
	}
	return exitOK
}

// usedNames are the identifiers a statement mentions (a superset of its
// free names: the slice it pulls in may hold a statement too many, never
// one too few).
func usedNames(n ast.Node) map[string]bool {
	names := map[string]bool{}
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			names[id.Name] = true
		}
		return true
	})
	return names
}

// programSlice is the statements of before that bind a name in need, and
// those their values need in turn, in program order; imports are always in.
func programSlice(before []ast.Stmt, need map[string]bool) []ast.Stmt {
	in := make([]bool, len(before))
	for i := len(before) - 1; i >= 0; i-- {
		var name string
		switch s := before[i].(type) {
		case *ast.Let:
			name = s.Name.Name
		case *ast.Fn:
			name = s.Name.Name
		case *ast.Model:
			name = s.Name.Name
		case *ast.Import:
			in[i] = true
			continue
		default:
			continue
		}
		if !need[name] {
			continue
		}
		in[i] = true
		delete(need, name) // the latest binding before the use is the one used
		for n := range usedNames(before[i]) {
			if n != name {
				need[n] = true
			}
		}
	}
	var out []ast.Stmt
	for i, s := range before {
		if in[i] {
			out = append(out, s)
		}
	}
	return out
}

// fitCall reports a call of sample, optimize or profile inside s.
func fitCall(s ast.Stmt) (at ast.Pos, found bool) {
	ast.Inspect(s, func(n ast.Node) bool {
		if c, ok := n.(*ast.Call); ok && !found {
			if id, ok := c.Fn.(*ast.Ident); ok && fitBuiltins[id.Name] {
				at, found = c.Pos(), true
			}
		}
		return !found
	})
	return at, found
}
