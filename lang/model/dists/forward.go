package dists

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/dist"
)

// Forward (ancestral) sampling of a model — prior_predictive and ppc —
// draws each prior's parameter and each observation's replicated data from
// a distribution whose parameters are plain numbers (the parameters drawn
// or read before it). DrawParam and Replicate are those two draws: the
// value a parameter of the given shape takes, and a value shaped like the
// observed data. Unlike draw(d, n) they take no builtin arguments and
// return the value in the shape the model needs.

// DrawParam draws a value for parameter p from its prior d: a number, a
// vector of p.Size, a simplex, or a Cholesky factor.
func DrawParam(d Distribution, rng *rand.Rand, p eval.ModelParam) (eval.Value, error) {
	if err := drawable(d); err != nil {
		return nil, err
	}
	switch d := d.(type) {
	case *DistVal:
		return drawUnivariate(d, rng, p.Size, p.Size > 0)
	case *MultiNormal:
		return &eval.Vec{Data: drawMultiNormal(d, rng)}, nil
	case *Dirichlet:
		return &eval.Vec{Data: dist.DirichletRand(rng, d.Alphas())}, nil
	case *LKJCholesky:
		k := d.K
		if k == 0 {
			k = p.Size
		}
		eta, _ := eval.ToFloat(d.Eta)
		return eval.NewMat(mat.NewDense(k, k, dist.LKJCholeskyRand(rng, k, eta))), nil
	}
	return nil, fmt.Errorf("%s has no draws", d)
}

// Replicate draws data shaped like the observed data from the observation
// distribution d: a number, a vector of as many elements (a univariate
// family elementwise, categories for categorical_logit), or one row per
// row of a matrix for a multivariate family.
func Replicate(d Distribution, rng *rand.Rand, data eval.Value) (eval.Value, error) {
	if err := drawable(d); err != nil {
		return nil, err
	}
	xs, vec, ok := Numbers(data)
	rows := 0
	if m, isMat := data.(*eval.Mat); isMat {
		r, c := m.Dims()
		// A univariate family took a row or a column as a vector; a
		// multivariate one takes a row per observation.
		rows, xs, vec, ok = r, make([]float64, r*c), true, true
	}
	if !ok {
		return nil, fmt.Errorf("cannot replicate %s: the observed data are not numbers", eval.Describe(data))
	}
	switch d := d.(type) {
	case *DistVal:
		return drawUnivariate(d, rng, len(xs), vec)
	case *CategoricalLogit:
		p := categoricalProbs(d)
		out := make([]float64, len(xs))
		for i := range out {
			out[i] = drawCategory(rng, p)
		}
		if !vec {
			return eval.Num(out[0]), nil
		}
		return &eval.Vec{Data: out}, nil
	case *MultiNormal:
		return drawRows(rows, func() []float64 { return drawMultiNormal(d, rng) }), nil
	case *Dirichlet:
		return drawRows(rows, func() []float64 { return dist.DirichletRand(rng, d.Alphas()) }), nil
	}
	return nil, fmt.Errorf("%s has no draws for data", d)
}

// drawable refuses a distribution forward sampling cannot draw from.
func drawable(d Distribution) error {
	switch d := d.(type) {
	case *DistVal:
		if dist.IsImproper(d.Family) {
			return fmt.Errorf("%s is improper: it has no draws (give the parameter a proper prior)", d)
		}
	case *CategoricalLogit:
		if d.OfLatent {
			return fmt.Errorf("categorical_logit of a latent GP has no forward draws here")
		}
	}
	if h, ok := d.(interface{ HasAD() bool }); ok && h.HasAD() {
		return fmt.Errorf("%s depends on values on a tape; forward sampling needs plain numbers", d)
	}
	return nil
}

// drawUnivariate draws n elements (a vector when vec, else one number) from
// a univariate family, its vector parameters taken element by element and
// its number parameters broadcast; ordered(d) sorts them, which is a draw
// from d's density restricted to increasing vectors.
func drawUnivariate(d *DistVal, rng *rand.Rand, n int, vec bool) (eval.Value, error) {
	if !vec {
		n = 1
	}
	cols := make([][]float64, len(d.Params))
	for i, p := range d.Params {
		xs, isVec, ok := Numbers(p)
		if !ok {
			return nil, fmt.Errorf("cannot draw from %s: its parameter %d is %s, not a number or a vector", d, i+1, eval.Describe(p))
		}
		if isVec && len(xs) != n && len(xs) != 1 {
			return nil, fmt.Errorf("cannot draw %d values from %s: its parameter %d has %d elements", n, d, i+1, len(xs))
		}
		cols[i] = xs
	}
	out := make([]float64, n)
	p := make([]float64, len(cols))
	for k := range out {
		for i, xs := range cols {
			p[i] = xs[min(k, len(xs)-1)]
		}
		if err := d.Family.Check(p); err != nil {
			if n > 1 {
				return nil, fmt.Errorf("cannot draw from %s at element %d: %v", d, k+1, err)
			}
			return nil, fmt.Errorf("cannot draw from %s: %v", d, err)
		}
		out[k] = d.Family.Rand(rng, p)
	}
	if d.Ordered {
		slices.Sort(out)
	}
	if !vec {
		return eval.Num(out[0]), nil
	}
	return &eval.Vec{Data: out}, nil
}

// drawMultiNormal is one draw μ + L z, z standard normal.
func drawMultiNormal(d *MultiNormal, rng *rand.Rand) []float64 {
	k := d.Dim()
	mu, _ := eval.ToFloats(d.Mu)
	z := mat.NewVecDense(k, nil)
	for i := range k {
		z.SetVec(i, rng.NormFloat64())
	}
	var x mat.VecDense
	x.MulVec(d.L, z)
	out := make([]float64, k)
	for i := range out {
		out[i] = x.AtVec(i) + mu[min(i, len(mu)-1)]
	}
	return out
}

// drawRows is one draw (rows 0) or a matrix of rows draws.
func drawRows(rows int, one func() []float64) eval.Value {
	if rows == 0 {
		return &eval.Vec{Data: one()}
	}
	first := one()
	m := mat.NewDense(rows, len(first), nil)
	m.SetRow(0, first)
	for r := 1; r < rows; r++ {
		m.SetRow(r, one())
	}
	return eval.NewMat(m)
}

// drawCategory draws a class 1..K with probabilities p.
func drawCategory(rng *rand.Rand, p []float64) float64 {
	u := rng.Float64()
	for k, pk := range p {
		if u < pk {
			return float64(k + 1)
		}
		u -= pk
	}
	return float64(len(p))
}
