package dists

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
)

// MultiNormal is multi_normal(mu, Sigma) or multi_normal_cholesky(mu, L):
// a K-dimensional normal whose covariance is data (its Cholesky factor L is
// computed once), and whose mean may depend on model parameters. As a prior
// it is the density of a vector parameter of K elements; as an observation,
// of a vector of K values or of each row of an n×K matrix.
type MultiNormal struct {
	Mu    eval.Value // a number (every element) or a vector of K
	L     *mat.TriDense
	k     int
	logDL float64 // Σ log Lᵢᵢ = ½ log det Σ
	Label string
	// adL, when set, is a Cholesky factor on the tape (L is then nil):
	// see NewMultiNormalAD.
	adL *eval.ADMat
}

// NewMultiNormal checks mu against the lower Cholesky factor l.
func NewMultiNormal(mu eval.Value, l *mat.TriDense, label string) (*MultiNormal, error) {
	k, _ := l.Dims()
	return newMultiNormal(mu, l, label, k)
}

func newMultiNormal(mu eval.Value, l *mat.TriDense, label string, k int) (*MultiNormal, error) {
	m := &MultiNormal{Mu: mu, L: l, k: k, Label: label}
	for i := 0; i < k && l != nil; i++ {
		d := l.At(i, i)
		if !(d > 0) || math.IsInf(d, 0) {
			return nil, fmt.Errorf("the Cholesky factor's diagonal must be positive, got %v at [%d, %d]", d, i+1, i+1)
		}
		m.logDL += math.Log(d)
	}
	switch mu := mu.(type) {
	case eval.Num, *eval.ADNum:
	case *eval.Vec:
		if len(mu.Data) != k {
			return nil, fmt.Errorf("mu has %d elements but the covariance is %d×%d", len(mu.Data), k, k)
		}
	case *eval.ADVec:
		if len(mu.Vs) != k {
			return nil, fmt.Errorf("mu has %d elements but the covariance is %d×%d", len(mu.Vs), k, k)
		}
	default:
		return nil, fmt.Errorf("mu must be a number or a vector, got %s", eval.Describe(mu))
	}
	return m, nil
}

func (m *MultiNormal) Type() string   { return "distribution" }
func (m *MultiNormal) String() string { return m.Label }

// HasAD reports a mean or covariance that depends on model parameters.
func (m *MultiNormal) HasAD() bool { return m.adL != nil || eval.IsAD(m.Mu) }

// Dim is K.
func (m *MultiNormal) Dim() int { return m.k }

// mean returns mu's element i, with its tape node when it has one.
func (m *MultiNormal) mean(i int) (float64, ad.Var, bool) {
	return paramPeek(m.Mu, min(i, paramLen(m.Mu)-1)) // see recompute
}

// LogDensity sums log N(xᵣ | mu, Σ) over the rows r of x (one row for a
// vector): −½‖L⁻¹(x − mu)‖² − Σ log Lᵢᵢ − K/2 log 2π, with ∂/∂x = −Σ⁻¹(x − mu)
// and ∂/∂mu its negative, recorded as one tape node.
func (m *MultiNormal) LogDensity(t *ad.Tape, x eval.Value, what string) (eval.Value, error) {
	rows, err := m.rows(x, what)
	if err != nil {
		return nil, err
	}
	if m.adL != nil {
		return m.adLogDensity(t, rows)
	}
	return recompute(t, func() (float64, []ad.Var, []float64, error) {
		k := m.k
		z := mat.NewVecDense(k, nil)
		g := mat.NewVecDense(k, nil)
		total := 0.0
		var parents []ad.Var
		var partials []float64
		muGrad := make([]float64, k)
		anyMu := false
		for _, r := range rows {
			for i := 0; i < k; i++ {
				mu, _, _ := m.mean(i)
				xi, _, _ := r.at(i)
				z.SetVec(i, xi-mu)
			}
			// z ← L⁻¹(x − mu); g ← L⁻ᵀ z = Σ⁻¹(x − mu).
			if err := z.SolveVec(m.L, z); err != nil {
				return 0, nil, nil, err
			}
			total += -0.5*mat.Dot(z, z) - m.logDL - 0.5*float64(k)*math.Log(2*math.Pi)
			if t == nil {
				continue
			}
			if err := g.SolveVec(m.L.T(), z); err != nil {
				return 0, nil, nil, err
			}
			for i := 0; i < k; i++ {
				if _, xv, xad := r.at(i); xad {
					parents, partials = append(parents, xv), append(partials, -g.AtVec(i))
				}
				if _, _, muAD := m.mean(i); muAD {
					muGrad[i] += g.AtVec(i)
					anyMu = true
				}
			}
		}
		if t == nil || (len(parents) == 0 && !anyMu) {
			return total, nil, nil, nil
		}
		if anyMu {
			switch mu := m.Mu.(type) {
			case *eval.ADNum:
				s := 0.0
				for _, v := range muGrad {
					s += v
				}
				parents, partials = append(parents, mu.V), append(partials, s)
			case *eval.ADVec:
				for i, v := range mu.Vs {
					parents, partials = append(parents, v), append(partials, muGrad[i])
				}
			}
		}
		return total, parents, partials, nil
	})
}

// mvRow is one K-vector of values or tape nodes.
type mvRow struct {
	f  []float64
	t  *ad.Tape
	vs []ad.Var
}

func (r mvRow) at(i int) (float64, ad.Var, bool) {
	if r.t != nil {
		return r.t.Peek(r.vs[i]), r.vs[i], true // see recompute
	}
	return r.f[i], 0, false
}

// rows splits x into K-vectors: a vector of K is one, an n×K matrix n.
func (m *MultiNormal) rows(x eval.Value, what string) ([]mvRow, error) {
	switch x := x.(type) {
	case *eval.Vec:
		if len(x.Data) == m.k {
			return []mvRow{{f: x.Data}}, nil
		}
	case *eval.ADVec:
		if len(x.Vs) == m.k {
			return []mvRow{{t: x.T, vs: x.Vs}}, nil
		}
	case *eval.Mat:
		r, c := x.Dims()
		if c == m.k {
			out := make([]mvRow, r)
			for i := range out {
				out[i] = mvRow{f: mat.Row(nil, i, x.M)}
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("%s must be a vector of %d values or a matrix with %d columns (one observation per row) for %s, got %s", what, m.k, m.k, m, eval.Describe(x))
}

// LogPDF is logpdf(d, x) outside a model: a number for a vector of K, one
// value per row for a matrix.
func (m *MultiNormal) LogPDF(x eval.Value) (eval.Value, error) {
	rows, err := m.rows(x, "x")
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(rows))
	for i := range rows {
		one := &MultiNormal{Mu: m.Mu, L: m.L, k: m.k, logDL: m.logDL}
		v, err := one.LogDensity(nil, &eval.Vec{Data: rows[i].f}, "x")
		if err != nil {
			return nil, err
		}
		out[i] = float64(v.(eval.Num))
	}
	if _, ok := x.(*eval.Mat); ok {
		return &eval.Vec{Data: out}, nil
	}
	return eval.Num(out[0]), nil
}
