package stdlib_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
)

// fuzzScripts seed FuzzEval with programs that reach the builtins, models,
// fits and tests; the fuzzer mutates them.
var fuzzScripts = []string{
	"let x = draw(normal(0, 1), 30, seed: 1)\nprint(mean(x), sd(x), quantile(x, [0.1, 0.9]))",
	"let m = [[1, 2], [3, 4]]\nlet v = m @ [1, 2]\nprint(v, m[2, :], m[:, 1], transpose(m), m * 2 - 1)",
	"fn f(n) = if n < 1 then 1 else n * f(n - 1)\nprint(f(5))",
	"let r = {a: 1, b: [1, 2]}\nprint(r.a + r.b[2])",
	"let x = cbind(draw(normal(0, 1), 20, seed: 2))\nlet g = gram(rbf(median_heuristic(x)), x)\nprint(sum(g))",
	"model m {\n  mu ~ normal(0, 1)\n  s ~ gamma(2, 2)\n  [0.1, 0.5, -0.3] ~ normal(mu, s)\n}\nprint(logp(m, {mu: 0.1, s: 1}))\nlet f = optimize(m, seed: 1)\nprint(f)",
	"model m {\n  w[2] ~ normal(0, 1)\n}\nlet p = sample(m, chains: 1, warmup: 20, draws: 10, seed: 3)\nprint(summary(p))",
	"let x = cbind(draw(normal(0, 1), 20, seed: 4))\nlet y = cbind(draw(normal(1, 1), 20, seed: 5))\nprint(mmd_test(x, y, rbf(1), permutations: 20, seed: 6).pvalue)",
	"let x = cbind(draw(normal(0, 1), 20, seed: 7))\nprint(hsic_test(x, x, kx: rbf(1), ky: rbf(1), permutations: 20, seed: 8).pvalue)",
	"let x = linspace(-1, 1, 5)\nprint(exp(x), sin(x), atan2(x, 1), which(x > 0), rep(x, 2), concat(x, [7]))",
	"let x = cbind(draw(normal(0, 1), 30, seed: 9))\nlet z = landmarks(x, 5, seed: 1)\nmodel e {\n  ell ~ gamma(1, 1)\n  x ~ bke(rbf(ell), noise: 1, landmarks: z)\n}\nprint(logp(e, {ell: 1}))",
}

// FuzzEval runs whole scripts under a small memory budget and a time limit:
// no input may panic (an "internal error"), crash the process, hang after
// cancellation, or produce an error without a position.
// Run with: go test -fuzz=FuzzEval -parallel=1 ./stdlib
func FuzzEval(f *testing.F) {
	for _, s := range fuzzScripts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		in := eval.New(eval.Options{Stdout: io.Discard, Stderr: io.Discard, MaxMemory: 32 << 20, Context: ctx})
		done := make(chan error, 1)
		go func() {
			_, err := in.Eval("fuzz.kml", src)
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(time.Minute):
			// Loose, for a loaded machine: a hang is what it catches.
			t.Fatalf("still running a minute after cancellation:\n%s", src)
		}
		checkFuzzError(t, src, err)
	})
}

func checkFuzzError(t *testing.T, src string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if strings.Contains(err.Error(), "internal error") {
		t.Fatalf("%v\nin:\n%s", err, src)
	}
	var list ast.ErrorList
	var one *ast.Error
	switch {
	case errors.As(err, &list):
		for _, e := range list {
			if e.Pos.Line == 0 {
				t.Fatalf("an error without a position: %v\nin:\n%s", e, src)
			}
		}
	case errors.As(err, &one):
		if one.Pos.Line == 0 {
			t.Fatalf("an error without a position: %v\nin:\n%s", one, src)
		}
	default:
		t.Fatalf("an error that is not a KML error: %T %v\nin:\n%s", err, err, src)
	}
}

// FuzzBroadcastIndex builds arithmetic, comparison, products and indexing
// over values of fuzzed shapes: every combination either works or is a
// positioned error, never a panic, and a result of elementwise arithmetic
// has the shape the broadcasting rules give.
func FuzzBroadcastIndex(f *testing.F) {
	f.Add(uint8(2), uint8(3), uint8(2), uint8(3), uint8(0), int8(1), int8(2), int8(1))
	f.Add(uint8(1), uint8(0), uint8(3), uint8(1), uint8(3), int8(0), int8(-1), int8(5))
	f.Add(uint8(4), uint8(1), uint8(1), uint8(4), uint8(6), int8(2), int8(2), int8(0))
	f.Fuzz(func(t *testing.T, r1, c1, r2, c2, op uint8, i, j, k int8) {
		value := func(r, c uint8, off int) string {
			r, c = r%6, c%6
			switch {
			case r == 0:
				return fmt.Sprint(off)
			case c == 0:
				return fmt.Sprintf("linspace(%d, %d, %d)", off, off+int(r), r)
			}
			return fmt.Sprintf("rbind(%s)", strings.TrimSuffix(strings.Repeat(fmt.Sprintf("linspace(%d, 2, %d), ", off, c), int(r)), ", "))
		}
		ops := []string{"+", "-", "*", "/", "^", "%", "==", "<", "@"}
		a, b := value(r1, c1, 1), value(r2, c2, 3)
		src := fmt.Sprintf("let a = %s\nlet b = %s\nlet c = a %s b\nlet d = a[%d]\nlet e = b[%d:%d]\nlet g = a[%d, %d:]\nlet h = b[:, %d]\n",
			a, b, ops[int(op)%len(ops)], i, j, k, i, j, k)
		in := eval.New(eval.Options{Stdout: io.Discard, Stderr: io.Discard, MaxMemory: 32 << 20})
		for _, line := range strings.SplitAfter(src, "\n") {
			if line == "" {
				continue
			}
			_, err := in.Eval("fuzz.kml", line)
			checkFuzzError(t, src, err)
		}
	})
}

// TestFuzzSeedsRun keeps the seed programs meaningful: each runs without
// error, so the fuzzer starts from code that reaches deep into the library.
func TestFuzzSeedsRun(t *testing.T) {
	for _, src := range fuzzScripts {
		in := eval.New(eval.Options{Stdout: io.Discard, Stderr: io.Discard})
		if _, err := in.Eval("seed.kml", src); err != nil {
			t.Errorf("%v\nin:\n%s", err, src)
		}
	}
}
