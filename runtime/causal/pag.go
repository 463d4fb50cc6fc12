package causal

// Mark is the mark at one end of an edge of a partial ancestral graph.
type Mark uint8

const (
	// NoEdge: the two nodes are not adjacent.
	NoEdge Mark = iota
	// Circle (o): in some Markov-equivalent MAG an arrowhead, in some a
	// tail.
	Circle
	// Arrow (>): the end is not an ancestor of the other end in any
	// equivalent MAG.
	Arrow
	// Tail (-): the end is an ancestor of the other end in every
	// equivalent MAG.
	Tail
)

// PAG is a partial ancestral graph (Richardson and Spirtes 2002; Zhang
// 2008): M[i][j] is the mark at j on the edge between i and j (NoEdge when
// not adjacent), so i → j is M[i][j] = Arrow, M[j][i] = Tail, and i o→ j is
// M[i][j] = Arrow, M[j][i] = Circle.
type PAG struct {
	N int
	M [][]Mark
}

// PAGEdge is an edge of a PAG with its marks: the mark at From and at To,
// To's mark the stronger (Arrow, then Circle, then Tail; From < To on a
// tie), so that "From o→ To", never "From ←o To".
type PAGEdge struct {
	From, To         int
	FromMark, ToMark Mark
}

// String writes the edge's marks: "o->", "<->", "o-o", "-->", "---", "--o".
func (e PAGEdge) String() string {
	from := map[Mark]string{Circle: "o", Arrow: "<", Tail: "-"}[e.FromMark]
	to := map[Mark]string{Circle: "o", Arrow: ">", Tail: "-"}[e.ToMark]
	return from + "-" + to
}

// rank orders marks for PAGEdge: Arrow above Circle above Tail.
func rank(m Mark) int {
	return map[Mark]int{Tail: 0, Circle: 1, Arrow: 2}[m]
}

// Edges lists the edges ordered by their smaller then larger end.
func (g *PAG) Edges() []PAGEdge {
	var out []PAGEdge
	for i := 0; i < g.N; i++ {
		for j := i + 1; j < g.N; j++ {
			if g.M[i][j] == NoEdge {
				continue
			}
			e := PAGEdge{i, j, g.M[j][i], g.M[i][j]}
			if rank(e.FromMark) > rank(e.ToMark) {
				e = PAGEdge{j, i, e.ToMark, e.FromMark}
			}
			out = append(out, e)
		}
	}
	return out
}

func (g *PAG) adj(a, b int) bool { return g.M[a][b] != NoEdge }

// directed reports a → b.
func (g *PAG) directed(a, b int) bool { return g.M[a][b] == Arrow && g.M[b][a] == Tail }

// newPAG returns the PAG with adj's edges, all o-o.
func newPAG(adj [][]bool) *PAG {
	n := len(adj)
	g := &PAG{N: n, M: make([][]Mark, n)}
	for i := range g.M {
		g.M[i] = make([]Mark, n)
		for j := range g.M[i] {
			if adj[i][j] {
				g.M[i][j] = Circle
			}
		}
	}
	return g
}

// mark sets the mark at y on the edge x *-* y to m, unless that makes the
// edge directed and closes a directed cycle with the PAG's directed edges;
// it reports whether the mark was set. With correct tests no orientation
// closes a cycle (the PAG of a MAG has none); with wrong ones FCI refuses
// it, as PC does, so the output's directed edges are always acyclic.
func (g *PAG) mark(x, y int, m Mark) bool {
	old := g.M[x][y]
	g.M[x][y] = m
	var from, to int
	switch {
	case g.directed(x, y):
		from, to = x, y
	case g.directed(y, x):
		from, to = y, x
	default:
		return true
	}
	if g.directedPath(to, from) {
		g.M[x][y] = old
		return false
	}
	return true
}

// directedPath reports a path from → … → to of directed edges.
func (g *PAG) directedPath(from, to int) bool {
	seen := make([]bool, g.N)
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
		for w := 0; w < g.N; w++ {
			if !seen[w] && g.directed(v, w) {
				stack = append(stack, w)
			}
		}
	}
	return false
}
