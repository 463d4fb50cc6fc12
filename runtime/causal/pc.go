package causal

import (
	"context"
	"fmt"
	"runtime"

	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/progress"
)

// CITest returns the p-value of the test of variable i ⟂ variable j given
// the variables s (i < j, s ascending). PC calls it from several goroutines
// at once; its answer must depend only on (i, j, s), never on call order,
// for the graph to be the same on any number of cores.
type CITest func(ctx context.Context, i, j int, s []int) (float64, error)

// Settings configure PC.
type Settings struct {
	// Alpha is the level: i and j are separated by s when the p-value
	// exceeds Alpha.
	Alpha float64
	// MaxCond bounds the size of the conditioning sets (< 0: no bound).
	MaxCond int
	// Workers run the tests of one conditioning-set size at once; default
	// GOMAXPROCS.
	Workers int
	// Knowledge constrains the graph (nil: none); see Knowledge.
	Knowledge *Knowledge
}

// Removal is an edge the skeleton phase removed: i ⟂ j | Sep with p-value
// PValue (i < j).
type Removal struct {
	I, J   int
	Sep    []int
	PValue float64
}

// Result is PC's output: the CPDAG as marks (Arrow[i][j] && Arrow[j][i]:
// i — j undirected; Arrow[i][j] only: i → j), the removed edges with their
// separating sets in the order they were found, the number of tests run,
// and the pairs whose v-structures disagreed or would close a directed
// cycle (left undirected).
type Result struct {
	N         int
	Arrow     [][]bool
	Removed   []Removal
	Tests     int
	Conflicts [][2]int
	// Knowledge lists where knowledge and data disagree (sorted by pair);
	// empty without knowledge.
	Knowledge []KnowledgeConflict
}

// Edge is an edge of the result: From → To, or From — To (From < To) when
// not Directed.
type Edge struct {
	From, To int
	Directed bool
}

// Edges lists the edges ordered by their smaller then larger end.
func (r *Result) Edges() []Edge {
	var out []Edge
	for i := 0; i < r.N; i++ {
		for j := i + 1; j < r.N; j++ {
			switch a, b := r.Arrow[i][j], r.Arrow[j][i]; {
			case a && b:
				out = append(out, Edge{i, j, false})
			case a:
				out = append(out, Edge{i, j, true})
			case b:
				out = append(out, Edge{j, i, true})
			}
		}
	}
	return out
}

// PC runs the PC algorithm on n variables with test. The skeleton starts
// complete; at conditioning-set size l = 0, 1, ... every edge i — j still
// present is tested against the subsets of size l of the neighbours of i
// (then of j) as they were at the start of size l (PC-stable), in a fixed
// order, stopping at the first p > Alpha. The edges of one size are tested
// in parallel and removed afterwards in a fixed order, so the result does
// not depend on Workers. Then v-structures and Meek's rules orient it.
// With Knowledge, pairs forbidden both ways start (and stay) apart,
// required edges stay, and the knowledge orients its edges first (see
// orient); conflicts with the data are listed in Result.Knowledge.
func PC(ctx context.Context, n int, test CITest, s Settings) (*Result, error) {
	sk, err := adjacencySearch(ctx, n, test, &s, true)
	if err != nil {
		return nil, err
	}
	res := sk.res
	res.Arrow, res.Conflicts, res.Knowledge = orient(sk.adj, sk.sep, sk.kn, res.Knowledge)
	sortConflicts(res.Knowledge)
	return res, nil
}

// skeleton is the adjacency search's output, shared by PC and FCI.
type skeleton struct {
	adj [][]bool
	sep map[[2]int][]int // missing for a pair kept apart by knowledge without a set found
	kn  *know
	res *Result // N, Removed, Tests, Knowledge so far
}

