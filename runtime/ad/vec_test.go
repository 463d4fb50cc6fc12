package ad

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats"

	"github.com/kml-lang/kml/runtime/rng"
)

// matVecOut records Σᵢ wᵢ·sin(yᵢ) with y = A·x (Aᵀ·x with trans), either as
// one vector operation or, with scalar set, as one node per row: the
// element-wise path MatVec replaces. x's first element is also used by a
// scalar node before the product, so adjoints from both paths meet.
func matVecOut(t *Tape, trans, scalar bool, a []float64, rows, cols int, x []float64) ([]Var, Var) {
	in := make([]Var, len(x))
	for i, v := range x {
		in[i] = t.Input(v)
	}
	xs := append([]Var(nil), in...)
	if len(xs) > 0 {
		xs[0] = t.Exp(in[0])
	}
	var y []Var
	if scalar {
		n, m := rows, cols
		if trans {
			n, m = cols, rows
		}
		for i := 0; i < n; i++ {
			row := make([]float64, m)
			s := 0.0
			for j := 0; j < m; j++ {
				if trans {
					row[j] = a[j*cols+i]
				} else {
					row[j] = a[i*cols+j]
				}
				s += row[j] * t.Value(xs[j])
			}
			y = append(y, t.Node(s, xs, row))
		}
	} else {
		y = t.MatVec(trans, a, rows, cols, xs)
	}
	terms := []Var{t.Input(0)}
	for i, v := range y {
		terms = append(terms, t.MulConst(t.Node(math.Sin(t.Value(v)), []Var{v}, []float64{math.Cos(t.Value(v))}), float64(i+1)))
	}
	return in, t.Sum(terms)
}

func TestMatVecGradient(t *testing.T) {
	r := rng.New(15, rng.Stream(0x6d76)) // "mv"
	tape := NewTape()
	shapes := [][2]int{{1, 1}, {3, 2}, {2, 5}, {7, 3}, {0, 3}, {3, 0}, {0, 0}}
	for _, sh := range shapes {
		for _, trans := range []bool{false, true} {
			rows, cols := sh[0], sh[1]
			a := make([]float64, rows*cols)
			for i := range a {
				a[i] = r.NormFloat64()
			}
			m := cols
			if trans {
				m = rows
			}
			x := make([]float64, m)
			for i := range x {
				x[i] = r.NormFloat64()
			}
			tape.Reset()
			in, out := matVecOut(tape, trans, false, a, rows, cols, x)
			got := make([]float64, m)
			tape.Gradient(got, out, in)
			val := tape.Value(out)

			tape.Reset()
			in, out = matVecOut(tape, trans, true, a, rows, cols, x)
			elem := make([]float64, m)
			tape.Gradient(elem, out, in)
			if math.Abs(tape.Value(out)-val) > 1e-12*math.Max(1, math.Abs(val)) {
				t.Errorf("%v trans=%v: value %v, element-wise %v", sh, trans, val, tape.Value(out))
			}
			if !floats.EqualApprox(got, elem, 1e-12) {
				t.Errorf("%v trans=%v: gradient %v, element-wise %v", sh, trans, got, elem)
			}
			if m == 0 {
				continue
			}
			want := fd.Gradient(nil, func(x []float64) float64 {
				tp := NewTape()
				_, o := matVecOut(tp, trans, false, a, rows, cols, x)
				return tp.Value(o)
			}, x, &fd.Settings{Formula: fd.Central})
			if !floats.EqualApprox(got, want, 1e-6*math.Max(1, floats.Norm(want, math.Inf(1)))) {
				t.Errorf("%v trans=%v: gradient %v, finite differences %v", sh, trans, got, want)
			}
		}
	}
}

// The gradient of one element of a vector result, and of a node recorded
// before a later vector operation, sweeps only what it depends on.
func TestGradientOfAnElementOfAVector(t *testing.T) {
	tape := NewTape()
	x := []Var{tape.Input(2), tape.Input(3)}
	before := tape.Mul(x[0], x[1])
	y := tape.MatVec(false, []float64{1, 2, 3, 4, 5, 6}, 3, 2, x)
	tape.MatVec(true, []float64{1, 1}, 2, 1, []Var{y[0], y[2]})
	g := make([]float64, 2)
	tape.Gradient(g, y[1], x)
	if g[0] != 3 || g[1] != 4 {
		t.Errorf("∂y₂/∂x = %v, want [3 4]", g)
	}
	tape.Gradient(g, before, x)
	if g[0] != 3 || g[1] != 2 {
		t.Errorf("∂(x₁x₂)/∂x = %v, want [3 2]", g)
	}
	if v := tape.Value(y[2]); v != 5*2+6*3 {
		t.Errorf("y₃ = %v, want 28", v)
	}
}
