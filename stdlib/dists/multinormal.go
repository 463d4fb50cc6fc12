package dists

import (
	"fmt"

	"github.com/kml-lang/kml/stdlib/core"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model/dists"
)

func registerMultinormal(reg *eval.Registry) {
	reg.Register("multi_normal(mu, Sigma)",
		"The K-dimensional normal with mean mu (a vector of K, or a number for every element) and covariance Sigma (K×K, symmetric positive definite, data). A vector parameter w[K] ~ multi_normal(mu, Sigma), or observations: a vector of K or the rows of an n×K matrix. mu and, inside a model, Sigma may depend on model parameters (Sigma's Cholesky factor is then differentiated on the tape).",
		func(a *eval.Args) (eval.Value, error) { return makeMultiNormal(a, false) }).AD = true
	reg.Register("multi_normal_cholesky(mu, L)",
		"multi_normal(mu, L Lᵀ) given the lower-triangular Cholesky factor L (data, or inside a model a value that depends on parameters), as Stan's multi_normal_cholesky: cheaper when L is at hand, e.g. chol(gram(k, x) + 1e-9 * eye(n)).",
		func(a *eval.Args) (eval.Value, error) { return makeMultiNormal(a, true) }).AD = true
}

func makeMultiNormal(a *eval.Args, cholesky bool) (eval.Value, error) {
	name := "Sigma"
	if cholesky {
		name = "L"
	}
	if eval.IsAD(a.Value(name)) {
		return multiNormalOnTape(a, name, cholesky)
	}
	m, err := core.SquareArg(a, name)
	if err != nil {
		return nil, err
	}
	k, _ := m.Dims()
	l := mat.NewTriDense(k, mat.Lower, nil)
	if cholesky {
		for i := 0; i < k; i++ {
			for j := 0; j < k; j++ {
				if j > i && m.At(i, j) != 0 {
					return nil, a.Errorf(name, "L must be lower triangular, but L[%d, %d] = %s", i+1, j+1, eval.FormatNumber(m.At(i, j)))
				}
				if j <= i {
					l.SetTri(i, j, m.At(i, j))
				}
			}
		}
	} else {
		sym := mat.NewSymDense(k, nil)
		for i := 0; i < k; i++ {
			for j := i; j < k; j++ {
				if x, y := m.At(i, j), m.At(j, i); x != y {
					return nil, a.Errorf(name, "Sigma is not symmetric: Sigma[%d, %d] = %s but Sigma[%d, %d] = %s", j+1, i+1, eval.FormatNumber(y), i+1, j+1, eval.FormatNumber(x))
				}
				sym.SetSym(i, j, m.At(i, j))
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(sym) {
			return nil, a.Errorf(name, "Sigma is not positive definite")
		}
		ch.LTo(l)
	}
	label := fmt.Sprintf("multi_normal(%s, %d×%d)", a.Value("mu"), k, k)
	if cholesky {
		label = fmt.Sprintf("multi_normal_cholesky(%s, %d×%d)", a.Value("mu"), k, k)
	}
	mv, err := dists.NewMultiNormal(a.Value("mu"), l, label)
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	return mv, nil
}

// multiNormalOnTape is multi_normal or multi_normal_cholesky with a
// covariance (or factor) that depends on model parameters: its Cholesky
// factor is an operation on the tape, and the density differentiates
// through it.
func multiNormalOnTape(a *eval.Args, name string, cholesky bool) (eval.Value, error) {
	var l *eval.ADMat
	var err error
	if cholesky {
		t, vs, n, err := core.ADSquare(a, name)
		if err != nil {
			return nil, err
		}
		l = &eval.ADMat{T: t, Rows: n, Cols: n, Vs: vs}
	} else if l, err = core.CholOnTape(a, name); err != nil {
		return nil, err
	}
	fn := "multi_normal"
	if cholesky {
		fn = "multi_normal_cholesky"
	}
	mv, err := dists.NewMultiNormalAD(a.Value("mu"), l, fmt.Sprintf("%s(%s, %d×%d)", fn, a.Value("mu"), l.Rows, l.Rows))
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	return mv, nil
}

// drawMultiNormal draws n rows mu + L z, z standard normal.
