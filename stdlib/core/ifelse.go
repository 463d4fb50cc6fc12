package core

import (
	"math"

	"github.com/kml-lang/kml/lang/eval"
)

// registerIfElse adds ifelse, the element-wise `if`: KML has no loops, so
// "this element from a, that one from b" is one call over whole vectors,
// inside a model too (a selected parameter keeps its derivative; a
// condition that depends on parameters is read, so such a model is walked
// rather than replayed).
func registerIfElse(reg *eval.Registry) {
	b := reg.Register("ifelse(cond, yes, no)",
		"The element-wise if: for a vector cond (comparisons give 0 and 1 elementwise), element i of the result is yes's element i where cond's is nonzero (true), else no's; yes and no are each a number (used for every element), a vector of cond's length, or a string (the result is then a list of strings, e.g. group names for plot's color:). A number or true/false cond picks yes or no whole, as `if` does. ifelse(x > 0, x, 0) is max(x, 0) elementwise; inside a model the chosen elements keep their derivatives. As R's ifelse and NumPy's where.",
		ifelse)
	b.AD = true
}

func ifelse(a *eval.Args) (eval.Value, error) {
	yes, no := a.Value("yes"), a.Value("no")
	var conds []bool
	vec := false
	switch c := a.Value("cond").(type) {
	case eval.Bool:
		conds = []bool{bool(c)}
	default:
		xs, isVec, err := elems(a, "cond")
		if err != nil {
			return nil, a.Errorf("cond", "cond must be true or false, a number or a vector, got %s", eval.Describe(c))
		}
		vec = isVec
		for i, x := range xs {
			v, _ := eval.ToFloat(x)
			if math.IsNaN(v) {
				return nil, a.Errorf("cond", "cond's element %d is NaN, neither true nor false", i+1)
			}
			conds = append(conds, v != 0)
		}
	}
	if !vec {
		if conds[0] {
			return yes, nil
		}
		return no, nil
	}
	n := len(conds)
	_, yStr := yes.(eval.Str)
	_, nStr := no.(eval.Str)
	if yStr || nStr {
		if !yStr || !nStr {
			return nil, a.Fail("yes and no must both be strings, or both numbers or vectors; got %s and %s", eval.Describe(yes), eval.Describe(no))
		}
		out := make([]eval.Value, n)
		for i, c := range conds {
			out[i] = no
			if c {
				out[i] = yes
			}
		}
		return &eval.List{Elems: out}, nil
	}
	side := func(name string) ([]eval.Value, error) {
		xs, _, err := elems(a, name)
		if err != nil {
			return nil, a.Errorf(name, "%s must be a number, a vector or a string, got %s", name, eval.Describe(a.Value(name)))
		}
		if len(xs) != 1 && len(xs) != n {
			return nil, a.Errorf(name, "%s has %d elements and cond %d; they must match, or %s must be a number", name, len(xs), n, name)
		}
		return xs, nil
	}
	ys, err := side("yes")
	if err != nil {
		return nil, err
	}
	ns, err := side("no")
	if err != nil {
		return nil, err
	}
	out := make([]eval.Value, n)
	for i, c := range conds {
		if c {
			out[i] = ys[min(i, len(ys)-1)]
		} else {
			out[i] = ns[min(i, len(ns)-1)]
		}
	}
	return vector(out), nil
}
