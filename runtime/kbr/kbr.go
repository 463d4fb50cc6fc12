package kbr

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// Prior is a weighted sample Σ_j γ_j k_X(·, U_j) standing for the prior's
// kernel mean. Weights nil means equal weights 1/ℓ over the ℓ rows of U.
// Weights may be negative (a posterior used as the next prior).
type Prior struct {
	U       *mat.Dense
	Weights []float64
}

// Settings are the regularisers and the low-rank mode. The zero value is
// not usable: Eps and Delta must be positive.
type Settings struct {
	// Eps regularises the inversion of G_X (and of G_Y for CME).
	Eps float64
	// Delta regularises the inversion of (ΛG_Y)².
	Delta float64
	// Rank, when positive, replaces each Gram matrix by a pivoted
	// incomplete Cholesky factor LLᵀ of rank at most Rank and applies the
	// inverses through the Woodbury identity: O(nr²) instead of O(n³).
	// 0 is the exact (dense) computation.
	Rank int
	// Tol stops the incomplete Cholesky early when the trace of the
	// residual G − LLᵀ falls below Tol × trace(G); 0 means 1e-10.
	Tol float64
}

func (s Settings) check() error {
	if err := s.checkEps(); err != nil {
		return err
	}
	if !(s.Delta > 0) || math.IsInf(s.Delta, 0) {
		return fmt.Errorf("delta must be a positive number, got %v", s.Delta)
	}
	if s.Rank < 0 {
		return fmt.Errorf("rank must not be negative, got %d", s.Rank)
	}
	return nil
}

// MaxExact is the largest sample the exact path takes: it keeps several
// n×n matrices (three at n = 10,000 are 2.4 GB) and costs O(n³); larger
// samples need Settings.Rank.
const MaxExact = 10000

func (s Settings) checkSize(n int) error {
	if s.Rank == 0 && n > MaxExact {
		return fmt.Errorf("%d pairs are too many for the exact computation (at most %d: it stores n×n matrices, %.1f GB each here); use a low rank, such as rank: 200", n, MaxExact, float64(n)*float64(n)*8/1e9)
	}
	return nil
}

func (s Settings) checkEps() error {
	if !(s.Eps > 0) || math.IsInf(s.Eps, 0) {
		return fmt.Errorf("eps must be a positive number, got %v", s.Eps)
	}
	if s.Rank < 0 {
		return fmt.Errorf("rank must not be negative, got %d", s.Rank)
	}
	return nil
}

func (s Settings) tol() float64 {
	if s.Tol > 0 {
		return s.Tol
	}
	return 1e-10
}

// Posterior is the kernel Bayes' rule operator for one joint sample and one
// prior: Condition maps observations to posterior weights over X.
type Posterior struct {
	X, Y   *mat.Dense
	KX, KY kernels.Kernel
	// Mu is μ = (G_X + nεI)⁻¹ m, the prior's weights pushed onto the
	// sample (they sum to about 1).
	Mu []float64
	op observationOp
}

// observationOp applies R = ΛG_Y((ΛG_Y)² + δI)⁻¹Λ to the columns of k.
type observationOp interface {
	apply(k *mat.Dense) *mat.Dense
}

// New builds the posterior operator for the joint sample (x, y) (rows are
// observations, paired by row) and the prior. It factorises once; each
// Condition then costs O(n²) per observation (O(nr) in low-rank mode).
func New(x, y *mat.Dense, kx, ky kernels.Kernel, prior Prior, s Settings) (*Posterior, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if err := checkJoint(x, y); err != nil {
		return nil, err
	}
	if err := s.checkSize(x.RawMatrix().Rows); err != nil {
		return nil, err
	}
	m, err := priorMean(kx, x, prior)
	if err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	var mu []float64
	if s.Rank > 0 {
		lx, _, err := kernels.IncompleteCholesky(kx, x, s.tol()*float64(n), s.Rank)
		if err != nil {
			return nil, err
		}
		mu, err = woodburySolve(lx, float64(n)*s.Eps, m)
		if err != nil {
			return nil, err
		}
	} else {
		gx, err := kernels.Gram(kx, x)
		if err != nil {
			return nil, err
		}
		mu, err = ridgeSolve(gx, float64(n)*s.Eps, m)
		if err != nil {
			return nil, fmt.Errorf("G_X + nεI: %w", err)
		}
	}
	op, err := newObservationOp(ky, y, mu, s)
	if err != nil {
		return nil, err
	}
	return &Posterior{X: x, Y: y, KX: kx, KY: ky, Mu: mu, op: op}, nil
}

