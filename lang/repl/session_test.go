package repl

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// TestSessionExec drives a Session as the Jupyter kernel does: names kept
// from one input to the next, `:` commands, errors named after the label,
// and a cancelled context stopping an evaluation.
func TestSessionExec(t *testing.T) {
	var out, errw bytes.Buffer
	in := eval.New(eval.Options{Stdout: io.Discard, Stderr: io.Discard})
	s := NewSession(in, "cell", &out, &errw)
	if _, err := s.Exec(context.Background(), "let a = 4"); err != nil {
		t.Fatal(err)
	}
	v, err := s.Exec(context.Background(), "a * 2")
	if err != nil || v.String() != "8" {
		t.Fatalf("a * 2 = %v, %v; want 8", v, err)
	}
	if _, err := s.Exec(context.Background(), ":type [a, a]"); err != nil || !strings.Contains(out.String(), "vector") {
		t.Errorf(":type printed %q, err %v", out.String(), err)
	}
	_, err = s.Exec(context.Background(), "a +")
	var msg bytes.Buffer
	in.Sources().Print(&msg, err)
	if !strings.Contains(msg.String(), "<cell 4>:1:") || !strings.Contains(msg.String(), "^") {
		t.Errorf("error not named <cell 4> with a caret:\n%s", msg.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Exec(ctx, "model m {\n  mu ~ normal(0, 1)\n}\nsample(m, chains: 1, warmup: 100000, draws: 100000)"); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("a cancelled context gave %v, want interrupted", err)
	}
	if prefix, c := s.Complete([]rune("sample(m, ch")); prefix != "ch" || len(c) == 0 || c[0] != "chains: " {
		t.Errorf("Complete = %q, %q", prefix, c)
	}
	if h, ok := s.Help("gram"); !ok || !strings.HasPrefix(h, "gram(") {
		t.Errorf("Help(gram) = %q, %v", h, ok)
	}
	if h, ok := s.Help("a"); !ok || !strings.Contains(h, "number") {
		t.Errorf("Help(a) = %q, %v", h, ok)
	}
}
