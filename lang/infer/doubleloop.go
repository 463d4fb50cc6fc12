package infer

import (
	"context"
	"fmt"
	"math"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

// OptimizeDoubleLoop maximises c's joint MAP or MKL objective by the
// paper's Algorithm 1 rather than L-BFGS. Algorithm 1 moves only kernel
// weights, so every free parameter must be one weight θ_m of the latent
// GP's kernel Σ_m θ_m k_m. Which one is found by evaluating the model at a
// point where the free parameters all differ and again with each moved:
// parameter j is weight m when θ_m equals it at both and nothing else the
// kernel or the likelihood depends on moves (anything else, such as a
// lengthscale or a noise level left free, or a weight written as an
// expression of a parameter, is refused with the way out: fix:). The
// joint MAP objective's priors on the weights enter as the penalty
// R(θ) = −2 log p(θ), evaluated by the model with its gradient and
// curvature by central differences in θ (steps of 10⁻⁴θ_m, the curvature
// clipped at 0 for the Newton step; the line search uses R itself). The
// start is θ = 1 for every weight, or init. The record holds the model's
// own objective at the end (so its logp compares with L-BFGS's), its
// largest gradient component on the unconstrained scale, and Algorithm
// 1's outer iterations and evaluations.
func OptimizeDoubleLoop(ctx context.Context, th *eval.Thread, pos ast.Pos, c *model.Compiled, init []float64) (*Optimum, error) {
	dim := c.Dim()
	if dim == 0 {
		return nil, fmt.Errorf(`method: "double_loop" learns kernel weights, but model %s has no free parameters`, c.Model.Name)
	}
	probe := make([]float64, dim)
	for j := range probe {
		probe[j] = 0.1 * float64(j+1)
	}
	at := func(q []float64) (model.DoubleLooper, model.LatentObservation, []float64, []float64, error) {
		obs, err := c.NewDensity(th.Fork()).LatentObservations(q)
		if err != nil {
			return nil, model.LatentObservation{}, nil, nil, err
		}
		if len(obs) != 1 {
			return nil, model.LatentObservation{}, nil, nil, fmt.Errorf(`method: "double_loop" needs one latent GP observed once, model %s has %d observations of latent functions`, c.Model.Name, len(obs))
		}
		dlr, ok := obs[0].Latent.(model.DoubleLooper)
		if !ok {
			return nil, model.LatentObservation{}, nil, nil, fmt.Errorf(`method: "double_loop" is for a latent gp(X, KERNEL)`)
		}
		w, others, err := dlr.DoubleLoopParams(obs[0])
		return dlr, obs[0], w, others, err
	}
	_, _, w0, o0, err := at(probe)
	if err != nil {
		return nil, err
	}
	cons := c.Constrain(nil, probe)
	if len(cons) != dim {
		return nil, fmt.Errorf(`method: "double_loop" learns scalar kernel weights; model %s has a vector or constrained-vector parameter`, c.Model.Name)
	}
	names := c.Names()
	weightOf := make([]int, dim) // the weight each free scalar is
	owner := make([]int, len(w0))
	for m := range owner {
		owner[m] = -1
	}
	for j := range dim {
		q := append([]float64(nil), probe...)
		q[j] += 0.37
		_, _, w1, o1, err := at(q)
		if err != nil {
			return nil, err
		}
		v1 := c.Constrain(nil, q)[j]
		weightOf[j] = -1
		for m := range w0 {
			if w1[m] != w0[m] && sameValue(w0[m], cons[j]) && sameValue(w1[m], v1) {
				weightOf[j] = m
			}
		}
		moved := 0
		for m := range w0 {
			if w1[m] != w0[m] {
				moved++
			}
		}
		for i := range o0 {
			if o1[i] != o0[i] {
				moved = -1
			}
		}
		if weightOf[j] < 0 || moved != 1 || owner[weightOf[j]] >= 0 {
			return nil, fmt.Errorf(`method: "double_loop" (Algorithm 1) learns only the weights θ of a kernel θ₁k₁ + ... + θ_M k_M, each a parameter of its own (t1 * rbf(2) + t2 * linear()); %s is not one: hold it with fix: or use the default L-BFGS`, names[j])
		}
		owner[weightOf[j]] = j
	}
	learn := make([]bool, len(w0))
	theta0 := make([]float64, len(w0))
	for m := range w0 {
		learn[m] = owner[m] >= 0
		theta0[m] = w0[m]
		if learn[m] {
			theta0[m] = 1
			if init != nil && !math.IsNaN(init[owner[m]]) {
				theta0[m] = c.Constrain(nil, init)[owner[m]]
			}
		}
	}
	// q of the weights θ (the free scalars in order).
	qOf := func(theta []float64) ([]float64, error) {
		vals := map[string]eval.Value{}
		for j := range dim {
			vals[names[j]] = eval.Num(theta[weightOf[j]])
		}
		return c.Unconstrain(vals)
	}
	var penalty func([]float64) (float64, []float64, []float64)
	if c.Terms.Prior {
		pc, err := model.Compile(th, pos, c.Model, c.HeldValues(), model.Terms{Prior: true})
		if err != nil {
			return nil, err
		}
		pd := pc.NewDensity(th.Fork())
		r := func(theta []float64) float64 {
			q, err := qOf(theta)
			if err != nil {
				return math.Inf(1)
			}
			lp, err := pd.Value(q)
			if err != nil {
				return math.Inf(1)
			}
			return -2 * lp
		}
		penalty = func(theta []float64) (float64, []float64, []float64) {
			v := r(theta)
			g, h := make([]float64, len(theta)), make([]float64, len(theta))
			t := append([]float64(nil), theta...)
			for m := range theta {
				if !learn[m] {
					continue
				}
				step := 1e-4 * theta[m]
				t[m] = theta[m] + step
				up := r(t)
				t[m] = theta[m] - step
				down := r(t)
				t[m] = theta[m]
				g[m] = (up - down) / (2 * step)
				h[m] = (up - 2*v + down) / (step * step)
			}
			return v, g, h
		}
	}
	dlr, o, _, _, err := at(probe)
	if err != nil {
		return nil, err
	}
	run, err := dlr.DoubleLoop(ctx, o, c.Terms.Latent, learn, theta0, penalty)
	if err != nil {
		return nil, err
	}
	q, err := qOf(run.Theta)
	if err != nil {
		return nil, err
	}
	grad := make([]float64, dim)
	lp, err := c.NewDensity(th.Fork()).LogDensity(grad, q)
	if err != nil {
		return nil, err
	}
	gn := 0.0
	for _, g := range grad {
		gn = math.Max(gn, math.Abs(g))
	}
	rec := c.Values(q)
	rec.Set("logp", eval.Num(lp)).Set("converged", eval.Bool(run.Converged)).
		Set("iterations", eval.Num(float64(run.Outer))).Set("grad_norm", eval.Num(gn)).
		Set("evaluations", eval.Num(float64(run.Evals)))
	opt := &Optimum{Values: rec, Warnings: c.TakeWarnings()}
	if !run.Converged {
		opt.Warnings = append(opt.Warnings, fmt.Sprintf("the double loop did not converge in %d outer iterations; the result may not be a minimum", run.Outer))
	}
	return opt, nil
}

// sameValue reports whether a and b agree to rounding.
func sameValue(a, b float64) bool { return math.Abs(a-b) <= 1e-9*(1+math.Abs(b)) }
