package core

import (
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
)

func registerIterate(reg *eval.Registry) {
	it := reg.Register("iterate(f, init, n, with?)",
		"Runs a recursion without recursion depth: s_t = f(s_(t-1), t) for t = 1..n from s_0 = init (a number or a vector), and returns s_1..s_n as a vector or as the rows of a matrix. With with: w it calls f(s_(t-1), t, w), so f can read values it cannot see (a model's parameters, as a record). Inside a model a number state may depend on the parameters: the recursion is differentiated in O(n), the way to write an AR, GARCH or state-space likelihood. For simulating state-space models and writing filters.",
		func(a *eval.Args) (eval.Value, error) {
			var f, s eval.Value
			var n eval.PositiveInt
			if err := a.Unpack("f", &f, "init", &s, "n", &n); err != nil {
				return nil, err
			}
			if _, ok := f.(eval.Callable); !ok {
				return nil, a.Errorf("f", "f must be a function of the state and the step, got %s", eval.Describe(f))
			}
			with := a.Given("with")
			width := -1
			var out []float64
			// A state on the tape is kept as its node; every state is
			// then one number (vectors of parameters' values do not make
			// a matrix).
			var tape *ad.Tape
			var steps []eval.Value
			// ends[t] is the tape's length after step t (−1 where step t's
			// state is not on the tape, and before step 1), for Loop.
			ends := []int{-1}
			// A long simulation draws its steps; inside a model or
			// another builtin's loop the outer line stays.
			task := a.Progress("steps", int(n))
			defer task.Done()
			for t := 1; t <= int(n); t++ {
				if err := a.Step(task); err != nil {
					return nil, err
				}
				args := []eval.Value{s, eval.Num(t)}
				if with {
					args = append(args, a.Value("with"))
				}
				next, err := a.Th.CallValue(a.PosOf("f"), f, args...)
				if err != nil {
					return nil, err
				}
				end := -1
				switch v := next.(type) {
				case *eval.ADNum:
					tape = v.T
					end = tape.Len()
				case *eval.ADVec:
					return nil, a.Errorf("f", "f returned a vector that depends on model parameters at step %d; inside a model the state must be one number", t)
				}
				// A state on the tape is one number, whose value the
				// recursion does not need (reading it would tie the
				// recording to this point).
				xs, ok := []float64{0}, true
				if _, isAD := next.(*eval.ADNum); !isAD {
					xs, ok = eval.ToFloats(next)
				}
				if !ok {
					return nil, a.Errorf("f", "f must return a number or a vector, got %s at step %d", eval.Describe(next), t)
				}
				if width >= 0 && len(xs) != width {
					return nil, a.Errorf("f", "f returned %d values at step 1 and %d at step %d", width, len(xs), t)
				}
				width = len(xs)
				ends = append(ends, end)
				out = append(out, xs...)
				steps = append(steps, next)
				s = next
			}
			if width == 0 {
				return nil, a.Errorf("f", "f returned an empty vector")
			}
			if tape != nil {
				if width != 1 {
					return nil, a.Errorf("f", "f returned %d values; inside a model, where the state depends on the parameters, it must be one number", width)
				}
				// Steps that are the same computation become one vector
				// operation on the tape, which replays and differentiates
				// them without a dispatch per node.
				tape.Loop(ends)
				vs := make([]ad.Var, len(steps))
				for i, v := range steps {
					if x, ok := v.(*eval.ADNum); ok {
						vs[i] = x.V
					} else {
						vs[i] = tape.Input(out[i])
					}
				}
				return &eval.ADVec{T: tape, Vs: vs}, nil
			}
			if width == 1 {
				return &eval.Vec{Data: out}, nil
			}
			return eval.NewMat(mat.NewDense(int(n), width, out)), nil
		})
	it.AD = true
}
