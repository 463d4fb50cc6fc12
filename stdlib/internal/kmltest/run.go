package kmltest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	_ "github.com/kml-lang/kml/stdlib" // the whole library in eval.Builtins
)

// Run runs src in a fresh interpreter, failing t with the printed error
// (position, message, source line) if it has one, and returns the
// interpreter and what the script printed.
func Run(t testing.TB, src string) (*eval.Interpreter, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out})
	if _, err := in.Eval("t.kml", src); err != nil {
		var b bytes.Buffer
		in.Sources().Print(&b, err)
		t.Fatalf("%s", b.String())
	}
	return in, &out
}

// RunIn runs src with dir as its only directory and returns the printed
// error, or "" if there is none.
func RunIn(t testing.TB, dir, src string) string {
	t.Helper()
	var out bytes.Buffer
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out, Dirs: []string{dir}, BaseDir: dir})
	if _, err := in.Eval("t.kml", src); err != nil {
		var b bytes.Buffer
		in.Sources().Print(&b, err)
		return b.String()
	}
	return ""
}

// ExpectError runs src in a fresh interpreter and requires an error whose
// printed form (position, message, source line) contains want.
func ExpectError(t testing.TB, src, want string) {
	t.Helper()
	var out bytes.Buffer
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out})
	_, err := in.Eval("t.kml", src)
	if err == nil {
		t.Errorf("%s: no error, want %q", src, want)
		return
	}
	var b bytes.Buffer
	in.Sources().Print(&b, err)
	if !strings.Contains(b.String(), want) {
		t.Errorf("%s:\n got %s\nwant %q", src, b.String(), want)
	}
}

// Lookup returns the value bound to name in in, failing t if it is unbound
// or not a T.
func Lookup[T any](t testing.TB, in *eval.Interpreter, name string) T {
	t.Helper()
	v, ok := in.Lookup(name)
	if !ok {
		t.Fatalf("%s is not bound", name)
	}
	x, ok := v.(T)
	if !ok {
		t.Fatalf("%s is a %s", name, v.Type())
	}
	return x
}

// Field returns record r's field name, failing t if it has none.
func Field(t testing.TB, r *eval.Record, name string) eval.Value {
	t.Helper()
	v, ok := r.Attr(name)
	if !ok {
		t.Fatalf("record has no field %s: %s", name, r)
	}
	return v
}

// Num returns record r's field name as a number, failing t if it is not one.
func Num(t testing.TB, r *eval.Record, name string) float64 {
	t.Helper()
	v, ok := Field(t, r, name).(eval.Num)
	if !ok {
		t.Fatalf("field %s is %s", name, Field(t, r, name).Type())
	}
	return float64(v)
}
