package causal

import (
	"context"
	"slices"

	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/progress"
)

// FCIResult is FCI's output: the PAG, the removed edges with their
// separating sets (the skeleton's, then the possible-d-sep stage's), the
// number of tests, and the places where knowledge and data disagree.
type FCIResult struct {
	PAG
	Removed   []Removal
	Tests     int
	Knowledge []KnowledgeConflict
	// PossibleDSep counts the edges the possible-d-sep stage removed.
	PossibleDSep int
}

// SepSet returns the separating set of i and j, if their edge was removed.
func (r *FCIResult) SepSet(i, j int) ([]int, bool) {
	for _, m := range r.Removed {
		if m.I == min(i, j) && m.J == max(i, j) {
			return m.Sep, true
		}
	}
	return nil, false
}

// FCI runs the Fast Causal Inference algorithm (Spirtes, Glymour and
// Scheines 2000; Spirtes, Meek and Richardson 1995), which allows latent
// confounders: PC's adjacency search (PC-stable, with s.Knowledge), the
// unshielded colliders (rule R0), the possible-d-sep stage, then R0 again
// on the new skeleton and Zhang's (2008) rules R1–R10 until none applies.
// With correct tests of a distribution faithful to a DAG with latent
// variables (and no selection), the result is the PAG of the MAG over the
// observed variables: every mark that is the same in all Markov-equivalent
// MAGs is shown, the rest are circles.
//
// The possible-d-sep stage tests each remaining edge i *-* j against the
// subsets of Possible-D-Sep(i) \ {j} and of Possible-D-Sep(j) \ {i} (sizes
// 0, 1, ..., bounded by MaxCond), computed once from the graph after R0,
// in parallel, removing afterwards in a fixed order, so the result does
// not depend on Workers (the order-independent variant of Colombo and
// Maathuis 2014).
//
// Knowledge: a forbidden direction i → j puts an arrowhead at i (i is no
// ancestor of j), a required edge i → j is i → j; these marks are placed
// first, and an R0 collider against them is a ColliderAgainst conflict.
// Unlike PC, a pair forbidden both ways is searched like any other: with
// latent variables it may share a cause, and if it stays adjacent it is
// i <-> j.
// Zhang's completeness result does not cover knowledge.
func FCI(ctx context.Context, n int, test CITest, s Settings) (*FCIResult, error) {
	sk, err := adjacencySearch(ctx, n, test, &s, false)
	if err != nil {
		return nil, err
	}
	adj, sep, kn := sk.adj, sk.sep, sk.kn
	res := &FCIResult{Removed: sk.res.Removed, Tests: sk.res.Tests, Knowledge: sk.res.Knowledge}
	g := newPAG(adj)
	ruleR0(g, sep, kn, nil)
	pds := make([][]int, n)
	for i := range pds {
		pds[i] = possibleDSep(g, i)
	}
	// The skeleton tested every subset of the final neighbours of either
	// end (PC-stable's neighbour sets only shrink), up to MaxCond: those
	// are skipped. A required edge stays whatever the tests say.
	nb := neighbours(adj)
	var jobs [][2]int
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if adj[i][j] && !kn.required(i, j) && (len(pds[i]) > 1 || len(pds[j]) > 1) {
				jobs = append(jobs, [2]int{i, j})
			}
		}
	}
	task := progress.Start(ctx, "possible-d-sep tests", len(jobs))
	out := make([]edgeOutcome, len(jobs))
	par.Blocks(len(jobs), 1, s.Workers, func(k, _, _ int) {
		defer task.Add(1)
		i, j := jobs[k][0], jobs[k][1]
		tested := func(set []int) bool {
			return subsetOf(set, without(nb[i], j)) || subsetOf(set, without(nb[j], i))
		}
		out[k] = searchSep(ctx, test, i, j, without(pds[i], j), without(pds[j], i), s.MaxCond, s.Alpha, tested)
	})
	task.Done()
	for k, o := range out {
		res.Tests += o.tests
		if o.err != nil {
			return nil, o.err
		}
		if !o.removed {
			continue
		}
		i, j := jobs[k][0], jobs[k][1]
		adj[i][j], adj[j][i] = false, false
		sep[[2]int{i, j}] = o.sep
		res.Removed = append(res.Removed, Removal{i, j, o.sep, o.p})
		res.PossibleDSep++
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g = newPAG(adj)
	res.Knowledge = ruleR0(g, sep, kn, res.Knowledge)
	orientFCI(g, sep)
	res.PAG = *g
	sortConflicts(res.Knowledge)
	return res, nil
}

