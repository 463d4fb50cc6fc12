package causal

import "slices"

// orient turns a skeleton (adj symmetric) with separating sets into a
// partially directed acyclic graph: every unshielded triple i — k — j (i, j
// not adjacent) with k not in sep(i, j) asks for i → k ← j. An edge that two
// such triples ask to orient both ways is a conflict: it is left undirected,
// locked against later rules, and reported. The remaining requests are
// applied in a fixed order (tail, then head ascending), and one that would
// close a directed cycle with the arrows already placed is refused and
// reported as a conflict too (with wrong test answers the v-structures need
// not come from any DAG). Then Meek's rules 1–3 orient what follows, never
// a locked edge and never an edge whose orientation would close a directed
// cycle. With correct tests of a faithful distribution neither refusal
// happens and the result is the CPDAG.
//
// With knowledge kn, the edges it orients (required, or one direction
// forbidden) are placed first, in the same order, and locked; one that
// would close a directed cycle stays undirected and is a KnowledgeCycle
// conflict. A v-structure arrow against a locked knowledge edge is a
// ColliderAgainst conflict and is not placed; a triple whose ends have no
// separating set (kept apart by knowledge, none found) orients nothing.
// Meek's rule 4 joins rules 1–3: with knowledge, rules 1–4 give the
// maximally oriented graph (Meek 1995).
func orient(adj [][]bool, sep map[[2]int][]int, kn *know, kc []KnowledgeConflict) ([][]bool, [][2]int, []KnowledgeConflict) {
	n := len(adj)
	want := make([][]bool, n) // want[i][k]: some v-structure asks i → k
	for i := range want {
		want[i] = make([]bool, n)
	}
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if !adj[i][k] || !adj[j][k] || adj[i][j] {
					continue
				}
				set, ok := sep[[2]int{i, j}]
				if ok && !slices.Contains(set, k) {
					want[i][k], want[j][k] = true, true
				}
			}
		}
	}
	a := make([][]bool, n)
	locked := make([][]bool, n)
	for i := range a {
		a[i] = append([]bool(nil), adj[i]...)
		locked[i] = make([]bool, n)
	}
	var conflicts [][2]int
	conflict := func(i, k int) {
		locked[i][k], locked[k][i] = true, true
		conflicts = append(conflicts, [2]int{min(i, k), max(i, k)})
	}
	if kn != nil {
		for i := 0; i < n; i++ {
			for k := 0; k < n; k++ {
				if !a[i][k] || !kn.fixed(i, k) || locked[i][k] {
					continue
				}
				if directedPath(a, k, i) {
					locked[i][k], locked[k][i] = true, true
					kc = append(kc, KnowledgeConflict{KnowledgeCycle, i, k, nil, -1})
					continue
				}
				a[k][i] = false
				locked[i][k], locked[k][i] = true, true
			}
		}
		for i := 0; i < n; i++ {
			for k := 0; k < n; k++ {
				if want[i][k] && locked[i][k] {
					want[i][k] = false
					if a[k][i] && !a[i][k] {
						kc = append(kc, KnowledgeConflict{ColliderAgainst, i, k, nil, -1})
					}
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		for k := i + 1; k < n; k++ {
			if want[i][k] && want[k][i] {
				conflict(i, k)
			}
		}
	}
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			if !want[i][k] || locked[i][k] {
				continue
			}
			if directedPath(a, k, i) {
				conflict(i, k)
				continue
			}
			a[k][i] = false
		}
	}
	slices.SortFunc(conflicts, func(x, y [2]int) int {
		if x[0] != y[0] {
			return x[0] - y[0]
		}
		return x[1] - y[1]
	})
	meek(a, locked, kn != nil)
	return a, conflicts, kc
}

// directedPath reports whether the PDAG a has a directed path from → … → to
// (undirected edges are not followed).
func directedPath(a [][]bool, from, to int) bool {
	n := len(a)
	seen := make([]bool, n)
	stack := []int{from}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if v == to {
			return true
		}
		if seen[v] {
			continue
		}
		seen[v] = true
		for w := 0; w < n; w++ {
			if a[v][w] && !a[w][v] && !seen[w] {
				stack = append(stack, w)
			}
		}
	}
	return false
}

// meek applies Meek's (1995) rules 1–3 (and rule 4 if r4) to the PDAG a
// until none applies, never changing a locked edge and refusing an
// orientation that would close a directed cycle. Rule 4 never fires on a
// pattern of v-structures alone (Meek 1995), so it is left out without
// knowledge, where a wrong test could otherwise make it fire.
func meek(a, locked [][]bool, r4 bool) {
	n := len(a)
	und := func(x, y int) bool { return a[x][y] && a[y][x] }
	dir := func(x, y int) bool { return a[x][y] && !a[y][x] }
	adjc := func(x, y int) bool { return a[x][y] || a[y][x] }
	rule := func(i, j int) bool {
		for k := 0; k < n; k++ {
			// R1: k → i — j, k and j not adjacent.
			if dir(k, i) && k != j && !adjc(k, j) {
				return true
			}
			// R2: i → k → j.
			if dir(i, k) && dir(k, j) {
				return true
			}
		}
		// R3: i — k → j, i — l → j, k and l not adjacent.
		for k := 0; k < n; k++ {
			if !und(i, k) || !dir(k, j) {
				continue
			}
			for l := k + 1; l < n; l++ {
				if und(i, l) && dir(l, j) && !adjc(k, l) {
					return true
				}
			}
		}
		// R4: i — k → l → j, k and j not adjacent, i and l adjacent.
		if r4 {
			for k := 0; k < n; k++ {
				if !und(i, k) || adjc(k, j) || k == j {
					continue
				}
				for l := 0; l < n; l++ {
					if dir(k, l) && dir(l, j) && adjc(i, l) {
						return true
					}
				}
			}
		}
		return false
	}
	for changed := true; changed; {
		changed = false
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if i != j && und(i, j) && !locked[i][j] && rule(i, j) && !directedPath(a, j, i) {
					a[j][i] = false
					changed = true
				}
			}
		}
	}
}
