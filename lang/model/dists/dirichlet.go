package dists

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
)

// Dirichlet is dirichlet(alpha): a distribution on the K-simplex with
// concentrations alpha (a vector of K positive numbers, which may depend on
// model parameters). As a prior, `theta[K] ~ dirichlet(alpha)` makes theta
// a simplex; as an observation it is the density of a simplex, or of each
// row of an n×K matrix.
type Dirichlet struct {
	Alpha eval.Value // *eval.Vec or *eval.ADVec of K ≥ 2
}

var (
	_ eval.ADHolder = (*Dirichlet)(nil)
)

func (d *Dirichlet) Type() string   { return "distribution" }
func (d *Dirichlet) String() string { return fmt.Sprintf("dirichlet(%s)", d.Alpha) }

// HasAD reports concentrations that depend on model parameters.
func (d *Dirichlet) HasAD() bool { return eval.IsAD(d.Alpha) }

// K is the number of elements.
func (d *Dirichlet) K() int { return paramLen(d.Alpha) }

// Alphas are the concentrations' current values.
func (d *Dirichlet) Alphas() []float64 {
	out := make([]float64, d.K())
	for i := range out {
		out[i], _, _ = paramPeek(d.Alpha, i) // see recompute
	}
	return out
}

// Mean is the vector alpha/Σalpha.
func (d *Dirichlet) Mean() (eval.Value, error) {
	m, _ := dist.DirichletMoments(d.Alphas())
	return &eval.Vec{Data: m}, nil
}

// Support is Simplex for a vector parameter of its length.
func (d *Dirichlet) Support(p eval.ModelParam) (Constraint, error) {
	k := d.K()
	if p.Size == 0 {
		return nil, fmt.Errorf("%s is the prior of a simplex, a vector parameter: declare %s[%d] ~ %s; %s is a number", d, p.Name, k, d, p.Name)
	}
	if p.Size != k {
		return nil, fmt.Errorf("%s has %d elements but %s has %d; declare %s[%d]", d, k, p.Name, p.Size, p.Name, k)
	}
	return Simplex{K: k}, nil
}

// LogDensity sums the Dirichlet log density over the rows of x (one row for
// a vector), recording ∂/∂x and ∂/∂alpha on the tape. Data rows must be
// simplexes; rows on the tape (a simplex parameter) are so by construction.
func (d *Dirichlet) LogDensity(t *ad.Tape, x eval.Value, what string) (eval.Value, error) {
	k := d.K()
	rows, err := simplexRows(x, k)
	if err != nil {
		return nil, fmt.Errorf("%s must be a simplex of %d elements or a matrix with %d columns (one simplex per row) for %s, got %s", what, k, k, d, eval.Describe(x))
	}
	return recompute(t, func() (float64, []ad.Var, []float64, error) {
		alpha := d.Alphas()
		xs := make([]float64, k)
		dx := make([]float64, k)
		da := make([]float64, k)
		daSum := make([]float64, k)
		total := 0.0
		var parents []ad.Var
		var partials []float64
		for r, row := range rows {
			for i := range xs {
				xs[i], _, _ = row.at(i)
			}
			if row.t == nil && !dist.IsSimplex(xs) {
				return 0, nil, nil, &SupportError{fmt.Sprintf("%s is not a simplex (positive elements summing to 1) in row %d: %s", what, r+1, formatFloats(xs))}
			}
			total += dist.DirichletLogPDF(xs, alpha, dx, da)
			for i := range xs {
				daSum[i] += da[i]
				if _, v, isAD := row.at(i); isAD && t != nil {
					parents, partials = append(parents, v), append(partials, dx[i])
				}
			}
		}
		if t != nil {
			for i := range alpha {
				if _, v, isAD := paramPeek(d.Alpha, i); isAD {
					parents, partials = append(parents, v), append(partials, daSum[i])
				}
			}
		}
		return total, parents, partials, nil
	})
}

// LogPDF is logpdf(d, x) outside a model: a number for a vector, one value
// per row for a matrix; −Inf where x is not a simplex.
func (d *Dirichlet) LogPDF(x eval.Value) (eval.Value, error) {
	k := d.K()
	rows, err := simplexRows(x, k)
	if err != nil || eval.IsAD(x) {
		return nil, fmt.Errorf("x must be a simplex of %d elements or a matrix with %d columns, got %s", k, k, eval.Describe(x))
	}
	alpha := d.Alphas()
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = math.Inf(-1)
		if dist.IsSimplex(r.f) {
			out[i] = dist.DirichletLogPDF(r.f, alpha, nil, nil)
		}
	}
	if _, ok := x.(*eval.Mat); ok {
		return &eval.Vec{Data: out}, nil
	}
	return eval.Num(out[0]), nil
}

// simplexRows splits x into K-vectors: a vector of K is one, an n×K matrix
// n (as MultiNormal reads its observations).
func simplexRows(x eval.Value, k int) ([]mvRow, error) {
	switch x := x.(type) {
	case *eval.Vec:
		if len(x.Data) == k {
			return []mvRow{{f: x.Data}}, nil
		}
	case *eval.ADVec:
		if len(x.Vs) == k {
			return []mvRow{{t: x.T, vs: x.Vs}}, nil
		}
	case *eval.Mat:
		if r, c := x.Dims(); c == k {
			out := make([]mvRow, r)
			for i := range out {
				out[i] = mvRow{f: mat.Row(nil, i, x.M)}
			}
			return out, nil
		}
	}
	return nil, errors.New("not K-vectors")
}
