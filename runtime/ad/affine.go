package ad

// GARCH's variance, an AR(1) state, an exponential smoother: the
// recurrent part of most recurrences is s_t = c_t + b·s_{t−1}, two nodes
// a step, M (kMul with b, or kMulConst) and then S (kAdd of c_t and M),
// where c_t and b do not depend on earlier steps. Step by step through
// the tape's arrays, every step waits for the previous step's value to be
// stored and loaded again, both ways; affine keeps the state (forward) and
// its adjoint (backward) in registers instead. It computes the nodes
// with the same expressions and adds into each adjoint in the same order,
// so values and gradients are the general loop's to the bit.

// affine is where M's and S's parents are.
type affine struct {
	m, s loopNode
	// mState and mCoef are M's parent slots holding s_{t−1} and b (mCoef
	// −1 for kMulConst); sM and sC are S's slots holding M and c_t.
	mState, mCoef, sM, sC int
}

// affineOf is op's recurrent part as an affine recurrence, or nil.
func affineOf(op *loop, lo int) *affine {
	if len(op.rec) != 2 {
		return nil
	}
	m, s := op.rec[0], op.rec[1]
	if s.kind != kAdd || (m.kind != kMul && m.kind != kMulConst) {
		return nil
	}
	a := &affine{m: m, s: s, mCoef: -1, sM: -1}
	prev := loopParent{base: s.node - op.k, stride: op.k} // S at the step before
	self := loopParent{base: m.node, stride: op.k}        // M at this step
	switch {
	case m.kind == kMulConst && m.par[0] == prev:
		a.mState = 0
	case m.kind == kMul && m.par[0] == prev && m.par[1] != prev:
		a.mState, a.mCoef = 0, 1
	case m.kind == kMul && m.par[1] == prev && m.par[0] != prev:
		a.mState, a.mCoef = 1, 0
	default:
		return nil
	}
	for q := range 2 {
		if s.par[q] == self {
			a.sM, a.sC = q, 1-q
		}
	}
	if a.sM < 0 || s.par[a.sC] == self {
		return nil
	}
	// c_t must not depend on earlier steps (it is a free position or a
	// node before the loop) and must not be b when b's adjoint is summed
	// in a register.
	c := s.par[a.sC]
	if c.stride != 0 && (c.base < lo || c.base-lo >= op.k || isRec(op, c.base)) {
		return nil
	}
	if a.mCoef >= 0 {
		b := m.par[a.mCoef]
		// b must not be c or the state before the loop either, whose
		// adjoints are summed in memory.
		if b.stride != 0 && (b.base < lo || isRec(op, b.base)) || b == c || b.base == m.par[a.mState].base {
			return nil
		}
	}
	return a
}

// isRec reports whether the node at step 0 is one of op's recurrent
// positions.
func isRec(op *loop, node int) bool {
	for _, nd := range op.rec {
		if nd.node == node {
			return true
		}
	}
	return false
}

func (a *affine) forward(t *Tape, op *loop) {
	val, d, cst := t.val, t.d, t.cst
	k, p := op.k, op.p
	m, s := &a.m, &a.s
	c := s.par[a.sC]
	state := val[m.par[a.mState].base]
	for st := range op.steps {
		im, is, dm := m.node+st*k, s.node+st*k, m.d+st*p
		var v float64
		if a.mCoef < 0 {
			v = cst[im] * state
		} else {
			b := val[m.par[a.mCoef].base+st*m.par[a.mCoef].stride]
			x, y := state, b // M's parents in their slots
			if a.mState == 1 {
				x, y = b, state
			}
			v = x * y
			d[dm], d[dm+1] = y, x
		}
		val[im] = v
		cv := val[c.base+st*c.stride]
		if a.sM == 0 {
			state = v + cv
		} else {
			state = cv + v
		}
		val[is] = state
	}
}

func (a *affine) backward(t *Tape, op *loop, adj []float64) {
	d := t.d
	k, p := op.k, op.p
	m, s := &a.m, &a.s
	c := s.par[a.sC]
	var coef loopParent
	var coefAdj float64
	if a.mCoef >= 0 {
		coef = m.par[a.mCoef]
		if coef.stride == 0 {
			coefAdj = adj[coef.base]
		}
	}
	// carry is what M at the step after adds to S's adjoint here.
	carry, hasCarry := 0.0, false
	for st := op.steps - 1; st >= 0; st-- {
		is, im := s.node+st*k, m.node+st*k
		aS := adj[is]
		if hasCarry {
			aS += carry
			adj[is] = aS
		}
		hasCarry = false
		aM := adj[im]
		if aS != 0 {
			ds := s.d + st*p
			// S's parents in slot order: M and c_t.
			aM += aS * d[ds+a.sM]
			if a.sM == 0 {
				adj[im] = aM
				adj[c.base+st*c.stride] += aS * d[ds+1]
			} else {
				adj[c.base+st*c.stride] += aS * d[ds]
				adj[im] = aM
			}
		}
		if aM == 0 {
			continue
		}
		dm := m.d + st*p
		if a.mCoef < 0 {
			carry, hasCarry = aM*d[dm], true
			continue
		}
		toState, toCoef := aM*d[dm+a.mState], aM*d[dm+a.mCoef]
		if a.mState == 0 {
			carry, hasCarry = toState, true
			if coef.stride == 0 {
				coefAdj += toCoef
			} else {
				adj[coef.base+st*coef.stride] += toCoef
			}
		} else {
			if coef.stride == 0 {
				coefAdj += toCoef
			} else {
				adj[coef.base+st*coef.stride] += toCoef
			}
			carry, hasCarry = toState, true
		}
	}
	if hasCarry {
		adj[m.par[a.mState].base] += carry // the state before the loop
	}
	if a.mCoef >= 0 && coef.stride == 0 {
		adj[coef.base] = coefAdj
	}
}