func newObservationOp(ky kernels.Kernel, y *mat.Dense, mu []float64, s Settings) (observationOp, error) {
	n, _ := y.Dims()
	if s.Rank > 0 {
		ly, _, err := kernels.IncompleteCholesky(ky, y, s.tol()*float64(n), s.Rank)
		if err != nil {
			return nil, err
		}
		return newLowRankOp(ly, mu, s.Delta)
	}
	gy, err := kernels.Gram(ky, y)
	if err != nil {
		return nil, err
	}
	return newExactOp(gy, mu, s.Delta)
}

// Condition returns the posterior weights over the rows of X given each
// row of ys: an n×m matrix whose column j is w(ys_j) = R k_Y(ys_j).
func (p *Posterior) Condition(ys *mat.Dense) (*mat.Dense, error) {
	k, err := crossY(p.KY, p.Y, ys)
	if err != nil {
		return nil, err
	}
	return p.op.apply(k), nil
}

func crossY(ky kernels.Kernel, y, ys *mat.Dense) (*mat.Dense, error) {
	if err := kernels.CheckData(ys, "the observation"); err != nil {
		return nil, err
	}
	_, dy := y.Dims()
	if _, d := ys.Dims(); d != dy {
		return nil, fmt.Errorf("an observation has %d values but Y has %d columns", d, dy)
	}
	return kernels.Cross(ky, y, ys)
}

func checkJoint(x, y *mat.Dense) error {
	if err := kernels.CheckData(x, "X"); err != nil {
		return err
	}
	if err := kernels.CheckData(y, "Y"); err != nil {
		return err
	}
	nx, _ := x.Dims()
	ny, _ := y.Dims()
	if nx != ny {
		return fmt.Errorf("X has %d rows and Y has %d: a joint sample pairs them by row", nx, ny)
	}
	if nx < 2 {
		return errors.New("the joint sample needs at least 2 rows")
	}
	return nil
}

// priorMean returns m_i = Σ_j γ_j k_X(X_i, U_j), in row blocks so a large
// prior sample never needs the whole n×ℓ cross matrix.
func priorMean(kx kernels.Kernel, x *mat.Dense, prior Prior) ([]float64, error) {
	if err := kernels.CheckData(prior.U, "the prior sample"); err != nil {
		return nil, err
	}
	l, du := prior.U.Dims()
	n, dx := x.Dims()
	if du != dx {
		return nil, fmt.Errorf("the prior sample has %d columns but X has %d", du, dx)
	}
	g := prior.Weights
	if g == nil {
		g = make([]float64, l)
		for j := range g {
			g[j] = 1 / float64(l)
		}
	}
	if len(g) != l {
		return nil, fmt.Errorf("the prior has %d weights for %d points", len(g), l)
	}
	for j, v := range g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("prior weight %d is %v", j+1, v)
		}
	}
	gv := mat.NewVecDense(l, g)
	m := make([]float64, n)
	const block = 256
	for i0 := 0; i0 < n; i0 += block {
		i1 := min(i0+block, n)
		c, err := kernels.Cross(kx, x.Slice(i0, i1, 0, dx).(*mat.Dense), prior.U)
		if err != nil {
			return nil, err
		}
		mv := mat.NewVecDense(i1-i0, m[i0:i1])
		mv.MulVec(c, gv)
	}
	return m, nil
}

// ridgeSolve returns (G + cI)⁻¹ b for a symmetric positive semi-definite
// G and c > 0, by Cholesky.
func ridgeSolve(g *mat.SymDense, c float64, b []float64) ([]float64, error) {
	ch, err := ridgeChol(g, c)
	if err != nil {
		return nil, err
	}
	out := mat.NewVecDense(len(b), nil)
	// An ill-conditioned but positive definite system still solves
	// stably; the regulariser bounds how ill-conditioned it can be.
	if err := linalg.IgnoreCondition(ch.SolveVecTo(out, mat.NewVecDense(len(b), b))); err != nil {
		return nil, err
	}
	return out.RawVector().Data, nil
}

func ridgeChol(g *mat.SymDense, c float64) (*mat.Cholesky, error) {
	n := g.SymmetricDim()
	a := mat.NewSymDense(n, nil)
	a.CopySym(g)
	for i := 0; i < n; i++ {
		a.SetSym(i, i, a.At(i, i)+c)
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		return nil, errors.New("not positive definite (is the kernel positive definite and the regulariser large enough?)")
	}
	return &ch, nil
}
