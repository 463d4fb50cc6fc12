package stdlib_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/kml-lang/kml/internal/fulltest"
	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib"
)

// hostileKinds are the wrong or hostile arguments the harness passes in
// one parameter of every builtin: values of every other type, empty,
// non-finite, negative and absurdly large ones. The names are the rows of
// the table TestHostileArguments prints.
var hostileKinds = []struct{ name, src string }{
	{"string", `"s"`},
	{"empty string", `""`},
	{"number", "2.5"},
	{"zero", "0"},
	{"negative", "-1"},
	{"large count", "5e7"},
	{"huge count", "1e12"},
	{"NaN", "0 / 0"},
	{"Inf", "1 / 0"},
	{"bool", "true"},
	{"record", "{a: 1, b: [1, 2]}"},
	{"function", "h_f1"},
	{"builtin", "abs"},
	{"matrix", "[[1, 2], [3, 4]]"},
	{"empty vector", "[]"},
	{"vector with NaN", "[1, 0 / 0, 3]"},
	{"nested list", `[["a"], [1, 2], {a: 1}]`},
	{"list of strings", `["a", "b"]`},
	{"distribution", "normal(0, 1)"},
	{"kernel", "rbf(1)"},
	{"model", "h_m"},
	{"posterior", "h_post"},
}

// The call shapes beyond a wrong value in one parameter.
const (
	shapeWrongName = "wrong named argument"
	shapeTooMany   = "too many arguments"
	shapeNone      = "no arguments"
)

// hostilePrelude binds the values the harness passes where a parameter
// gets a plausible argument, so that a wrong value in one parameter meets
// the builtin's checks past the first.
const hostilePrelude = `
model h_m {
  a ~ normal(0, 1)
  [0.1, -0.2, 0.3] ~ normal(a, 1)
}
let h_post = sample(h_m, chains: 1, warmup: 20, draws: 20, seed: 1)
let h_x = cbind(draw(normal(0, 1), 12, seed: 2))
let h_y = cbind(draw(normal(1, 1), 12, seed: 3))
fn h_f1(v) = v
model h_md(y) {
  mu ~ normal(0, 1)
  y ~ normal(mu, 1)
}
`

// plausible is the argument a parameter of builtin gets when it is not the
// one under attack, by the parameter's name across the library.
func plausible(builtin, param string) string {
	switch {
	case param == "to" && (builtin == "linspace" || builtin == "logspace" || builtin == "seq"):
		return "5"
	case param == "m" && (builtin == "kfold" || builtin == "sbc"):
		return "h_md(y: [0.1, -0.2, 0.3, 0.5])"
	}
	switch param {
	case "x", "y", "z", "xP", "xQ", "data", "points", "xnew", "at", "valid", "joint",
		"states", "observations", "xs", "samples", "values", "scores", "observed":
		return "h_x"
	case "k", "kernel", "kx", "ky":
		return "rbf(1)"
	case "m":
		return "h_m"
	case "post", "postP", "postQ", "fit", "models":
		return "h_post"
	case "d", "prior", "target":
		return "normal(0, 1)"
	case "n", "times", "K", "degree":
		return "3"
	case "A", "Sigma", "L":
		return "[[2, 1], [1, 2]]"
	case "f", "simulator":
		return "h_f1"
	case "path", "to":
		return `"h.csv"`
	case "name":
		return `"a"`
	case "mask", "labels", "weights", "w", "mu", "alpha":
		return "[1, 0, 1]"
	}
	return "1"
}

// hostileCall is one call of the harness.
type hostileCall struct {
	builtin, kind, src string
}