// searchSep tests i ⟂ j against the subsets of a, then of b, of sizes
// 0, 1, ... up to the larger set (and maxCond ≥ 0), except those skip
// reports, stopping at the first p > alpha.
func searchSep(ctx context.Context, test CITest, i, j int, a, b []int, maxCond int, alpha float64, skip func([]int) bool) edgeOutcome {
	var o edgeOutcome
	for l := 0; l <= max(len(a), len(b)) && (maxCond < 0 || l <= maxCond); l++ {
		r := testEdge(ctx, test, i, j, a, b, l, alpha, skip)
		o.tests += r.tests
		if r.err != nil || r.removed {
			r.tests = o.tests
			return r
		}
	}
	return o
}

// subsetOf reports whether every element of s is in xs.
func subsetOf(s, xs []int) bool {
	for _, v := range s {
		if !slices.Contains(xs, v) {
			return false
		}
	}
	return true
}

// ruleR0 places the knowledge's marks, then orients every unshielded
// triple a *-* b *-* c with b outside sep(a, c) as a *-> b <-* c (only
// circles change: an arrowhead where the knowledge put a tail is a
// ColliderAgainst conflict). A triple whose ends have no separating set
// orients nothing.
func ruleR0(g *PAG, sep map[[2]int][]int, kn *know, kc []KnowledgeConflict) []KnowledgeConflict {
	n := g.N
	if kn != nil {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if !g.adj(i, j) {
					continue
				}
				if kn.req[i][j] && !(g.mark(i, j, Arrow) && g.mark(j, i, Tail)) {
					kc = append(kc, KnowledgeConflict{KnowledgeCycle, i, j, nil, -1})
				}
				if kn.forb[i][j] && !kn.req[j][i] && !g.mark(j, i, Arrow) {
					kc = append(kc, KnowledgeConflict{KnowledgeCycle, j, i, nil, -1})
				}
			}
		}
	}
	for b := 0; b < n; b++ {
		for a := 0; a < n; a++ {
			for c := a + 1; c < n; c++ {
				if a == b || c == b || !g.adj(a, b) || !g.adj(c, b) || g.adj(a, c) {
					continue
				}
				set, ok := sep[[2]int{a, c}]
				if !ok || slices.Contains(set, b) {
					continue
				}
				for _, x := range []int{a, c} {
					switch g.M[x][b] {
					case Circle:
						g.mark(x, b, Arrow)
					case Tail:
						kc = append(kc, KnowledgeConflict{ColliderAgainst, x, b, nil, -1})
					}
				}
			}
		}
	}
	return kc
}

// possibleDSep returns Possible-D-Sep(i) in g (Spirtes, Glymour and
// Scheines 2000, §6.7): the nodes k ≠ i joined to i by a path on which
// every inner node b of a subpath ⟨a, b, c⟩ is a collider (a *-> b <-* c)
// or a, b, c form a triangle. Ascending.
func possibleDSep(g *PAG, i int) []int {
	n := g.N
	in := make([]bool, n)
	seen := map[[2]int]bool{}
	var queue [][2]int
	for b := 0; b < n; b++ {
		if g.adj(i, b) {
			in[b] = true
			seen[[2]int{i, b}] = true
			queue = append(queue, [2]int{i, b})
		}
	}
	for len(queue) > 0 {
		a, b := queue[0][0], queue[0][1]
		queue = queue[1:]
		for c := 0; c < n; c++ {
			if c == a || c == b || !g.adj(b, c) || seen[[2]int{b, c}] {
				continue
			}
			if (g.M[a][b] == Arrow && g.M[c][b] == Arrow) || g.adj(a, c) {
				seen[[2]int{b, c}] = true
				if c != i {
					in[c] = true
				}
				queue = append(queue, [2]int{b, c})
			}
		}
	}
	var out []int
	for k, ok := range in {
		if ok && k != i {
			out = append(out, k)
		}
	}
	return out
}
