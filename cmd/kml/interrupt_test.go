package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kml-lang/kml/lang/eval"
)

// deafBuiltin, registered only in a child started with KML_TEST_DEAF=1, is
// a computation that never looks at the context.
func registerDeaf() {
	eval.Builtins.Register("deaf_spin()", "Spins for a minute, ignoring the context (tests only).",
		func(a *eval.Args) (eval.Value, error) {
			end := time.Now().Add(time.Minute)
			for time.Now().Before(end) {
			}
			return eval.Num(0), nil
		})
}

// interruptChild runs `kml run` on src in a child process, waits for its
// "started" line and settle more, sends sig, and returns the exit status,
// stderr and how long the child took to stop.
func interruptChild(t *testing.T, src string, settle time.Duration, env ...string) (int, string, time.Duration) {
	t.Helper()
	return signalChild(t, t.TempDir(), src, settle, syscall.SIGINT, env...)
}

// signalChild is interruptChild with the script written into dir and sig
// sent instead of SIGINT.
func signalChild(t *testing.T, dir, src string, settle time.Duration, sig syscall.Signal, env ...string) (int, string, time.Duration) {
	t.Helper()
	script := filepath.Join(dir, "long.kml")
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "run", script)
	cmd.Env = append(append(os.Environ(), "KML_TEST_MAIN=1"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "started" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("first line %q, want started; stderr:\n%s", line, stderr.String())
	}
	time.Sleep(settle)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		t.Fatalf("the computation ended before the signal; make it longer; stderr:\n%s", stderr.String())
	default:
	}
	start := time.Now()
	cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		// Loose, for a loaded machine: uncancelled, the runs take hours.
		cmd.Process.Kill()
		<-done
		t.Fatalf("the run did not stop within 2 minutes of %v; stderr:\n%s", sig, stderr.String())
	}
	return cmd.ProcessState.ExitCode(), stderr.String(), time.Since(start)
}

// TestInterruptFamilies: Ctrl-C during each family of long builtins stops
// the run soon with "NAME: interrupted" at the call and exit status 130.
func TestInterruptFamilies(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	// Generous: the point is that the computation stops, on a busy machine.
	const bound = 5 * time.Second
	for _, c := range []struct{ name, src, want string }{
		{"kernel test", `let x = draw(normal(0, 1), 1000, seed: 1)
let y = draw(normal(0.1, 1), 1000, seed: 2)
print("started")
let r = mmd_test(x, y, "aggregate", permutations: 2000000)
`, "long.kml:4:9: error: mmd_test: interrupted"},
		{"ci_test", `let z = draw(normal(0, 1), 400, seed: 1)
let x = z + draw(normal(0, 1), 400, seed: 2)
let y = z + draw(normal(0, 1), 400, seed: 3)
print("started")
let r = ci_test(x, y, z, rbf(1), rbf(1), permutations: 2000000)
`, "long.kml:5:9: error: ci_test: interrupted"},
		{"pc", `let a = draw(normal(0, 1), 400, seed: 1)
let b = a + draw(normal(0, 1), 400, seed: 2)
let c = b + draw(normal(0, 1), 400, seed: 3)
print("started")
let g = pc(cbind(a, b, c), kernel: rbf(1), method: "permutation", permutations: 2000000)
`, "long.kml:5:9: error: pc: interrupted"},
		{"abc", `fn prior(n) = draw(normal(0, 1), n)
fn sim(x) = x + draw(normal(0, 1), rows(x))
print("started")
let r = abc(prior, sim, [0.5, 1], tolerance: 0.00000001, n: 100, batch: 1000, max_sims: 100000000000)
`, "long.kml:4:9: error: abc: interrupted"},
		{"cv", `fn prior(n) = draw(normal(0, 1), n)
fn sim(x) = x + draw(normal(0, 1), rows(x))
let j = simulate(prior, sim, 300, seed: 1)
print("started")
let r = cv(j, folds: 300, eps: logspace(-4, 0, 30), delta: logspace(-8, 0, 30))
`, "long.kml:5:9: error: cv: interrupted"},
		{"tune", `let x = draw(normal(0, 1), 300, seed: 1)
fn k(l) = rbf(l)
print("started")
let t = tune(x, 100, kernel: k, ell: logspace(-1, 0.5, 1000000), method: "kde", score: "logpdf", window: [-4, 4], seed: 4)
`, "long.kml:4:"},
		{"profile", `let x = draw(normal(0, 1), 2000, seed: 1)
model m {
  ell ~ gamma(1, 1)
  x ~ bke(rbf(ell), noise: 1, landmarks: landmarks(x, 50))
}
print("started")
let p = profile(m, ell: logspace(-0.3, 1.6, 1000000), objective: "ml")
`, "long.kml:7:9: error: profile: interrupted"},
		{"iterate", `fn f(s, t) = s * 0.5 + 1
print("started")
let r = iterate(f, 0, 1000000000)
`, "long.kml:3:"}, // iterate's own step check (3:9) or f's call (3:17), whichever sees it first
		{"recursion", `fn fib(n) = if n < 2 then n else fib(n - 1) + fib(n - 2)
print("started")
let r = fib(60)
`, "error: interrupted"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stderr, took := interruptChild(t, c.src, 500*time.Millisecond)
			if code != exitSignal {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, exitSignal, stderr)
			}
			if !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "interrupted\n") || strings.Contains(stderr, "goroutine") {
				t.Errorf("stderr does not say %q:\n%s", c.want, stderr)
			}
			if took > bound {
				t.Errorf("stopped %v after SIGINT, want within %v", took, bound)
			}
		})
	}
}

