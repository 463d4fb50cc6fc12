package dists

import (
	"fmt"
	"math"
	"reflect"

	"github.com/kml-lang/kml/lang/eval"
)

// A Constraint is a support: where a distribution's values lie when it is
// the prior of a parameter (NumPyro's constraints). Distribution.Support
// returns one; BijectTo maps it to the Transform onto it.
type Constraint interface {
	constraint()
}

// Interval is the support (Lo, Hi) of each element; either end may be
// infinite (the real line, a half line).
type Interval struct{ Lo, Hi float64 }

// Real is the whole real line.
var Real = Interval{Lo: math.Inf(-1), Hi: math.Inf(1)}

// OrderedVector is the set of vectors whose elements strictly increase
// (ordered(d)).
type OrderedVector struct{}

// MovingInterval is an interval whose ends depend on other parameters
// (uniform(0, 1 - a), normal(0, 1, upper: a)); Start is the interval at the
// model's starting point, for descriptions. The ends are read from the prior
// at every evaluation.
type MovingInterval struct{ Start Interval }

// Simplex is the set of K positive values that sum to 1.
type Simplex struct{ K int }

// CorrCholesky is the set of Cholesky factors of K×K correlation matrices.
type CorrCholesky struct{ K int }

func (Interval) constraint()       {}
func (OrderedVector) constraint()  {}
func (MovingInterval) constraint() {}
func (Simplex) constraint()        {}
func (CorrCholesky) constraint()   {}

// registry maps a support's type to the transform onto it, for a parameter:
// NumPyro's biject_to, one row per support.
var registry = map[reflect.Type]func(Constraint, eval.ModelParam) Transform{}

func register[C Constraint](f func(C, eval.ModelParam) Transform) {
	registry[reflect.TypeFor[C]()] = func(c Constraint, p eval.ModelParam) Transform { return f(c.(C), p) }
}

func init() {
	register(func(c Interval, p eval.ModelParam) Transform {
		return intervalTransform{p: p, tr: transform{lo: c.Lo, hi: c.Hi}}
	})
	register(func(_ OrderedVector, p eval.ModelParam) Transform { return orderedTransform{p: p} })
	register(func(c MovingInterval, p eval.ModelParam) Transform {
		return movingTransform{p: p, start: transform{lo: c.Start.Lo, hi: c.Start.Hi}}
	})
	register(func(c Simplex, _ eval.ModelParam) Transform { return simplexTransform{k: c.K} })
	register(func(c CorrCholesky, _ eval.ModelParam) Transform { return choleskyCorrTransform{k: c.K} })
}

// BijectTo is the transform onto support c for parameter p.
func BijectTo(c Constraint, p eval.ModelParam) (Transform, error) {
	f, ok := registry[reflect.TypeOf(c)]
	if !ok {
		return nil, fmt.Errorf("no transform onto the support %T of %s", c, p.Name)
	}
	return f(c, p), nil
}

// TransformFor is the transform onto the support prior gives parameter p,
// or why prior cannot be its prior.
func TransformFor(prior Distribution, p eval.ModelParam) (Transform, error) {
	c, err := prior.Support(p)
	if err != nil {
		return nil, err
	}
	return BijectTo(c, p)
}
