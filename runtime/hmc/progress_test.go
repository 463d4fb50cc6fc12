package hmc

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/kml-lang/kml/runtime/internal/testmodel"
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

// TestProgressLine: a run with a progress writer shows the initialisation,
// then warm-up and sampling with counts, rate and time left, and ends by
// clearing its line; without one nothing is written anywhere.
func TestProgressLine(t *testing.T) {
	var buf lockedBuffer
	_, err := Sample(context.Background(), factory(testmodel.StdNormal{D: 3}),
		Settings{Chains: 2, Warmup: 50, Draws: 40, Seed: 1, Progress: &buf})
	if err != nil {
		t.Fatal(err)
	}
	out := buf.b.String()
	for _, want := range []string{"initialising (Pathfinder)", "draws 80/80", "warm-up 100/100", "it/s", "left"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress output lacks %q:\n%q", want, out)
		}
	}
	if !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("the line is not cleared at the end: %q", out[max(0, len(out)-40):])
	}
}

// The bar shows warm-up and sampling apart, and the phase name follows the
// warm-up count.
func TestProgressBarPhases(t *testing.T) {
	var buf bytes.Buffer
	p := newProgressBar(&buf, 2, 3, 2)
	p.every = 0
	p.add(true)
	if !strings.Contains(buf.String(), "warm-up  [===") || !strings.Contains(buf.String(), "warm-up 1/6, draws 0/4") {
		t.Errorf("after one warm-up iteration: %q", buf.String())
	}
	for range 5 {
		p.add(true)
	}
	buf.Reset()
	p.add(false)
	if !strings.HasPrefix(buf.String(), "\r\033[Ksampling [") || !strings.Contains(buf.String(), "=###") {
		t.Errorf("after warm-up and one draw: %q", buf.String())
	}
	var nilBar *progressBar
	nilBar.initialising(true)
	nilBar.add(true)
	nilBar.finish()
}

func TestShortDuration(t *testing.T) {
	for s, want := range map[float64]string{3.4: "3s", 125: "2m05s", 3725: "1h02m"} {
		if got := shortDuration(s); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", s, got, want)
		}
	}
}