// adjacencySearch is PC's skeleton phase (PC-stable), with knowledge: see
// PC. A pair the knowledge keeps apart is never tested for adjacency; if
// it has a common neighbour at the end, a separating set is looked for
// among the neighbours of either end (sizes 0, 1, ...), for the
// orientation of its unshielded triples. Without apart (FCI, where a
// pair forbidden both ways may still share a latent cause), such pairs are
// searched like any other.
func adjacencySearch(ctx context.Context, n int, test CITest, s *Settings, apart bool) (*skeleton, error) {
	if n < 2 {
		return nil, fmt.Errorf("pc needs at least 2 variables, got %d", n)
	}
	if !(s.Alpha > 0 && s.Alpha < 1) {
		return nil, fmt.Errorf("alpha must be between 0 and 1, got %g", s.Alpha)
	}
	if s.Workers <= 0 {
		s.Workers = runtime.GOMAXPROCS(0)
	}
	kn, err := s.Knowledge.compile(n)
	if err != nil {
		return nil, err
	}
	banned := func(i, j int) bool { return apart && kn.banned(i, j) }
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
		for j := range adj[i] {
			adj[i][j] = i != j && !banned(i, j)
		}
	}
	kept := boolMatrix(n) // required edges the data separated: not tested again
	res := &Result{N: n}
	sep := map[[2]int][]int{}
	// The number of tests is known one conditioning-set size at a time:
	// the line counts them with the time so far.
	task := progress.Start(ctx, "tests", 0)
	defer task.Done()
	for l := 0; s.MaxCond < 0 || l <= s.MaxCond; l++ {
		nb := neighbours(adj)
		var jobs [][2]int
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if adj[i][j] && !kept[i][j] && (len(nb[i])-1 >= l || len(nb[j])-1 >= l) {
					jobs = append(jobs, [2]int{i, j})
				}
			}
		}
		if len(jobs) == 0 {
			break
		}
		out := make([]edgeOutcome, len(jobs))
		par.Blocks(len(jobs), 1, s.Workers, func(k, _, _ int) {
			defer task.Add(1)
			i, j := jobs[k][0], jobs[k][1]
			out[k] = testEdge(ctx, test, i, j, without(nb[i], j), without(nb[j], i), l, s.Alpha, nil)
		})
		for k, o := range out {
			res.Tests += o.tests
			if o.err != nil {
				return nil, o.err
			}
			if o.removed {
				i, j := jobs[k][0], jobs[k][1]
				if kn.required(i, j) {
					kept[i][j] = true
					res.Knowledge = append(res.Knowledge, KnowledgeConflict{RequiredSeparated, i, j, o.sep, o.p})
					continue
				}
				adj[i][j], adj[j][i] = false, false
				sep[[2]int{i, j}] = o.sep
				res.Removed = append(res.Removed, Removal{i, j, o.sep, o.p})
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if kn != nil {
		nb := neighbours(adj)
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if !banned(i, j) || !commonNeighbour(adj, i, j) {
					continue
				}
				o := searchSep(ctx, test, i, j, nb[i], nb[j], s.MaxCond, s.Alpha, nil)
				res.Tests += o.tests
				if o.err != nil {
					return nil, o.err
				}
				if o.removed {
					sep[[2]int{i, j}] = o.sep
					res.Removed = append(res.Removed, Removal{i, j, o.sep, o.p})
				} else {
					res.Knowledge = append(res.Knowledge, KnowledgeConflict{ForbiddenDependent, i, j, nil, -1})
				}
			}
		}
	}
	return &skeleton{adj: adj, sep: sep, kn: kn, res: res}, nil
}

// neighbours lists each node's neighbours in adj, ascending.
func neighbours(adj [][]bool) [][]int {
	n := len(adj)
	nb := make([][]int, n)
	for i := range nb {
		for j := 0; j < n; j++ {
			if adj[i][j] {
				nb[i] = append(nb[i], j)
			}
		}
	}
	return nb
}

func commonNeighbour(adj [][]bool, i, j int) bool {
	for k := range adj {
		if adj[i][k] && adj[j][k] {
			return true
		}
	}
	return false
}

type edgeOutcome struct {
	removed bool
	sep     []int
	p       float64
	tests   int
	err     error
}

// testEdge tests i — j against the l-subsets of a, then those of b not
// already tried, skipping those skip reports (nil: none).
func testEdge(ctx context.Context, test CITest, i, j int, a, b []int, l int, alpha float64, skip func([]int) bool) edgeOutcome {
	var o edgeOutcome
	tried := map[string]bool{}
	for _, from := range [][]int{a, b} {
		subsets(from, l, func(s []int) bool {
			key := fmt.Sprint(s)
			if tried[key] || (skip != nil && skip(s)) {
				return true
			}
			tried[key] = true
			if err := ctx.Err(); err != nil {
				o.err = err
				return false
			}
			p, err := test(ctx, i, j, s)
			o.tests++
			if err != nil {
				o.err = fmt.Errorf("testing %d ⟂ %d | %v: %w", i, j, s, err)
				return false
			}
			if p > alpha {
				o.removed, o.sep, o.p = true, append([]int{}, s...), p
				return false
			}
			return true
		})
		if o.removed || o.err != nil {
			break
		}
	}
	return o
}

// subsets calls f with each l-subset of xs (ascending, in lexicographic
// order of positions) until f returns false. xs is ascending.
func subsets(xs []int, l int, f func([]int) bool) {
	if l > len(xs) {
		return
	}
	idx := make([]int, l)
	for k := range idx {
		idx[k] = k
	}
	s := make([]int, l)
	for {
		for k, v := range idx {
			s[k] = xs[v]
		}
		if !f(s) {
			return
		}
		k := l - 1
		for k >= 0 && idx[k] == len(xs)-l+k {
			k--
		}
		if k < 0 {
			return
		}
		idx[k]++
		for m := k + 1; m < l; m++ {
			idx[m] = idx[m-1] + 1
		}
	}
}

func without(xs []int, v int) []int {
	var out []int
	for _, x := range xs {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

// SepSet returns the separating set of i and j, if their edge was removed.
func (r *Result) SepSet(i, j int) ([]int, bool) {
	for _, m := range r.Removed {
		if m.I == min(i, j) && m.J == max(i, j) {
			return m.Sep, true
		}
	}
	return nil, false
}
