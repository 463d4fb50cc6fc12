package kml_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml"
	"github.com/kml-lang/kml/internal/stoptest"
	"github.com/kml-lang/kml/lang/ast"
)

func TestSandbox(t *testing.T) {
	root := t.TempDir()
	inside := filepath.Join(root, "inside")
	outside := filepath.Join(root, "outside")
	os.Mkdir(inside, 0o755)
	os.Mkdir(outside, 0o755)
	os.WriteFile(filepath.Join(inside, "ok.csv"), []byte("x\n1\n2\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.csv"), []byte("x\n7\n"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.csv"), filepath.Join(inside, "link.csv"))
	os.Symlink(outside, filepath.Join(inside, "linkdir"))

	in := kml.New(kml.Dirs(inside), kml.Stdout(&bytes.Buffer{}))
	cases := []struct{ src, want string }{
		{`read_csv("ok.csv")`, ""},
		{`write_csv([1, 2], "out.csv")`, ""},
		{`read_csv("../outside/secret.csv")`, "is outside the directories this script may use"},
		{`read_csv("link.csv")`, "is outside the directories this script may use"},
		{`read_csv("linkdir/secret.csv")`, "is outside the directories this script may use"},
		{`write_csv([1], "../outside/x.csv")`, "is outside the directories this script may use"},
		{`write_csv([1], "linkdir/x.csv")`, "is outside the directories this script may use"},
		{`read_csv("` + filepath.Join(outside, "secret.csv") + `")`, "is outside the directories this script may use"},
		{`read_csv("missing.csv")`, "missing.csv: no such file"},
	}
	for _, c := range cases {
		_, err := in.Eval(c.src)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.src, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.src, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "x.csv")); err == nil {
		t.Error("a refused write left a file outside")
	}
	// With no directories granted nothing can be read.
	none := kml.New()
	if _, err := none.Eval(`read_csv("` + filepath.Join(inside, "ok.csv") + `")`); err == nil || !strings.Contains(err.Error(), "may not read or write files") {
		t.Errorf("no grants: %v", err)
	}
}

func TestSetGetRoundTrip(t *testing.T) {
	in := kml.New()
	if err := in.Set("r", map[string]any{"a": 1.5, "b": []float64{1, 2}, "c": "s", "d": true}); err != nil {
		t.Fatal(err)
	}
	v, err := in.Eval("r.b[2] + r.a")
	if err != nil || v.(float64) != 3.5 {
		t.Errorf("got %v, %v", v, err)
	}
	if err := in.Set("1x", 1.0); err == nil {
		t.Error("an invalid name was accepted")
	}
	if err := in.Set("ch", make(chan int)); err == nil {
		t.Error("a channel was accepted")
	}
	if _, err := in.Get("nope"); err == nil {
		t.Error("Get of an unbound name succeeded")
	}
}

// Set takes the Go shapes data usually comes in: slices and arrays of any
// number type, slices of rows, string-keyed maps; and refuses nil, empty
// and ragged ones with a message.
func TestSetGoShapes(t *testing.T) {
	in := kml.New()
	ok := []struct {
		v    any
		expr string
		want float64
	}{
		{[]int{1, 2, 3}, "sum(v)", 6},
		{[3]float32{1, 2, 4}, "v[3]", 4},
		{[][]int{{1, 2}, {3, 4}}, "v[2, 1] + rows(v)", 5},
		{map[string]float64{"a": 2, "b": 3}, "v.a * v.b", 6},
		{map[string][]float64{"x": {1, 2}}, "mean(v.x)", 1.5},
		{uint8(7), "v", 7},
	}
	for _, c := range ok {
		if err := in.Set("v", c.v); err != nil {
			t.Errorf("Set(%T): %v", c.v, err)
			continue
		}
		if got, err := in.Eval(c.expr); err != nil || got.(float64) != c.want {
			t.Errorf("Set(%T); %s = %v (%v), want %v", c.v, c.expr, got, err, c.want)
		}
	}
	for _, v := range []any{nil, (*mat.Dense)(nil), &mat.Dense{}, [][]float64{{1}, {2, 3}}, [][]float64{{}}, map[int]float64{1: 2}, struct{}{}, map[string]any{"x": nil}} {
		if err := in.Set("v", v); err == nil {
			t.Errorf("Set(%#v) was accepted", v)
		}
	}
}

func TestContextCancelsAFit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	in := kml.New(kml.Context(ctx))
	start := time.Now()
	_, err := in.Eval(`model m {
  w[200] ~ normal(0, 1)
}
let p = sample(m, warmup: 100000, draws: 100000)`)
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("got %v, want an interruption", err)
	}
	// Uncancelled, the fit takes hours; the bound is loose enough for a
	// machine at load 20.
	if time.Since(start) > 2*time.Minute {
		t.Errorf("cancellation took %v", time.Since(start))
	}
}

