package gp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
)

// Multi-class classification: `f ~ gp(X, K, classes: C)` is C independent
// latent GPs with kernel K, observed as `c ~ categorical_logit(f)` with
// labels 1..C, under Laplace's approximation (rgp.MultiLaplace).

var _ model.ClassLatent = (*gpLatent)(nil)

// Classes is C for gp(..., classes: C), else 0.
func (g *gpLatent) Classes() int { return g.classes }

// classLabels reads the labels 1..C as 0..C−1.
func (g *gpLatent) classLabels(data eval.Value) ([]int, error) {
	ys, ok := eval.ToFloats(data)
	if !ok || eval.IsAD(data) {
		return nil, fmt.Errorf("the labels of a multi-class GP must be a vector of classes 1 to %d, got %s", g.classes, eval.Describe(data))
	}
	n, _ := g.x.Dims()
	if len(ys) != n {
		return nil, fmt.Errorf("%d labels for a latent GP at %d input rows", len(ys), n)
	}
	y := make([]int, n)
	for i, v := range ys {
		if v != math.Trunc(v) || v < 1 || v > float64(g.classes) {
			return nil, fmt.Errorf("label %d is %s, not a class from 1 to %d (classes: %d)", i+1, eval.FormatNumber(v), g.classes, g.classes)
		}
		y[i] = int(v) - 1
	}
	return y, nil
}

// classesLowRank is the refusal of Laplace's multi-class path for a GP
// with inducing points, with the way to fit one.
func (g *gpLatent) classesLowRank() string {
	n, _ := g.x.Dims()
	return fmt.Sprintf(`multi-class GP classification with inducing points (given, or inducing: "auto" above %d rows; x has %d) is fitted by optimize(m, objective: "ml", method: "svgp"), and predict takes that fit; Laplace's multi-class path is exact only (inducing: "exact")`, lowRankAbove, n)
}

// classObjective refuses what multi-class classification does not have:
// objectives other than the marginal likelihood, and approximations other
// than Laplace's ("" is predict's unset approx).
func classObjective(obj model.Objective) error {
	if obj.Name != model.ObjUnset && obj.Name != model.ObjMLM {
		return fmt.Errorf(`objective %q is not available for multi-class GP classification; use objective: "ml", approx: "laplace"`, obj.Name)
	}
	if info, err := obj.Approx.Info(); obj.Approx != "" && (err != nil || !info.Classes) {
		return fmt.Errorf(`multi-class GP classification has Laplace's approximation only (Williams and Barber 1998), not %q: write approx: "laplace"`, obj.Approx)
	}
	return nil
}

// ClassLogLik is Laplace's approximation to the log marginal likelihood
// of the labels, with its gradient in the kernel's hyperparameters on the
// tape.
func (g *gpLatent) ClassLogLik(ev *model.Eval, data eval.Value) (eval.Value, error) {
	y, err := g.classLabels(data)
	if err != nil {
		return nil, err
	}
	if ev.Objective().ResolveOnly {
		return eval.Num(0), nil // method "svgp" fits it by itself
	}
	if err := classObjective(ev.Objective()); err != nil {
		return nil, err
	}
	if g.lowRank() {
		return nil, &ast.Error{Pos: g.pos, Msg: g.classesLowRank()}
	}
	if ev.Checking {
		ev.WarnOnce("gp: approximate", g.pos, "gp: with categorical_logit observations the marginal likelihood of the hyperparameters is Laplace's approximation (Gaussian at the posterior mode)")
	}
	k := g.kernel.K
	if !g.HasAD() {
		lp, _, err := rgp.MultiLaplace(k, g.x, y, g.classes, nil)
		if err != nil {
			return nil, &ast.Error{Pos: g.pos, Msg: fmt.Sprintf("gp: %v (kernel %s)", bare(err), k)}
		}
		return eval.Num(lp), nil
	}
	// In an optimiser run the term keeps its last modes (rgp.MultiWarm)
	// and answers a repeated evaluation from its memo, as the binary
	// term does (gp_loglik.go).
	var warm *rgp.MultiWarm
	if w := ev.Local(warmKey{g.pos, "laplace"}, func() any { return &rgp.MultiWarm{} }); w != nil {
		warm = w.(*rgp.MultiWarm)
	}
	var last *lastEval
	if m := ev.Local(lastKey{g.pos}, func() any { return &lastEval{} }); m != nil {
		last = m.(*lastEval)
	}
	yf := make([]float64, len(y))
	for i, v := range y {
		yf[i] = float64(v)
	}
	var recErr error
	out := eval.FuncNode(g.kernel.Hyper, func(x, d []float64) float64 {
		if v, ok := last.get(x, d, g.x, yf); ok {
			return v
		}
		kk, err := k.WithHyper(x)
		if err != nil {
			return math.NaN()
		}
		lp, _, err := rgp.MultiLaplaceWarm(warm, kk, g.x, y, g.classes, d)
		if recErr = err; err != nil {
			return math.NaN()
		}
		last.put(x, d, g.x, yf, lp)
		return lp
	})
	if recErr != nil {
		return nil, &ast.Error{Pos: g.pos, Msg: fmt.Sprintf("gp: %v (kernel %s)", bare(recErr), k)}
	}
	return out, nil
}

