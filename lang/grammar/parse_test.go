package grammar

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/ast"
)

func TestExprPrecedence(t *testing.T) {
	cases := []struct{ src, want string }{
		{"1 + 2 * 3", "(1 + (2 * 3))"},
		{"1 - 2 - 3", "((1 - 2) - 3)"},
		{"-x^2", "(-(x ^ 2))"},
		{"2^3^2", "(2 ^ (3 ^ 2))"},
		{"2^-1", "(2 ^ -1)"},
		{"a @ b + c", "((a @ b) + c)"},
		{"a % b * c", "((a % b) * c)"},
		{"!a && b || c", "(((!a) && b) || c)"},
		{"(a < b) == false", "((a < b) == false)"},
		{"if a then b else c + 1", "if a then b else (c + 1)"},
		{"f(x, 1)(2)", "f(x, 1)(2)"},
		{"x[1, :]", "x[1, :]"},
		{"x[2:4]", "x[2:4]"},
		{"x[:3, 2:]", "x[:3, 2:]"},
		{"p.a.b[1]", "p.a.b[1]"},
		{"f(x, seed: 7)", "f(x, seed: 7)"},
		{"[[1, 2], [3, 4]]", "[[1, 2], [3, 4]]"},
		{"{a: 1, b: \"s\"}", "{a: 1, b: \"s\"}"},
		{".5 + 1e-3 + 1.", "((.5 + 1e-3) + 1.)"},
		{"τ2 * 2", "(τ2 * 2)"},
		{"-(1)", "-1"},
		{"- a", "(-a)"},
		{"3 * rbf(ell) + white()", "((3 * rbf(ell)) + white())"},
	}
	for _, c := range cases {
		e, err := ParseExpr("t.kml", c.src)
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if got := ast.Format(e); got != c.want {
			t.Errorf("%q parsed as %s, want %s", c.src, got, c.want)
		}
	}
}

func TestStatements(t *testing.T) {
	src := strings.Join([]string{
		"let x = [1, 2,",
		"  3]  # comment",
		"let y = x +",
		"  1; let z = 2",
		"fn f(a, b) = a * b",
		"model m {",
		"  ell ~ gamma(1, 1)",
		"  w[3] ~ normal(0, 1); k = rbf(ell)",
		"",
		"  x ~ normal(0, ell)",
		"}",
		"let r = {",
		"  a: 1,",
		"  b: 2,",
		"}",
		"let c = if y > 1",
		"  then 1",
		"  else 2",
		"import \"lib.kml\"",
		"print(x)",
	}, "\n")
	f, err := Parse("t.kml", src)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, s := range f.Stmts {
		switch s := s.(type) {
		case *ast.Let:
			kinds = append(kinds, "let "+s.Name.Name)
		case *ast.Fn:
			kinds = append(kinds, "fn "+s.Name.Name)
		case *ast.Model:
			kinds = append(kinds, "model "+s.Name.Name)
			for _, b := range s.Body {
				switch b := b.(type) {
				case *ast.Tilde:
					kinds = append(kinds, "  "+ast.Format(b.LHS)+" ~ "+ast.Format(b.Dist))
				case *ast.Assign:
					kinds = append(kinds, "  "+b.Name.Name+" = "+ast.Format(b.Value))
				}
			}
		case *ast.Import:
			kinds = append(kinds, "import "+s.Path.Value)
		case *ast.ExprStmt:
			kinds = append(kinds, ast.Format(s.X))
		}
	}
	want := []string{
		"let x", "let y", "let z", "fn f", "model m",
		"  ell ~ gamma(1, 1)", "  w[3] ~ normal(0, 1)", "  k = rbf(ell)", "  x ~ normal(0, ell)",
		"let r", "let c", "import lib.kml", "print(x)",
	}
	if strings.Join(kinds, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(kinds, "\n"), strings.Join(want, "\n"))
	}
	if p := f.Stmts[1].(*ast.Let).Value.(*ast.Binary).OpPos; p.Line != 3 || p.Col != 11 {
		t.Errorf("position of + is %v, want 3:11", p)
	}
}

func TestUnicodeColumns(t *testing.T) {
	_, err := Parse("u.kml", "let τ2 = 1 $")
	list, ok := err.(ast.ErrorList)
	if !ok || len(list) != 1 {
		t.Fatalf("got %v", err)
	}
	if list[0].Pos.Col != 12 {
		t.Errorf("column %d, want 12 (runes, not bytes)", list[0].Pos.Col)
	}
	want := "let τ2 = 1 $\n           ^\n"
	if got := ast.Snippet("let τ2 = 1 $", list[0].Pos); got != want {
		t.Errorf("snippet %q, want %q", got, want)
	}
}

func TestSyntaxErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"let a = 1 let b = 2", "1:11: error: unexpected \"let\"; start each statement on a new line or after `;`"},
		{"let s = x[1 2]", "1:13: error: unexpected number 2, expected `,`, `:` or `]`"},
		{"x ~ normal(0, 1)", "1:3: error: `~` statements belong inside a model"},
		{"let q = \"abc", "1:9: error: unterminated string"},
		{"let z = 1 & 2", "1:11: error: unexpected \"&\" (did you mean \"&&\"?)"},
		{"a = 3", "1:1: error: to bind a name write `let a = ...`"},
		{"let a = (1 + 2", "1:9: error: \"(\" is never closed"},
		{"let a = (1 + 2]", "1:15: error: unexpected \"]\", expected `)`"},
		{"model m {\n  let a = 1\n}", "2:3: error: `let` is not allowed inside a model"},
		{"model m {\n  print(1)\n}", "2:3: error: a model holds only"},
		{"model m {\n  a ~ normal(0, 1) b ~ normal(0, 1)\n}", "2:20: error: expected a new line or `;` before this statement"},
		{"let a = 1 < 2 < 3", "1:15: error: comparisons do not chain"},
		{"f(a: 1, 2)", "1:9: error: positional argument after a named one"},
		{"let r = {a: 1, a: 2}", "1:16: error: duplicate field \"a\" in record"},
		{"let let = 1", "1:5: error: unexpected \"let\""},
	}
	for _, c := range cases {
		_, err := Parse("t.kml", c.src)
		if err == nil {
			t.Errorf("%q: no error", c.src)
			continue
		}
		if got := err.Error(); !strings.Contains(got, "t.kml:"+c.want) {
			t.Errorf("%q:\n got  %s\n want t.kml:%s", c.src, got, c.want)
		}
	}
}

func TestErrorsAreAllReported(t *testing.T) {
	_, err := Parse("t.kml", "let a = )\nlet b = 2\nlet c = (\n")
	list := err.(ast.ErrorList)
	if len(list) != 2 || list[0].Pos.Line != 1 || list[1].Pos.Line != 3 {
		t.Errorf("want errors on lines 1 and 3, got %v", err)
	}
}

func TestIncomplete(t *testing.T) {
	for src, want := range map[string]bool{
		"let x = 1":              false,
		"let x = (1 +":           true,
		"let x = 1 +":            true,
		"model m {":              true,
		"model m {\n a ~ n(0,1)": true,
		"model m {\n}":           false,
		"let y = if x":           true,
		"f(1,":                   true,
		"print(\"(\")":           false,
		"# (":                    false,
		"let r = {a: 1,\n b: 2}": false,
	} {
		if got := Incomplete(src); got != want {
			t.Errorf("Incomplete(%q) = %v, want %v", src, got, want)
		}
	}
}

// A statement keyword right after an open bracket, with no newline dropped
// before it, makes the scanner insert a statement end in place.
func TestKeywordInsideBracketRecovers(t *testing.T) {
	f, err := Parse("t.kml", "print(let x = 2\nprint(x)")
	list, _ := err.(ast.ErrorList)
	if len(list) != 1 || list[0].Pos.Line != 1 || list[0].Pos.Col != 6 {
		t.Fatalf("want one error at 1:6, got %v", err)
	}
	if len(f.Stmts) != 2 {
		t.Errorf("want the let and the print, got %d statements", len(f.Stmts))
	}
}

// A long file is parsed by several workers; statements and errors must
// come back in source order.
func TestLongFileKeepsOrder(t *testing.T) {
	var b strings.Builder
	const n = 3000
	for i := 1; i <= n; i++ {
		if i%500 == 0 {
			fmt.Fprintf(&b, "let e%d = (%d +\n", i, i) // never closed
			continue
		}
		fmt.Fprintf(&b, "let v%d = %d\n", i, i)
	}
	f, err := Parse("t.kml", b.String())
	list, _ := err.(ast.ErrorList)
	if len(list) != n/500 {
		t.Fatalf("want %d errors, got %v", n/500, err)
	}
	for k, e := range list {
		if e.Pos.Line != 500*(k+1) {
			t.Errorf("error %d on line %d, want %d", k+1, e.Pos.Line, 500*(k+1))
		}
	}
	if len(f.Stmts) != n-n/500 {
		t.Fatalf("want %d statements, got %d", n-n/500, len(f.Stmts))
	}
	line := 0
	for _, s := range f.Stmts {
		if l := s.Pos().Line; l <= line {
			t.Fatalf("statement on line %d after one on line %d", l, line)
		} else {
			line = l
		}
	}
}

// A byte order mark (which some Windows editors write) is not part of the
// program, and CRLF line endings end statements like LF.
func TestByteOrderMarkAndCRLF(t *testing.T) {
	f, err := Parse("t.kml", "\ufefflet a = 1\r\nlet b = a\r\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Stmts) != 2 || f.Stmts[0].Pos().Col != 1 || f.Stmts[1].Pos().Line != 2 {
		t.Errorf("want two statements, the first at column 1, got %d", len(f.Stmts))
	}
}

