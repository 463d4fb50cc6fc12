package dists

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
	"github.com/kml-lang/kml/runtime/rng"
)

// renamed is a family under another name: the generic loop runs for it, as
// it did for normal before normalSum.
type renamed struct{ dist.Family }

func (renamed) Name() string { return "normal (generic)" }

// normalCase is Σ log normal(x | mu, sigma) with x, mu and sigma each data
// or on the tape (σ = e^u then), and mu and sigma numbers or vectors.
type normalCase struct {
	n                 int
	xAD, muVec, muAD  bool
	sigmaAD, sigmaVec bool
	generic           bool
	x, mu, sigma      []float64
}

func (c normalCase) record(t *ad.Tape, q []float64) ([]ad.Var, eval.Value, error) {
	var in []ad.Var
	take := func(vals []float64, onTape bool, vec bool) eval.Value {
		if !onTape {
			if vec {
				return &eval.Vec{Data: vals}
			}
			return eval.Num(vals[0])
		}
		vs := make([]ad.Var, len(vals))
		for i := range vs {
			vs[i] = t.Input(q[len(in)])
			in = append(in, vs[i])
		}
		if vec {
			return &eval.ADVec{T: t, Vs: vs}
		}
		return &eval.ADNum{T: t, V: vs[0]}
	}
	x := take(c.x, c.xAD, true)
	mu := take(c.mu, c.muAD, c.muVec)
	// σ on the tape is e^u, so that it stays positive.
	var sigma eval.Value
	switch {
	case !c.sigmaAD && c.sigmaVec:
		sigma = &eval.Vec{Data: c.sigma}
	case !c.sigmaAD:
		sigma = eval.Num(c.sigma[0])
	default:
		vs := make([]ad.Var, len(c.sigma))
		for i := range vs {
			u := t.Input(q[len(in)])
			in = append(in, u)
			vs[i] = t.Exp(u)
		}
		if c.sigmaVec {
			sigma = &eval.ADVec{T: t, Vs: vs}
		} else {
			sigma = &eval.ADNum{T: t, V: vs[0]}
		}
	}
	f, _ := dist.Lookup("normal")
	if c.generic {
		f = renamed{f}
	}
	d := &DistVal{Family: f, Params: []eval.Value{mu, sigma}}
	lp, err := d.LogDensity(t, x, "x")
	return in, lp, err
}

