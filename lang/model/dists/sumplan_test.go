package dists

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
	"github.com/kml-lang/kml/runtime/rng"
)

// checkCounter is a family whose parameter checks are counted.
type checkCounter struct {
	dist.Family
	n *int
}

func (c checkCounter) Check(p []float64) error {
	*c.n++
	return c.Family.Check(p)
}

// A generic sum whose parameters are all data checks them once, at
// recording; its replays skip the check and give a fresh recording's bits.
// With a parameter on the tape every replay checks, and a replay where the
// check fails reports that a walk must answer.
func TestSumPlanChecksDataOnce(t *testing.T) {
	r := rng.New(18, rng.Stream(0x636b)) // "ck"
	hc, _ := dist.Lookup("half_cauchy")
	for _, width := range []int{1, 3} {
		var checks int
		f := checkCounter{hc, &checks}
		scale := &eval.Vec{Data: []float64{5, 2, 0.5}[:width]}
		record := func(tp *ad.Tape, q []float64) ([]ad.Var, ad.Var) {
			in := make([]ad.Var, len(q))
			for i := range q {
				in[i] = tp.Input(q[i])
			}
			var p eval.Value = eval.Num(5)
			if width > 1 {
				p = scale
			}
			d := &DistVal{Family: f, Params: []eval.Value{p}}
			lp, err := d.LogDensity(tp, &eval.ADVec{T: tp, Vs: in}, "tau")
			if err != nil {
				t.Fatal(err)
			}
			return in, lp.(*eval.ADNum).V
		}
		q := []float64{1, 2, 3}
		tape := ad.NewTape()
		in, out := record(tape, q)
		after := checks
		if after != width {
			t.Errorf("width %d: %d checks at recording, want %d", width, after, width)
		}
		g, h := make([]float64, 3), make([]float64, 3)
		for k := 0; k < 20; k++ {
			for i := range q {
				q[i] = math.Abs(3 * r.NormFloat64())
			}
			if !tape.Replay(in, q) {
				t.Fatalf("width %d: replay at %v failed", width, q)
			}
			tape.Gradient(g, out, in)
			fresh := ad.NewTape()
			fin, fout := record(fresh, q)
			fresh.Gradient(h, fout, fin)
			if math.Float64bits(tape.Peek(out)) != math.Float64bits(fresh.Peek(fout)) {
				t.Fatalf("width %d at %v: replay %v, fresh %v", width, q, tape.Peek(out), fresh.Peek(fout))
			}
			for i := range g {
				if math.Float64bits(g[i]) != math.Float64bits(h[i]) {
					t.Fatalf("width %d at %v: gradient %v, fresh %v", width, q, g, h)
				}
			}
		}
		// Each fresh recording checks once per element; the replays
		// never do.
		if want := after + 20*width; checks != want {
			t.Errorf("width %d: %d checks after 20 replays and recordings, want %d", width, checks, want)
		}
	}
	// A scale on the tape is checked at every replay; a negative one makes
	// the replay fail.
	var checks int
	f := checkCounter{hc, &checks}
	tape := ad.NewTape()
	x, s := tape.Input(1), tape.Input(2)
	d := &DistVal{Family: f, Params: []eval.Value{&eval.ADNum{T: tape, V: s}}}
	lp, err := d.LogDensity(tape, &eval.ADNum{T: tape, V: x}, "tau")
	if err != nil {
		t.Fatal(err)
	}
	_ = lp
	for k := 0; k < 5; k++ {
		if !tape.Replay([]ad.Var{x, s}, []float64{1, 1 + float64(k)}) {
			t.Fatal("replay failed")
		}
	}
	if checks != 6 {
		t.Errorf("%d checks with the scale on the tape, want 6", checks)
	}
	if tape.Replay([]ad.Var{x, s}, []float64{1, -1}) {
		t.Error("replay with a negative scale succeeded")
	}
}
