package causal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func (g dag) hasEdge(u, v int) bool { return slices.Contains(g[v], u) }

// trueKnowledge draws knowledge that g satisfies: tiers cut from a
// topological order (some nodes left out), some of g's edges required,
// some absent directed edges forbidden.
func trueKnowledge(r *rand.Rand, g dag) *Knowledge {
	n := len(g)
	k := &Knowledge{}
	if r.IntN(2) == 0 {
		k.Tier = make([]int, n)
		tier := 0
		for _, v := range topo(g) {
			if r.Float64() < 0.4 {
				tier++
			}
			k.Tier[v] = tier
			if r.Float64() < 0.2 {
				k.Tier[v] = -1
			}
		}
	}
	for v := range g {
		for _, p := range g[v] {
			if r.Float64() < 0.2 {
				k.Required = append(k.Required, [2]int{p, v})
			}
		}
	}
	for u := 0; u < n; u++ {
		for v := 0; v < n; v++ {
			if u != v && !g.hasEdge(u, v) && r.Float64() < 0.2 {
				k.Forbidden = append(k.Forbidden, [2]int{u, v})
			}
		}
	}
	return k
}

// With the d-separation oracle and knowledge that the DAG satisfies, PC
// returns the CPDAG restricted by the knowledge: the marks on which every
// DAG of the equivalence class that satisfies the knowledge agrees,
// computed by brute force over the orientations of the skeleton.
func TestPCKnowledgeOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 1))
	graphs, narrowed := 0, 0
	for rep := 0; rep < 200; rep++ {
		n := 3 + r.IntN(4)
		g := randomDAG(r, n, 0.2+0.4*r.Float64())
		k := trueKnowledge(r, g)
		kn, err := k.compile(n)
		if err != nil {
			t.Fatalf("DAG %v, knowledge %+v: %v", g, k, err)
		}
		want := g.class(func(par [][]int) bool {
			for v, ps := range par {
				for _, p := range ps {
					if kn != nil && kn.forb[p][v] {
						return false
					}
				}
			}
			for _, e := range k.Required {
				if !slices.Contains(par[e[1]], e[0]) {
					return false
				}
			}
			return true
		})
		res, err := PC(context.Background(), n, g.oracle(), Settings{Alpha: 0.05, MaxCond: -1, Knowledge: k})
		if err != nil {
			t.Fatal(err)
		}
		if got := marks(res.Arrow); got != marks(want) {
			t.Fatalf("DAG %v, knowledge %+v: PC %v, restricted CPDAG %v", g, k, got, marks(want))
		}
		if len(res.Knowledge) != 0 {
			t.Fatalf("DAG %v, knowledge %+v: conflicts %v with true knowledge", g, k, res.Knowledge)
		}
		graphs++
		if marks(want) != marks(g.cpdag()) {
			narrowed++
		}
	}
	if narrowed < 30 {
		t.Fatalf("the knowledge narrowed only %d of %d classes", narrowed, graphs)
	}
	t.Logf("%d graphs, the knowledge narrowed %d classes", graphs, narrowed)
}

// randomKnowledge draws knowledge without regard to any graph (it may
// contradict the data, never itself).
func randomKnowledge(r *rand.Rand, n int) *Knowledge {
	for {
		k := &Knowledge{}
		if r.IntN(2) == 0 {
			k.Tier = make([]int, n)
			for v := range k.Tier {
				k.Tier[v] = r.IntN(3) - 1
			}
		}
		for u := 0; u < n; u++ {
			for v := 0; v < n; v++ {
				switch x := r.Float64(); {
				case u == v:
				case x < 0.1:
					k.Required = append(k.Required, [2]int{u, v})
				case x < 0.25:
					k.Forbidden = append(k.Forbidden, [2]int{u, v})
				}
			}
		}
		if _, err := k.compile(n); err == nil {
			return k
		}
	}
}

// Whatever the tests and the knowledge say, PC's output has no directed
// cycle, and every place where it departs from the knowledge (a required
// edge missing or not directed its way, an edge directed against a
// forbidden direction, a forbidden-both-ways pair adjacent) is listed in
// Result.Knowledge: over seeded random DAGs, noisy oracles, Fisher's z,
// and knowledge that is true or drawn at random.
func TestPCKnowledgeNeverContradicted(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 2))
	reported := 0
	for rep := 0; rep < 300; rep++ {
		n := 4 + r.IntN(5)
		g := randomDAG(r, n, 0.2+0.4*r.Float64())
		test := g.noisyOracle(uint64(rep), 0.15*r.Float64())
		alpha := 0.05
		if rep%4 == 3 {
			ft, err := FisherZ(linearData(r, g, 200))
			if err != nil {
				t.Fatal(err)
			}
			test, alpha = ft, 0.2
		}
		k := trueKnowledge(r, g)
		if rep%2 == 1 {
			k = randomKnowledge(r, n)
		}
		kn, _ := k.compile(n)
		res, err := PC(context.Background(), n, test, Settings{Alpha: alpha, MaxCond: -1, Knowledge: k})
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("rep %d, DAG %v, knowledge %+v", rep, g, k)
		checkOutput(t, what, res)
		listed := func(i, j int) bool {
			for _, c := range res.Knowledge {
				if (c.I == i && c.J == j) || (c.I == j && c.J == i) {
					return true
				}
			}
			return false
		}
		reported += len(res.Knowledge)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if i == j || kn == nil {
					continue
				}
				directed := res.Arrow[i][j] && !res.Arrow[j][i]
				adjacent := res.Arrow[i][j] || res.Arrow[j][i]
				switch {
				case kn.req[i][j] && !directed && !listed(i, j):
					t.Fatalf("%s: required %d → %d not in the graph %v, not reported", what, i, j, res.Edges())
				case kn.forb[i][j] && directed && !listed(i, j):
					t.Fatalf("%s: forbidden %d → %d in the graph %v, not reported", what, i, j, res.Edges())
				case kn.banned(i, j) && adjacent:
					t.Fatalf("%s: %d and %d adjacent against the knowledge", what, i, j)
				}
			}
		}
	}
	if reported == 0 {
		t.Fatal("no conflict with the knowledge arose: the test does not exercise them")
	}
	t.Logf("%d conflicts with the knowledge reported over 300 graphs", reported)
}

func TestKnowledgeErrors(t *testing.T) {
	for _, c := range []struct {
		k    Knowledge
		want string
	}{
		{Knowledge{Tier: []int{1, 0, 0}, Required: [][2]int{{0, 1}}}, "both required and forbidden"},
		{Knowledge{Required: [][2]int{{0, 1}}, Forbidden: [][2]int{{0, 1}}}, "both required and forbidden"},
		{Knowledge{Required: [][2]int{{0, 1}, {1, 0}}}, "required both ways"},
		{Knowledge{Required: [][2]int{{0, 1}, {1, 2}, {2, 0}}}, "directed cycle"},
		{Knowledge{Tier: []int{0}}, "1 tiers for 3 variables"},
		{Knowledge{Forbidden: [][2]int{{0, 5}}}, "out of range"},
	} {
		_, err := c.k.compile(3)
		if err == nil || !contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.k, err, c.want)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
