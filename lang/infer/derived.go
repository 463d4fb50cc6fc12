package infer

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/runtime/inference"
	"github.com/kml-lang/kml/runtime/rng"
)

// A posterior records the numeric derived quantities of every draw after
// its parameters, as Stan records transformed parameters; each chain's are
// computed by model.Density.DerivedChain.

// A Density is the log density the sampler and the optimiser take; it
// satisfies inference.Model structurally, lang/model not importing it.
var _ inference.Model = (*model.Density)(nil)

// DerivedColumn is a derived quantity's place among a posterior's columns.
type DerivedColumn struct {
	Name   string
	Off    int // the first column, counted over every column
	Size   int // 0 for a number, K for a vector of K
	Vector bool
}

// columnNames are NAME, or NAME.1 ... NAME.K.
func (dc DerivedColumn) columnNames() []string {
	if !dc.Vector {
		return []string{dc.Name}
	}
	out := make([]string, dc.Size)
	for i := range out {
		out[i] = fmt.Sprintf("%s.%d", dc.Name, i+1)
	}
	return out
}

// addDerived appends the derived quantities of every draw to post's columns,
// each chain's computed by Density.DerivedChain on a Density from newDensity, at
// most workers chains at once; with constrain, post.Values are made too,
// each draw's constrained parameters first. The layout is the first draw's; a quantity
// whose length changes between draws is recorded as NaN where it differs,
// with a warning returned. count is called after each draw.
func addDerived(ctx context.Context, newDensity func() *model.Density, workers int, post *Posterior, draws [][][]float64, seed uint64, constrain bool, count func()) ([]string, error) {
	if len(draws) == 0 || len(draws[0]) == 0 {
		return nil, nil
	}
	seedsAt := drawSeeds(seed, len(draws[0]))
	pool := make([]inference.Model, max(1, min(workers, len(draws))))
	for i := range pool {
		pool[i] = newDensity()
	}
	chains := make([]*model.ChainDerived, len(draws))
	errs := make([]error, len(draws))
	panics := inference.ForEach(pool, len(draws), func(c int, m inference.Model) {
		chains[c], errs[c] = m.(*model.Density).DerivedChain(ctx, c, draws[c], seedsAt, constrain, count)
	})
	for c := range draws {
		if panics[c] != nil {
			return nil, panics[c]
		}
		if errs[c] != nil {
			return nil, errs[c]
		}
	}
	if constrain {
		for c, cd := range chains {
			for i := range draws[c] {
				post.Values[c][i] = cd.Cons[i*cd.NPar : (i+1)*cd.NPar : (i+1)*cd.NPar]
			}
		}
	}
	first := chains[0].Layout
	if len(first) == 0 {
		return nil, nil
	}
	off := len(post.Names)
	for _, dv := range first {
		dc := DerivedColumn{Name: dv.Name, Off: off, Vector: dv.Vector}
		if dv.Vector {
			dc.Size = len(dv.Values)
		}
		off += len(dv.Values)
		post.Derived = append(post.Derived, dc)
		post.Names = append(post.Names, dc.columnNames()...)
	}
	ragged := map[string]bool{}
	for c, cd := range chains {
		for name := range cd.Ragged {
			ragged[name] = true
		}
		// Where the chain's layout is the first chain's, its rows are
		// copied; a quantity it lays out otherwise is NaN.
		for i := range draws[c] {
			row := post.Values[c][i]
			var src []float64
			if cd.Width > 0 {
				src = cd.Rows[i*cd.Width : (i+1)*cd.Width]
			}
			j := 0
			for k, dc := range post.Derived {
				n := max(dc.Size, 1)
				if k >= len(cd.Layout) || cd.Layout[k].Name != dc.Name || len(cd.Layout[k].Values) != n {
					ragged[dc.Name] = true
					for range n {
						row = append(row, math.NaN())
					}
					if k < len(cd.Layout) {
						j += len(cd.Layout[k].Values)
					}
					continue
				}
				row = append(row, src[j:j+n]...)
				j += n
			}
			post.Values[c][i] = row
		}
	}
	var warnings []string
	for _, dc := range post.Derived {
		if ragged[dc.Name] {
			warnings = append(warnings, fmt.Sprintf("the derived quantity %s changes length between draws; it is NaN where it differs from the first draw's", dc.Name))
		}
	}
	return warnings, nil
}

// drawSeeds is the generated block's stream of draw i of chain c.
func drawSeeds(seed uint64, perChain int) func(c, i int) *rand.Rand {
	return func(c, i int) *rand.Rand { return rng.New(seed, rng.Generated.Index(c*perChain+i)) }
}
