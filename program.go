package kml

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/kml-lang/kml/lang/eval"
)

// Program is a KML program checked once and run any number of times, from
// any number of goroutines at once: each Run has an interpreter of its own
// (its names, its random stream, its memory and step budgets), so runs share
// no state. Its inputs are names the host binds at each run (data, settings),
// as a Stan program's data block. Run parses its own copy of the source
// rather than sharing one syntax tree, because checking annotates the tree
// (call bindings, observation statements); parsing and checking a script of
// a few hundred lines takes about a millisecond, beside which a fit is long.
type Program struct {
	name, src string
	inputs    []string
	opts      []Option
}

// Compile parses and checks src (named name in errors) with the names in
// inputs bound, under opts, the options every Run starts from. A syntax or
// check error is returned here, as Eval returns it.
func Compile(name, src string, inputs []string, opts ...Option) (*Program, error) {
	it := New(opts...)
	for _, n := range inputs {
		if err := it.in.Define(n, eval.Num(0)); err != nil {
			return nil, fmt.Errorf("kml: input %v", err)
		}
	}
	if err := it.in.Check(name, src); err != nil {
		return nil, err
	}
	return &Program{name: name, src: src, inputs: append([]string(nil), inputs...), opts: opts}, nil
}

// Run runs the program under ctx in a new interpreter with the program's
// options followed by opts (a seed, an output of its own), its inputs bound
// from inputs (as Set converts them; every input must be given, and no other
// name), and returns that interpreter, whose Get reads what the run bound.
// On a runtime error the interpreter is returned too, for FormatError and
// the names bound before the error.
func (p *Program) Run(ctx context.Context, inputs map[string]any, opts ...Option) (*Interpreter, error) {
	var missing, extra []string
	for _, n := range p.inputs {
		if _, ok := inputs[n]; !ok {
			missing = append(missing, n)
		}
	}
	for n := range inputs {
		if !p.declared(n) {
			extra = append(extra, n)
		}
	}
	if len(missing) > 0 || len(extra) > 0 {
		sort.Strings(extra)
		return nil, fmt.Errorf("kml: %s takes inputs %s; missing %s, unknown %s", p.name,
			strings.Join(p.inputs, ", "), orNone(missing), orNone(extra))
	}
	it := New(append(append([]Option{}, p.opts...), opts...)...)
	for _, n := range p.inputs {
		if err := it.Set(n, inputs[n]); err != nil {
			return nil, fmt.Errorf("kml: input %s: %v", n, err)
		}
	}
	_, err := it.in.EvalContext(ctx, p.name, p.src)
	return it, err
}

func (p *Program) declared(name string) bool {
	for _, n := range p.inputs {
		if n == name {
			return true
		}
	}
	return false
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
