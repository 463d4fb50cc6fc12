package ad

// A recurrence recorded step by step (iterate's s_t = f(s_{t-1}, t, p)) is
// the same few nodes again and again: GARCH(1,1)'s variance is six per
// step, 199 steps. Replay and Gradient take each node through a switch on
// its kind, about 2.5 ns a node each way. Loop turns the steps into one
// vector operation that computes the same nodes in a better order: the
// nodes that do not depend on earlier steps (GARCH's ω + α(y_t − μ)²) a
// template position at a time over all steps, one tight loop per kind, and
// only the recurrent ones (β·s_{t−1} and the sum) step by step. The nodes
// stay where they are, with their parents and partial derivatives in the
// tape's lists, so values and partials are computed by the expressions
// Replay uses and are the same to the bit; a parameter's adjoint is summed
// in another order where several template positions feed it, so the
// gradient agrees to rounding.

// loopKinds are the kinds a loop's template may hold: the scalar
// operations with a fixed number of parents that Replay computes itself.
var loopKinds = [...]bool{kConst: true, kAdd: true, kSub: true, kMul: true, kDiv: true, kPow: true,
	kAddConst: true, kMulConst: true, kConstDiv: true, kPowConst: true, kConstPow: true, kNeg: true,
	kExp: true, kLog: true, kSqrt: true, kConstSub: true}

// loopParent is where a template node's parent is at step s: the node
// base + s·stride (stride 0 for a node before the loop, the same at every
// step; stride K for one at a fixed offset from the step's nodes).
type loopParent struct {
	base, stride int
}

// loopNode is one template position j: its kind, its parents, and where
// its node and its partials are at step 0 (node + s·K, d + s·P at step s).
type loopNode struct {
	kind    kind
	np      int
	par     [2]loopParent
	node, d int
}

// loop is the vector operation Loop records.
type loop struct {
	steps, k, p int        // steps of k nodes with p parents each
	free, rec   []loopNode // in template order
	ext         []Var      // parents outside the loop
	// affine is set when the recurrent positions are s_t = c_t + m_t with
	// m_t = b·s_{t−1} (affine.go).
	affine *affine
}

// Loop folds the last steps of a recurrence into one vector operation when
// they are the same computation: ends[s] is the tape's length after step s
// (ends[0] its length before step 1, so that step s is the nodes
// ends[s−1] to ends[s]−1), and the last step ends the tape. It folds the
// longest run of final steps, at least minLoopSteps, whose nodes have the
// same kinds and parents (the same node before the run, or the same
// offset from the step), all of kinds Replay computes itself, and reports
// whether it did. A recording made only of such nodes is replayable before
// and after.
func (t *Tape) Loop(ends []int) bool {
	n := len(ends) - 1
	if n < minLoopSteps || ends[n] != len(t.val) {
		return false
	}
	k := ends[n] - ends[n-1]
	if k <= 0 {
		return false
	}
	// first is the first step that has the last step's shape.
	first := n
	for first > 1 && t.sameStep(ends[first-2], ends[first-1], ends[n-1], k) {
		first--
	}
	steps := n - first + 1
	if steps < minLoopSteps || ends[first-1] < 0 {
		return false
	}
	lo := ends[first-1]
	for i := lo; i < ends[n]; i++ {
		if kk := t.kind[i]; int(kk) >= len(loopKinds) || !loopKinds[kk] {
			return false
		}
	}
	op := &loop{steps: steps, k: k, p: int(t.off[lo+k] - t.off[lo])}
	recurrent := make([]bool, k)
	seen := map[Var]bool{}
	for j := range k {
		i := lo + j
		nd := loopNode{kind: t.kind[i], np: int(t.off[i+1] - t.off[i]), node: i, d: int(t.off[i])}
		if nd.np > 2 {
			return false
		}
		for q := range nd.np {
			p0 := t.par[int(t.off[i])+q]
			p1 := t.par[int(t.off[i+k])+q] // the same parent at the next step
			switch {
			case p0 == p1 && int(p0) < lo:
				nd.par[q] = loopParent{base: int(p0)}
				if !seen[p0] {
					seen[p0] = true
					op.ext = append(op.ext, p0)
				}
			case int(p1)-int(p0) == k:
				nd.par[q] = loopParent{base: int(p0), stride: k}
				r := int(p0) - lo // the parent's offset from step 0's nodes
				for x := int(p0); x < lo; x += k {
					if v := Var(x); !seen[v] {
						seen[v] = true
						op.ext = append(op.ext, v)
					}
				}
				if r < 0 || recurrent[r] {
					recurrent[j] = true
				}
			default:
				return false
			}
		}
		// Every step's parents must be where the template says (sameStep
		// checked them against the last step's relative to its own).
		if recurrent[j] {
			op.rec = append(op.rec, nd)
		} else {
			op.free = append(op.free, nd)
		}
	}
	for s := range steps {
		for _, nds := range [][]loopNode{op.free, op.rec} {
			for _, nd := range nds {
				i := nd.node + s*k
				if int(t.off[i]) != nd.d+s*op.p {
					return false
				}
				for q := range nd.np {
					if int(t.par[nd.d+s*op.p+q]) != nd.par[q].base+s*nd.par[q].stride {
						return false
					}
				}
			}
		}
	}
	for i := lo; i < ends[n]; i++ {
		t.kind[i] = kRun
	}
	op.affine = affineOf(op, lo)
	t.runs = append(t.runs, run{lo: int32(lo), hi: int32(ends[n]), op: op})
	return true
}

