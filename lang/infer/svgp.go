package infer

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

// OptimizeSVGP fits c's latent GP by a stochastic variational GP
// (runtime/gp.SVGP) rather than L-BFGS: the bound's parameters q(v) and
// the kernel's and likelihood's parameters move together on minibatches.
// SVGP learns the numbers the kernel and the likelihood are made of, so
// every free parameter must be one of them, a parameter of its own
// (rbf(ell), not rbf(2 * ell)); which one is found by evaluating the
// model at a point where the free parameters all differ and again with
// each moved, as OptimizeDoubleLoop does. The start is each free
// parameter at init, or where init does not give it at the value 0 on
// the unconstrained scale maps to (1 for a positive one). The record holds every parameter, logp (the
// ELBO over all the data at the end), elbo, iterations (the steps) and
// the settings: inducing, batch, steps, total_steps (with those of the
// fits it resumed), epochs, gamma, lr, and quad (draws for a multi-class
// GP's base normals).
func OptimizeSVGP(ctx context.Context, th *eval.Thread, c *model.Compiled, init []float64, set model.SVGPSettings) (*Optimum, *model.SVGPRun, error) {
	dim := c.Dim()
	at := func(q []float64) (model.SVGPFitter, model.LatentObservation, []float64, error) {
		obs, err := c.NewDensity(th.Fork()).LatentObservations(q)
		if err != nil {
			return nil, model.LatentObservation{}, nil, err
		}
		if len(obs) != 1 {
			return nil, model.LatentObservation{}, nil, fmt.Errorf(`method: "svgp" needs one latent GP observed once, model %s has %d observations of latent functions`, c.Model.Name, len(obs))
		}
		f, ok := obs[0].Latent.(model.SVGPFitter)
		cl, isClass := obs[0].Latent.(model.ClassLatent)
		if !ok || (obs[0].Lik == nil && !(isClass && cl.Classes() > 0)) {
			return nil, model.LatentObservation{}, nil, fmt.Errorf(`method: "svgp" is for a latent gp(X, KERNEL), or gp(X, KERNEL, classes: C) observed through categorical_logit`)
		}
		p, err := f.SVGPParams(obs[0])
		return f, obs[0], p, err
	}
	probe := make([]float64, dim)
	for j := range probe {
		probe[j] = 0.1 * float64(j+1)
	}
	_, _, p0, err := at(probe)
	if err != nil {
		return nil, nil, err
	}
	cons := c.Constrain(nil, probe)
	if len(cons) != dim {
		return nil, nil, fmt.Errorf(`method: "svgp" learns scalar kernel hyperparameters and likelihood parameters; model %s has a vector or constrained-vector parameter`, c.Model.Name)
	}
	names := c.Names()
	entryOf := make([]int, dim)
	owner := make([]int, len(p0))
	for e := range owner {
		owner[e] = -1
	}
	for j := range dim {
		q := append([]float64(nil), probe...)
		q[j] += 0.37
		_, _, p1, err := at(q)
		if err != nil {
			return nil, nil, err
		}
		v1 := c.Constrain(nil, q)[j]
		entryOf[j] = -1
		moved := 0
		for e := range p0 {
			if p1[e] != p0[e] {
				moved++
				if sameValue(p0[e], cons[j]) && sameValue(p1[e], v1) {
					entryOf[j] = e
				}
			}
		}
		if entryOf[j] < 0 || moved != 1 || owner[entryOf[j]] >= 0 {
			return nil, nil, fmt.Errorf(`method: "svgp" learns the kernel's hyperparameters and the likelihood's parameters, each a parameter of its own (rbf(ell), normal(f, sigma)); %s is not one: hold it with fix: or use the default L-BFGS`, names[j])
		}
		owner[entryOf[j]] = j
	}
	q0 := make([]float64, dim)
	for j := range q0 {
		if init != nil && !math.IsNaN(init[j]) {
			q0[j] = init[j] // init: gives some or all
		}
	}
	f, o, start, err := at(q0)
	if err != nil {
		return nil, nil, err
	}
	learn := make([]bool, len(start))
	for e := range learn {
		learn[e] = owner[e] >= 0
	}
	run, err := f.SVGP(ctx, o, learn, start, set)
	if err != nil {
		return nil, nil, err
	}
	q, err := c.Unconstrain(valuesByName(names, func(j int) float64 { return run.Params[entryOf[j]] }))
	if err != nil {
		return nil, nil, err
	}
	rec := c.Values(q)
	rec.Set("logp", eval.Num(run.ELBO)).Set("elbo", eval.Num(run.ELBO)).
		Set("iterations", eval.Num(float64(set.Steps))).
		Set("inducing", eval.Num(float64(run.Inducing))).Set("batch", eval.Num(float64(run.Batch))).
		Set("steps", eval.Num(float64(set.Steps))).Set("total_steps", eval.Num(float64(run.TotalSteps))).
		Set("epochs", eval.Num(run.Epochs)).
		Set("gamma", eval.Num(set.Gamma)).Set("lr", eval.Num(set.LR))
	if run.Draws > 0 {
		rec.Set("draws", eval.Num(float64(run.Draws)))
	} else {
		rec.Set("quad", eval.Num(float64(run.Quad)))
	}
	return &Optimum{Values: rec, Warnings: c.TakeWarnings()}, run, nil
}

// valuesByName gathers the constrained values value(j) of the free reals
// named names (Compiled.Names: `a`, or `ell.1`, `ell.2`, ... for a
// vector) into values by parameter, for Compiled.Unconstrain.
func valuesByName(names []string, value func(j int) float64) map[string]eval.Value {
	vecs := map[string][]float64{}
	vals := map[string]eval.Value{}
	for j, name := range names {
		base, idx, ok := strings.Cut(name, ".")
		if !ok {
			vals[name] = eval.Num(value(j))
			continue
		}
		i, _ := strconv.Atoi(idx)
		v := vecs[base]
		for len(v) < i {
			v = append(v, 0)
		}
		v[i-1] = value(j)
		vecs[base] = v
	}
	for name, v := range vecs {
		vals[name] = &eval.Vec{Data: v}
	}
	return vals
}
