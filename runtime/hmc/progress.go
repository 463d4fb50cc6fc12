package hmc

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progressBar draws one status line on a terminal: first the
// initialisation (with its elapsed time, since Pathfinder can take many
// seconds on a large model), then the iterations of all chains, split into
// warm-up and sampling, with the rate and an estimate of the time left.
// A nil *progressBar draws nothing.
type progressBar struct {
	mu                   sync.Mutex
	w                    io.Writer
	every                time.Duration // at most one redraw per interval
	warmTotal, drawTotal int
	warm, draws          int
	last, start          time.Time
	stopTick             chan struct{}
	tickDone             chan struct{}
}

func newProgressBar(w io.Writer, chains, warmup, draws int) *progressBar {
	return &progressBar{w: w, every: 100 * time.Millisecond, warmTotal: chains * warmup, drawTotal: chains * draws}
}

// initialising shows the initialisation line and keeps its clock running
// until initialised.
func (p *progressBar) initialising(pathfinder bool) {
	if p == nil {
		return
	}
	what := "initialising"
	if pathfinder {
		what = "initialising (Pathfinder)"
	}
	start := time.Now()
	p.stopTick, p.tickDone = make(chan struct{}), make(chan struct{})
	draw := func() {
		p.mu.Lock()
		fmt.Fprintf(p.w, "\r\033[K%s %4.1fs", what, time.Since(start).Seconds())
		p.mu.Unlock()
	}
	draw()
	go func() {
		defer close(p.tickDone)
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stopTick:
				return
			case <-t.C:
				draw()
			}
		}
	}()
}

func (p *progressBar) initialised() {
	if p == nil || p.stopTick == nil {
		return
	}
	close(p.stopTick)
	<-p.tickDone
	p.stopTick = nil
	p.start = time.Now()
}

// add counts one iteration of a chain, in warm-up or sampling.
func (p *progressBar) add(warmup bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if warmup {
		p.warm++
	} else {
		p.draws++
	}
	done, total := p.warm+p.draws, p.warmTotal+p.drawTotal
	if time.Since(p.last) < p.every && done < total {
		return
	}
	p.last = time.Now()
	const width = 30
	// The bar fills with '=' for warm-up and '#' for sampling iterations.
	nw := width * p.warm / max(total, 1)
	nd := width * done / max(total, 1)
	bar := strings.Repeat("=", nw) + strings.Repeat("#", nd-nw) + strings.Repeat(".", width-nd)
	phase := "sampling"
	if p.warm < p.warmTotal {
		phase = "warm-up "
	}
	elapsed := time.Since(p.start).Seconds()
	rate := float64(done) / max(elapsed, 1e-9)
	left := float64(total-done) / max(rate, 1e-9)
	fmt.Fprintf(p.w, "\r\033[K%s [%s] %3d%%  warm-up %d/%d, draws %d/%d  %.0f it/s  %s left",
		phase, bar, 100*done/max(total, 1), p.warm, p.warmTotal, p.draws, p.drawTotal, rate, shortDuration(left))
}

func (p *progressBar) finish() {
	if p == nil {
		return
	}
	p.initialised()
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, "\r\033[K")
}

// shortDuration renders seconds as 4s, 2m05s or 1h02m.
func shortDuration(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
