package ad

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// checkGrad compares the tape's gradient of Σᵢ (i+1)·sin(yᵢ), y the nodes
// build records from inputs with values x, against central differences of
// the same value; it returns the results' values at x.
func checkGrad(t *testing.T, name string, x []float64, build func(tp *Tape, in []Var) []Var) []float64 {
	t.Helper()
	record := func(xs []float64) (*Tape, []Var, []Var) {
		tp := NewTape()
		in := make([]Var, len(xs))
		for i, v := range xs {
			in[i] = tp.Input(v)
		}
		return tp, in, build(tp, in)
	}
	f := func(xs []float64) float64 {
		tp, _, y := record(xs)
		s := 0.0
		for i, v := range y {
			s += float64(i+1) * math.Sin(tp.Value(v))
		}
		return s
	}
	tp, in, y := record(x)
	terms := []Var{tp.Input(0)}
	vals := make([]float64, len(y))
	for i, v := range y {
		vals[i] = tp.Value(v)
		terms = append(terms, tp.Node(float64(i+1)*math.Sin(vals[i]), []Var{v}, []float64{float64(i+1) * math.Cos(vals[i])}))
	}
	out := tp.Sum(terms)
	got := make([]float64, len(x))
	tp.Gradient(got, out, in)
	want := fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
	if !floats.EqualApprox(got, want, 1e-6*math.Max(1, floats.Norm(want, math.Inf(1)))) {
		t.Errorf("%s: gradient %v, finite differences %v", name, got, want)
	}
	return vals
}

func randn(r *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	return x
}

// spd is M·Mᵀ + n·I for a random n×n M, row by row.
func spd(r *rand.Rand, n int) []float64 {
	m := mat.NewDense(max(n, 1), max(n, 1), randn(r, max(n, 1)*max(n, 1)))
	var a mat.Dense
	a.Mul(m, m.T())
	out := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			out[i*n+j] = a.At(i, j)
		}
		out[i*n+i] += float64(n)
	}
	return out
}

// operand is a rows×cols matrix: the nodes in[:rows·cols] when onTape, else
// the constants f.
func operand(in []Var, f []float64, rows, cols int, onTape bool) Matrix {
	if onTape {
		return Matrix{Rows: rows, Cols: cols, Vs: in[:rows*cols]}
	}
	return Matrix{Rows: rows, Cols: cols, F: f}
}

func TestMatMulGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 0x6d6d))
	for _, sh := range [][3]int{{1, 1, 1}, {3, 2, 4}, {2, 5, 1}, {1, 3, 3}, {2, 0, 3}, {0, 2, 2}} {
		n, k, m := sh[0], sh[1], sh[2]
		av, bv := randn(r, n*k), randn(r, k*m)
		for _, on := range [][2]bool{{true, true}, {true, false}, {false, true}} {
			x := append(append([]float64(nil), av...), bv...)
			got := checkGrad(t, "MatMul", x, func(tp *Tape, in []Var) []Var {
				a := operand(in, av, n, k, on[0])
				b := operand(in[n*k:], bv, k, m, on[1])
				return tp.MatMul(a, b)
			})
			var want mat.Dense
			if n > 0 && m > 0 {
				if k == 0 {
					want = *mat.NewDense(n, m, nil)
				} else {
					want.Mul(mat.NewDense(n, k, av), mat.NewDense(k, m, bv))
				}
				if !floats.EqualApprox(got, want.RawMatrix().Data, 1e-12) {
					t.Errorf("MatMul %v: %v, want %v", sh, got, want.RawMatrix().Data)
				}
			} else if len(got) != 0 {
				t.Errorf("MatMul %v: %d results, want none", sh, len(got))
			}
		}
	}
}

func TestCholeskyGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 0x6368))
	for _, n := range []int{1, 2, 3, 6} {
		a := spd(r, n)
		got := checkGrad(t, "Cholesky", a, func(tp *Tape, in []Var) []Var {
			l, ok := tp.Cholesky(in, n)
			if !ok {
				t.Fatalf("Cholesky %d: not positive definite", n)
			}
			return l
		})
		var ch mat.Cholesky
		ch.Factorize(mat.NewSymDense(n, a))
		var l mat.TriDense
		ch.LTo(&l)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if math.Abs(got[i*n+j]-l.At(i, j)) > 1e-12 {
					t.Errorf("Cholesky %d: L[%d, %d] = %v, want %v", n, i, j, got[i*n+j], l.At(i, j))
				}
			}
		}
	}
	tp := NewTape()
	if l, ok := tp.Cholesky(nil, 0); !ok || len(l) != 0 {
		t.Errorf("Cholesky of 0×0: %v, %v", l, ok)
	}
	in := []Var{tp.Input(1), tp.Input(2), tp.Input(2), tp.Input(1)}
	if l, ok := tp.Cholesky(in, 2); ok || !math.IsNaN(tp.Value(l[0])) {
		t.Errorf("Cholesky of an indefinite matrix reported ok = %v", ok)
	}
}

func TestSolveGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 0x736f))
	for _, n := range []int{1, 2, 4} {
		for _, m := range []int{1, 3} {
			for _, kind := range []string{"general", "lower", "upper"} {
				av := randn(r, n*n)
				for i := 0; i < n; i++ {
					av[i*n+i] += 3 * float64(n)
					for j := 0; j < n; j++ {
						if kind == "lower" && j > i || kind == "upper" && j < i {
							av[i*n+j] = 0
						}
					}
				}
				bv := randn(r, n*m)
				for _, on := range [][2]bool{{true, true}, {true, false}, {false, true}} {
					x := append(append([]float64(nil), av...), bv...)
					got := checkGrad(t, "Solve "+kind, x, func(tp *Tape, in []Var) []Var {
						xs, ok := tp.Solve(operand(in, av, n, n, on[0]), operand(in[n*n:], bv, n, m, on[1]))
						if !ok {
							t.Fatalf("Solve: singular")
						}
						return xs
					})
					var want mat.Dense
					if err := want.Solve(mat.NewDense(n, n, av), mat.NewDense(n, m, bv)); err != nil {
						t.Fatal(err)
					}
					if !floats.EqualApprox(got, want.RawMatrix().Data, 1e-10) {
						t.Errorf("Solve %s %d×%d: %v, want %v", kind, n, m, got, want.RawMatrix().Data)
					}
				}
			}
		}
	}
	tp := NewTape()
	if x, ok := tp.Solve(Matrix{}, Matrix{Cols: 2}); !ok || len(x) != 0 {
		t.Errorf("Solve of 0×0: %v, %v", x, ok)
	}
	sing := []Var{tp.Input(1), tp.Input(2), tp.Input(2), tp.Input(4)}
	if _, ok := tp.Solve(Matrix{Rows: 2, Cols: 2, Vs: sing}, Matrix{Rows: 2, Cols: 1, F: []float64{1, 1}}); ok {
		t.Error("Solve with a singular matrix reported ok")
	}
}

func TestDeterminantsGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 0x6474))
	for _, n := range []int{1, 2, 3, 5} {
		a := randn(r, n*n)
		for i := 0; i < n; i++ {
			a[i*n+i] += 2
		}
		m := mat.NewDense(n, n, a)
		ld, sign := mat.LogDet(m)
		for _, c := range []struct {
			name string
			f    func(tp *Tape, in []Var) Var
			want float64
		}{
			{"LogDet", func(tp *Tape, in []Var) Var { return tp.LogDet(in, n) }, ld},
			{"Det", func(tp *Tape, in []Var) Var { return tp.Det(in, n) }, sign * math.Exp(ld)},
			{"Trace", func(tp *Tape, in []Var) Var { return tp.Trace(in, n) }, mat.Trace(m)},
		} {
			got := checkGrad(t, c.name, a, func(tp *Tape, in []Var) []Var { return []Var{c.f(tp, in)} })
			if math.Abs(got[0]-c.want) > 1e-10*math.Max(1, math.Abs(c.want)) {
				t.Errorf("%s %d×%d = %v, want %v", c.name, n, n, got[0], c.want)
			}
		}
	}
}

// TestDeterminantsEmpty: the empty matrix has determinant 1 and trace 0.
func TestDeterminantsEmpty(t *testing.T) {
	tp := NewTape()
	if ld, d, tr := tp.Value(tp.LogDet(nil, 0)), tp.Value(tp.Det(nil, 0)), tp.Value(tp.Trace(nil, 0)); ld != 0 || d != 1 || tr != 0 {
		t.Errorf("0×0: logdet %v, det %v, trace %v", ld, d, tr)
	}
}

func TestVecFuncGradient(t *testing.T) {
	// yᵢ = x₀^i·sin(x₁) for i = 0..3, Jacobian by hand.
	f := func(x, y, jac []float64) {
		for i := range y {
			p := math.Pow(x[0], float64(i))
			y[i] = p * math.Sin(x[1])
			if i > 0 {
				jac[i*2] = float64(i) * math.Pow(x[0], float64(i-1)) * math.Sin(x[1])
			}
			jac[i*2+1] = p * math.Cos(x[1])
		}
	}
	checkGrad(t, "VecFunc", []float64{1.3, 0.4}, func(tp *Tape, in []Var) []Var { return tp.VecFunc(in, 4, f) })
}