// TestLongMinusRunIsLinear parses 50,000 nested unary minuses and bounds the
// bytes allocated per minus: folding them into the literal one at a time
// copied the literal's text each time, quadratic work (1.25 GB here).
func TestLongMinusRunIsLinear(t *testing.T) {
	const n = 50000
	src := "print(" + strings.Repeat("-", n) + "1)\n"
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f, err := Parse("t.kml", src)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if perMinus := (after.TotalAlloc - before.TotalAlloc) / n; perMinus > 1000 {
		t.Errorf("parsing %d minuses allocated %d bytes per minus; want linear work", n, perMinus)
	}
	num, ok := f.Stmts[0].(*ast.ExprStmt).X.(*ast.Call).Args[0].(*ast.Number)
	if !ok || num.Value != 1 {
		t.Errorf("%d minuses before 1 parsed as %#v, want the number 1", n, num)
	}
	for src, want := range map[string]string{"---1": "---1", "-!-1": "(-(!-1))", "- - x": "(-(-x))", "--2^2": "(-(-(2 ^ 2)))"} {
		e, err := ParseExpr("t.kml", src)
		if err != nil {
			t.Fatal(err)
		}
		if got := ast.Format(e); got != want {
			t.Errorf("%q parsed as %s, want %s", src, got, want)
		}
	}
	if e, _ := ParseExpr("t.kml", "---1"); e.(*ast.Number).Value != -1 {
		t.Errorf("---1 is %v, want -1", e.(*ast.Number).Value)
	}
}

// TestNamesAreNFC checks that a name typed in NFD (e and a combining acute)
// is the name typed in NFC (é), and that positions and carets still count
// the characters as written.
func TestNamesAreNFC(t *testing.T) {
	nfd, nfc := "e\u0301t", "\u00e9t"
	f, err := Parse("t.kml", "let "+nfd+" = 2\nprint("+nfd+" + "+nfc+", x)\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Stmts[0].(*ast.Let).Name.Name; got != nfc {
		t.Errorf("the NFD name parsed as %q, want %q", got, nfc)
	}
	args := f.Stmts[1].(*ast.ExprStmt).X.(*ast.Call).Args
	sum := args[0].(*ast.Binary)
	if x, y := sum.X.(*ast.Ident).Name, sum.Y.(*ast.Ident).Name; x != nfc || y != nfc {
		t.Errorf("names %q and %q, want both %q", x, y, nfc)
	}
	pos := args[1].Pos()
	if pos.Col != 17 {
		t.Errorf("x is at column %d, want 17 (characters as written)", pos.Col)
	}
	want := "print(" + nfd + " + " + nfc + ", x)\n" + strings.Repeat(" ", 15) + "^\n"
	if got := ast.Snippet("let "+nfd+" = 2\nprint("+nfd+" + "+nfc+", x)\n", pos); got != want {
		t.Errorf("snippet\n%s\nwant\n%s", got, want)
	}
}

// TestNestingLimit checks that an expression nested deeper than MaxNesting
// is a positioned error, in each way an expression nests, and that one
// nested exactly MaxNesting deep still parses: 300,000 parentheses used to
// overflow the goroutine stack, a Go fatal error no recover catches.
func TestNestingLimit(t *testing.T) {
	n := MaxNesting
	deep := map[string]func(k int) string{
		"parens":   func(k int) string { return strings.Repeat("(", k) + "1" + strings.Repeat(")", k) },
		"lists":    func(k int) string { return strings.Repeat("[", k) + "1" + strings.Repeat("]", k) },
		"records":  func(k int) string { return strings.Repeat("{a: ", k) + "1" + strings.Repeat("}", k) },
		"calls":    func(k int) string { return strings.Repeat("f(", k) + "1" + strings.Repeat(")", k) },
		"nots":     func(k int) string { return strings.Repeat("!", k) + "x" },
		"sum":      func(k int) string { return "x" + strings.Repeat(" + x", k) },
		"power":    func(k int) string { return "x" + strings.Repeat(" ^ x", k) },
		"fields":   func(k int) string { return "r" + strings.Repeat(".a", k) },
		"indexing": func(k int) string { return "v" + strings.Repeat("[1]", k) },
	}
	for name, mk := range deep {
		// The statement `let z = ...` is one level; an expression nested
		// a tenth of the limit parses.
		if _, err := Parse("t.kml", "let z = "+mk(n/10)+"\n"); err != nil {
			t.Errorf("%s nested %d deep: %v", name, n/10, err)
		}
		_, err := Parse("t.kml", "let z = "+mk(3*n)+"\n")
		if err == nil {
			t.Errorf("%s nested %d deep: no error", name, 3*n)
			continue
		}
		if got := err.Error(); !strings.Contains(got, "t.kml:1:") || !strings.Contains(got, fmt.Sprintf("nested at most %d deep", n)) {
			t.Errorf("%s nested %d deep: %s", name, 3*n, got)
		}
	}
	// 300,000 parentheses, the input that crashed, is an error too.
	if _, err := Parse("t.kml", "let z = "+deep["parens"](300000)+"\n"); err == nil {
		t.Error("300,000 parentheses: no error")
	}
}
