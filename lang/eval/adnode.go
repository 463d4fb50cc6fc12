package eval

import "github.com/kml-lang/kml/runtime/ad"

// FuncNode is the number f computes from params: f(x, d) returns the value at
// the params' values x (one per param, in order) and writes the partial
// derivatives with respect to them into d. When no param is on a tape the
// result is the Num f gives. Otherwise it is one replayable tape node
// (ad.Tape.Func) whose parents are the params on the tape; the other
// params (plain numbers) are constants, captured with their values, so f
// always sees every param and the partials it writes for the constants are
// dropped. f is called again at every replay, so it must depend on nothing
// but x and what it captured, and return NaN where the computation would
// take another path than at recording (a check failing).
//
// A param that is neither a number nor a number on a tape is a programming
// error (FuncNode panics): callers convert their arguments first.
func FuncNode(params []Value, f ad.Fn) Value {
	var t *ad.Tape
	var parents []ad.Var
	var where []int // where[j] is parent j's index in params
	xs := make([]float64, len(params))
	for i, p := range params {
		switch p := p.(type) {
		case Num:
			xs[i] = float64(p)
		case *ADNum:
			if t == nil {
				t = p.T
			}
			parents = append(parents, p.V)
			where = append(where, i)
		default:
			panic("eval.FuncNode: a param is not a number")
		}
	}
	if t == nil {
		return Num(f(xs, make([]float64, len(params))))
	}
	if len(where) == len(params) {
		return &ADNum{T: t, V: t.Func(parents, f)}
	}
	// Some params are constants: f sees them at their values, and only
	// the partials of the parents reach the tape.
	full := xs
	dfull := make([]float64, len(params))
	return &ADNum{T: t, V: t.Func(parents, func(x, d []float64) float64 {
		for j, i := range where {
			full[i] = x[j]
		}
		clear(dfull)
		v := f(full, dfull)
		for j, i := range where {
			d[j] = dfull[i]
		}
		return v
	})}
}
