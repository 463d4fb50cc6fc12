package causal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// dag is a DAG as parent lists.
type dag [][]int

// dsep reports whether x and y are d-separated by z: by the moral graph of
// the ancestral set of {x, y} ∪ z with z removed (Lauritzen et al. 1990).
func (g dag) dsep(x, y int, z []int) bool {
	n := len(g)
	anc := make([]bool, n)
	stack := append([]int{x, y}, z...)
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if anc[v] {
			continue
		}
		anc[v] = true
		stack = append(stack, g[v]...)
	}
	link := make([][]bool, n)
	for i := range link {
		link[i] = make([]bool, n)
	}
	for v := 0; v < n; v++ {
		if !anc[v] {
			continue
		}
		ps := g[v]
		for a, p := range ps {
			link[p][v], link[v][p] = true, true
			for _, q := range ps[a+1:] {
				link[p][q], link[q][p] = true, true
			}
		}
	}
	blocked := make([]bool, n)
	for _, v := range z {
		blocked[v] = true
	}
	seen := make([]bool, n)
	stack = []int{x}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if v == y {
			return false
		}
		if seen[v] {
			continue
		}
		seen[v] = true
		for w := 0; w < n; w++ {
			if link[v][w] && anc[w] && !blocked[w] && !seen[w] {
				stack = append(stack, w)
			}
		}
	}
	return true
}

func (g dag) oracle() CITest {
	return func(_ context.Context, i, j int, s []int) (float64, error) {
		if g.dsep(i, j, s) {
			return 1, nil
		}
		return 0, nil
	}
}

// cpdag computes the CPDAG by brute force: every orientation of g's
// skeleton that is acyclic with g's v-structures is in the class; an edge
// is directed where the whole class agrees. Returned as PC's marks.
func (g dag) cpdag() [][]bool { return g.class(nil) }

// class is cpdag over the DAGs of g's equivalence class that keep accepts
// (nil: all): the marks every accepted member agrees on.
func (g dag) class(keep func(par [][]int) bool) [][]bool {
	n := len(g)
	var edges [][2]int
	for v, ps := range g {
		for _, p := range ps {
			edges = append(edges, [2]int{min(p, v), max(p, v)})
		}
	}
	vs := func(par [][]int) map[[3]int]bool {
		out := map[[3]int]bool{}
		for v, ps := range par {
			for a, p := range ps {
				for _, q := range ps[a+1:] {
					if !slices.Contains(par[p], q) && !slices.Contains(par[q], p) {
						out[[3]int{min(p, q), max(p, q), v}] = true
					}
				}
			}
		}
		return out
	}
	want := vs(g)
	seen := make([][2]bool, len(edges)) // orientation lo→hi seen, hi→lo seen
	for mask := 0; mask < 1<<len(edges); mask++ {
		par := make([][]int, n)
		for e, ed := range edges {
			if mask>>e&1 == 0 {
				par[ed[1]] = append(par[ed[1]], ed[0])
			} else {
				par[ed[0]] = append(par[ed[0]], ed[1])
			}
		}
		if !acyclic(par) || fmt.Sprint(vs(par)) != fmt.Sprint(want) || (keep != nil && !keep(par)) {
			continue
		}
		for e := range edges {
			seen[e][mask>>e&1] = true
		}
	}
	a := make([][]bool, n)
	for i := range a {
		a[i] = make([]bool, n)
	}
	for e, ed := range edges {
		a[ed[0]][ed[1]] = seen[e][0]
		a[ed[1]][ed[0]] = seen[e][1]
	}
	return a
}

func acyclic(par [][]int) bool {
	state := make([]int, len(par))
	var visit func(v int) bool
	visit = func(v int) bool {
		if state[v] == 1 {
			return false
		}
		if state[v] == 2 {
			return true
		}
		state[v] = 1
		for _, p := range par[v] {
			if !visit(p) {
				return false
			}
		}
		state[v] = 2
		return true
	}
	for v := range par {
		if !visit(v) {
			return false
		}
	}
	return true
}

func marks(a [][]bool) string { return fmt.Sprint(a) }

func TestPCOracleTextbook(t *testing.T) {
	for _, c := range []struct {
		name string
		g    dag
		want []Edge
	}{
		{"chain", dag{{}, {0}, {1}}, []Edge{{0, 1, false}, {1, 2, false}}},
		{"fork", dag{{1}, {}, {1}}, []Edge{{0, 1, false}, {1, 2, false}}},
		{"collider", dag{{}, {0, 2}, {}}, []Edge{{0, 1, true}, {2, 1, true}}},
		// 0 → 2 ← 1, 2 → 3 → 4: Meek's rule 1 orients 2 → 3 → 4.
		{"collider-chain", dag{{}, {}, {0, 1}, {2}, {3}},
			[]Edge{{0, 2, true}, {1, 2, true}, {2, 3, true}, {3, 4, true}}},
		// a=0 → c=1, a → d=2, c → b=3 ← d, a → b: rule 3 orients a → b.
		{"meek3", dag{{}, {0}, {0}, {0, 1, 2}},
			[]Edge{{0, 1, false}, {0, 2, false}, {0, 3, true}, {1, 3, true}, {2, 3, true}}},
	} {
		r, err := PC(context.Background(), len(c.g), c.g.oracle(), Settings{Alpha: 0.05, MaxCond: -1})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Edges(); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: edges %v, want %v", c.name, got, c.want)
		}
		if marks(r.Arrow) != marks(c.g.cpdag()) {
			t.Errorf("%s: PC %v, brute-force CPDAG %v", c.name, r.Arrow, c.g.cpdag())
		}
	}
}

// randomDAG draws a DAG on n nodes in topological order 0..n−1 with each
// edge present with probability p, then relabels the nodes.
func randomDAG(r *rand.Rand, n int, p float64) dag {
	perm := r.Perm(n)
	g := make(dag, n)
	for v := 0; v < n; v++ {
		for u := 0; u < v; u++ {
			if r.Float64() < p {
				g[perm[v]] = append(g[perm[v]], perm[u])
			}
		}
	}
	return g
}

// With the d-separation oracle, PC returns the CPDAG of every DAG: checked
// against the brute-force equivalence class on random DAGs, on 1 and 4
// workers.
func TestPCOracleRandomDAGs(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 1))
	for rep := 0; rep < 150; rep++ {
		n := 3 + r.IntN(4)
		g := randomDAG(r, n, 0.2+0.4*r.Float64())
		want := marks(g.cpdag())
		for _, w := range []int{1, 4} {
			res, err := PC(context.Background(), n, g.oracle(), Settings{Alpha: 0.05, MaxCond: -1, Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			if got := marks(res.Arrow); got != want {
				t.Fatalf("DAG %v (workers %d): PC %v, CPDAG %v", g, w, got, want)
			}
			for _, m := range res.Removed {
				if !g.dsep(m.I, m.J, m.Sep) {
					t.Fatalf("DAG %v: removed %d—%d with a set %v that does not separate them", g, m.I, m.J, m.Sep)
				}
			}
		}
	}
}

func TestSubsets(t *testing.T) {
	var got [][]int
	subsets([]int{1, 3, 5, 7}, 2, func(s []int) bool { got = append(got, append([]int{}, s...)); return true })
	if fmt.Sprint(got) != "[[1 3] [1 5] [1 7] [3 5] [3 7] [5 7]]" {
		t.Errorf("subsets: %v", got)
	}
	n := 0
	subsets([]int{1, 2}, 0, func(s []int) bool { n++; return len(s) == 0 })
	if n != 1 {
		t.Errorf("one empty subset, got %d", n)
	}
}
