package dists

import (
	"fmt"
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
)

// LKJCholesky is lkj_corr_cholesky(eta): the LKJ distribution of a K×K
// correlation matrix, density ∝ det(Ω)^(eta − 1), written as a density of
// its Cholesky factor L (Stan's lkj_corr_cholesky). K comes from the
// parameter it is the prior of: `L[K] ~ lkj_corr_cholesky(eta)` declares L
// a K×K factor. eta > 0 may depend on model parameters.
type LKJCholesky struct {
	Eta eval.Value // eval.Num or *eval.ADNum
	// K, when not 0, is the factor's size, given for draws; a parameter
	// must then have it.
	K int
}

var (
	_ eval.ADHolder = (*LKJCholesky)(nil)
)

func (d *LKJCholesky) Type() string { return "distribution" }
func (d *LKJCholesky) String() string {
	if d.K > 0 {
		return fmt.Sprintf("lkj_corr_cholesky(%s, K: %d)", d.Eta, d.K)
	}
	return fmt.Sprintf("lkj_corr_cholesky(%s)", d.Eta)
}

// HasAD reports a shape eta that depends on model parameters.
func (d *LKJCholesky) HasAD() bool { return eval.IsAD(d.Eta) }

// Support is CorrCholesky for a parameter declared NAME[K], a K×K factor.
func (d *LKJCholesky) Support(p eval.ModelParam) (Constraint, error) {
	if p.Size == 0 {
		return nil, fmt.Errorf("%s is the prior of the Cholesky factor of a K×K correlation matrix: declare %s[K] ~ %s; %s is a number", d, p.Name, d, p.Name)
	}
	if p.Size < 2 {
		return nil, fmt.Errorf("%s[%d]: the Cholesky factor of a correlation matrix needs K ≥ 2 (a 1×1 correlation matrix is 1)", p.Name, p.Size)
	}
	if d.K > 0 && d.K != p.Size {
		return nil, fmt.Errorf("%s is for %d×%d factors but %s is declared %s[%d]", d, d.K, d.K, p.Name, p.Name, p.Size)
	}
	return CorrCholesky{K: p.Size}, nil
}

// LogDensity is the LKJ log density of the factor x (a K×K matrix, on the
// tape or data), recording ∂/∂Lₖₖ and ∂/∂eta.
func (d *LKJCholesky) LogDensity(t *ad.Tape, x eval.Value, what string) (eval.Value, error) {
	return recompute(t, func() (float64, []ad.Var, []float64, error) {
		eta, ev, etaAD := paramPeek(d.Eta, 0) // see recompute
		var diag []float64
		var dvs []ad.Var
		switch x := x.(type) {
		case *eval.ADMat:
			if x.Rows != x.Cols {
				return 0, nil, nil, fmt.Errorf("%s must be a square matrix for %s, got a %d×%d matrix", what, d, x.Rows, x.Cols)
			}
			for i := 0; i < x.Rows; i++ {
				v := x.Vs[i*x.Cols+i]
				dvs = append(dvs, v)
				diag = append(diag, x.T.Peek(v))
			}
		case *eval.Mat:
			r, c := x.Dims()
			if r != c || r < 2 || (d.K > 0 && r != d.K) {
				return 0, nil, nil, fmt.Errorf("%s must be a K×K matrix (K ≥ 2) for %s, got %s", what, d, eval.Describe(x))
			}
			if _, _, err := (choleskyCorrTransform{k: r}).check(what, x); err != nil {
				return 0, nil, nil, &SupportError{err.Error()}
			}
			for i := 0; i < r; i++ {
				diag = append(diag, x.M.At(i, i))
			}
		default:
			return 0, nil, nil, fmt.Errorf("%s must be the Cholesky factor of a correlation matrix (a K×K matrix) for %s, got %s", what, d, eval.Describe(x))
		}
		dd := make([]float64, len(diag))
		lp, deta := dist.LKJCholeskyLogPDF(diag, eta, dd)
		if t == nil {
			return lp, nil, nil, nil
		}
		var parents []ad.Var
		var partials []float64
		for i, v := range dvs {
			if i > 0 { // L₁₁ = 1 is a constant
				parents, partials = append(parents, v), append(partials, dd[i])
			}
		}
		if etaAD {
			parents, partials = append(parents, ev), append(partials, deta)
		}
		return lp, parents, partials, nil
	})
}

// LogPDF is logpdf(d, L) outside a model for a K×K factor L; −Inf when L
// is not the Cholesky factor of a correlation matrix.
func (d *LKJCholesky) LogPDF(x eval.Value) (eval.Value, error) {
	v, err := d.LogDensity(nil, x, "x")
	if _, ok := err.(*SupportError); ok {
		return eval.Num(math.Inf(-1)), nil
	}
	return v, err
}
