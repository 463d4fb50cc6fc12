package causal

import "slices"

// orient turns a skeleton (adj symmetric) with separating sets into a
// CPDAG: every unshielded triple i — k — j (i, j not adjacent) with k not
// in sep(i, j) becomes i → k ← j; an edge two such triples orient both
// ways is left undirected and reported. Then Meek's rules 1–3 orient what
// follows, applied one at a time in a fixed order until none applies.
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
	for i := range a {
		a[i] = append([]bool(nil), adj[i]...)
	}
	var conflicts [][2]int
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			switch {
			case want[i][k] && want[k][i]:
				if i < k {
					conflicts = append(conflicts, [2]int{i, k})
				}
			case want[i][k]:
				a[k][i] = false
			}
		}
	}
	meek(a)
	return a, conflicts
}

// meek applies Meek's (1995) rules 1–3 to the PDAG a until none applies.
func meek(a [][]bool) {
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
				if i != j && und(i, j) && rule(i, j) {
					a[j][i] = false
					changed = true
				}
			}
		}
	}
}
