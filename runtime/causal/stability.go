package causal

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/progress"
	"github.com/kml-lang/kml/runtime/rng"
)

// Resampling measures how stable a learned graph is, as Tetrad's
// bootstrapping does: the algorithm is run on Resamples subsamples of
// round(Fraction·n) rows drawn without replacement, and each edge and each
// orientation is counted. Subsample k draws its rows and its tests' seed
// from its own stream (Seed, rng.Subsample.Index(k)), so the frequencies
// are the same on any number of cores; the subsamples run in parallel.
type Resampling struct {
	Resamples int
	Fraction  float64
	Seed      uint64
	// Workers run subsamples at once; default GOMAXPROCS.
	Workers int
}

// EdgeFrequency is how often the pair I < J was adjacent over the
// subsamples, and how often with each type (the type as the graph
// function names it relative to I then J, e.g. "-->", "<--", "o->").
type EdgeFrequency struct {
	I, J     int
	Adjacent float64
	Types    []TypeFrequency
}

// TypeFrequency is one edge type's frequency.
type TypeFrequency struct {
	Type      string
	Frequency float64
}

// Graph runs a causal-discovery algorithm on the rows sub with its tests
// seeded by seed and returns its edges: the type of each adjacent pair
// (i < j).
type Graph func(ctx context.Context, sub *mat.Dense, seed uint64) (map[[2]int]string, error)

// Run returns the frequencies of every pair adjacent in some subsample,
// ordered by pair, each with its types by decreasing frequency (then by
// name).
func (r Resampling) Run(ctx context.Context, data *mat.Dense, graph Graph) ([]EdgeFrequency, error) {
	n, _ := data.Dims()
	if r.Resamples < 1 {
		return nil, fmt.Errorf("resamples must be at least 1, got %d", r.Resamples)
	}
	if !(r.Fraction > 0 && r.Fraction <= 1) {
		return nil, fmt.Errorf("fraction must be in (0, 1], got %g", r.Fraction)
	}
	m := int(math.Round(r.Fraction * float64(n)))
	if m < 10 {
		return nil, fmt.Errorf("a subsample of %g of %d rows has %d rows; at least 10 are needed", r.Fraction, n, m)
	}
	if r.Workers <= 0 {
		r.Workers = runtime.GOMAXPROCS(0)
	}
	task := progress.Start(ctx, "subsamples", r.Resamples)
	defer task.Done()
	out := make([]map[[2]int]string, r.Resamples)
	errs := make([]error, r.Resamples)
	par.Blocks(r.Resamples, 1, r.Workers, func(k, _, _ int) {
		defer task.Add(1)
		if errs[k] = ctx.Err(); errs[k] != nil {
			return
		}
		rows, seed := r.Subsample(k, n)
		out[k], errs[k] = graph(ctx, selectRows(data, rows), seed)
	})
	for k, err := range errs {
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("subsample %d: %w", k+1, err)
		}
	}
	counts := map[[2]int]map[string]int{}
	for _, edges := range out {
		for pair, typ := range edges {
			if counts[pair] == nil {
				counts[pair] = map[string]int{}
			}
			counts[pair][typ]++
		}
	}
	var res []EdgeFrequency
	for pair, types := range counts {
		e := EdgeFrequency{I: pair[0], J: pair[1]}
		total := 0
		for typ, c := range types {
			total += c
			e.Types = append(e.Types, TypeFrequency{typ, float64(c) / float64(r.Resamples)})
		}
		e.Adjacent = float64(total) / float64(r.Resamples)
		sort.Slice(e.Types, func(a, b int) bool {
			if e.Types[a].Frequency != e.Types[b].Frequency {
				return e.Types[a].Frequency > e.Types[b].Frequency
			}
			return e.Types[a].Type < e.Types[b].Type
		})
		res = append(res, e)
	}
	slices.SortFunc(res, func(a, b EdgeFrequency) int {
		if a.I != b.I {
			return a.I - b.I
		}
		return a.J - b.J
	})
	return res, nil
}

// Subsample returns the rows of subsample k of n rows (ascending) and the
// seed of its tests.
func (r Resampling) Subsample(k, n int) ([]int, uint64) {
	src := rng.New(r.Seed, rng.Subsample.Index(k))
	m := int(math.Round(r.Fraction * float64(n)))
	rows := src.Perm(n)[:m]
	slices.Sort(rows)
	return rows, src.Uint64()
}

// selectRows copies the rows of data.
func selectRows(data *mat.Dense, rows []int) *mat.Dense {
	_, p := data.Dims()
	out := mat.NewDense(len(rows), p, nil)
	for k, i := range rows {
		out.SetRow(k, data.RawRowView(i))
	}
	return out
}

// PCTypes names PC's edges for Resampling: "-->" (i → j), "<--" or "---".
func PCTypes(r *Result) map[[2]int]string {
	out := map[[2]int]string{}
	for i := 0; i < r.N; i++ {
		for j := i + 1; j < r.N; j++ {
			switch a, b := r.Arrow[i][j], r.Arrow[j][i]; {
			case a && b:
				out[[2]int{i, j}] = "---"
			case a:
				out[[2]int{i, j}] = "-->"
			case b:
				out[[2]int{i, j}] = "<--"
			}
		}
	}
	return out
}

// PAGTypes names a PAG's edges for Resampling by their marks at i and at
// j: "o->", "<-o", "<->", "o-o", "-->", "<--", ...
func PAGTypes(g *PAG) map[[2]int]string {
	at := map[Mark]string{Circle: "o", Arrow: "<", Tail: "-"}
	to := map[Mark]string{Circle: "o", Arrow: ">", Tail: "-"}
	out := map[[2]int]string{}
	for i := 0; i < g.N; i++ {
		for j := i + 1; j < g.N; j++ {
			if g.M[i][j] != NoEdge {
				out[[2]int{i, j}] = at[g.M[j][i]] + "-" + to[g.M[i][j]]
			}
		}
	}
	return out
}
