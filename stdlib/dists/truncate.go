package dists

import (
	"math"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/lang/model/dists"
	"github.com/kml-lang/kml/runtime/dist"
)

// truncateDist builds fam(params..., lower: L, upper: U), the family
// truncated to [L, U]. The bounds are named arguments only, so that a
// stray third positional argument to normal is still an error, and either
// may be left out (−∞, +∞).
func truncateDist(a *eval.Args, fam dist.Family, params []eval.Value) (eval.Value, error) {
	bounds := []eval.Value{eval.Num(math.Inf(-1)), eval.Num(math.Inf(1))}
	for _, na := range a.Extra {
		i := map[string]int{"lower": 0, "upper": 1}[na.Name]
		if na.Name != "lower" && na.Name != "upper" {
			return nil, ast.Errorf(na.Pos, "%s has no argument %s; a distribution takes its parameters and, to truncate it, lower: and upper:", fam.Name(), na.Name)
		}
		switch na.Value.(type) {
		case eval.Num, *eval.ADNum, *eval.Vec, *eval.ADVec:
		default:
			return nil, ast.Errorf(na.Pos, "%s: %s must be a number or a vector, got %s", fam.Name(), na.Name, eval.Describe(na.Value))
		}
		bounds[i] = na.Value
	}
	tr, err := dist.NewTruncated(fam)
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	names := fam.ParamNames()
	for j, par := range params {
		if _, ok := par.(model.Latent); ok {
			return nil, a.Errorf(names[j], "a latent function's observations cannot be truncated")
		}
		if c, ok := fam.(dist.CDF); ok && eval.IsAD(par) && !c.CDFGradIn(j) {
			return nil, a.Errorf(names[j], "truncation needs the derivative of the CDF in %s, which has no closed form; %s must be data here, not depend on model parameters", names[j], names[j])
		}
	}
	d := &dists.DistVal{Family: tr, Params: append(params, bounds...)}
	// Checked now only when no parameter is on the tape: reading a
	// parameter's value here would stop the model from replaying, and the
	// family's density checks its parameters at every evaluation anyway.
	if !d.HasAD() {
		if p, ok := d.Scalar(); ok {
			if err := tr.Check(p); err != nil {
				return nil, a.Fail("%v", err)
			}
		}
	}
	return d, nil
}
