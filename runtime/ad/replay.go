package ad

import "math"

// A tape is also a program: every node remembers how it was computed (its
// kind, with a constant for the kinds that take one), so Replay can
// compute all of them again, in recorded order, at new input values. A
// node whose computation the tape does not know (Node with parents, Open)
// or a value read out of the tape by its caller (Value, Taint) makes the
// recording not replayable: the caller records afresh instead.

// kind is how a node was computed.
type kind uint8

const (
	kConst  kind = iota // Input, or Node without parents: its value stays
	kOpaque             // Node with parents, Open: not computable again
	kAdd
	kSub
	kMul
	kDiv
	kPow
	kAddConst
	kMulConst
	kConstDiv
	kPowConst
	kConstPow
	kNeg
	kExp
	kLog
	kSqrt
	kSum
	kFunc  // Func: its function is in fns
	kGuard // Guard: its check is in guards
	kRun   // a result of a vector operation: its op is in runs
	kConstSub
)

// eval2 is the value of a binary operation and its partials with respect
// to a and b; recording and Replay both call it, so they agree to the bit.
func eval2(k kind, a, b float64) (v, da, db float64) {
	switch k {
	case kAdd:
		return a + b, 1, 1
	case kSub:
		return a - b, 1, -1
	case kMul:
		return a * b, b, a
	case kDiv:
		q := a / b
		return q, 1 / b, -q / b
	case kPow:
		// The derivative with respect to b needs a > 0 and is taken as 0
		// where a^b does not depend on b (a = 0 with b > 0).
		p := math.Pow(a, b)
		var dy float64
		if a > 0 {
			dy = p * math.Log(a)
		} else if a < 0 || b <= 0 {
			dy = math.NaN()
		}
		return p, b * math.Pow(a, b-1), dy
	}
	panic("ad: eval2 of a unary kind")
}

// eval1 is the value of a unary operation with constant c, and its
// derivative.
func eval1(k kind, c, x float64) (v, dx float64) {
	switch k {
	case kAddConst:
		return x + c, 1
	case kMulConst:
		return c * x, c
	case kConstDiv:
		q := c / x
		return q, -q / x
	case kPowConst:
		if c == 2 {
			return x * x, 2 * x
		}
		return math.Pow(x, c), c * math.Pow(x, c-1)
	case kConstPow:
		p := math.Pow(c, x)
		return p, p * math.Log(c)
	case kNeg:
		return -x, -1
	case kConstSub:
		return c - x, -1
	case kExp:
		e := math.Exp(x)
		return e, e
	case kLog:
		return math.Log(x), 1 / x
	case kSqrt:
		s := math.Sqrt(x)
		return s, 0.5 / s
	}
	panic("ad: eval1 of a binary kind")
}

// op1 records a unary operation of kind k on a.
func (t *Tape) op1(k kind, c float64, a Var) Var {
	v, da := eval1(k, c, t.val[a])
	t.val = append(t.val, v)
	t.par = append(t.par, a)
	t.d = append(t.d, da)
	t.off = append(t.off, int32(len(t.par)))
	t.kind = append(t.kind, k)
	t.cst = append(t.cst, c)
	return Var(len(t.val) - 1)
}

// op2 records a binary operation of kind k on a and b.
func (t *Tape) op2(k kind, a, b Var) Var {
	v, da, db := eval2(k, t.val[a], t.val[b])
	t.val = append(t.val, v)
	t.par = append(t.par, a, b)
	t.d = append(t.d, da, db)
	t.off = append(t.off, int32(len(t.par)))
	t.kind = append(t.kind, k)
	t.cst = append(t.cst, 0)
	return Var(len(t.val) - 1)
}

// Taint marks the recording as not replayable: its caller made a decision
// or took a number from a tape value that Replay would not make again.
func (t *Tape) Taint() {
	if t.why.cause == 0 {
		t.note(Tainted, -1)
	}
}

// Replay sets the inputs in to x and computes every node again in recorded
// order, as recording computed it, so that Gradient then differentiates
// at x; nothing is allocated. It needs a replayable tape. ok is false when
// a Guard's check gives another answer than at recording, or a Func node's
// value is NaN (a Func returns NaN where recording would have taken
// another path): the caller must then record afresh.
func (t *Tape) Replay(in []Var, x []float64) (ok bool) {
	if len(in) != len(x) {
		panic("ad: Replay needs one value per input")
	}
	for i, v := range in {
		if t.kind[v] != kConst {
			panic("ad: Replay of a value into a computed node")
		}
		t.val[v] = x[i]
	}
	ok = true
	val, par, d, cst := t.val, t.par, t.d, t.cst
	kinds, off := t.kind[:len(val)], t.off[:len(val)+1]
	nf, ng, nr := 0, 0, 0
	for i := 0; i < len(val); i++ {
		lo := off[i]
		// The commonest kinds are computed here, as eval1 and eval2
		// compute them (the same expressions, so the same bits), to save
		// a call per node; the rest go through them.
		switch k := kinds[i]; k {
		case kConst:
		case kAdd:
			val[i] = val[par[lo]] + val[par[lo+1]]
		case kSub:
			val[i] = val[par[lo]] - val[par[lo+1]]
		case kMul:
			a, b := val[par[lo]], val[par[lo+1]]
			val[i], d[lo], d[lo+1] = a*b, b, a
		case kAddConst:
			val[i] = val[par[lo]] + cst[i]
		case kMulConst:
			val[i] = cst[i] * val[par[lo]]
		case kNeg:
			val[i] = -val[par[lo]]
		case kConstSub:
			val[i] = cst[i] - val[par[lo]]
		case kPowConst:
			if c := cst[i]; c == 2 {
				x := val[par[lo]]
				val[i], d[lo] = x*x, 2*x
			} else {
				val[i], d[lo] = eval1(k, c, val[par[lo]])
			}
		case kSqrt:
			// A vector's σ = sqrt(v) is one of these per element.
			r := math.Sqrt(val[par[lo]])
			val[i], d[lo] = r, 0.5/r
		case kOpaque:
			panic("ad: Replay of a tape that is not replayable")
		case kDiv, kPow:
			val[i], d[lo], d[lo+1] = eval2(k, val[par[lo]], val[par[lo+1]])
		case kSum:
			// Index loops: re-slicing par costs more than the few
			// edges a node has.
			s := 0.0
			for j := lo; j < off[i+1]; j++ {
				s += val[par[j]]
			}
			val[i] = s
		case kFunc:
			fn := t.fns[nf]
			nf++
			hi := off[i+1]
			var xs []float64
			if f := int(fn.first); f >= 0 {
				// Consecutive parents: their values as they lie.
				xs = val[f : f+int(hi-lo) : f+int(hi-lo)]
			} else {
				xs = t.scratch(int(hi - lo))
				for j := lo; j < hi; j++ {
					xs[j-lo] = val[par[j]]
				}
			}
			dd := d[lo:hi]
			clear(dd)
			val[i] = fn.f(xs, dd)
			if math.IsNaN(val[i]) {
				ok = false
			}
		case kGuard:
			g := t.guards[ng]
			ng++
			hi := off[i+1]
			xs := t.scratch(int(hi - lo))
			for j, p := range par[lo:hi] {
				xs[j] = val[p]
			}
			if g.pred(xs) != g.want {
				ok = false
			}
		case kRun:
			r := t.runs[nr]
			nr++
			r.op.forward(t, val[r.lo:r.hi])
			i = int(r.hi) - 1
		default:
			val[i], d[lo] = eval1(k, cst[i], val[par[lo]])
		}
	}
	return ok
}