// hostileCalls lists the calls for builtin b: each value kind in one
// parameter (every parameter with all, else one drawn from the builtin's
// own seeded stream), a wrong named argument, too many arguments and none.
// Without all, kinds of every builtin are sampled: perBuiltin of them,
// drawn from the builtin's own stream (seeded by its name).
func hostileCalls(b *eval.Builtin, all bool, perBuiltin int) []hostileCall {
	sig := b.Sig
	rng := rand.New(rand.NewPCG(1, seedOf(b.Name)))
	// The slots a wrong value can take: each parameter, and the first
	// value of a variadic tail.
	type slot struct {
		param    int // index into sig.Params, or -1 for the variadic tail
		optional bool
	}
	var slots []slot
	for i, p := range sig.Params {
		slots = append(slots, slot{i, p.Optional})
	}
	if sig.Variadic != "" {
		slots = append(slots, slot{-1, false})
	}
	// required renders the required parameters plausibly, with bad in
	// place of parameter at (or nothing replaced when at < -1).
	render := func(at int, bad string) []string {
		var args []string
		for i, p := range sig.Params {
			switch {
			case i == at && p.Optional:
				args = append(args, p.Name+": "+bad)
			case i == at:
				args = append(args, bad)
			case !p.Optional:
				args = append(args, plausible(b.Name, p.Name))
			}
		}
		if sig.Variadic != "" {
			if at == -1 {
				args = append(args, bad)
			} else {
				args = append(args, plausible(b.Name, sig.Variadic))
			}
		}
		return args
	}
	call := func(kind string, args []string) hostileCall {
		return hostileCall{b.Name, kind, b.Name + "(" + strings.Join(args, ", ") + ")"}
	}
	var out []hostileCall
	kinds := make([]int, len(hostileKinds))
	for i := range kinds {
		kinds[i] = i
	}
	if !all {
		rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
		kinds = kinds[:min(perBuiltin, len(kinds))]
	}
	if len(slots) > 0 {
		for _, k := range kinds {
			kind := hostileKinds[k]
			if all {
				for _, s := range slots {
					out = append(out, call(kind.name, render(s.param, kind.src)))
				}
				continue
			}
			s := slots[rng.IntN(len(slots))]
			out = append(out, call(kind.name, render(s.param, kind.src)))
		}
	} else {
		// No parameters: every value kind is one argument too many.
		for _, k := range kinds {
			out = append(out, call(hostileKinds[k].name, []string{hostileKinds[k].src}))
		}
	}
	good := render(-2, "")
	out = append(out, call(shapeWrongName, append(good[:len(good):len(good)], "no_such_option: 1")))
	extra := append([]string(nil), good...)
	for len(extra) <= len(sig.Params) {
		extra = append(extra, "1")
	}
	out = append(out, call(shapeTooMany, append(extra, "1")))
	out = append(out, call(shapeNone, nil))
	return out
}

func seedOf(name string) uint64 {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 1099511628211
	}
	return h
}

// hostileOutcome classifies the result of one call.
type hostileOutcome int

const (
	outClear       hostileOutcome = iota // a positioned error a user can act on
	outSuccess                           // a result (a wrong kind the builtin accepts)
	outInterrupted                       // stopped by the call's deadline, positioned
	outInternal                          // a Go panic caught as "internal error": a bug
	outNoPosition                        // an error with no position, or not a KML error
	outHang                              // still running long after its deadline
)

func classify(err error) hostileOutcome {
	if err == nil {
		return outSuccess
	}
	if strings.Contains(err.Error(), "internal error") {
		return outInternal
	}
	var list ast.ErrorList
	var one *ast.Error
	var pos ast.Pos
	switch {
	case errors.As(err, &list) && len(list) > 0:
		pos = list[0].Pos
	case errors.As(err, &one):
		pos = one.Pos
	default:
		return outNoPosition
	}
	if pos.Line == 0 {
		return outNoPosition
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return outInterrupted
	}
	return outClear
}

