package causal

import "slices"

// orientFCI applies Zhang's (2008) orientation rules R1–R10 to g (after
// R0) until none applies: R1–R4 to exhaustion, then R5–R7, then R8–R10,
// and again from R1 while anything changed. Every rule turns circles into
// arrowheads or tails and never changes another mark. R5–R7 concern
// selection variables: with correct tests of a DAG without selection they
// never fire (their conclusions are tails at both ends, which no MAG
// without selection has), and they are applied for completeness.
func orientFCI(g *PAG, sep map[[2]int][]int) {
	for {
		changed := false
		for rulesR1to4(g, sep) {
			changed = true
		}
		for rulesR5to7(g) {
			changed = true
		}
		for rulesR8to10(g) {
			changed = true
		}
		if !changed {
			return
		}
	}
}

// rulesR1to4 applies R1–R4 once over all triples; reports any change.
func rulesR1to4(g *PAG, sep map[[2]int][]int) bool {
	n, M := g.N, g.M
	changed := false
	for b := 0; b < n; b++ {
		for c := 0; c < n; c++ {
			if c == b || !g.adj(b, c) {
				continue
			}
			for a := 0; a < n; a++ {
				if a == b || a == c || !g.adj(a, b) {
					continue
				}
				// R1: a *-> b o-* c, a and c not adjacent: b → c.
				if M[a][b] == Arrow && M[c][b] == Circle && !g.adj(a, c) {
					changed = g.mark(b, c, Arrow) && g.mark(c, b, Tail) || changed
				}
				// R2: a → b *-> c or a *-> b → c, and a *-o c: a *-> c.
				if g.adj(a, c) && M[a][c] == Circle &&
					((g.directed(a, b) && M[b][c] == Arrow) || (M[a][b] == Arrow && g.directed(b, c))) {
					changed = g.mark(a, c, Arrow) || changed
				}
			}
		}
	}
	// R3: a *-> b <-* c, a *-o d o-* c, a and c not adjacent, d *-o b:
	// d *-> b.
	for d := 0; d < n; d++ {
		for b := 0; b < n; b++ {
			if b == d || !g.adj(d, b) || M[d][b] != Circle {
				continue
			}
		r3:
			for a := 0; a < n; a++ {
				for c := a + 1; c < n; c++ {
					if a == b || c == b || a == d || c == d || g.adj(a, c) {
						continue
					}
					if g.adj(a, b) && g.adj(c, b) && M[a][b] == Arrow && M[c][b] == Arrow &&
						g.adj(a, d) && g.adj(c, d) && M[a][d] == Circle && M[c][d] == Circle {
						changed = g.mark(d, b, Arrow) || changed
						break r3
					}
				}
			}
		}
	}
	// R4: a discriminating path ⟨d, ..., a, b, c⟩ for b with b o-* c: b → c
	// if b is in sep(d, c), else a <-> b <-> c.
	for b := 0; b < n; b++ {
		for c := 0; c < n; c++ {
			if c == b || !g.adj(b, c) || M[c][b] != Circle {
				continue
			}
			for a := 0; a < n; a++ {
				if a == b || a == c || !g.adj(a, b) || M[b][a] != Arrow || !g.directed(a, c) {
					continue
				}
				d, ok := discriminating(g, a, b, c)
				if !ok {
					continue
				}
				set, known := sep[[2]int{min(d, c), max(d, c)}]
				if !known {
					continue
				}
				if slices.Contains(set, b) {
					changed = g.mark(b, c, Arrow) && g.mark(c, b, Tail) || changed
				} else {
					changed = g.mark(b, a, Arrow) && g.mark(c, b, Arrow) && g.mark(b, c, Arrow) || changed
				}
				break
			}
		}
	}
	return changed
}

// discriminating looks for the start d of a discriminating path ⟨d, ...,
// a, b, c⟩ for b: d not adjacent to c, and every node between d and b a
// collider on the path and a parent of c. a is such a node already (a
// <-* b, a → c); the search goes back from a by breadth.
func discriminating(g *PAG, a, b, c int) (int, bool) {
	n, M := g.N, g.M
	seen := make([]bool, n)
	seen[a], seen[b], seen[c] = true, true, true
	queue := []int{a}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for w := 0; w < n; w++ {
			// w *-> v: v is a collider on ⟨w, v, next⟩.
			if seen[w] || !g.adj(w, v) || M[w][v] != Arrow {
				continue
			}
			if !g.adj(w, c) {
				return w, true
			}
			// w continues the path: a collider (arrowhead at w from v)
			// and a parent of c.
			if M[v][w] == Arrow && g.directed(w, c) {
				seen[w] = true
				queue = append(queue, w)
			}
		}
	}
	return 0, false
}

