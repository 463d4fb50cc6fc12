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
func orient(adj [][]bool, sep map[[2]int][]int) ([][]bool, [][2]int) {
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
				if !slices.Contains(sep[[2]int{i, j}], k) {
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
	meek(a, locked)
	return a, conflicts
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

// meek applies Meek's (1995) rules 1–3 to the PDAG a until none applies,
// leaving the locked edges undirected and refusing an orientation that
// would close a directed cycle.
func meek(a, locked [][]bool) {
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
