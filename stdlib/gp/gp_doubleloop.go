package gp

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
)

var _ model.DoubleLooper = (*gpLatent)(nil)

// DoubleLoopParams returns the kernel's weights θ_m (the scales of the
// top-level scaled terms of its sum) and its other hyperparameters and the
// likelihood's parameters, as o resolved them.
func (g *gpLatent) DoubleLoopParams(o model.LatentObservation) (weights, others []float64, err error) {
	isWeight := map[int]bool{}
	for _, i := range rgp.Weights(g.kernel.K) {
		isWeight[i] = true
	}
	for i, h := range g.kernel.Hyper {
		v, _ := eval.PeekFloat(h)
		if isWeight[i] {
			weights = append(weights, v)
		} else {
			others = append(others, v)
		}
	}
	for i := range o.Lik.Params {
		if i == o.Loc {
			continue
		}
		v, err := scalarParam(o.Lik, i)
		if err != nil {
			return nil, nil, err
		}
		others = append(others, v)
	}
	if len(weights) == 0 {
		return nil, nil, fmt.Errorf(`method: "double_loop" learns the weights θ of a kernel θ₁k₁ + ... + θ_M k_M, but %s has none; write them as parameters, e.g. t1 * rbf(2) + t2 * linear()`, g.kernel.K)
	}
	return weights, others, nil
}

// DoubleLoop runs runtime/gp's DoubleLoop on the Gram matrices of the
// kernel's weighted terms (the learnt ones; held weights and unweighted
// terms go into its fixed part), for normal or bernoulli_logit
// observations: the Laplace and Student-t likelihoods have no Newton step
// (a kink; a non-convex −log P).
func (g *gpLatent) DoubleLoop(ctx context.Context, o model.LatentObservation, obj model.Objective, learn []bool, theta0 []float64, penalty func([]float64) (float64, []float64, []float64)) (*model.DoubleLoopRun, error) {
	if g.lowRank() && !g.auto {
		return nil, fmt.Errorf(`method: "double_loop" needs the exact GP (inducing: "exact")`)
	}
	y, err := g.observations(o.Data)
	if err != nil {
		return nil, err
	}
	var lik rgp.Lik
	switch o.Lik.Family.Name() {
	case "normal":
		sigma, err := scalarParam(o.Lik, 1)
		if err != nil {
			return nil, err
		}
		lik = rgp.Lik{Kind: rgp.Normal, Params: []float64{sigma}}
	case "bernoulli_logit":
		if lik, _, err = nonGaussianLik(o.Lik, o.Loc, y); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf(`method: "double_loop" takes normal or bernoulli_logit observations (its joint Newton step needs a smooth, log-concave likelihood), not %s`, o.Lik.Family.Name())
	}
	n, _ := g.x.Dims()
	fixed := mat.NewSymDense(n, nil)
	var Ks []*mat.SymDense
	var idx []int // the weight each of Ks is
	m := 0
	var walk func(k kernels.Kernel) error
	walk = func(k kernels.Kernel) error {
		switch k := k.(type) {
		case *kernels.Sum:
			if err := walk(k.A); err != nil {
				return err
			}
			return walk(k.B)
		case *kernels.Scaled:
			K, err := kernels.Gram(k.K, g.x)
			if err != nil {
				return err
			}
			if learn[m] {
				Ks, idx = append(Ks, K), append(idx, m)
			} else {
				fixed.AddSym(fixed, scaled(K, theta0[m]))
			}
			m++
			return nil
		}
		K, err := kernels.Gram(k, g.x)
		if err != nil {
			return err
		}
		fixed.AddSym(fixed, K)
		return nil
	}
	if err := walk(g.kernel.K); err != nil {
		return nil, err
	}
	start := make([]float64, len(idx))
	for i, w := range idx {
		start[i] = theta0[w]
	}
	dl := &rgp.DoubleLoop{Ks: Ks, Fixed: fixed, Y: y, Lik: lik, P: obj.P, Lambda: obj.Lambda, Ctx: ctx}
	switch obj.Name {
	case model.ObjMAP:
		dl.Kind = rgp.MAP
	case model.ObjMKL:
		dl.Kind = rgp.MKL
	default:
		return nil, fmt.Errorf(`method: "double_loop" is for objective "map" or "mkl", not %q`, obj.Name)
	}
	if penalty != nil {
		full := append([]float64(nil), theta0...)
		dl.Penalty = func(theta []float64) (float64, []float64, []float64) {
			for i, w := range idx {
				full[w] = theta[i]
			}
			v, gr, cu := penalty(full)
			g2, c2 := make([]float64, len(idx)), make([]float64, len(idx))
			for i, w := range idx {
				g2[i], c2[i] = gr[w], cu[w]
			}
			return v, g2, c2
		}
	}
	r, err := dl.Run(start)
	if err != nil {
		return nil, fmt.Errorf("gp: %v (kernel %s)", bare(err), g.kernel.K)
	}
	theta := append([]float64(nil), theta0...)
	for i, w := range idx {
		theta[w] = r.Theta[i]
	}
	return &model.DoubleLoopRun{Theta: theta, Outer: r.Outer, Evals: r.Evals, Converged: r.Converged}, nil
}

// scaled returns c·a as a new matrix.
func scaled(a *mat.SymDense, c float64) *mat.SymDense {
	out := mat.NewSymDense(a.SymmetricDim(), nil)
	out.ScaleSym(c, a)
	return out
}
