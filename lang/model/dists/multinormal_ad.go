package dists

import (
	"fmt"
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
)

// NewMultiNormalAD is multi_normal_cholesky(mu, L) with the lower
// Cholesky factor L on the tape (a covariance that depends on model
// parameters, such as chol(gram(k, x) + 1e-9 * eye(n)) with k's
// hyperparameters parameters). Its upper triangle must be zero and its
// diagonal positive at the current values.
func NewMultiNormalAD(mu eval.Value, l *eval.ADMat, label string) (*MultiNormal, error) {
	k := l.Rows
	if l.Cols != k {
		return nil, fmt.Errorf("L must be square, got %d×%d", l.Rows, l.Cols)
	}
	// The checks are a guard, so the model still replays: a replay makes
	// them again at the new values and walks, to report, when they fail.
	var parents []ad.Var // the diagonal, then the upper triangle
	for i := 0; i < k; i++ {
		parents = append(parents, l.Vs[i*k+i])
	}
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			parents = append(parents, l.Vs[i*k+j])
		}
	}
	factor := func(x []float64) bool {
		for i, v := range x {
			if i < k && (!(v > 0) || math.IsInf(v, 0)) || i >= k && v != 0 {
				return false
			}
		}
		return true
	}
	if !l.T.Guard(parents, factor) {
		for i := 0; i < k; i++ {
			if d := l.T.Peek(l.Vs[i*k+i]); !(d > 0) || math.IsInf(d, 0) {
				return nil, fmt.Errorf("the Cholesky factor's diagonal must be positive, got %v at [%d, %d]", d, i+1, i+1)
			}
			for j := i + 1; j < k; j++ {
				if x := l.T.Peek(l.Vs[i*k+j]); x != 0 {
					return nil, fmt.Errorf("L must be lower triangular, but L[%d, %d] = %s", i+1, j+1, eval.FormatNumber(x))
				}
			}
		}
	}
	m, err := newMultiNormal(mu, nil, label, k)
	if err != nil {
		return nil, err
	}
	m.adL = l
	return m, nil
}

// adLogDensity is LogDensity with L on the tape: with D the K×R matrix of
// the rows' deviations x − mu (one column each) and Z = L⁻¹·D (one
// triangular solve on the tape), Σᵣ log N(xᵣ) = −½‖Z‖² − R·Σ log Lᵢᵢ −
// R·K/2·log 2π, one node whose partials are −Z and −R/Lᵢᵢ.
func (m *MultiNormal) adLogDensity(t *ad.Tape, rows []mvRow) (eval.Value, error) {
	k, nr := m.k, len(rows)
	// D row by row: element (i, r) is rows[r][i] − mu[i].
	x := ad.Operand{}
	mu := ad.Operand{}
	xAD := false
	for _, r := range rows {
		xAD = xAD || r.t != nil
	}
	if xAD {
		x.Vs = make([]ad.Var, k*nr)
	} else {
		x.F = make([]float64, k*nr)
	}
	for c, r := range rows {
		for i := 0; i < k; i++ {
			v, node, isAD := r.at(i)
			switch {
			case isAD:
				x.Vs[i*nr+c] = node
			case xAD:
				x.Vs[i*nr+c] = t.Input(v)
			default:
				x.F[i*nr+c] = v
			}
		}
	}
	muAD := eval.IsAD(m.Mu)
	if muAD {
		mu.Vs = make([]ad.Var, k*nr)
	} else {
		mu.F = make([]float64, k*nr)
	}
	for i := 0; i < k; i++ {
		v, node, _ := m.mean(i)
		for c := 0; c < nr; c++ {
			if muAD {
				mu.Vs[i*nr+c] = node
			} else {
				mu.F[i*nr+c] = v
			}
		}
	}
	dev := ad.Matrix{Rows: k, Cols: nr}
	if xAD || muAD {
		dev.Vs = t.Elementwise('-', x, mu, k*nr)
	} else {
		dev.F = make([]float64, k*nr)
		for i := range dev.F {
			dev.F[i] = x.F[i] - mu.F[i]
		}
	}
	z, ok := t.Solve(ad.Matrix{Rows: k, Cols: k, Vs: m.adL.Vs}, dev)
	if !ok {
		return nil, fmt.Errorf("the Cholesky factor of %s is singular", m)
	}
	parents := append([]ad.Var(nil), z...)
	for i := 0; i < k; i++ {
		parents = append(parents, m.adL.Vs[i*k+i])
	}
	r := float64(nr)
	c := r * float64(k) / 2 * math.Log(2*math.Pi)
	nz := len(z)
	lp := t.Func(parents, func(v, d []float64) float64 {
		s := -c
		for j, zj := range v[:nz] {
			s -= zj * zj / 2
			d[j] = -zj
		}
		for j, lii := range v[nz:] {
			s -= r * math.Log(lii)
			d[nz+j] = -r / lii
		}
		return s
	})
	return &eval.ADNum{T: t, V: lp}, nil
}