// predictClasses is the predictive class probabilities at xnew: Laplace's
// Gaussian for the C latent values at each point (Algorithm 3.4), and
// softmax averaged over it by draws Monte Carlo draws from r.
// The record carries draws, and seed when seedGiven (a seed drawn from the
// run's stream is reproduced by kml run --seed instead).
func (g *gpLatent) predictClasses(obj model.Objective, data eval.Value, xnew *mat.Dense, draws int, seed uint64, seedGiven bool, r *rand.Rand) (*eval.Record, error) {
	if err := classObjective(obj); err != nil {
		return nil, err
	}
	if g.lowRank() {
		return nil, fmt.Errorf("%s", g.classesLowRank())
	}
	y, err := g.classLabels(data)
	if err != nil {
		return nil, err
	}
	_, p, err := rgp.MultiLaplace(g.kernel.K, g.x, y, g.classes, nil)
	if err != nil {
		return nil, fmt.Errorf("gp: %v (kernel %s)", bare(err), g.kernel.K)
	}
	ks, err := kernels.Cross(g.kernel.K, xnew, g.x)
	if err != nil {
		return nil, err
	}
	m, _ := xnew.Dims()
	kss := make([]float64, m)
	for j := range kss {
		row := xnew.RawRowView(j)
		kss[j] = g.kernel.K.Eval(row, row)
	}
	mean, cov := p.Predict(ks, kss)
	return classRecord(mean, cov, g.classes, draws, seed, seedGiven, r, "laplace"), nil
}

// classRecord is predict's record for C classes at m points whose latent
// values have the Gaussians N(mean[j], cov[j]) (C × C, row-major): the
// class probabilities, softmax averaged by draws Monte Carlo draws from r,
// the most probable class, and the latent means and variances.
func classRecord(mean, cov [][]float64, C, draws int, seed uint64, seedGiven bool, r *rand.Rand, approx string) *eval.Record {
	m := len(mean)
	prob := mat.NewDense(m, C, nil)
	fm := mat.NewDense(m, C, nil)
	fv := mat.NewDense(m, C, nil)
	class := make([]float64, m)
	for j := range m {
		pr := rgp.SoftmaxAverage(mean[j], cov[j], draws, r)
		best := 0
		for c := range C {
			prob.Set(j, c, pr[c])
			fm.Set(j, c, mean[j][c])
			fv.Set(j, c, math.Max(cov[j][c*C+c], 0))
			if pr[c] > pr[best] {
				best = c
			}
		}
		class[j] = float64(best + 1)
	}
	rec := eval.NewRecord().Set("prob", eval.NewMat(prob)).Set("class", &eval.Vec{Data: class}).
		Set("f_mean", eval.NewMat(fm)).Set("f_var", eval.NewMat(fv)).
		Set("draws", eval.Num(float64(2*max(draws/2, 1)))).Set("approx", eval.Str(approx))
	if seedGiven {
		rec.Set("seed", eval.Num(float64(seed)))
	}
	return rec
}