// TestInterruptInsideCalls: Ctrl-C stops within a bound one long call that
// has no loop of its own between checks: a dense factorisation in gonum
// (chol, the LU of inv), the stages of kbr_filter, the landmark draws of
// the "bkl" kernel choice, and tune and cv whose every candidate is a
// dense fit. A statement follows each call, so a call that ran to its end
// would be reported there ("long.kml:5:1: error: interrupted"), not as
// "NAME: interrupted" at the call: the message tells whether the call
// itself stopped, whatever the machine's speed.
func TestInterruptInsideCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	// Stopping takes milliseconds idle; the bound allows a load of 20.
	const bound = 3 * time.Second
	for _, c := range []struct {
		name, src, want string
		settle          time.Duration // into the call
	}{
		// n = 6000: since chol factors in place, all of it at n = 4000 can
		// end within the settle time on an idle machine.
		{"chol", `let A = eye(6000) * 2
print("started")
let L = chol(A)
print("done")
`, "long.kml:3:9: error: chol: interrupted", 500 * time.Millisecond}, // past chol's check of symmetry
		{"inv", `let A = eye(4000) * 2
print("started")
let L = inv(A)
print("done")
`, "long.kml:3:9: error: inv: interrupted", 100 * time.Millisecond},
		{"kbr_filter", `let s = draw(normal(0, 1), 4000, seed: 1)
let o = s + draw(normal(0, 1), 4000, seed: 2)
print("started")
let f = kbr_filter(cbind(s, s), cbind(o, o), transition: "operator")
print("done")
`, "long.kml:4:9: error: kbr_filter: interrupted", 100 * time.Millisecond},
		{"bkl", `let x = draw(normal(0, 1), 1000, seed: 1)
let y = draw(normal(0.1, 1), 1000, seed: 2)
print("started")
let r = mmd_test(x, y, "bkl", draws: 300, permutations: 10)
print("done")
`, "long.kml:4:9: error: mmd_test: interrupted", 100 * time.Millisecond},
		{"tune", `let x = draw(normal(0, 1), 4000, seed: 1)
fn k(l) = rbf(l)
print("started")
let t = tune(x, 1000, kernel: k, ell: logspace(-1, 0.5, 30), seed: 4, score: "logpdf", window: [-4, 4])
print("done")
`, "long.kml:4:9: error: tune: interrupted", 100 * time.Millisecond},
		{"cv", `fn prior(n) = draw(normal(0, 1), n)
fn sim(x) = x + draw(normal(0, 1), rows(x))
let j = simulate(prior, sim, 4000, seed: 1)
print("started")
let r = cv(j, folds: 2, eps: logspace(-4, 0, 3), delta: logspace(-8, 0, 3))
print("done")
`, "long.kml:5:9: error: cv: interrupted", 100 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stderr, took := interruptChild(t, c.src, c.settle)
			if code != exitSignal {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, exitSignal, stderr)
			}
			if !strings.Contains(stderr, c.want) || strings.Contains(stderr, "goroutine") {
				t.Errorf("stderr does not say %q:\n%s", c.want, stderr)
			}
			if took > bound {
				t.Errorf("stopped %v after SIGINT, want within %v", took, bound)
			}
			t.Logf("stopped %v after SIGINT", took)
		})
	}
}

// TestSecondSignalExits: a second SIGINT ends the process at once with
// status 130 even while a computation ignores the context.
func TestSecondSignalExits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "deaf.kml")
	os.WriteFile(script, []byte("print(\"started\")\nlet r = deaf_spin()\n"), 0o644)
	cmd := exec.Command(os.Args[0], "run", script)
	cmd.Env = append(os.Environ(), "KML_TEST_MAIN=1", "KML_TEST_DEAF=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(out).ReadString('\n'); strings.TrimSpace(line) != "started" {
		cmd.Process.Kill()
		t.Fatalf("first line %q", line)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	time.Sleep(500 * time.Millisecond) // into deaf_spin
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
		t.Fatalf("deaf_spin stopped on the first signal; stderr:\n%s", stderr.String())
	case <-time.After(500 * time.Millisecond):
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("the second SIGINT did not end the process")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the second SIGINT took %v", took)
	}
	if code := cmd.ProcessState.ExitCode(); code != exitSignal {
		t.Errorf("exit status %d, want %d; stderr:\n%s", code, exitSignal, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted again") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}
