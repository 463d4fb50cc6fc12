package core

import "github.com/kml-lang/kml/lang/eval"

// registerMap adds map, which applies a function to each element of a
// vector or a list: the loop a refit over several data sets is written
// with (a model with data arguments called inside the function).
func registerMap(reg *eval.Registry) {
	reg.Register("map(xs, f)",
		"Calls f on each element of xs (a vector, each row of a matrix, or each element of a list such as [\"a\", \"b\"] or a list of records or models) and returns the results in order: a vector when every result is a number, else a list. With a model that takes data it fits one model to several data sets: fn fit(d) = sample(m(x: d.x, y: d.y), seed: 1), then map([d1, d2], fit).",
		func(a *eval.Args) (eval.Value, error) {
			f := a.Value("f")
			if _, ok := f.(eval.Callable); !ok {
				return nil, a.Errorf("f", "f must be a function of one element, got %s", eval.Describe(f))
			}
			var elems []eval.Value
			switch xs := a.Value("xs").(type) {
			case *eval.List:
				elems = xs.Elems
			case *eval.Vec:
				for _, x := range xs.Data {
					elems = append(elems, eval.Num(x))
				}
			case *eval.Mat:
				r, _ := xs.Dims()
				for i := range r {
					elems = append(elems, &eval.Vec{Data: append([]float64(nil), xs.M.RawRowView(i)...)})
				}
			default:
				return nil, a.Errorf("xs", "xs must be a vector, a matrix or a list, got %s", eval.Describe(xs))
			}
			out := make([]eval.Value, len(elems))
			nums := make([]float64, len(elems))
			allNum := true
			for i, x := range elems {
				if err := a.Th.Context().Err(); err != nil {
					return nil, a.Interrupted(err)
				}
				v, err := a.Th.CallValue(a.PosOf("f"), f, x)
				if err != nil {
					return nil, err
				}
				out[i] = v
				if n, ok := v.(eval.Num); ok {
					nums[i] = float64(n)
				} else {
					allNum = false
				}
			}
			if allNum {
				return &eval.Vec{Data: nums}, nil
			}
			return &eval.List{Elems: out}, nil
		})
}