func TestSyntaxErrorsAreDistinguished(t *testing.T) {
	in := kml.New()
	_, err := in.Eval("let = 3")
	if !kml.IsSyntaxError(err) {
		t.Errorf("%v is not reported as a syntax error", err)
	}
	_, err = in.Eval("[1] + [1, 2]")
	if err == nil || kml.IsSyntaxError(err) {
		t.Errorf("%v should be a runtime error", err)
	}
}

// An embedder that cancels a long run (here pure KML, no fit) can tell
// cancellation apart from a fault with errors.Is, while the user still
// reads "interrupted".
func TestCancellationIsReachableWithErrorsIs(t *testing.T) {
	const long = `let x = linspace(0, 1, 1500)
fn f(n) = if n == 0 then 0 else f(n - 1) + sum(gram(rbf(1), x))
f(1500)`
	for _, c := range []struct {
		want error
		ctx  func() (context.Context, context.CancelFunc)
	}{
		{context.Canceled, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}},
		{context.DeadlineExceeded, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}},
	} {
		ctx, cancel := c.ctx()
		in := kml.New(kml.Context(ctx))
		_, err := in.Eval(long)
		cancel()
		if !errors.Is(err, c.want) {
			t.Errorf("errors.Is(%v, %v) = false", err, c.want)
		}
		if err == nil || !strings.Contains(err.Error(), "error: interrupted") {
			t.Errorf("the user reads %v, want interrupted", err)
		}
	}
}

// A runtime error inside nested fn calls keeps its call stack as data,
// innermost call first, and prints it as the notes users see.
func TestRuntimeErrorCallStack(t *testing.T) {
	in := kml.New()
	_, err := in.Eval(`fn inner(x) = x[5]
fn outer(x) = inner(x) + 1
outer([1, 2])`)
	var ke *ast.Error
	if !errors.As(err, &ke) {
		t.Fatalf("got %T %v, want an *ast.Error", err, err)
	}
	want := []ast.Frame{
		{Name: "inner", Pos: ast.Pos{File: "<eval>", Line: 2, Col: 15}},
		{Name: "outer", Pos: ast.Pos{File: "<eval>", Line: 3, Col: 1}},
	}
	if !reflect.DeepEqual(ke.Stack, want) {
		t.Errorf("stack %v, want %v", ke.Stack, want)
	}
	text := in.FormatError(err)
	for _, note := range []string{"note: in inner called at <eval>:2:15\n", "note: in outer called at <eval>:3:1\n"} {
		if !strings.Contains(text, note) {
			t.Errorf("printed error lacks %q:\n%s", note, text)
		}
	}
}

// Cancelling a fit reaches the embedder as context.Canceled too, through
// the sampler and lang/model.
func TestCancelledFitIsReachableWithErrorsIs(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := kml.New(kml.Context(ctx))
	if _, err := in.Eval(`let y = draw(normal(0, 1), 200, seed: 3)
model m {
  mu ~ normal(0, 1)
  s ~ gamma(2, 1)
  y ~ normal(mu, s)
}`); err != nil {
		t.Fatal(err)
	}
	// The timer starts once the model exists, so it is the sampler that
	// is cancelled, however loaded the machine.
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := in.Eval(`sample(m, chains: 2, warmup: 1000000, draws: 1000000, seed: 1)`)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is(%v, context.Canceled) = false", err)
	}
	if err == nil || !strings.Contains(err.Error(), "error: sample: interrupted") {
		t.Errorf("the user reads %v, want sample: interrupted", err)
	}
}

// armedDeadline is a context whose deadline passes d after arm is first
// called, so a test can start the clock at a point of its script.
type armedDeadline struct {
	once sync.Once
	done chan struct{}
}

func (a *armedDeadline) arm(d time.Duration) {
	a.once.Do(func() { time.AfterFunc(d, func() { close(a.done) }) })
}

func (*armedDeadline) Deadline() (time.Time, bool) { return time.Time{}, false }
func (a *armedDeadline) Done() <-chan struct{}     { return a.done }
func (*armedDeadline) Value(any) any               { return nil }

