package kbr

import (
	"context"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/progress"

	"github.com/kml-lang/kml/runtime/kernels"
)

// Criterion is what CV scores on a held-out fold T with the posterior
// weights w_j = w(Y_j) over the training X, for j in T.
type Criterion string

const (
	// Marginal is the criterion of §4.2: with the prior the training X
	// marginal, the posterior averaged over Y is the X marginal again, so
	// it scores ‖(1/|T|)Σ_j Σ_i w_ji k_X(·, X_i) − (1/|T|)Σ_j k_X(·, X_j)‖²
	// in the RKHS of k_X.
	Marginal Criterion = "marginal"
	// Pointwise scores (1/|T|)Σ_j ‖Σ_i w_ji k_X(·, X_i) − k_X(·, X_j)‖²,
	// the regression form of cross-validation (each posterior against
	// its own held-out X).
	Pointwise Criterion = "pointwise"
)

// CV returns the K-fold cross-validation score of each (ε, δ) pair —
// scores[a][b] for eps[a] and delta[b], summed over the folds — for the
// kernel Bayes' rule on (x, y) with the training X as the prior. The
// folds are a random partition drawn from rnd. Settings.Rank and Tol of
// s are used; its Eps and Delta are ignored.
func CV(ctx context.Context, x, y *mat.Dense, kx, ky kernels.Kernel, eps, delta []float64, folds int, crit Criterion, s Settings, rnd *rand.Rand) (*mat.Dense, error) {
	if err := checkJoint(x, y); err != nil {
		return nil, err
	}
	n, dx := x.Dims()
	_, dy := y.Dims()
	if folds < 2 || folds > n {
		return nil, fmt.Errorf("folds must be from 2 to the %d rows, got %d", n, folds)
	}
	if crit != Marginal && crit != Pointwise {
		return nil, fmt.Errorf("unknown criterion %q (marginal or pointwise)", crit)
	}
	if len(eps) == 0 || len(delta) == 0 {
		return nil, fmt.Errorf("the eps and delta grids must not be empty")
	}
	perm := rnd.Perm(n)
	scores := mat.NewDense(len(eps), len(delta), nil)
	task := progress.Start(ctx, "fits", folds*len(eps)*len(delta))
	defer task.Done()
	for f := 0; f < folds; f++ {
		var train, test []int
		for i, p := range perm {
			if i%folds == f {
				test = append(test, p)
			} else {
				train = append(train, p)
			}
		}
		xtr, ytr := rowsOf(x, train, dx), rowsOf(y, train, dy)
		xte, yte := rowsOf(x, test, dx), rowsOf(y, test, dy)
		gx, err := kernels.Gram(kx, xtr)
		if err != nil {
			return nil, err
		}
		kxt, err := kernels.Cross(kx, xtr, xte)
		if err != nil {
			return nil, err
		}
		gte, err := kernels.Gram(kx, xte)
		if err != nil {
			return nil, err
		}
		for a, e := range eps {
			for b, d := range delta {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				task.Add(1)
				st := s
				st.Eps, st.Delta = e, d
				p, err := New(xtr, ytr, kx, ky, Prior{U: xtr}, st)
				if err != nil {
					return nil, fmt.Errorf("eps = %g, delta = %g: %w", e, d, err)
				}
				w, err := p.Condition(yte)
				if err != nil {
					return nil, err
				}
				scores.Set(a, b, scores.At(a, b)+score(crit, w, gx, kxt, gte))
			}
		}
	}
	return scores, nil
}

// score evaluates the criterion from the weights w (n_train × m), the
// training Gram matrix, the training–test cross matrix and the test Gram
// matrix.
func score(crit Criterion, w *mat.Dense, gx *mat.SymDense, kxt *mat.Dense, gte *mat.SymDense) float64 {
	ntr, m := w.Dims()
	if crit == Marginal {
		wbar := mat.NewVecDense(ntr, nil)
		for j := 0; j < m; j++ {
			wbar.AddVec(wbar, w.ColView(j))
		}
		wbar.ScaleVec(1/float64(m), wbar)
		ones := mat.NewVecDense(m, nil)
		for j := 0; j < m; j++ {
			ones.SetVec(j, 1/float64(m))
		}
		var kb mat.VecDense
		kb.MulVec(kxt, ones)
		return mat.Inner(wbar, gx, wbar) - 2*mat.Dot(wbar, &kb) + mat.Inner(ones, gte, ones)
	}
	var gw mat.Dense
	gw.Mul(gx, w)
	total := 0.0
	for j := 0; j < m; j++ {
		wj := w.ColView(j)
		total += mat.Dot(wj, gw.ColView(j)) - 2*mat.Dot(wj, kxt.ColView(j)) + gte.At(j, j)
	}
	return total / float64(m)
}

func rowsOf(a *mat.Dense, idx []int, d int) *mat.Dense {
	out := mat.NewDense(len(idx), d, nil)
	for i, r := range idx {
		out.SetRow(i, a.RawRowView(r))
	}
	return out
}
