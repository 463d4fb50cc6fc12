package eval

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/runtime/interrupt"
)

// testRegistry has the few builtins these tests need.
func testRegistry() *Registry {
	r := NewRegistry()
	r.Register("show(values...)", "", func(a *Args) (Value, error) {
		var parts []string
		for _, v := range a.Rest {
			parts = append(parts, v.String())
		}
		a.Th.Interp().Stdout().Write([]byte(strings.Join(parts, " ") + "\n"))
		return nil, nil
	})
	r.Register("twice(x, by = 2)", "", func(a *Args) (Value, error) {
		x, err := a.Num("x")
		if err != nil {
			return nil, err
		}
		by, err := a.Num("by")
		if err != nil {
			return nil, err
		}
		return Num(x * by), nil
	})
	r.Register("stopped()", "", func(a *Args) (Value, error) {
		panic(interrupt.Stop) // a dense kernel stopped by the interrupt
	})
	r.Register("boom()", "", func(a *Args) (Value, error) {
		var m map[string]int
		m["x"] = 1 // a deliberate nil-map panic
		return nil, nil
	})
	return r
}

func run(t *testing.T, src string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	in := New(Options{Stdout: &out, Stderr: &out, Registry: testRegistry()})
	v, err := in.Eval("t.kml", src)
	if err == nil && v != NoneValue {
		out.WriteString("= " + v.String() + "\n")
	}
	return out.String(), err
}

func TestEvalValues(t *testing.T) {
	cases := []struct{ src, want string }{
		{"1 + 2 * 3", "7"},
		{"2^3^2", "512"},
		{"-2^2", "-4"},
		{"7 % 3", "1"},
		{"-7 % 3", "2"},
		{"1 / 3", "0.3333333"},
		{"[1, 2, 3] * 2", "[2, 4, 6]"},
		{"[1, 2, 3] + [10, 20, 30]", "[11, 22, 33]"},
		{"[[1, 2], [3, 4]] @ [1, 1]", "[3, 7]"},
		{"[1, 2] @ [[1, 2], [3, 4]]", "[7, 10]"},
		{"[1, 2] @ [3, 4]", "11"},
		{"[[1, 2], [3, 4]] + [10, 20]", "[11  22]\n[13  24]"},
		{"[[1, 2], [3, 4]] @ [[1, 0], [0, 1]]", "[1  2]\n[3  4]"},
		{"let x = [10, 20, 30, 40]\nx[2:3]", "[20, 30]"},
		{"let x = [10, 20, 30, 40]\nx[:2]", "[10, 20]"},
		{"let x = [10, 20, 30, 40]\nx[3:]", "[30, 40]"},
		{"let x = [10, 20, 30, 40]\nx[[4, 1]]", "[40, 10]"},
		{"let m = [[1, 2], [3, 4], [5, 6]]\nm[2, 1]", "3"},
		{"let m = [[1, 2], [3, 4], [5, 6]]\nm[:, 2]", "[2, 4, 6]"},
		{"let m = [[1, 2], [3, 4], [5, 6]]\nm[2]", "[3, 4]"},
		{"let m = [[1, 2], [3, 4], [5, 6]]\nm[2:3, :]", "[3  4]\n[5  6]"},
		{"let m = [[1], [2], [3]]\nm[2]", "2"},
		{"let r = {a: 1, b: \"s\"}\nr.b", "s"},
		{"{a: 1, b: \"s\", c: [1, 2]}", "{a: 1, b: \"s\", c: [1, 2]}"},
		{"if 1 < 2 then \"yes\" else \"no\"", "yes"},
		{"fn f(n) = if n <= 1 then 1 else n * f(n - 1)\nf(5)", "120"},
		{"fn add(a, b) = a + b\nadd(b: 1, a: 2)", "3"},
		{"twice(4)", "8"},
		{"twice(4, by: 3)", "12"},
		{"\"a\" + \"b\"", "ab"},
		{"true && false || true", "true"},
		{"[1, 2, 3] > 1", "[0, 1, 1]"},
		{"[\"x\", \"y\"]", "[\"x\", \"y\"]"},
		{"let x = 1; let y = x + 1; y", "2"},
		{"1e-3 * 1000", "1"},
		{"2 / 0", "Inf"},
		{"1e20", "1e+20"},
		{"0.1 + 0.2", "0.3"},
	}
	for _, c := range cases {
		got, err := run(t, c.src)
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if got != "= "+c.want+"\n" {
			t.Errorf("%q:\n got  %q\n want %q", c.src, got, "= "+c.want+"\n")
		}
	}
}

func TestEvalErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"[1, 2] + [1, 2, 3]", "t.kml:1:8: error: shapes do not match for +: vector of length 2 and vector of length 3"},
		{"[[1, 2], [3, 4]] @ [1, 2, 3]", "shapes do not match for @: matrix 2×2 and vector of length 3"},
		{"let x = [1, 2]\nx[3]", "2:3: error: index 3 is out of range for vector of length 2 (indices run from 1 to 2)"},
		{"let x = [1, 2]\nx[0]", "indices start at 1"},
		{"let x = [1, 2]\nx[1.5]", "index 1.5 is not a whole number"},
		{"let m = [[1, 2], [3, 4]]\nm[1, 3]", "column 3 is out of range for matrix 2×2"},
		{"[[1, 2], [3]]", "1:10: error: matrix rows must have equal lengths: row 1 has 2, row 2 has 1"},
		{"if 1 then 2 else 3", "1:4: error: the condition of `if` must be true or false, got number"},
		{"let r = {a: 1}\nr.b", "2:3: error: record has no field \"b\"; it has a"},
		{"twice(\"x\")", "1:7: error: twice: x must be a number, got string \"x\""},
		{"boom()", "1:1: error: internal error in boom: assignment to entry in nil map"},
		{"let x = 1\nlet y = twice(stopped())", "2:15: error: stopped: interrupted"},
		{"fn f(n) = f(n + 1)\nf(1)", "calls nested deeper than 2000"},
		{"1 && true", "&& needs true or false on its left, got number"},
		{"\"a\" - 1", "cannot apply - to string \"a\" and number"},
	}
	for _, c := range cases {
		_, err := run(t, c.src)
		if err == nil {
			t.Errorf("%q: no error", c.src)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got  %v\n want %s", c.src, err, c.want)
		}
	}
}

func TestSessionKeepsNames(t *testing.T) {
	var out bytes.Buffer
	in := New(Options{Stdout: &out, Registry: testRegistry()})
	if _, err := in.Eval("1", "let a = 2"); err != nil {
		t.Fatal(err)
	}
	v, err := in.Eval("2", "a * 3")
	if err != nil || v.String() != "6" {
		t.Fatalf("got %v, %v", v, err)
	}
	// The REPL may redefine a name in a later input.
	if _, err := in.Eval("3", "let a = 5"); err != nil {
		t.Fatal(err)
	}
	if v, _ := in.Eval("4", "a"); v.String() != "5" {
		t.Errorf("a = %v, want 5", v)
	}
}

// A Go panic outside any builtin (here from a malformed tree: a field
// access without a field name) reaches the caller as an internal error at
// the statement, not as a panic.
func TestPanicInStatementBecomesError(t *testing.T) {
	in := New(Options{})
	th := in.newThread(nil)
	at := ast.Pos{File: "t.kml", Line: 3, Col: 1}
	stmt := &ast.ExprStmt{X: &ast.Selector{X: &ast.Number{At: at, Value: 1}}}
	_, err := th.stmts([]ast.Stmt{stmt}, NewEnv(in.env), true)
	if err == nil || !strings.Contains(err.Error(), "t.kml:3:1: error: internal error") {
		t.Fatalf("want an internal error at 3:1, got %v", err)
	}
}

// A builtin's Go error reaches the embedder through Unwrap, under the KML
// error that places it and the fn calls it came through; and an error a
// builtin returns is copied, not changed, as it gains a position and frames.
func TestBuiltinErrorsAreWrappedNotChanged(t *testing.T) {
	errGo := errors.New("the disk is on fire")
	unplaced := &ast.Error{Msg: "no place of its own"}
	r := testRegistry()
	r.Register("fails()", "", func(a *Args) (Value, error) { return nil, fmt.Errorf("writing: %w", errGo) })
	r.Register("unplaced()", "", func(a *Args) (Value, error) { return nil, unplaced })
	in := New(Options{Registry: r})

	_, err := in.Eval("t.kml", "fn f() = fails()\nf()")
	if !errors.Is(err, errGo) {
		t.Fatalf("errors.Is(%v, errGo) = false", err)
	}
	var ae *ast.Error
	if !errors.As(err, &ae) || ae.Msg != "fails: writing: the disk is on fire" || len(ae.Stack) != 1 {
		t.Errorf("got %#v", ae)
	}

	_, err = in.Eval("t.kml", "fn g() = unplaced()\ng()")
	if !errors.As(err, &ae) || ae.Pos.Line != 1 || len(ae.Stack) != 1 {
		t.Errorf("got %#v", ae)
	}
	if unplaced.Pos.IsValid() || unplaced.Stack != nil {
		t.Errorf("the builtin's error value was changed: %#v", unplaced)
	}
}