func (a *armedDeadline) Err() error {
	select {
	case <-a.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestEvalContextDeadlineKeepsInterpreter: a call whose deadline passes stops
// with an error that is context.DeadlineExceeded, and the interpreter keeps
// working (and keeps what was bound before the interruption).
func TestEvalContextDeadlineKeepsInterpreter(t *testing.T) {
	// The deadline is armed by the script's print, after before is bound:
	// a deadline set beforehand could pass before a crowded machine ran
	// the first line.
	ctx := &armedDeadline{done: make(chan struct{})}
	in := kml.New(kml.Stdout(writerFunc(func(p []byte) (int, error) {
		ctx.arm(100 * time.Millisecond)
		return len(p), nil
	})))
	_, err := in.EvalContext(ctx, `let before = 41
print("bound")
model m {
  w[200] ~ normal(0, 1)
}
let p = sample(m, warmup: 100000, draws: 100000)`)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want an error that is context.DeadlineExceeded", err)
	}
	v, err := in.Eval("before + 1")
	if err != nil || v.(float64) != 42 {
		t.Errorf("after the interruption: %v, %v", v, err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if _, err := in.EvalContext(ctx2, `sample(m, draws: 10)`); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: got %v", err)
	}
	if v, err := in.EvalContext(context.Background(), "before"); err != nil || v.(float64) != 41 {
		t.Errorf("after a cancelled call: %v, %v", v, err)
	}
}

// TestGetPosteriorAndSummary: Get gives a posterior and a summary as typed Go
// values whose numbers agree with what the language reports.
func TestGetPosteriorAndSummary(t *testing.T) {
	in := kml.New(kml.Stdout(&bytes.Buffer{}))
	_, err := in.Eval(`model m {
  a ~ normal(1, 2)
  w[2] ~ normal(0, 1)
}
let post = sample(m, chains: 2, warmup: 200, draws: 150, seed: 4)
let s = summary(post)
let amean = mean(post.a)`)
	if err != nil {
		t.Fatal(err)
	}
	v, err := in.Get("post")
	if err != nil {
		t.Fatal(err)
	}
	p, ok := v.(*kml.Posterior)
	if !ok {
		t.Fatalf("Get(post) is %T", v)
	}
	if !reflect.DeepEqual(p.Names, []string{"a", "w.1", "w.2"}) || len(p.Draws) != 2 || len(p.Draws[0]) != 150 || len(p.Draws[0][0]) != 3 {
		t.Fatalf("names %v, draws %d×%d", p.Names, len(p.Draws), len(p.Draws[0]))
	}
	if len(p.Chains) != 2 || len(p.Chains[1].LP) != 150 || p.Chains[0].Epsilon <= 0 || p.Warmup != 200 {
		t.Errorf("sampler statistics: %d chains, %d lp__, step size %v, warmup %d", len(p.Chains), len(p.Chains[1].LP), p.Chains[0].Epsilon, p.Warmup)
	}
	sum := 0.0
	for _, ch := range p.Draws {
		for _, d := range ch {
			sum += d[0]
		}
	}
	amean, _ := in.Get("amean")
	if got := sum / 300; math.Abs(got-amean.(float64)) > 1e-12 {
		t.Errorf("mean of a from Go %v, from KML %v", got, amean)
	}
	sv, err := in.Get("s")
	if err != nil {
		t.Fatal(err)
	}
	s, ok := sv.(*kml.Summary)
	if !ok || len(s.Params) != 3 || s.Params[0].Name != "a" || s.Chains != 2 {
		t.Fatalf("Get(s) = %#v", sv)
	}
	if math.Abs(s.Params[0].Mean-amean.(float64)) > 1e-12 {
		t.Errorf("summary mean %v, KML mean %v", s.Params[0].Mean, amean)
	}
}

// Interrupt stops a call inside a dense factorisation (which a cancelled
// context would let finish), with an error errors.Is finds as
// context.Canceled, and the next call runs.
func TestInterruptStopsFactorisation(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a factorisation of order 6000 (seconds)")
	}
	in := kml.New()
	done := make(chan error, 1)
	go func() {
		_, err := in.Eval("let A = eye(6000) * 2\nlet L = chol(A)")
		done <- err
	}()
	if !stoptest.WaitDense(1, 2*time.Minute) {
		t.Fatal("chol did not reach its factorisation within 2 minutes")
	}
	in.Interrupt()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "chol: interrupted") {
			t.Errorf("the interrupted call: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("chol did not stop within a minute of Interrupt")
	}
	if v, err := in.Eval("2 + 2"); err != nil || v != 4.0 {
		t.Errorf("the call after: %v, %v", v, err)
	}
}