// minLoopSteps is the fewest steps Loop folds.
const minLoopSteps = 4

// sameStep reports whether the k nodes from a have the kinds and parent
// counts of the k nodes from b, and each parent is the same node before a
// or at the same offset from its step (a node of the step or of one
// before it).
func (t *Tape) sameStep(a, aEnd, b, k int) bool {
	if aEnd-a != k || a < 0 {
		return false
	}
	for j := range k {
		i, m := a+j, b+j
		if t.kind[i] != t.kind[m] || t.off[i+1]-t.off[i] != t.off[m+1]-t.off[m] {
			return false
		}
		for q := range int(t.off[i+1] - t.off[i]) {
			p, r := int(t.par[int(t.off[i])+q]), int(t.par[int(t.off[m])+q])
			if p != r && p-a != r-b {
				return false
			}
		}
	}
	return true
}

func (op *loop) operands() [][]Var { return [][]Var{op.ext} }

// forward computes the free positions column by column, then the
// recurrent ones step by step, each node as Replay computes it.
func (op *loop) forward(t *Tape, _ []float64) {
	val, d, cst := t.val, t.d, t.cst
	k, p := op.k, op.p
	for _, nd := range op.free {
		a, b := nd.par[0], nd.par[1]
		i, di := nd.node, nd.d
		switch nd.kind {
		case kConst:
		case kAdd:
			if a.stride == 0 { // a parameter plus a term of the step
				x := val[a.base]
				for s, o, ib := 0, i, b.base; s < op.steps; s, o, ib = s+1, o+k, ib+b.stride {
					val[o] = x + val[ib]
				}
				break
			}
			for s := range op.steps {
				val[i+s*k] = val[a.base+s*a.stride] + val[b.base+s*b.stride]
			}
		case kSub:
			for s := range op.steps {
				val[i+s*k] = val[a.base+s*a.stride] - val[b.base+s*b.stride]
			}
		case kMul:
			if a.stride == 0 { // a parameter times a term of the step
				x := val[a.base]
				for s, o, ib, id := 0, i, b.base, di; s < op.steps; s, o, ib, id = s+1, o+k, ib+b.stride, id+p {
					y := val[ib]
					val[o], d[id], d[id+1] = x*y, y, x
				}
				break
			}
			for s := range op.steps {
				x, y := val[a.base+s*a.stride], val[b.base+s*b.stride]
				val[i+s*k], d[di+s*p], d[di+s*p+1] = x*y, y, x
			}
		case kAddConst:
			for s := range op.steps {
				val[i+s*k] = val[a.base+s*a.stride] + cst[i+s*k]
			}
		case kMulConst:
			for s := range op.steps {
				val[i+s*k] = cst[i+s*k] * val[a.base+s*a.stride]
			}
		case kNeg:
			for s := range op.steps {
				val[i+s*k] = -val[a.base+s*a.stride]
			}
		case kConstSub:
			if a.stride == 0 { // y_t − a parameter
				x := val[a.base]
				for s, o := 0, i; s < op.steps; s, o = s+1, o+k {
					val[o] = cst[o] - x
				}
				break
			}
			for s := range op.steps {
				val[i+s*k] = cst[i+s*k] - val[a.base+s*a.stride]
			}
		case kPowConst:
			for s, o, ia, id := 0, i, a.base, di; s < op.steps; s, o, ia, id = s+1, o+k, ia+a.stride, id+p {
				if c := cst[o]; c == 2 {
					x := val[ia]
					val[o], d[id] = x*x, 2*x
				} else {
					nodeAt(t, &nd, s, k, p)
				}
			}
		default:
			for s := range op.steps {
				nodeAt(t, &nd, s, k, p)
			}
		}
	}
	if len(op.rec) == 0 {
		return
	}
	if op.affine != nil {
		op.affine.forward(t, op)
		return
	}
	for s := range op.steps {
		for j := range op.rec {
			nd := &op.rec[j]
			i := nd.node + s*k
			x := val[nd.par[0].base+s*nd.par[0].stride]
			switch nd.kind {
			case kAdd:
				val[i] = x + val[nd.par[1].base+s*nd.par[1].stride]
			case kMul:
				y := val[nd.par[1].base+s*nd.par[1].stride]
				di := nd.d + s*p
				val[i], d[di], d[di+1] = x*y, y, x
			default:
				nodeAt(t, nd, s, k, p)
			}
		}
	}
}

