package dists

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
)

// TestRecordMovingJacobian checks the moving transform onto (lo, hi), with
// either or both ends on the tape or infinite: its log-Jacobian against the
// log of dx/du by finite differences, and the tape's derivatives of x and
// of the log-Jacobian in u and in the ends against finite differences of
// recording them again.
func TestRecordMovingJacobian(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		lo, hi     float64
		loAD, hiAD bool
	}{
		{-0.5, 1.2, true, true},
		{-0.5, 1.2, true, false},
		{-0.5, 1.2, false, true},
		{0.3, inf, true, false},
		{-inf, 0.7, false, true},
	} {
		// record returns x, log-Jacobian and their gradients in (u, lo, hi).
		record := func(v []float64) (x, j float64, gx, gj []float64) {
			tp := ad.NewTape()
			in := []ad.Var{tp.Input(v[0]), tp.Input(v[1]), tp.Input(v[2])}
			lo := end{x: v[1], v: in[1], isAD: c.loAD}
			hi := end{x: v[2], v: in[2], isAD: c.hiAD}
			xv, jv, ok := recordMoving(tp, in[0], lo, hi)
			if !ok {
				t.Fatalf("%+v: bounds refused", c)
			}
			gx, gj = make([]float64, 3), make([]float64, 3)
			tp.Gradient(gx, xv, in)
			tp.Gradient(gj, jv, in)
			return tp.Value(xv), tp.Value(jv), gx, gj
		}
		for _, u := range []float64{-2.1, 0.3, 1.7} {
			v := []float64{u, c.lo, c.hi}
			x, j, gx, gj := record(v)
			lo, hi := c.lo, c.hi
			if !(x > lo && x < hi) {
				t.Errorf("%+v at u = %v: x = %v outside the bounds", c, u, x)
			}
			set := &fd.Settings{Formula: fd.Central, Step: 1e-6}
			xOf := func(w []float64) float64 { x, _, _, _ := record(w); return x }
			jOf := func(w []float64) float64 { _, j, _, _ := record(w); return j }
			dxdu := fd.Derivative(func(u float64) float64 { return xOf([]float64{u, lo, hi}) }, u, set)
			if math.Abs(j-math.Log(dxdu)) > 1e-7 {
				t.Errorf("%+v at u = %v: log-Jacobian %v, log dx/du %v", c, u, j, math.Log(dxdu))
			}
			for k, moves := range []bool{true, c.loAD, c.hiAD} {
				if !moves {
					continue
				}
				at := func(f func([]float64) float64) float64 {
					return fd.Derivative(func(y float64) float64 {
						w := append([]float64(nil), v...)
						w[k] = y
						return f(w)
					}, v[k], set)
				}
				if want := at(xOf); math.Abs(gx[k]-want) > 1e-6 {
					t.Errorf("%+v at u = %v: dx/d%d %v, finite differences %v", c, u, k, gx[k], want)
				}
				if want := at(jOf); math.Abs(gj[k]-want) > 1e-6 {
					t.Errorf("%+v at u = %v: dlogJ/d%d %v, finite differences %v", c, u, k, gj[k], want)
				}
			}
		}
	}
	if _, _, ok := recordMoving(ad.NewTape(), 0, end{x: 1}, end{x: 1}); ok {
		t.Error("empty bounds accepted")
	}
}

// TestMovingEndsCompete: a moving bound decides the support's end only
// where the family has no end of its own on that side. gamma(2, 1,
// lower: a) has one (0, the larger of the two is active), so reading its
// ends marks the recording not replayable; normal(0, 1, lower: a) and
// uniform(0, a) have none and stay replayable.
func TestMovingEndsCompete(t *testing.T) {
	trunc := func(name string) dist.Family {
		base, ok := dist.Lookup(name)
		if !ok {
			t.Fatalf("no family %s", name)
		}
		tr, err := dist.NewTruncated(base)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	inf := math.Inf(1)
	uniform, _ := dist.Lookup("uniform")
	for _, c := range []struct {
		name   string
		family dist.Family
		params func(a eval.Value) []eval.Value
		want   bool // replayable after reading the ends
	}{
		{"gamma lower: a", trunc("gamma"), func(a eval.Value) []eval.Value {
			return []eval.Value{eval.Num(2), eval.Num(1), a, eval.Num(inf)}
		}, false},
		{"normal lower: a", trunc("normal"), func(a eval.Value) []eval.Value {
			return []eval.Value{eval.Num(0), eval.Num(1), a, eval.Num(inf)}
		}, true},
		{"uniform(0, a)", uniform, func(a eval.Value) []eval.Value {
			return []eval.Value{eval.Num(0), a}
		}, true},
	} {
		tp := ad.NewTape()
		a := &eval.ADNum{T: tp, V: tp.Input(0.5)}
		lo, hi := movingEnds(&DistVal{Family: c.family, Params: c.params(a)}, 0)
		if !lo.isAD && !hi.isAD {
			t.Errorf("%s: no end is the moving bound", c.name)
		}
		if got, _ := tp.Replayable(); got != c.want {
			t.Errorf("%s: replayable %v after reading the ends, want %v", c.name, got, c.want)
		}
	}
}
