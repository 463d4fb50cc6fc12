package plot

import (
	"fmt"

	"gonum.org/v1/plot/vg"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
)

// The LOO-PIT plot (Gabry et al. 2019; as bayesplot's ppc_loo_pit_ecdf
// with plot_diff): the ECDF of the PIT values minus the uniform CDF, in
// the simultaneous band of Säilynoja, Bürkner and Vehtari (2022), drawn as
// the SBC plot is (ecdfDiffPanel). Known by the typed value its record
// keeps (infer.LOOPIT).

// loopitOf is the LOO-PIT result a record from loo_pit keeps.
func loopitOf(v eval.Value) (*infer.LOOPIT, bool) {
	r, ok := v.(*eval.Record)
	if !ok {
		return nil, false
	}
	l, ok := r.Of().(*infer.LOOPIT)
	return l, ok
}

// loopitFigure draws one panel for all the points.
func loopitFigure(r *infer.LOOPIT) (figure, error) {
	title := fmt.Sprintf("LOO-PIT of model %s (%d points): p = %.3g", r.Model, len(r.PIT), r.PValue)
	p, err := ecdfDiffPanel(r.Band, r.Ranks, title, "LOO-PIT")
	if err != nil {
		return figure{}, err
	}
	return figure{single: p, w: 6 * vg.Inch, h: 4 * vg.Inch, pad: vg.Millimeter * 2}, nil
}
