package infer

import (
	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

// Leave-one-out at a point estimate. After optimize (ML-II) a GP model's
// hyperparameters are one value θ̂, and each observed point's density
// given the others, log p(yᵢ | y₋ᵢ, θ̂), is what its latent family's
// Pointwise gives (exact for normal observations, the approximation's
// cavities otherwise): leave-one-out conditional on θ̂, as GPstuff's
// gp_loopred and GPy's LOO compute it. An observation whose density is
// given the parameters alone would give log p(yᵢ | θ̂), which is not a
// leave-one-out density, and is refused.

// PointwiseAtValues is each observed point's log p(yᵢ | y₋ᵢ, θ̂) for model
// m with every parameter held at values and the latent function under
// objective obj. An observation that is not a latent GP's (or another
// family whose points are given the others) is refused at its statement.
func PointwiseAtValues(th *eval.Thread, pos ast.Pos, m *eval.Model, values map[string]eval.Value, obj model.Objective) ([]float64, error) {
	for _, st := range m.Decl().Body {
		if t, ok := st.(*ast.Target); ok {
			return nil, ast.Errorf(t.Value.Pos(), "loo needs the log likelihood point by point, and a `target +=` term has no points; write the likelihood as observations (DATA ~ DIST)")
		}
	}
	c, err := model.Compile(th, pos, m, values, model.Terms{Likelihood: true, Latent: obj})
	if err != nil {
		return nil, err
	}
	d := c.NewDensity(th.Fork())
	fp := &fitPoints{PointwiseCollector: model.NewPointwiseCollector(d)}
	if err := d.Run(make([]float64, c.Dim()), fp); err != nil {
		return nil, err
	}
	if fp.plain != nil {
		return nil, ast.Errorf(fp.plain.At, "loo at a point estimate gives each point's density given the others at the fitted values, which only a GP's observations have (f integrated out); this observation's points are independent given the parameters, so their densities at the fit would not be leave-one-out ones: use loo(sample(...))")
	}
	if fp.Refused != nil {
		return nil, fp.Refused
	}
	if len(fp.Out) == 0 {
		return nil, ast.Errorf(pos, "model %s has no observations (DATA ~ DIST) to leave out", m.Name)
	}
	return fp.Out, nil
}

// fitPoints is the pointwise collector of PointwiseAtValues, noting the
// first observation whose points are not given the others.
type fitPoints struct {
	*model.PointwiseCollector
	plain *ast.Tilde
}

func (f *fitPoints) Observed(o model.Observation) {
	if _, ok := o.Family.(model.PointwiseFamily); !ok && f.plain == nil {
		f.plain = o.Stmt
	}
	f.PointwiseCollector.Observed(o)
}
