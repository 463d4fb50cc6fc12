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
	var draws [][]float64
	for _, ch := range post.Result.Chains {
		draws = append(draws, ch.Draws...)
	}
	S := len(draws)
	if S == 0 {
		return nil, fmt.Errorf("the posterior has no draws")
	}
	c := post.Comp
	rows := make([][]float64, S)
	task := progress.Start(ctx, "draws", S)
	defer task.Done()
	workers := max(1, min(runtime.GOMAXPROCS(0), S))
	var next atomic.Int64
	var failed atomic.Bool
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := c.NewDensity(th.Fork())
			pc := model.NewPointwiseCollector(d)
			for !failed.Load() {
				s := int(next.Add(1)) - 1
				if s >= S {
					return
				}
				if err := ctx.Err(); err != nil {
					errs[w] = err
					failed.Store(true)
					return
				}
				pc.Reset()
				err := d.Run(draws[s], pc)
				if err == nil {
					err = pc.Refused
				}
				if err != nil {
					errs[w] = err
					failed.Store(true)
					return
				}
				rows[s] = append([]float64(nil), pc.Out...)
				task.Add(1)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	n := len(rows[0])
	if n == 0 {
		return nil, fmt.Errorf("model %s has no observations (DATA ~ DIST) to leave out", post.Model.Name)
	}
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, S)
	}
	for s, r := range rows {
		if len(r) != n {
			// A run stops at an observation outside its support.
			return nil, fmt.Errorf("at draw %d the model has %d pointwise log likelihoods, at the first %d: an observation is outside its support there", s+1, len(r), n)
		}
		for i, x := range r {
			if math.IsNaN(x) {
				return nil, fmt.Errorf("the log likelihood of point %d is NaN at draw %d", i+1, s+1)
			}
			out[i][s] = x
		}
	}
	return out, nil
}
