package kbr

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// CME is the conditional mean embedding of eq. (10): given y, the weights
// w = (G_Y + nεI)⁻¹ k_Y(y) over X, so that E[f(X) | y] ≈ Σ_i w_i f(X_i).
// It needs no prior: the joint sample's own X marginal plays that part.
type CME struct {
	X, Y *mat.Dense
	KY   kernels.Kernel
	ch   *mat.Cholesky
	wb   *woodbury
}

// NewCME factorises G_Y + nεI once (or its rank-r Woodbury form when
// s.Rank > 0); s.Delta is not used.
func NewCME(x, y *mat.Dense, ky kernels.Kernel, s Settings) (*CME, error) {
	if err := s.checkEps(); err != nil {
		return nil, err
	}
	if err := checkJoint(x, y); err != nil {
		return nil, err
	}
	if err := s.checkSize(x.RawMatrix().Rows); err != nil {
		return nil, err
	}
	n, _ := y.Dims()
	c := &CME{X: x, Y: y, KY: ky}
	if s.Rank > 0 {
		l, _, err := kernels.IncompleteCholesky(ky, y, s.tol()*float64(n), s.Rank)
		if err != nil {
			return nil, err
		}
		if c.wb, err = newWoodbury(l, float64(n)*s.Eps); err != nil {
			return nil, err
		}
		return c, nil
	}
	gy, err := kernels.Gram(ky, y)
	if err != nil {
		return nil, err
	}
	if c.ch, err = ridgeChol(gy, float64(n)*s.Eps); err != nil {
		return nil, fmt.Errorf("G_Y + nεI: %w", err)
	}
	return c, nil
}

// Condition returns the n×m weights, column j for observation ys_j.
func (c *CME) Condition(ys *mat.Dense) (*mat.Dense, error) {
	k, err := crossY(c.KY, c.Y, ys)
	if err != nil {
		return nil, err
	}
	if c.wb != nil {
		return c.wb.apply(k), nil
	}
	var w mat.Dense
	if err := linalg.IgnoreCondition(c.ch.SolveTo(&w, k)); err != nil {
		return nil, err
	}
	return &w, nil
}
