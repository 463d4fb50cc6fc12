package stdlib

import (
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
)

func init() {
	eval.Register("iterate(f, init, n)",
		"Runs a recursion without recursion depth: s_t = f(s_(t-1), t) for t = 1..n from s_0 = init (a number or a vector), and returns s_1..s_n as a vector or as the rows of a matrix. For simulating state-space models and writing filters.",
		func(a *eval.Args) (eval.Value, error) {
			var f, s eval.Value
			var n eval.PositiveInt
			if err := a.Unpack("f", &f, "init", &s, "n", &n); err != nil {
				return nil, err
			}
			if _, ok := f.(eval.Callable); !ok {
				return nil, a.Errorf("f", "f must be a function of the state and the step, got %s", eval.Describe(f))
			}
			width := -1
			var out []float64
			for t := 1; t <= int(n); t++ {
				next, err := a.Th.CallValue(a.PosOf("f"), f, s, eval.Num(t))
				if err != nil {
					return nil, err
				}
				xs, ok := eval.ToFloats(next)
				if !ok {
					return nil, a.Errorf("f", "f must return a number or a vector, got %s at step %d", eval.Describe(next), t)
				}
				if width >= 0 && len(xs) != width {
					return nil, a.Errorf("f", "f returned %d values at step 1 and %d at step %d", width, len(xs), t)
				}
				width = len(xs)
				out = append(out, xs...)
				s = next
			}
			if width == 1 {
				return &eval.Vec{Data: out}, nil
			}
			if width == 0 {
				return nil, a.Errorf("f", "f returned an empty vector")
			}
			return eval.NewMat(mat.NewDense(int(n), width, out)), nil
		})
}
