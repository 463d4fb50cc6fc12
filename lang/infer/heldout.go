package infer

import (
	"context"
	"fmt"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
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
	held := &Posterior{Model: c.Model, Comp: c, Result: &hmc.Result{Chains: []*hmc.Chain{{Draws: qs}}}}
	return PointwiseLogLik(ctx, th, held)
}

// PointCount is the number of observed points of c (as PointwiseLogLik
// counts them), from one run at the origin of the unconstrained scale,
// where compiling ran it: what kfold splits before fitting anything.
func PointCount(th *eval.Thread, c *model.Compiled) (int, error) {
	for _, st := range c.Model.Decl().Body {
		if t, ok := st.(*ast.Target); ok {
			return 0, ast.Errorf(t.Value.Pos(), "kfold needs the log likelihood point by point, and a `target +=` term has no points; write the likelihood as observations (DATA ~ DIST)")
		}
	}
	d := c.NewDensity(th.Fork())
	pc := model.NewPointwiseCollector(d)
	if err := runPoint(d, pc, make([]float64, c.Dim())); err != nil {
		return 0, err
	}
	if pc.Conditional {
		// A GP's held-out points need the predictive given the training
		// rows, p(y_i | y_train, θ); scoring the held-out rows as a model
		// of their own would condition on the other held-out rows instead.
		return 0, fmt.Errorf("kfold of a model whose points are not independent given its parameters (a GP, f ~ gp(...)) is not yet available: its held-out points need the predictive given the training data; loo of a GP regression is exact leave-one-out")
	}
	return len(pc.Out), nil
}