// nodeAt computes template node nd at step s as Replay computes it.
func nodeAt(t *Tape, nd *loopNode, s, k, p int) {
	val, d := t.val, t.d
	i, di := nd.node+s*k, nd.d+s*p
	a := nd.par[0].base + s*nd.par[0].stride
	switch c := t.cst[i]; nd.kind {
	case kConst:
	case kAdd:
		val[i] = val[a] + val[nd.par[1].base+s*nd.par[1].stride]
	case kSub:
		val[i] = val[a] - val[nd.par[1].base+s*nd.par[1].stride]
	case kMul:
		x, y := val[a], val[nd.par[1].base+s*nd.par[1].stride]
		val[i], d[di], d[di+1] = x*y, y, x
	case kAddConst:
		val[i] = val[a] + c
	case kMulConst:
		val[i] = c * val[a]
	case kNeg:
		val[i] = -val[a]
	case kConstSub:
		val[i] = c - val[a]
	case kPowConst:
		if c == 2 {
			x := val[a]
			val[i], d[di] = x*x, 2*x
		} else {
			val[i], d[di] = eval1(nd.kind, c, val[a])
		}
	case kDiv, kPow:
		val[i], d[di], d[di+1] = eval2(nd.kind, val[a], val[nd.par[1].base+s*nd.par[1].stride])
	default:
		val[i], d[di] = eval1(nd.kind, c, val[a])
	}
}

// backward propagates the nodes' adjoints, as Gradient would node by
// node: the recurrent positions step by step from the last, then the free
// ones column by column from the last position. A parent outside the loop
// sums its column's terms in a register, in the order Gradient adds them.
func (op *loop) backward(t *Tape, _, adj []float64) {
	d := t.d
	k, p := op.k, op.p
	if op.affine != nil {
		op.affine.backward(t, op, adj)
	}
	for s := op.steps - 1; s >= 0 && op.affine == nil; s-- {
		for j := len(op.rec) - 1; j >= 0; j-- {
			nd := &op.rec[j]
			a := adj[nd.node+s*k]
			if a == 0 {
				continue
			}
			di := nd.d + s*p
			switch nd.np {
			case 1:
				adj[nd.par[0].base+s*nd.par[0].stride] += a * d[di]
			case 2:
				adj[nd.par[0].base+s*nd.par[0].stride] += a * d[di]
				adj[nd.par[1].base+s*nd.par[1].stride] += a * d[di+1]
			}
		}
	}
	for j := len(op.free) - 1; j >= 0; j-- {
		nd := &op.free[j]
		if nd.np == 0 {
			continue
		}
		x, y := nd.par[0], nd.par[1]
		i, di := nd.node+(op.steps-1)*k, nd.d+(op.steps-1)*p
		xi, yi := x.base+(op.steps-1)*x.stride, y.base+(op.steps-1)*y.stride
		switch {
		case nd.np == 1 && x.stride == 0:
			acc := adj[xi]
			for ; i >= nd.node; i, di = i-k, di-p {
				if a := adj[i]; a != 0 {
					acc += a * d[di]
				}
			}
			adj[xi] = acc
		case nd.np == 1:
			for ; i >= nd.node; i, di, xi = i-k, di-p, xi-k {
				if a := adj[i]; a != 0 {
					adj[xi] += a * d[di]
				}
			}
		case x.stride == 0 && y.stride != 0:
			acc := adj[xi]
			for ; i >= nd.node; i, di, yi = i-k, di-p, yi-k {
				if a := adj[i]; a != 0 {
					acc += a * d[di]
					adj[yi] += a * d[di+1]
				}
			}
			adj[xi] = acc
		case x.stride != 0 && y.stride == 0:
			acc := adj[yi]
			for ; i >= nd.node; i, di, xi = i-k, di-p, xi-k {
				if a := adj[i]; a != 0 {
					adj[xi] += a * d[di]
					acc += a * d[di+1]
				}
			}
			adj[yi] = acc
		default:
			for ; i >= nd.node; i, di, xi, yi = i-k, di-p, xi-x.stride, yi-y.stride {
				if a := adj[i]; a != 0 {
					adj[xi] += a * d[di]
					adj[yi] += a * d[di+1]
				}
			}
		}
	}
}
