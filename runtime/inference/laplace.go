package inference

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/rng"
)

// Laplace is the Laplace approximation at a mode, as CmdStan's laplace
// method: the Gaussian N(mode, (−H)⁻¹) on the unconstrained scale, H the
// Hessian of log p at the mode by central differences of the exact
// gradient (step 1e-4·max(1, |x|) per coordinate, symmetrised; exact for a
// Gaussian log p up to rounding). It returns draws from it, each with
// log p and log q, the k̂ of their ratios, and the covariance (D×D,
// row-major). A Hessian that is not negative definite is an error: the
// point is a saddle or a ridge. step, when not nil, is called after each
// of the D Hessian columns and each draw.
func Laplace(ctx context.Context, m Model, mode []float64, draws int, seed uint64, step func()) (*Approx, []float64, error) {
	if step == nil {
		step = func() {}
	}
	dim := len(mode)
	ev := &evaluator{m: m, grad: make([]float64, dim)}
	neg := mat.NewSymDense(dim, nil)
	gp, gm := make([]float64, dim), make([]float64, dim)
	q := append([]float64(nil), mode...)
	cols := make([][]float64, dim)
	for j := range dim {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		h := 1e-4 * math.Max(1, math.Abs(mode[j]))
		q[j] = mode[j] + h
		lp := ev.eval(gp, q)
		q[j] = mode[j] - h
		lm := ev.eval(gm, q)
		q[j] = mode[j]
		if math.IsInf(lp, -1) || math.IsInf(lm, -1) {
			return nil, nil, fmt.Errorf("the log density is not finite next to the mode (coordinate %d), so its Hessian cannot be taken there", j+1)
		}
		cols[j] = make([]float64, dim)
		for i := range dim {
			cols[j][i] = (gp[i] - gm[i]) / (2 * h)
		}
		step()
	}
	for i := range dim {
		for j := i; j < dim; j++ {
			neg.SetSym(i, j, -(cols[j][i]+cols[i][j])/2)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(neg) {
		return nil, nil, fmt.Errorf("the Hessian of the log density at the mode is not negative definite, so there is no Gaussian at the mode: the optimum is a saddle, a ridge or on a boundary")
	}
	var covSym mat.SymDense
	if err := chol.InverseTo(&covSym); err != nil {
		return nil, nil, fmt.Errorf("the Hessian at the mode is singular: %v", err)
	}
	cov := make([]float64, dim*dim)
	for i := range dim {
		for j := range dim {
			cov[i*dim+j] = covSym.At(i, j)
		}
	}
	// −H = UᵀU, so θ = mode + U⁻¹z has covariance U⁻¹U⁻ᵀ = (−H)⁻¹.
	var u mat.TriDense
	chol.UTo(&u)
	halfLogDet := 0.0 // ½ log det(−H)
	for i := range dim {
		halfLogDet += math.Log(u.At(i, i))
	}
	rnd := rng.New(seed, rng.LaplaceSample)
	res := &Approx{}
	z := mat.NewVecDense(dim, nil)
	var x mat.VecDense
	for d := 0; d < draws; d++ {
		if d%64 == 0 && ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		zz := 0.0
		for i := range dim {
			v := rnd.NormFloat64()
			z.SetVec(i, v)
			zz += v * v
		}
		if err := x.SolveVec(&u, z); err != nil {
			return nil, nil, err
		}
		theta := make([]float64, dim)
		for i := range dim {
			theta[i] = mode[i] + x.AtVec(i)
		}
		res.Draws = append(res.Draws, theta)
		res.LogP = append(res.LogP, ev.eval(nil, theta))
		res.LogQ = append(res.LogQ, -0.5*zz+halfLogDet-0.5*float64(dim)*math.Log(2*math.Pi))
		step()
	}
	res.Khat = khatOf(res.LogP, res.LogQ)
	res.Evals = ev.n
	return res, cov, nil
}
