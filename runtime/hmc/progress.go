package hmc

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kml-lang/kml/runtime/progress"
)

// progressBar is sample's line, drawn by the shared reporter in ctx (see
// runtime/progress, which owns the drawing, throttling and erasing): first
// the initialisation with its elapsed time, which the reporter's Tick
// redraws while Pathfinder runs (many seconds on a large model); then the
// iterations of
// all chains, split into warm-up and sampling, with the rate and the time
// left. With no reporter in ctx it draws nothing; a nil *progressBar does
// nothing either.
type progressBar struct {
	ctx                  context.Context
	warmTotal, drawTotal int64
	warm                 atomic.Int64 // warm-up iterations done, of all chains
	init, iter           *progress.Task
}

func newProgressBar(ctx context.Context, chains, warmup, draws int) *progressBar {
	return &progressBar{ctx: ctx, warmTotal: int64(chains * warmup), drawTotal: int64(chains * draws)}
}

// initialising shows the initialisation line, its clock kept running by
// the reporter's Tick until initialised.
func (p *progressBar) initialising(pathfinder bool) {
	if p == nil {
		return
	}
	what := "initialising"
	if pathfinder {
		what = "initialising (Pathfinder)"
	}
	p.init = progress.StartLine(p.ctx, 0, func(_ int64, elapsed time.Duration) string {
		return fmt.Sprintf("%s %s", what, progress.Duration(elapsed.Seconds()))
	})
}

// initialised ends the initialisation line and starts the iterations'.
func (p *progressBar) initialised() {
	if p == nil || p.iter != nil {
		return
	}
	p.init.Done()
	p.iter = progress.StartLine(p.ctx, int(p.warmTotal+p.drawTotal), p.line)
}

// add counts one iteration of a chain, in warm-up or sampling.
func (p *progressBar) add(warmup bool) {
	if p == nil {
		return
	}
	if warmup {
		p.warm.Add(1)
	}
	p.iter.Add(1)
}

// line is "warm-up  [=====.....] 16%  warm-up 160/600, draws 0/400
// 520 it/s  2s left": the bar fills with '=' for warm-up and '#' for
// sampling iterations.
func (p *progressBar) line(done int64, elapsed time.Duration) string {
	total := p.warmTotal + p.drawTotal
	done = min(done, total)
	warm := min(p.warm.Load(), done) // counted just before done
	draws := done - warm
	const width = 30
	nw := int(width * warm / max(total, 1))
	nd := int(width * done / max(total, 1))
	bar := strings.Repeat("=", nw) + strings.Repeat("#", nd-nw) + strings.Repeat(".", width-nd)
	phase := "sampling"
	if warm < p.warmTotal {
		phase = "warm-up "
	}
	rate := float64(done) / max(elapsed.Seconds(), 1e-9)
	left := float64(total-done) / max(rate, 1e-9)
	return fmt.Sprintf("%s [%s] %3d%%  warm-up %d/%d, draws %d/%d  %.0f it/s  %s left",
		phase, bar, 100*done/max(total, 1), warm, p.warmTotal, draws, p.drawTotal, rate, progress.Duration(left))
}

// finish erases the line.
func (p *progressBar) finish() {
	if p == nil {
		return
	}
	p.initialised()
	p.iter.Done()
}
