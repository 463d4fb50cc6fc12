package causal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// FCI keeps the knowledge whatever the tests say: over seeded random DAGs
// with latent variables, noisy oracles, Fisher's z and knowledge true or
// random, every adjacent pair with a forbidden direction i → j has an
// arrowhead at i and every required edge is i → j, unless the pair is
// listed in Knowledge (a pair forbidden both ways may stay adjacent, as
// i <-> j: they may share a latent cause). With
// true knowledge and the exact oracle nothing is listed. The directed
// edges (-->) of the PAG never form a cycle. With true knowledge and the
// exact oracle every arrowhead and tail is the true MAG's.
func TestFCIKnowledgeNeverContradicted(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 4))
	reported, sound := 0, 0
	for rep := 0; rep < 300; rep++ {
		obs := 4 + r.IntN(4)
		g := latentDAG(r, obs, 1+r.IntN(2), 0.2+0.4*r.Float64())
		test := g.noisyOracle(uint64(rep), 0.15*r.Float64())
		exact := rep%4 == 0
		if exact {
			test = g.oracle()
		}
		alpha := 0.05
		if rep%4 == 3 {
			ft, err := FisherZ(linearData(r, g, 200))
			if err != nil {
				t.Fatal(err)
			}
			// Columns beyond obs are the latents: the test never names
			// them.
			test, alpha = ft, 0.2
		}
		k := trueObservedKnowledge(r, g, obs)
		if rep%2 == 1 {
			k = randomKnowledge(r, obs)
		}
		kn, _ := k.compile(obs)
		res, err := FCI(context.Background(), obs, test, Settings{Alpha: alpha, MaxCond: -1, Knowledge: k})
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("rep %d, DAG %v (%d observed), knowledge %+v", rep, g, obs, k)
		if exact && rep%2 == 0 {
			if len(res.Knowledge) != 0 {
				t.Fatalf("%s: conflicts %v with true knowledge and the exact oracle", what, res.Knowledge)
			}
			// Sound: every mark that is not a circle is the true MAG's.
			truth := g.trueMAG(obs)
			for i := 0; i < obs; i++ {
				for j := 0; j < obs; j++ {
					if m := res.M[i][j]; m != Circle && m != truth[i][j] {
						t.Fatalf("%s: FCI %v, the true MAG has mark %d at %d on %d–%d", what, res.Edges(), truth[i][j], j, i, j)
					}
				}
			}
			sound++
		}
		reported += len(res.Knowledge)
		listed := func(i, j int) bool {
			for _, c := range res.Knowledge {
				if (c.I == i && c.J == j) || (c.I == j && c.J == i) {
					return true
				}
			}
			return false
		}
		par := make([][]int, obs)
		for i := 0; i < obs; i++ {
			for j := 0; j < obs; j++ {
				if i == j {
					continue
				}
				if res.directed(i, j) {
					par[j] = append(par[j], i)
				}
				if kn == nil {
					continue
				}
				switch {
				case kn.req[i][j] && !res.directed(i, j) && !listed(i, j):
					t.Fatalf("%s: required %d → %d is %v, not reported", what, i, j, res.Edges())
				case kn.forb[i][j] && res.adj(i, j) && res.M[j][i] != Arrow && !listed(i, j):
					t.Fatalf("%s: forbidden %d → %d without an arrowhead at %d: %v, not reported", what, i, j, i, res.Edges())
				}
			}
		}
		if !acyclic(par) {
			t.Fatalf("%s: directed cycle in %v", what, res.Edges())
		}
	}
	if reported == 0 {
		t.Fatal("no conflict with the knowledge arose")
	}
	t.Logf("%d conflicts with the knowledge reported over 300 graphs; %d PAGs with true knowledge sound", reported, sound)
}

// trueObservedKnowledge is trueKnowledge for the observed part of g:
// tiers from a topological order, required edges among g's observed
// edges, forbidden directions u → v where u is no ancestor of v.
func trueObservedKnowledge(r *rand.Rand, g dag, obs int) *Knowledge {
	k := &Knowledge{}
	if r.IntN(2) == 0 {
		k.Tier = make([]int, obs)
		tier := 0
		for _, v := range topo(g) {
			if v >= obs {
				continue
			}
			if r.Float64() < 0.4 {
				tier++
			}
			k.Tier[v] = tier
		}
	}
	for v := 0; v < obs; v++ {
		for _, p := range g[v] {
			if p < obs && r.Float64() < 0.2 {
				k.Required = append(k.Required, [2]int{p, v})
			}
		}
	}
	for u := 0; u < obs; u++ {
		for v := 0; v < obs; v++ {
			if u != v && !g.ancestor(u, v) && r.Float64() < 0.2 {
				k.Forbidden = append(k.Forbidden, [2]int{u, v})
			}
		}
	}
	return k
}
