package hmc

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kml-lang/kml/runtime/internal/testmodel"
	"github.com/kml-lang/kml/runtime/progress"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// reporting is a context carrying a reporter that draws on w at every
// step, at once, and redraws twice a second between steps, for the
// computation "sample".
func reporting(w *lockedBuffer) context.Context {
	r := &progress.Reporter{W: w, Now: time.Now, Tick: 500 * time.Millisecond}
	return progress.With(context.Background(), r, "sample")
}

// TestProgressLine: a run whose context carries a reporter shows the
// initialisation, then warm-up and sampling with counts, rate and time
// left, each line "sample: ...", and ends by erasing its line; without one
// nothing is written anywhere.
func TestProgressLine(t *testing.T) {
	var buf lockedBuffer
	_, err := Sample(reporting(&buf), factory(testmodel.StdNormal{D: 3}),
		Settings{Chains: 2, Warmup: 50, Draws: 40, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	out := buf.b.String()
	for _, want := range []string{"\r\033[Ksample: warm-up  [", "\r\033[Ksample: sampling [", "draws 80/80", "warm-up 100/100", "it/s", "left"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress output lacks %q:\n%q", want, out)
		}
	}
	if !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("the line is not erased at the end: %q", out[max(0, len(out)-40):])
	}
}

// The initialisation line keeps its clock running until the chains start.
func TestProgressInitialising(t *testing.T) {
	var buf lockedBuffer
	p := newProgressBar(reporting(&buf), 1, 1, 1)
	p.initialising(true)
	// Two ticks, however late a crowded machine runs them.
	count := func() int {
		buf.mu.Lock()
		defer buf.mu.Unlock()
		return strings.Count(buf.b.String(), "sample: initialising (Pathfinder) ")
	}
	for end := time.Now().Add(time.Minute); count() < 2 && time.Now().Before(end); {
		time.Sleep(50 * time.Millisecond)
	}
	p.finish()
	out := buf.b.String()
	if n := strings.Count(out, "sample: initialising (Pathfinder) "); n < 2 {
		t.Errorf("%d initialisation lines in a minute, want the clock redrawn:\n%q", n, out)
	}
	if !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("not erased: %q", out)
	}
}

// The bar shows warm-up and sampling apart, and the phase name follows the
// warm-up count.
func TestProgressBarPhases(t *testing.T) {
	var buf lockedBuffer
	p := newProgressBar(reporting(&buf), 2, 3, 2)
	p.initialising(false)
	p.initialised()
	p.add(true)
	if s := buf.b.String(); !strings.Contains(s, "sample: warm-up  [===") || !strings.Contains(s, "warm-up 1/6, draws 0/4") {
		t.Errorf("after one warm-up iteration: %q", s)
	}
	for range 5 {
		p.add(true)
	}
	buf.b.Reset()
	p.add(false)
	if s := buf.b.String(); !strings.HasPrefix(s, "\r\033[Ksample: sampling [") || !strings.Contains(s, "=###") || !strings.Contains(s, "warm-up 6/6, draws 1/4") {
		t.Errorf("after warm-up and one draw: %q", s)
	}
	p.finish()
	// Without a reporter, and nil, nothing happens.
	quiet := newProgressBar(context.Background(), 1, 1, 1)
	quiet.initialising(true)
	quiet.initialised()
	quiet.add(true)
	quiet.finish()
	var nilBar *progressBar
	nilBar.initialising(true)
	nilBar.add(true)
	nilBar.finish()
}
