package causal

import (
	"fmt"
	"slices"
)

// Knowledge is background knowledge about the causal graph, as Tetrad's
// Knowledge holds it: tiers (a temporal order: a variable in a later tier
// never causes one in an earlier tier), required directed edges and
// forbidden directed edges. A pair forbidden both ways (explicitly or by
// tiers) is never adjacent and never tested back in; a required edge is
// never removed; an adjacent pair with one direction forbidden is oriented
// the other way before the data orient anything. The zero value (or a nil
// *Knowledge) is no knowledge.
type Knowledge struct {
	// Tier[v] is v's tier, 0 first; -1 leaves v out of the order. Nil: no
	// tiers.
	Tier []int
	// Required lists edges i → j that must be in the graph.
	Required [][2]int
	// Forbidden lists directed edges i → j that must not be.
	Forbidden [][2]int
}

// ConflictKind says what a KnowledgeConflict is about.
type ConflictKind string

const (
	// RequiredSeparated: the data separate the two ends of a required
	// edge; the edge is kept.
	RequiredSeparated ConflictKind = "required edge separated by the data"
	// ForbiddenDependent: the data find no separating set (among the
	// neighbours of either end) for a pair the knowledge keeps apart; the
	// pair stays non-adjacent and its unshielded triples orient nothing.
	ForbiddenDependent ConflictKind = "forbidden pair dependent given every set tried"
	// ColliderAgainst: a v-structure of the data asks for an arrowhead the
	// knowledge forbids; the knowledge's orientation is kept.
	ColliderAgainst ConflictKind = "v-structure against the knowledge"
	// KnowledgeCycle: the orientations the knowledge asks for close a
	// directed cycle with those already placed; the edge is left
	// undirected (PC) or with its circle marks (FCI).
	KnowledgeCycle ConflictKind = "knowledge orientation closes a directed cycle"
)

// KnowledgeConflict is a place where knowledge and data disagree: the pair
// I, J (for ColliderAgainst, the arrow I → J the data asked for), the
// separating set and p-value where a test decided it (PValue < 0: none).
type KnowledgeConflict struct {
	Kind   ConflictKind
	I, J   int
	Sep    []int
	PValue float64
}

// know is Knowledge compiled to matrices for n variables.
type know struct {
	forb, req [][]bool // forb[i][j]: i → j forbidden; req[i][j]: i → j required
}

// compile checks k against n variables and returns its matrices; nil for
// no knowledge. Knowledge that contradicts itself is an error: a required
// edge also forbidden (explicitly or by tiers), a pair required both ways,
// or required edges that form a directed cycle.
func (k *Knowledge) compile(n int) (*know, error) {
	if k == nil || (k.Tier == nil && len(k.Required) == 0 && len(k.Forbidden) == 0) {
		return nil, nil
	}
	if k.Tier != nil && len(k.Tier) != n {
		return nil, fmt.Errorf("knowledge: %d tiers for %d variables", len(k.Tier), n)
	}
	kn := &know{forb: boolMatrix(n), req: boolMatrix(n)}
	check := func(e [2]int, what string) error {
		if e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n {
			return fmt.Errorf("knowledge: %s edge %v out of range", what, e)
		}
		if e[0] == e[1] {
			return fmt.Errorf("knowledge: %s edge from variable %d to itself", what, e[0])
		}
		return nil
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if k.Tier != nil && k.Tier[i] >= 0 && k.Tier[j] >= 0 && k.Tier[i] > k.Tier[j] {
				kn.forb[i][j] = true
			}
		}
	}
	for _, e := range k.Forbidden {
		if err := check(e, "forbidden"); err != nil {
			return nil, err
		}
		kn.forb[e[0]][e[1]] = true
	}
	for _, e := range k.Required {
		if err := check(e, "required"); err != nil {
			return nil, err
		}
		kn.req[e[0]][e[1]] = true
	}
	for _, e := range k.Required {
		i, j := e[0], e[1]
		if kn.forb[i][j] {
			return nil, &KnowledgeError{I: i, J: j, Msg: "is both required and forbidden (explicitly or by the tiers)"}
		}
		if kn.req[j][i] {
			return nil, &KnowledgeError{I: i, J: j, Msg: "is required both ways"}
		}
	}
	par := make([][]int, n)
	for _, e := range k.Required {
		par[e[1]] = append(par[e[1]], e[0])
	}
	if !isAcyclic(par) {
		return nil, fmt.Errorf("knowledge: the required edges form a directed cycle")
	}
	return kn, nil
}

// KnowledgeError is knowledge that contradicts itself about the edge
// I → J; the caller names the variables.
type KnowledgeError struct {
	I, J int
	Msg  string
}

func (e *KnowledgeError) Error() string {
	return fmt.Sprintf("knowledge: the edge %d → %d %s", e.I, e.J, e.Msg)
}

// banned reports whether the pair is kept apart: forbidden both ways.
func (k *know) banned(i, j int) bool { return k != nil && k.forb[i][j] && k.forb[j][i] }

// required reports whether either direction of the pair is required.
func (k *know) required(i, j int) bool { return k != nil && (k.req[i][j] || k.req[j][i]) }

// fixed reports whether the knowledge orients the pair i → j: required,
// or j → i forbidden and i → j allowed.
func (k *know) fixed(i, j int) bool {
	return k != nil && (k.req[i][j] || (k.forb[j][i] && !k.forb[i][j]))
}

func boolMatrix(n int) [][]bool {
	m := make([][]bool, n)
	for i := range m {
		m[i] = make([]bool, n)
	}
	return m
}

// isAcyclic reports whether the graph given by parent lists has no directed
// cycle.
func isAcyclic(par [][]int) bool {
	state := make([]int, len(par))
	var visit func(v int) bool
	visit = func(v int) bool {
		switch state[v] {
		case 1:
			return false
		case 2:
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

func sortConflicts(cs []KnowledgeConflict) {
	slices.SortStableFunc(cs, func(x, y KnowledgeConflict) int {
		if x.I != y.I {
			return x.I - y.I
		}
		return x.J - y.J
	})
}

// Check reports knowledge that contradicts itself (see compile) or names a
// variable outside 0..n−1.
func (k *Knowledge) Check(n int) error {
	_, err := k.compile(n)
	return err
}
