package repl

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kml-lang/kml/lang/eval"
	_ "github.com/kml-lang/kml/stdlib"
)

// syncBuffer is a bytes.Buffer safe for the REPL's and the test's
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// driver feeds the REPL through a pipe, as a terminal would, and sends
// Ctrl-C through the Interrupts channel.
type driver struct {
	w          *io.PipeWriter
	out, errw  *syncBuffer
	interrupts chan os.Signal
	done       chan error
}

func start(t *testing.T) *driver {
	r, w := io.Pipe()
	d := &driver{w: w, out: &syncBuffer{}, errw: &syncBuffer{}, interrupts: make(chan os.Signal, 1), done: make(chan error, 1)}
	in := eval.New(eval.Options{Stdout: d.out, Stderr: d.errw})
	go func() {
		d.done <- Run(Config{Interp: in, Stdin: r, Stdout: d.out, Stderr: d.errw, HistoryFile: "-",
			Interrupts: d.interrupts, Terminal: func() bool { return true }})
	}()
	return d
}

func (d *driver) send(s string) {
	d.w.Write([]byte(s))
}

// waitFor polls the output until it contains want, for up to two minutes
// (a loaded machine is slow; only a hang takes that long).
func (d *driver) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if strings.Contains(d.out.String(), want) || strings.Contains(d.errw.String(), want) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %q\nstdout:\n%s\nstderr:\n%s", want, d.out.String(), d.errw.String())
}

func TestREPLSession(t *testing.T) {
	d := start(t)
	d.send("let x = [1, 2,\r")
	d.send("  3]\r")
	d.send("x * 2\r")
	d.waitFor(t, "[2, 4, 6]")

	// A multi-line model, then its log density.
	d.send("model m {\r")
	d.send("  mu ~ normal(0, 1)\r")
	d.send("  x ~ normal(mu, 1)\r")
	d.send("}\r")
	d.send("logp(m, {mu: 0})\r")
	d.waitFor(t, "-10.67575")

	d.send(":type x\r")
	d.waitFor(t, "vector of length 3")
	d.send(":type {a: 1, bb: x}\r")
	d.waitFor(t, "  bb: vector of length 3")

	// Ctrl-D on a continuation line drops the unfinished input and the
	// session goes on.
	d.send("let y = (1 +\r")
	d.send("\x04")
	d.waitFor(t, "unfinished input discarded")
	d.send("40 + 3\r")
	d.waitFor(t, "43\n")

	// Tab completes a builtin: "median_he" + Tab → median_heuristic, and
	// median_heuristic([1, 2, 3]) is 1.
	d.send("let mh = median_he\t(x)\r")
	d.send("mh + 100\r")
	d.waitFor(t, "101\n")
	if strings.Contains(d.errw.String(), "undefined") {
		t.Fatalf("completion failed: %s", d.errw.String())
	}

	// Errors show the caret and the session goes on.
	d.send("x + [1, 2]\r")
	d.waitFor(t, "shapes do not match for +: vector of length 3 and vector of length 2")
	d.send(":help rbf\r")
	d.waitFor(t, "squared-exponential")

	// Ctrl-C during a long evaluation cancels it. The model is declared
	// first (and a result awaited), so that however slow the machine the
	// interrupt can only reach the sample.
	d.send("model big {\r  w[50] ~ normal(0, 1)\r}\r")
	d.send("7000 + 7\r")
	d.waitFor(t, "7007\n")
	d.send("let p = sample(big, warmup: 1000000, draws: 1000000)\r")
	time.Sleep(300 * time.Millisecond)
	d.interrupts <- os.Interrupt
	d.waitFor(t, "interrupted")
	d.send("1 + 41\r")
	d.waitFor(t, "42\n")
	// The interrupt also raised the statement's dense stop
	// (runtime/interrupt), which ended with the statement: the next one's
	// Cholesky of order 200 goes through the kernels.
	d.send("chol(eye(200) * 4)[200, 200] + 1000\r")
	d.waitFor(t, "1002\n")

	d.send(":quit\r")
	select {
	case err := <-d.done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal(":quit did not end the REPL")
	}
	if strings.Contains(d.errw.String(), "panic") {
		t.Errorf("stderr: %s", d.errw.String())
	}
}