// The vectorised normal observation agrees to the bit with the generic loop
// it replaces, and with finite differences, on random shapes: a scalar or a
// vector location, each of x, mu and sigma data or parameters, and empty x.
func TestNormalSumMatchesGenericLoop(t *testing.T) {
	r := rng.New(15, rng.Stream(0x6e6f726d)) // "norm"
	tape := ad.NewTape()
	for trial := 0; trial < 200; trial++ {
		c := normalCase{n: r.IntN(6), xAD: r.IntN(2) == 0, muVec: r.IntN(2) == 0, muAD: r.IntN(2) == 0,
			sigmaAD: r.IntN(2) == 0, sigmaVec: r.IntN(2) == 0}
		if !(c.xAD || c.muAD || c.sigmaAD) {
			c.muAD = true
		}
		c.x = make([]float64, c.n)
		for i := range c.x {
			c.x[i] = 3 * r.NormFloat64()
		}
		// A vector parameter has an element per point, or one (which
		// applies to every point, recorded as a vector) when the other
		// parameter is not a vector of another length.
		width := func(vec bool) int {
			if vec && r.IntN(4) > 0 {
				return c.n
			}
			return 1
		}
		wm, ws := width(c.muVec), width(c.sigmaVec)
		if c.muVec && c.sigmaVec && wm != ws {
			wm, ws = c.n, c.n // two vectors must have one length
		}
		c.mu = make([]float64, wm)
		for i := range c.mu {
			c.mu[i] = r.NormFloat64()
		}
		c.sigma = make([]float64, ws)
		for i := range c.sigma {
			c.sigma[i] = 0.3 + 2*r.Float64()
		}
		var q []float64
		if c.xAD {
			q = append(q, c.x...)
		}
		if c.muAD {
			q = append(q, c.mu...)
		}
		if c.sigmaAD {
			for _, s := range c.sigma {
				q = append(q, math.Log(s))
			}
		}
		grad := func(generic bool) (float64, []float64) {
			c.generic = generic
			tape.Reset()
			in, lp, err := c.record(tape, q)
			if err != nil {
				t.Fatalf("%+v: %v", c, err)
			}
			a, ok := lp.(*eval.ADNum)
			if !ok {
				t.Fatalf("%+v: log density %s is not on the tape", c, eval.Describe(lp))
			}
			g := make([]float64, len(in))
			tape.Gradient(g, a.V, in)
			return a.Value(), g
		}
		v, g := grad(false)
		gv, gg := grad(true)
		if v != gv {
			t.Errorf("%+v: value %v, generic loop %v", c, v, gv)
		}
		for i := range g {
			if g[i] != gg[i] {
				t.Errorf("%+v: gradient %v, generic loop %v", c, g, gg)
				break
			}
		}
		if len(q) == 0 {
			continue
		}
		want := fd.Gradient(nil, func(q []float64) float64 {
			tp := ad.NewTape()
			c.generic = false
			_, lp, err := c.record(tp, q)
			if err != nil {
				t.Fatal(err)
			}
			return lp.(*eval.ADNum).Value()
		}, q, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		for i := range q {
			if math.Abs(g[i]-want[i]) > 1e-5*math.Max(1, math.Abs(want[i])) {
				t.Errorf("%+v: gradient %v, finite differences %v", c, g, want)
				break
			}
		}
	}
}

// Points the generic loop reports keep its messages: a location that is not
// finite names its element, and σ ≤ 0 is out of the domain.
func TestNormalSumLeavesErrorsToTheGenericLoop(t *testing.T) {
	tape := ad.NewTape()
	f, _ := dist.Lookup("normal")
	mu := &eval.ADVec{T: tape, Vs: []ad.Var{tape.Input(0), tape.Input(math.Inf(1))}}
	d := &DistVal{Family: f, Params: []eval.Value{mu, eval.Num(1)}}
	if _, err := d.LogDensity(tape, &eval.Vec{Data: []float64{1, 2}}, "y"); err == nil || err.Error() != "normal: mu must be finite, got +Inf (element 2)" {
		t.Errorf("error %v", err)
	}
	s := &eval.ADNum{T: tape, V: tape.Input(-1)}
	d = &DistVal{Family: f, Params: []eval.Value{eval.Num(0), s}}
	if _, err := d.LogDensity(tape, &eval.Vec{Data: []float64{1}}, "y"); err == nil || err.Error() != "normal: sigma must be positive, got -1" {
		t.Errorf("error %v", err)
	}
}

// The lean sums of the common layouts (normalSumLean) give the general
// sum's value and partials to the bit, on random shapes and at replayed
// points that include non-finite and out-of-support values, where both must
// give NaN (the replay then reports that a walk must answer).
func TestNormalSumLeanSameBits(t *testing.T) {
	defer func() { normalSumGeneral = false }()
	r := rng.New(16, rng.Stream(0x6c65616e)) // "lean"
	odd := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -1, 1e300, -1e300, 5e-324}
	lean := 0
	for trial := 0; trial < 300; trial++ {
		c := normalCase{n: 1 + r.IntN(6), xAD: r.IntN(2) == 0, muVec: r.IntN(2) == 0, muAD: r.IntN(2) == 0,
			sigmaAD: r.IntN(2) == 0, sigmaVec: r.IntN(2) == 0}
		if !(c.xAD || c.muAD || c.sigmaAD) {
			c.muAD = true
		}
		c.x = make([]float64, c.n)
		for i := range c.x {
			c.x[i] = 3 * r.NormFloat64()
		}
		wm, ws := 1, 1
		if c.muVec && r.IntN(4) > 0 {
			wm = c.n
		}
		if c.sigmaVec && r.IntN(4) > 0 {
			ws = c.n
		}
		if c.muVec && c.sigmaVec && wm != ws {
			wm, ws = c.n, c.n
		}
		c.mu = make([]float64, wm)
		for i := range c.mu {
			c.mu[i] = r.NormFloat64()
		}
		c.sigma = make([]float64, ws)
		for i := range c.sigma {
			c.sigma[i] = 0.3 + 2*r.Float64()
		}
		var q []float64
		if c.xAD {
			q = append(q, c.x...)
		}
		if c.muAD {
			q = append(q, c.mu...)
		}
		if c.sigmaAD {
			for _, s := range c.sigma {
				q = append(q, math.Log(s))
			}
		}
		type rec struct {
			tape *ad.Tape
			in   []ad.Var
			out  ad.Var
		}
		record := func(general bool) rec {
			normalSumGeneral = general
			tape := ad.NewTape()
			in, lp, err := c.record(tape, q)
			if err != nil {
				t.Fatalf("%+v: %v", c, err)
			}
			if ok, why := tape.Replayable(); !ok {
				t.Fatalf("%+v: not replayable: %v", c, why)
			}
			return rec{tape, in, lp.(*eval.ADNum).V}
		}
		gen, fast := record(true), record(false)
		if fast.tape.Len() != gen.tape.Len() {
			t.Fatalf("%+v: %d nodes, general %d", c, fast.tape.Len(), gen.tape.Len())
		}
		if c.xAD && !c.muAD && !c.sigmaAD || !c.xAD && c.muAD && c.muVec && (!c.sigmaAD || !c.sigmaVec) {
			lean++
		}
		p := make([]float64, len(q))
		g1, g2 := make([]float64, len(q)), make([]float64, len(q))
		for k := 0; k < 20; k++ {
			for i := range p {
				p[i] = q[i] + r.NormFloat64()
				if r.IntN(10) == 0 {
					p[i] = odd[r.IntN(len(odd))]
				}
			}
			ok1 := gen.tape.Replay(gen.in, p)
			ok2 := fast.tape.Replay(fast.in, p)
			v1, v2 := gen.tape.Peek(gen.out), fast.tape.Peek(fast.out)
			if ok1 != ok2 || math.Float64bits(v1) != math.Float64bits(v2) && !(math.IsNaN(v1) && math.IsNaN(v2)) {
				t.Fatalf("%+v at %v: lean %v (ok %v), general %v (ok %v)", c, p, v2, ok2, v1, ok1)
			}
			if !ok1 {
				continue
			}
			gen.tape.Gradient(g1, gen.out, gen.in)
			fast.tape.Gradient(g2, fast.out, fast.in)
			for i := range g1 {
				if math.Float64bits(g1[i]) != math.Float64bits(g2[i]) {
					t.Fatalf("%+v at %v: lean gradient %v, general %v", c, p, g2, g1)
				}
			}
		}
	}
	if lean < 50 {
		t.Errorf("only %d of 300 cases had a lean layout", lean)
	}
}
