package ktest

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model/dists"
	"github.com/kml-lang/kml/runtime/ad"
	rkst "github.com/kml-lang/kml/runtime/kst"
)

// KSTDensity is a fitted density value (kst, kde) that exposes its
// runtime density, so that ksd_test can take its score.
type KSTDensity interface {
	eval.Value
	KSTDensity() rkst.Density
}

// TargetScores returns ∇ₓ log p at each row of x for the target p of a
// goodness-of-fit test: a distribution on the whole real line (univariate,
// for one-column data) or ℝᴷ (multi_normal, for K columns), through the
// exact derivative of its log density recorded on an AD tape, or a kst or
// kde density with a gradient. A target whose support is not all of ℝᵈ is
// refused: Stein's identity, which makes the test's null mean zero, needs
// the density to vanish at the support's edges.
func TargetScores(target eval.Value, x *mat.Dense) (*mat.Dense, error) {
	n, d := x.Dims()
	out := mat.NewDense(n, d, nil)
	switch p := target.(type) {
	case *dists.DistVal:
		if d != 1 {
			return nil, fmt.Errorf("%s is univariate but the data have %d columns (give a vector, or an n×1 matrix)", p, d)
		}
		if p.Ordered {
			return nil, fmt.Errorf("%s is the prior of an ordered vector, not a distribution of data", p)
		}
		params, ok := p.Scalar()
		if !ok {
			return nil, fmt.Errorf("the parameters of %s must be numbers", p)
		}
		if p.Family.Discrete() {
			return nil, fmt.Errorf("%s is discrete: the Stein discrepancy needs a density with a score", p)
		}
		if err := p.Family.Check(params); err != nil {
			return nil, err
		}
		if lo, hi := p.Family.Support(params); !math.IsInf(lo, -1) || !math.IsInf(hi, 1) {
			return nil, fmt.Errorf("the support of %s is [%g, %g], not the real line: the test needs a target on the whole line", p, lo, hi)
		}
		t := ad.NewTape()
		vs := make([]ad.Var, n)
		for i := range vs {
			vs[i] = t.Input(x.At(i, 0))
		}
		if err := tapeScore(t, p, &eval.ADVec{T: t, Vs: vs}, vs, out.RawMatrix().Data); err != nil {
			return nil, err
		}
	case *dists.MultiNormal:
		t := ad.NewTape()
		vs := make([]ad.Var, d)
		for i := 0; i < n; i++ {
			t.Reset()
			for c := range vs {
				vs[c] = t.Input(x.At(i, c))
			}
			if err := tapeScore(t, p, &eval.ADVec{T: t, Vs: vs}, vs, out.RawRowView(i)); err != nil {
				return nil, err
			}
		}
	case KSTDensity:
		gd, ok := p.KSTDensity().(rkst.GradDensity)
		if !ok {
			return nil, fmt.Errorf("%s has no gradient in its points", p)
		}
		if gd.Dim() != d {
			return nil, fmt.Errorf("%s is a density on %d dimensions but the data have %d columns", p, gd.Dim(), d)
		}
		for i := 0; i < n; i++ {
			gd.LogPDFGrad(out.RawRowView(i), x.RawRowView(i))
		}
	case dists.Distribution:
		return nil, fmt.Errorf("%s has no score on the whole of ℝᵈ: give a univariate distribution on the real line, multi_normal, or a kst or kde density", p)
	default:
		return nil, fmt.Errorf("the target must be a distribution, a kst or kde density, a model with at: or a posterior from sample, got %s", eval.Describe(target))
	}
	for i, v := range out.RawMatrix().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("the score of the target is not finite at row %d of x", i/d+1)
		}
	}
	return out, nil
}

// tapeScore records p's log density at xv (whose tape inputs are vs) and
// writes its gradient in vs into dst.
func tapeScore(t *ad.Tape, p dists.Distribution, xv eval.Value, vs []ad.Var, dst []float64) error {
	lp, err := p.LogDensity(t, xv, "x")
	var se *dists.SupportError
	if errors.As(err, &se) {
		return fmt.Errorf("x is outside the support of %s: %v", p, err)
	}
	if err != nil {
		return err
	}
	v, ok := lp.(*eval.ADNum)
	if !ok {
		return fmt.Errorf("the log density of %s does not depend on x", p)
	}
	t.Gradient(dst, v.V, vs)
	return nil
}
