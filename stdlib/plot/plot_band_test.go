package plot

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/kml-lang/kml/lang/eval"
)

func vec(xs ...float64) *eval.Vec { return &eval.Vec{Data: xs} }

// A band far from zero gets no zero line, so its y axis stays on the
// band; one that crosses zero gets it. The x field is the one named x
// even when another vector field comes first.
func TestBandZeroLineAndXField(t *testing.T) {
	for _, c := range []struct {
		lower, upper []float64
		zero         bool
	}{{[]float64{10, 11, 10.5}, []float64{12, 13, 12.5}, false}, {[]float64{-1, 0.5, 1}, []float64{1, 2, 3}, true}} {
		p := plot.New()
		mean := make([]float64, 3)
		for i := range mean {
			mean[i] = (c.lower[i] + c.upper[i]) / 2
		}
		r := eval.NewRecord().Set("other", vec(7, 8, 9)).Set("mean", vec(mean...)).Set("lower", vec(c.lower...)).
			Set("upper", vec(c.upper...)).Set("x", vec(1, 2, 3))
		xl, _, err := plotRecord(p, r, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if xl != "x" || p.X.Min != 1 || p.X.Max != 3 {
			t.Errorf("x field %q over [%g, %g], want x over [1, 3]", xl, p.X.Min, p.X.Max)
		}
		if got := p.Y.Min <= 0 && p.Y.Max >= 0; got != c.zero || (!c.zero && p.Y.Min != c.lower[0]) {
			t.Errorf("band [%v, %v]: y axis [%g, %g]", c.lower, c.upper, p.Y.Min, p.Y.Max)
		}
	}
}

// predict's record: the bands are mean ± z sd with z the 95% normal
// quantile (1.959964) when no quantiles are given, the y band the wider,
// and the axis from the lowest thing drawn (a data
// point at 0) to the highest, with 30% headroom above for the legend.
func TestPredictBand(t *testing.T) {
	p := plot.New()
	r := eval.NewRecord().Set("f_mean", vec(1, 2, 1.5)).Set("f_var", vec(0.04, 0.01, 0.09)).
		Set("y_mean", vec(1, 2, 1.5)).Set("y_var", vec(0.25, 0.16, 0.36)).Set("x", vec(0, 1, 2))
	data := plotter.XYs{{X: 0.5, Y: 0}, {X: 1.5, Y: 2.2}}
	if _, _, err := plotRecord(p, r, data, nil); err != nil {
		t.Fatal(err)
	}
	z := 1.959963984540054
	bottom := math.Min(0, 1-z*0.5)
	top := math.Max(2+z*0.4, 1.5+z*0.6)
	if math.Abs(p.Y.Min-bottom) > 1e-12 || math.Abs(p.Y.Max-(top+0.3*(top-bottom))) > 1e-12 {
		t.Errorf("y axis [%g, %g], want [%g, %g]", p.Y.Min, p.Y.Max, bottom, top+0.3*(top-bottom))
	}
	// Without an x field the error says how to give one.
	r2 := eval.NewRecord().Set("f_mean", vec(1, 2)).Set("f_var", vec(1, 1))
	if _, _, err := plotRecord(plot.New(), r2, nil, nil); err == nil {
		t.Error("a predict record without x was drawn")
	}
}

// A band record with labels: draws its other fields as lines named by the
// labels (the truth beside a posterior band), and the y axis reaches them;
// without labels they are left out; a count that does not match is an error.
func TestBandWithLines(t *testing.T) {
	r := eval.NewRecord().Set("u", vec(1, 2, 3)).Set("mean", vec(0, 0.5, 0)).Set("lower", vec(-1, -0.5, -1)).
		Set("upper", vec(1, 1.5, 1)).Set("level", eval.Num(0.8)).Set("truth", vec(0.2, 3, 0.1))
	p := plot.New()
	if _, _, err := plotRecord(p, r, nil, eval.Names{"true embedding"}); err != nil {
		t.Fatal(err)
	}
	if p.Y.Max < 3 {
		t.Errorf("y axis up to %g: the truth's 3 is not drawn", p.Y.Max)
	}
	q := plot.New()
	if _, _, err := plotRecord(q, r, nil, nil); err != nil {
		t.Fatal(err)
	}
	if q.Y.Max != 1.5 {
		t.Errorf("without labels: y axis up to %g, want the band's 1.5", q.Y.Max)
	}
	if _, _, err := plotRecord(plot.New(), r, nil, eval.Names{"a", "b"}); err == nil || !strings.Contains(err.Error(), "labels has 2 names but the band record has 1 lines besides mean, lower and upper (truth)") {
		t.Errorf("two labels for one line: %v", err)
	}
}
