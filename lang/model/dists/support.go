package dists

import (
	"fmt"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/dist"
)

// Support is the family's interval at the starting point, checked to be the
// same for every element; ordered(d) makes it OrderedVector (d must be on
// the whole line), and bounds that depend on model parameters make it a
// MovingInterval (only a dist.Bounded family's bound parameters may).
func (dv *DistVal) Support(p eval.ModelParam) (Constraint, error) {
	if dv.Family.Discrete() {
		return nil, fmt.Errorf("%s has a discrete prior %s; parameters are continuous", p.Name, dv.Family.Name())
	}
	width, err := dv.width()
	if err != nil {
		return nil, err
	}
	if width != 1 && width != p.Dim() {
		return nil, fmt.Errorf("the prior of %s has parameters of length %d but %s has %d elements", p.Name, width, p.Name, p.Dim())
	}
	ps := make([]float64, len(dv.Params))
	for j, par := range dv.Params {
		ps[j], _, _ = paramAt(par, 0)
	}
	lo, hi := dv.Family.Support(ps)
	// A support that moves with the parameters (uniform(0, 1 - a)) needs a
	// transform that moves too: possible where the bounds are parameters of
	// the family.
	moving := false
	for j, par := range dv.Params {
		if !eval.IsAD(par) {
			continue
		}
		q := append([]float64(nil), ps...)
		q[j] += 1
		if l2, h2 := dv.Family.Support(q); l2 != lo || h2 != hi {
			b, ok := dv.Family.(dist.Bounded)
			if !ok {
				return nil, fmt.Errorf("the support of %s's prior %s depends on model parameters, which only uniform's bounds may", p.Name, dv.Family.Name())
			}
			if l, h := b.BoundParams(); j != l && j != h {
				return nil, fmt.Errorf("the support of %s's prior %s depends on model parameters", p.Name, dv.Family.Name())
			}
			moving = true
		}
	}
	if truncMoves(dv) {
		moving = true
	}
	if err := dv.Family.Check(ps); err != nil {
		return nil, err
	}
	if width > 1 && !moving {
		// Every element must share the support (a vector of uniform bounds).
		for i := 1; i < width; i++ {
			for j, par := range dv.Params {
				ps[j], _, _ = paramAt(par, i)
			}
			if l2, h2 := dv.Family.Support(ps); l2 != lo || h2 != hi {
				return nil, fmt.Errorf("the elements of %s have priors with different bounds", p.Name)
			}
		}
	}
	in := Interval{Lo: lo, Hi: hi}
	if dv.Ordered {
		if p.Size == 0 {
			return nil, fmt.Errorf("ordered(...) is the prior of a vector parameter, NAME[K] ~ ordered(d); %s is a number", p.Name)
		}
		if tr := (transform{lo: lo, hi: hi}); tr.lower() || tr.upper() || moving {
			return nil, fmt.Errorf("ordered(...) needs a distribution on the whole real line; %s is bounded", dv.Family.Name())
		}
		return OrderedVector{}, nil
	}
	if moving {
		return MovingInterval{Start: in}, nil
	}
	return in, nil
}

// Support is the real line for each element of a vector parameter of its
// dimension.
func (m *MultiNormal) Support(p eval.ModelParam) (Constraint, error) {
	if p.Size != m.Dim() {
		return nil, fmt.Errorf("%s is a %d-dimensional distribution but %s has %d elements; declare %s[%d]", m, m.Dim(), p.Name, p.Dim(), p.Name, m.Dim())
	}
	return Real, nil
}

// Support refuses: categories are for data, and parameters are continuous.
func (c *CategoricalLogit) Support(p eval.ModelParam) (Constraint, error) {
	return nil, fmt.Errorf("%s has a discrete prior categorical_logit; parameters are continuous", p.Name)
}

// Improper reports the prior flat(), whose density does not integrate: a
// posterior with only such priors may be improper.
func Improper(d Distribution) bool {
	dv, ok := d.(*DistVal)
	return ok && dist.IsImproper(dv.Family)
}