// runHostile makes every call of every builtin through the Go API under a
// 32 MB memory budget, a step budget and a per-call deadline, and fails
// on a caught panic, an error without a position or a call still running
// long after its deadline (each reported through fail). It logs the
// table of outcomes by kind and returns the totals by outcome.
func runHostile(t *testing.T, reg *eval.Registry, all bool, perBuiltin int, deadline time.Duration, fail func(format string, args ...any)) [outHang + 1]int {
	var out bytes.Buffer
	dir := t.TempDir()
	in := eval.New(eval.Options{Stdout: io.Discard, Stderr: &out, MaxMemory: 32 << 20,
		MaxSteps: 100_000, Dirs: []string{dir}, BaseDir: dir, Registry: reg})
	if _, err := in.Eval("prelude.kml", hostilePrelude); err != nil {
		t.Fatal(err)
	}
	var calls []hostileCall
	for _, name := range reg.Names() {
		b, _ := reg.Get(name)
		calls = append(calls, hostileCalls(b, all, perBuiltin)...)
	}
	type row struct{ n [outHang + 1]int }
	byKind := map[string]*row{}
	var total row
	for _, c := range calls {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		done := make(chan error, 1)
		go func() {
			_, err := in.EvalContext(ctx, "hostile.kml", c.src+"\n")
			done <- err
		}()
		var o hostileOutcome
		var err error
		select {
		case err = <-done:
			o = classify(err)
		case <-time.After(deadline + time.Minute):
			// Loose, for a loaded machine: a hang is what it catches.
			o = outHang
		}
		cancel()
		r := byKind[c.kind]
		if r == nil {
			r = &row{}
			byKind[c.kind] = r
		}
		r.n[o]++
		total.n[o]++
		switch o {
		case outInternal:
			fail("%s: internal error: %v", c.src, err)
		case outNoPosition:
			fail("%s: an error without a position: %T %v", c.src, err, err)
		case outHang:
			// The call still runs on the interpreter: stop here.
			t.Fatalf("%s: still running %v after its deadline", c.src, time.Minute)
		}
	}
	kinds := make([]string, 0, len(hostileKinds)+3)
	for _, k := range hostileKinds {
		kinds = append(kinds, k.name)
	}
	kinds = append(kinds, shapeWrongName, shapeTooMany, shapeNone)
	var b strings.Builder
	fmt.Fprintf(&b, "%d builtins, %d calls (all kinds and parameters: %v), deadline %v a call\n",
		len(reg.Names()), len(calls), all, deadline)
	fmt.Fprintf(&b, "%-22s %6s %6s %8s %11s %9s %12s %5s\n", "kind", "calls", "clear", "success", "interrupted", "internal", "no position", "hang")
	line := func(name string, r *row) {
		n := 0
		for _, x := range r.n {
			n += x
		}
		fmt.Fprintf(&b, "%-22s %6d %6d %8d %11d %9d %12d %5d\n", name, n, r.n[outClear], r.n[outSuccess],
			r.n[outInterrupted], r.n[outInternal], r.n[outNoPosition], r.n[outHang])
	}
	for _, k := range kinds {
		if r := byKind[k]; r != nil {
			line(k, r)
		}
	}
	line("total", &total)
	t.Log("\n" + b.String())
	return total.n
}

// TestHostileArguments calls every registered builtin with wrong and
// hostile arguments through the Go API (eval.Interpreter.EvalContext),
// each kind of value in one parameter with the others plausible, a named
// argument the builtin does not take, one argument too many and none,
// under a 32 MB memory budget, a step budget and a deadline a call. Each
// call must return a result or a positioned error: a Go panic (the
// interpreter's "internal error"), an error without a position or a call
// that outlives its deadline fails the test. By default four value kinds
// a builtin, drawn from its own seeded stream, and the three call shapes
// (about 1,100 calls); with KML_FULL=1 every kind in every parameter
// (about 12,300). go test -v prints the table of outcomes.
func TestHostileArguments(t *testing.T) {
	runHostile(t, eval.Builtins, false, 4, 100*time.Millisecond, t.Errorf)
}

func TestHostileArgumentsFull(t *testing.T) {
	fulltest.Require(t, "every kind of wrong argument in every parameter of every builtin, about 12,300 calls, 70 s")
	runHostile(t, eval.Builtins, true, 0, time.Second, t.Errorf)
}

// TestHostileHarnessCatches: the harness sees what it is for. A library
// with one more builtin that panics on every call reports each of that
// builtin's calls that reach it as an internal error, naming it, and no
// other.
func TestHostileHarnessCatches(t *testing.T) {
	reg := eval.NewRegistry()
	stdlib.Register(reg)
	reg.Register("h_crash(x, y?)", "panics", func(a *eval.Args) (eval.Value, error) {
		var xs []float64
		return eval.Num(xs[len(a.Rest)+3]), nil
	})
	var failures []string
	n := runHostile(t, reg, false, 4, 100*time.Millisecond, func(format string, args ...any) {
		failures = append(failures, fmt.Sprintf(format, args...))
	})
	if n[outInternal] == 0 || n[outInternal] != len(failures) {
		t.Fatalf("%d internal errors counted, %d reported: %q", n[outInternal], len(failures), failures)
	}
	for _, f := range failures {
		if !strings.HasPrefix(f, "h_crash(") || !strings.Contains(f, "index out of range") {
			t.Errorf("reported: %s", f)
		}
	}
}
