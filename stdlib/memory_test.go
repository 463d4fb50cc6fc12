package stdlib_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// TestMemoryBudget runs computations whose dense results would not fit in
// a small budget: each must end in a clear, positioned error that says what
// to do instead — never the Go runtime's out-of-memory crash — and the same
// computations at a size that fits must still work.
func TestMemoryBudget(t *testing.T) {
	cases := []struct{ src, want string }{
		{`let x = cbind(draw(normal(0, 1), 200000, seed: 1))
let g = gram(rbf(1), x)`, "2:9: error: gram: the Gram matrix would be 200000×200000 numbers (298 GB), more than the memory budget of 64 MB"},
		{`let x = cbind(draw(normal(0, 1), 200000, seed: 1))
let g = gram(rbf(1), x, x[1:10, :])`, ""},
		{`let m = cbind(draw(normal(0, 1), 30000, seed: 1), draw(normal(0, 1), 30000, seed: 2))
let p = m @ transpose(m)`, "2:11: error: the product would be 30000×30000 numbers (6.71 GB)"},
		{`let m = cbind(draw(normal(0, 1), 30000, seed: 1), draw(normal(0, 1), 30000, seed: 2))
let p = transpose(m) @ m`, ""},
	}
	for _, c := range cases {
		var out bytes.Buffer
		in := eval.New(eval.Options{Stdout: &out, Stderr: &out, MaxMemory: 64 << 20})
		_, err := in.Eval("t.kml", c.src)
		var msg bytes.Buffer
		if err != nil {
			in.Sources().Print(&msg, err)
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s\nunder the budget: %s", c.src, msg.String())
		case c.want != "" && !strings.Contains(msg.String(), c.want):
			t.Errorf("%s\ngot %q\nwant %q", c.src, msg.String(), c.want)
		}
	}
}
