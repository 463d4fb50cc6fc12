package infer

import (
	"context"
	"fmt"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/lang/model/dists"
	"github.com/kml-lang/kml/runtime/hmc"
)

// Held-out points. K-fold cross-validation fits a model to the training
// rows of its data and scores the held-out rows at the training
// posterior's draws: the same model called with the held-out rows is
// another instance of its family, compiled on its own, and its pointwise
// log likelihood at those draws is log p(y_i | θ_s) for each held-out
// point i.

// HeldOutLogLik is the pointwise log likelihood of the observed points of
// c, an instance of post's model family holding other data, at every draw
// of post: out[i][s] is point i of c at draw s (chains one after
// another). Each draw is carried over by its constrained values (c lays
// out its parameters from its own priors, which may put a bound from the
// data elsewhere), in parallel, checking ctx, as PointwiseLogLik.
func HeldOutLogLik(ctx context.Context, th *eval.Thread, post *Posterior, c *model.Compiled) ([][]float64, error) {
	held, err := carryOver(ctx, post, c)
	if err != nil {
		return nil, err
	}
	return PointwiseLogLik(ctx, th, held)
}

// PointCount is the number of observed points of c (as PointwiseLogLik
// counts them), from one run at the origin of the unconstrained scale,
// where compiling ran it: what kfold splits before fitting anything.
// Conditional says some points are a latent GP's, not independent given
// the parameters: their held-out scores need the predictive given the
// training rows (HeldOutPredictive), not the held-out rows as a model of
// their own.
func PointCount(th *eval.Thread, c *model.Compiled) (n int, conditional bool, err error) {
	for _, st := range c.Model.Decl().Body {
		if t, ok := st.(*ast.Target); ok {
			return 0, false, ast.Errorf(t.Value.Pos(), "kfold needs the log likelihood point by point, and a `target +=` term has no points; write the likelihood as observations (DATA ~ DIST)")
		}
	}
	d := c.NewDensity(th.Fork())
	pc := model.NewPointwiseCollector(d)
	if err := runPoint(d, pc, make([]float64, c.Dim())); err != nil {
		return 0, false, err
	}
	return len(pc.Out), pc.Conditional, nil
}

// HeldOutLatent is a latent function whose observations can be scored at
// held-out rows given the others, at one draw: stdlib's gp. Predictive
// returns log p(yⱼ | y_train, θ) for each of the observation's points test
// (0-based, ascending) given its points train, under objective obj (the
// approximation for non-Gaussian observations), with lik and loc as in
// model.Latent.LogLik.
type HeldOutLatent interface {
	model.Latent
	Predictive(obj model.Objective, lik *dists.DistVal, loc int, data eval.Value, train, test []int) ([]float64, error)
}

// HeldOutPredictive is the held-out score of the points test (ascending
// indices into the points of full, as PointCount counts them) at every
// draw of post, a fit to the other points: out[j][s] for test[j] at draw
// s. full holds all the data; a latent GP's held-out points are scored by
// its predictive given the training points (HeldOutLatent), every other
// observation's by its log density given the parameters, as
// HeldOutLogLik scores them. With inSample, every point is a training
// point too: the in-sample predictive log p(yⱼ | y, θ) of kfold's lpd.
// Draws are carried over by their constrained values, as HeldOutLogLik.
func HeldOutPredictive(ctx context.Context, th *eval.Thread, post *Posterior, full *model.Compiled, test []int, inSample bool) ([][]float64, error) {
	held, err := carryOver(ctx, post, full)
	if err != nil {
		return nil, err
	}
	isTest := map[int]bool{}
	for _, i := range test {
		isTest[i] = true
	}
	return pointMatrix(ctx, th, held, func(d *model.Density) pointRun {
		return &heldOutRun{pc: model.NewPointwiseCollector(d), obj: full.Terms.Latent, isTest: isTest, inSample: inSample}
	})
}

// carryOver is post's draws as draws of c, by their constrained values.
func carryOver(ctx context.Context, post *Posterior, c *model.Compiled) (*Posterior, error) {
	S := post.DrawCount()
	qs := make([][]float64, S)
	for s := range S {
		if s%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		rec := post.DrawValues(s)
		vals := map[string]eval.Value{}
		for _, name := range rec.AttrNames() {
			vals[name], _ = rec.Attr(name)
		}
		q, err := c.Unconstrain(vals)
		if err != nil {
			return nil, fmt.Errorf("draw %d of the training fit does not fit the held-out model: %v", s+1, err)
		}
		qs[s] = q
	}
	return &Posterior{Model: c.Model, Comp: c, Result: &hmc.Result{Chains: []*hmc.Chain{{Draws: qs}}}}, nil
}

// heldOutRun is the pointRun of HeldOutPredictive: a pointwise collector
// for the observations given the parameters, whose held-out points it
// keeps, and a latent GP's predictive for its held-out points.
type heldOutRun struct {
	pc       *model.PointwiseCollector
	obj      model.Objective
	isTest   map[int]bool
	inSample bool
	out      []float64
}

func (r *heldOutRun) points(d *model.Density, q []float64) ([]float64, error) {
	r.out = r.out[:0]
	o := &heldOutObserver{PointwiseCollector: r.pc, r: r}
	r.pc.Reset()
	if err := d.Run(q, o); err != nil {
		return nil, err
	}
	if r.pc.Refused != nil {
		return nil, r.pc.Refused
	}
	return r.out, nil
}

// heldOutObserver is one run's observer for heldOutRun.
type heldOutObserver struct {
	*model.PointwiseCollector
	r *heldOutRun
}

func (o *heldOutObserver) Observed(ob model.Observation) {
	before := len(o.Out)
	o.PointwiseCollector.Observed(ob)
	for i := before; i < len(o.Out); i++ {
		if o.r.isTest[i] {
			o.r.out = append(o.r.out, o.Out[i])
		}
	}
}

func (o *heldOutObserver) Latent(lo model.LatentObservation) {
	if o.Refused != nil {
		return
	}
	hl, ok := lo.Latent.(HeldOutLatent)
	ys, isVec := eval.ToFloats(lo.Data)
	if !ok || lo.Lik == nil || !isVec {
		o.Refused = fmt.Errorf("kfold of an observation of %s is not yet available: it does not give the predictive of held-out points given the training points", lo.Latent.Type())
		return
	}
	off := len(o.Out)
	var train, test []int
	for j := range ys {
		if o.r.isTest[off+j] {
			test = append(test, j)
			if !o.r.inSample {
				continue
			}
		}
		train = append(train, j)
	}
	lp, err := hl.Predictive(o.r.obj, lo.Lik, lo.Loc, lo.Data, train, test)
	if err != nil {
		o.Refused = err
		return
	}
	// The statement's points hold their places in the count.
	o.Out = append(o.Out, make([]float64, len(ys))...)
	o.r.out = append(o.r.out, lp...)
}
