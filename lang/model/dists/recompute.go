package dists

import (
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
)

// recompute records, as one replayable tape node (ad.Tape.Func), the
// value compute gives with its partial derivatives with respect to
// parents. compute reads tape values only with Peek: at a replay it runs
// again, after every earlier node has been recomputed, so it sees the new
// values; it must name the same parents in the same order (their number is
// checked), and an error then makes the replay fall back to a walk, which
// reports it. It is how a closed-form density over tape values (the
// multivariate normal with a data covariance, Dirichlet, LKJ) stays
// replayable without being rewritten over its parents' values.
func recompute(t *ad.Tape, compute func() (float64, []ad.Var, []float64, error)) (eval.Value, error) {
	total, parents, partials, err := compute()
	if err != nil {
		return nil, err
	}
	if t == nil || len(parents) == 0 {
		return eval.Num(total), nil
	}
	n, first := len(parents), true
	v := t.Func(parents, func(_, d []float64) float64 {
		if first { // the recording: compute has just run
			first = false
			copy(d, partials)
			return total
		}
		tot, ps, parts, err := compute()
		if err != nil || len(ps) != n {
			return math.NaN()
		}
		copy(d, parts)
		return tot
	})
	return &eval.ADNum{T: t, V: v}, nil
}