// rulesR5to7 applies R5–R7 once; reports any change.
func rulesR5to7(g *PAG) bool {
	n, M := g.N, g.M
	changed := false
	// R5: a o-o b with an uncovered circle path ⟨a, c, ..., d, b⟩, a and d
	// not adjacent, b and c not adjacent: a — b and the path all tails.
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			if a == b || !g.adj(a, b) || M[a][b] != Circle || M[b][a] != Circle {
				continue
			}
			circle := func(x, y int) bool { return M[x][y] == Circle && M[y][x] == Circle }
			if p := uncoveredPath(g, a, b, circle, func(c int) bool { return !g.adj(b, c) }, func(d int) bool { return !g.adj(a, d) }); p != nil {
				g.mark(a, b, Tail)
				g.mark(b, a, Tail)
				for k := 0; k+1 < len(p); k++ {
					g.mark(p[k], p[k+1], Tail)
					g.mark(p[k+1], p[k], Tail)
				}
				changed = true
			}
		}
	}
	for b := 0; b < n; b++ {
		for c := 0; c < n; c++ {
			if b == c || !g.adj(b, c) || M[c][b] != Circle {
				continue
			}
			for a := 0; a < n; a++ {
				if a == b || a == c || !g.adj(a, b) {
					continue
				}
				// R6: a — b o-* c: b -* c.
				// R7: a -o b o-* c, a and c not adjacent: b -* c.
				if (M[a][b] == Tail && M[b][a] == Tail) || (M[b][a] == Tail && M[a][b] == Circle && !g.adj(a, c)) {
					changed = g.mark(c, b, Tail) || changed
					break
				}
			}
		}
	}
	return changed
}

// rulesR8to10 applies R8–R10 once; reports any change. Each turns a o→ c
// into a → c.
func rulesR8to10(g *PAG) bool {
	n, M := g.N, g.M
	changed := false
	pd := func(x, y int) bool { return M[y][x] != Arrow && M[x][y] != Tail } // potentially directed x to y
	for a := 0; a < n; a++ {
		for c := 0; c < n; c++ {
			if a == c || !g.adj(a, c) || M[a][c] != Arrow || M[c][a] != Circle {
				continue
			}
			orient := false
			// R8: a → b → c, or a -o b → c.
			for b := 0; b < n && !orient; b++ {
				if b != a && b != c && g.adj(a, b) && M[b][a] == Tail && (M[a][b] == Arrow || M[a][b] == Circle) && g.directed(b, c) {
					orient = true
				}
			}
			// R9: an uncovered potentially directed path ⟨a, b, ..., c⟩
			// with b and c not adjacent.
			if !orient && uncoveredPath(g, a, c, pd, func(b int) bool { return !g.adj(b, c) }, nil) != nil {
				orient = true
			}
			// R10: b → c ← d, uncovered potentially directed paths from
			// a to b and from a to d whose second nodes μ ≠ ω are not
			// adjacent (μ = b when the path is the edge a *-* b).
			if !orient {
				orient = ruleR10(g, a, c, pd)
			}
			if orient {
				changed = g.mark(c, a, Tail) || changed
			}
		}
	}
	return changed
}

func ruleR10(g *PAG, a, c int, pd func(x, y int) bool) bool {
	n := g.N
	var parents []int
	for b := 0; b < n; b++ {
		if b != a && g.adj(b, c) && g.directed(b, c) {
			parents = append(parents, b)
		}
	}
	if len(parents) < 2 {
		return false
	}
	// firsts[b]: the second nodes μ of uncovered p.d. paths from a to b.
	firsts := map[int][]int{}
	for _, b := range parents {
		for mu := 0; mu < n; mu++ {
			if mu == c || !g.adj(a, mu) || !pd(a, mu) {
				continue
			}
			if mu == b || uncoveredPathVia(g, a, mu, b, pd) {
				firsts[b] = append(firsts[b], mu)
			}
		}
	}
	for x, b := range parents {
		for _, d := range parents[x+1:] {
			for _, mu := range firsts[b] {
				for _, om := range firsts[d] {
					if mu != om && !g.adj(mu, om) {
						return true
					}
				}
			}
		}
	}
	return false
}

// uncoveredPath returns an uncovered path ⟨from, x, ..., y, to⟩ of at
// least three nodes whose every edge ⟨u, v⟩ satisfies ok(u, v), with
// second(x) and (if given) last(y), or nil. The direct edge from *-* to is
// not a path here.
func uncoveredPath(g *PAG, from, to int, ok func(u, v int) bool, second, last func(int) bool) []int {
	n := g.N
	for x := 0; x < n; x++ {
		if x == to || x == from || !g.adj(from, x) || !ok(from, x) || !second(x) {
			continue
		}
		path := []int{from, x}
		onPath := make([]bool, n)
		onPath[from], onPath[x] = true, true
		var dfs func() bool
		dfs = func() bool {
			u, v := path[len(path)-2], path[len(path)-1]
			for w := 0; w < n; w++ {
				if onPath[w] || !g.adj(v, w) || !ok(v, w) || g.adj(u, w) {
					continue
				}
				if w == to {
					if last == nil || last(v) {
						path = append(path, w)
						return true
					}
					continue
				}
				path = append(path, w)
				onPath[w] = true
				if dfs() {
					return true
				}
				onPath[w] = false
				path = path[:len(path)-1]
			}
			return false
		}
		if dfs() {
			return path
		}
	}
	return nil
}

// uncoveredPathVia reports an uncovered path ⟨from, via, ..., to⟩ whose
// edges all satisfy ok.
func uncoveredPathVia(g *PAG, from, via, to int, ok func(u, v int) bool) bool {
	if via == to {
		return true
	}
	return uncoveredPath(g, from, to, ok, func(x int) bool { return x == via }, nil) != nil
}
