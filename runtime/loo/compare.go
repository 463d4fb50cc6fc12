package loo

import (
	"fmt"
	"math"
	"sort"
)

// Comparison is one row of loo_compare: a model, its elpd_loo and its
// difference from the best model's, with the standard error of that
// difference √(N·Var(elpd_loo_i − best_i)) (Vehtari et al. 2017, §5.2).
type Comparison struct {
	Name             string
	Elpd             Estimate
	ElpdDiff, SEDiff float64
}

// Compare orders the models by elpd_loo, best first (its difference 0), as
// R's loo_compare does; every model must have the same observations.
func Compare(names []string, loos []*LOO) ([]Comparison, error) {
	if len(loos) < 2 {
		return nil, fmt.Errorf("comparison needs at least two models, got %d", len(loos))
	}
	for j, l := range loos[1:] {
		if l.N != loos[0].N {
			return nil, fmt.Errorf("%s has %d observations but %s has %d; models are compared on the same data", names[j+1], l.N, names[0], loos[0].N)
		}
	}
	ord := make([]int, len(loos))
	for i := range ord {
		ord[i] = i
	}
	sort.SliceStable(ord, func(a, b int) bool { return loos[ord[a]].Elpd.Value > loos[ord[b]].Elpd.Value })
	best := loos[ord[0]]
	out := make([]Comparison, len(loos))
	diff := make([]float64, best.N)
	for r, j := range ord {
		l := loos[j]
		for i := range diff {
			diff[i] = l.ElpdI[i] - best.ElpdI[i]
		}
		e := estimate(diff)
		if r == 0 {
			e = Estimate{}
		}
		out[r] = Comparison{Name: names[j], Elpd: l.Elpd, ElpdDiff: e.Value, SEDiff: e.SE}
		if math.IsNaN(e.SE) {
			out[r].SEDiff = 0
		}
	}
	return out, nil
}
