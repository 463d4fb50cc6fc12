package ast

// Inspect calls f on n and, while f returns true, on each of n's children in
// source order.
func Inspect(n Node, f func(Node) bool) {
	if n == nil || !f(n) {
		return
	}
	switch n := n.(type) {
	case *File:
		for _, s := range n.Stmts {
			Inspect(s, f)
		}
	case *Let:
		Inspect(n.Name, f)
		Inspect(n.Value, f)
	case *Fn:
		Inspect(n.Name, f)
		for _, p := range n.Params {
			Inspect(p, f)
		}
		Inspect(n.Body, f)
	case *Model:
		Inspect(n.Name, f)
		for _, p := range n.Params {
			Inspect(p, f)
		}
		for _, s := range n.Body {
			Inspect(s, f)
		}
	case *Import:
		Inspect(n.Path, f)
	case *ExprStmt:
		Inspect(n.X, f)
	case *Tilde:
		Inspect(n.LHS, f)
		Inspect(n.Dist, f)
	case *Assign:
		Inspect(n.Name, f)
		Inspect(n.Value, f)
	case *Target:
		Inspect(n.Value, f)
	case *Generated:
		for _, a := range n.Body {
			Inspect(a, f)
		}
	case *Vector:
		for _, e := range n.Elems {
			Inspect(e, f)
		}
	case *Record:
		for _, fl := range n.Fields {
			Inspect(fl.Name, f)
			Inspect(fl.Value, f)
		}
	case *Selector:
		Inspect(n.X, f)
	case *Slice:
		if n.Lo != nil {
			Inspect(n.Lo, f)
		}
		if n.Hi != nil {
			Inspect(n.Hi, f)
		}
	case *Index:
		Inspect(n.X, f)
		for _, e := range n.Indices {
			Inspect(e, f)
		}
	case *Call:
		Inspect(n.Fn, f)
		for _, e := range n.Args {
			Inspect(e, f)
		}
		for _, a := range n.Named {
			Inspect(a.Name, f)
			Inspect(a.Value, f)
		}
	case *Binary:
		Inspect(n.X, f)
		Inspect(n.Y, f)
	case *Unary:
		Inspect(n.X, f)
	case *If:
		Inspect(n.Cond, f)
		Inspect(n.Then, f)
		Inspect(n.Else, f)
	}
}
