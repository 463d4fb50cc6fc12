package stdlib_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// expectError runs src in a fresh interpreter and requires an error whose
// printed form (position, message, source line) contains want.
func expectError(t *testing.T, src, want string) {
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
