package infer

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/runtime/progress"
)

// PointwiseLogLik evaluates the log likelihood of each observed point at
// every draw of post, from the model's observation statements
// (model.PointwiseCollector): the S×N matrix of R's loo, returned point by
// point (out[i][s] is point i at draw s, chains one after another). The
// draws are evaluated in parallel on every core, checking ctx, with
// progress. A model with `target +=` is refused: its terms count with the
// likelihood but have no points, so leaving them out would estimate the
// predictive density of another model.
func PointwiseLogLik(ctx context.Context, th *eval.Thread, post *Posterior) ([][]float64, error) {
	for _, st := range post.Model.Decl().Body {
		if t, ok := st.(*ast.Target); ok {
			return nil, ast.Errorf(t.Value.Pos(), "loo and waic need the log likelihood point by point, and a `target +=` term has no points; write the likelihood as observations (DATA ~ DIST)")
		}
	}
	return pointMatrix(ctx, th, post, func(d *model.Density) pointRun {
		return collectorRun{model.NewPointwiseCollector(d)}
	})
}

// A pointRun gives one draw's points: the pointwise log likelihood, or
// the held-out predictive densities (heldout.go).
type pointRun interface {
	points(d *model.Density, q []float64) ([]float64, error)
}

// collectorRun is the pointRun of the pointwise log likelihood.
type collectorRun struct{ pc *model.PointwiseCollector }

func (r collectorRun) points(d *model.Density, q []float64) ([]float64, error) {
	if err := runPoint(d, r.pc, q); err != nil {
		return nil, err
	}
	return r.pc.Out, nil
}

// pointMatrix is the points that newRun's runs give at every draw of post,
// point by point (out[i][s]), in parallel on every core, checking ctx,
// with progress: PointwiseLogLik's work for any pointRun.
func pointMatrix(ctx context.Context, th *eval.Thread, post *Posterior, newRun func(*model.Density) pointRun) ([][]float64, error) {
	var draws [][]float64
	for _, ch := range post.Result.Chains {
		draws = append(draws, ch.Draws...)
	}
	S := len(draws)
	if S == 0 {
		return nil, fmt.Errorf("the posterior has no draws")
	}
	c := post.Comp
	// The first draw tells the number of points; every draw then writes
	// its column of the matrix in place.
	d0 := c.NewDensity(th.Fork())
	p0, err := newRun(d0).points(d0, draws[0])
	if err != nil {
		return nil, err
	}
	n := len(p0)
	if n == 0 {
		return nil, fmt.Errorf("model %s has no observations (DATA ~ DIST) to leave out", post.Model.Name)
	}
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, S)
		out[i][0] = p0[i]
	}
	task := progress.Start(ctx, "draws", S)
	defer task.Done()
	workers := max(1, min(runtime.GOMAXPROCS(0), S-1))
	// Workers take blocks of draws and write each block's columns point by
	// point, so that the writes into the matrix run along its rows.
	const block = 32
	var next atomic.Int64
	next.Store(1)
	var failed, sawNaN atomic.Bool
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := c.NewDensity(th.Fork())
			run := newRun(d)
			buf := make([]float64, block*n)
			for !failed.Load() {
				s0 := int(next.Add(block)) - block
				if s0 >= S {
					return
				}
				s1 := min(s0+block, S)
				for s := s0; s < s1; s++ {
					err := ctx.Err()
					var pts []float64
					if err == nil {
						pts, err = run.points(d, draws[s])
					}
					if err == nil && len(pts) != n {
						// A run stops at an observation outside its support.
						err = fmt.Errorf("at draw %d the model has %d pointwise log likelihoods, at the first %d: an observation is outside its support there", s+1, len(pts), n)
					}
					if err != nil {
						errs[w] = err
						failed.Store(true)
						return
					}
					copy(buf[(s-s0)*n:], pts)
				}
				if transposeBlock(out, buf, n, s0, s1) {
					sawNaN.Store(true)
				}
				task.Add(s1 - s0)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if sawNaN.Load() {
		// The first NaN in point order, whichever worker saw one.
		for i, row := range out {
			for s, x := range row {
				if math.IsNaN(x) {
					return nil, fmt.Errorf("the log likelihood of point %d is NaN at draw %d", i+1, s+1)
				}
			}
		}
	}
	return out, nil
}

// runPoint walks d at the unconstrained draw q for pc, afresh.
func runPoint(d *model.Density, pc *model.PointwiseCollector, q []float64) error {
	pc.Reset()
	if err := d.Run(q, pc); err != nil {
		return err
	}
	return pc.Refused
}

// transposeBlock writes the block of draws s0..s1, held draw by draw in
// buf (n points each), into out's rows, and reports whether it met a NaN
// (checked here, in parallel, rather than in a serial pass over the whole
// matrix afterwards). It goes eight points at a time — one cache line of
// each draw's points — so that every line read from buf is used whole
// while it is in cache; a point at a time read one value per line across
// all the block's draws (a third of pointMatrix's time for 10,000 points).
func transposeBlock(out [][]float64, buf []float64, n, s0, s1 int) (nan bool) {
	const tile = 8
	for i0 := 0; i0 < n; i0 += tile {
		i1 := min(i0+tile, n)
		for b := range s1 - s0 {
			src := buf[b*n+i0 : b*n+i1]
			for j, x := range src {
				out[i0+j][s0+b] = x
				nan = nan || math.IsNaN(x)
			}
		}
	}
	return nan
}
