package dists

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
)

// recorded runs vt.Record at u and returns the values (in the order of
// Constrain), the log-Jacobian, and the gradient of each value and of the
// log-Jacobian in u, from the tape.
func recorded(vt Transform, u []float64) (xs []float64, logJ float64, dxs [][]float64, dlogJ []float64) {
	t := ad.NewTape()
	in := make([]ad.Var, len(u))
	for i, x := range u {
		in[i] = t.Input(x)
	}
	v, ljs, _ := vt.Record(t, in, nil)
	lj := t.Input(0)
	if len(ljs) > 0 {
		lj = t.Sum(ljs)
	}
	var vs []ad.Var
	switch v := v.(type) {
	case *eval.ADNum:
		vs = []ad.Var{v.V}
	case *eval.ADVec:
		vs = v.Vs
	case *eval.ADMat:
		// In the order of constrain: column by column.
		for j := 0; j < v.Cols; j++ {
			for i := 0; i < v.Rows; i++ {
				vs = append(vs, v.Vs[i*v.Cols+j])
			}
		}
	}
	for _, x := range vs {
		xs = append(xs, t.Value(x))
		g := make([]float64, len(u))
		t.Gradient(g, x, in)
		dxs = append(dxs, g)
	}
	dlogJ = make([]float64, len(u))
	t.Gradient(dlogJ, lj, in)
	return xs, t.Value(lj), dxs, dlogJ
}

// checkTransform checks vt at u: the tape's values equal constrain's,
// unconstrain inverts constrain, the tape's derivatives of every value and
// of the log-Jacobian match finite differences, and the log-Jacobian is
// log |det| of the finite-difference Jacobian of u ↦ free(constrain(u)),
// the coordinates the density is defined on.
func checkTransform(t *testing.T, vt Transform, u []float64, free func(x []float64) []float64) {
	t.Helper()
	want := vt.Constrain(nil, u)
	xs, logJ, dxs, dlogJ := recorded(vt, u)
	for i := range want {
		if math.Abs(xs[i]-want[i]) > 1e-14 {
			t.Errorf("%s at %v: value %d on the tape %v, constrain %v", vt.Describe(), u, i, xs[i], want[i])
		}
	}
	back, err := vt.Unconstrain("x", vt.Value(want))
	if err != nil {
		t.Fatalf("%s: Unconstrain(Constrain(%v)): %v", vt.Describe(), u, err)
	}
	for i := range u {
		if math.Abs(back[i]-u[i]) > 1e-9*math.Max(1, math.Abs(u[i])) {
			t.Errorf("%s: unconstrain(constrain(%v)) = %v", vt.Describe(), u, back)
			break
		}
	}
	settings := &fd.Settings{Formula: fd.Central, Step: 1e-6}
	for i := range want {
		g := fd.Gradient(nil, func(v []float64) float64 { return vt.Constrain(nil, v)[i] }, u, settings)
		for j := range g {
			if math.Abs(g[j]-dxs[i][j]) > 1e-7 {
				t.Errorf("%s at %v: d value %d / du%d = %v, finite differences %v", vt.Describe(), u, i, j, dxs[i][j], g[j])
			}
		}
	}
	n := len(u)
	jac := mat.NewDense(n, n, nil)
	fd.Jacobian(jac, func(y, v []float64) { copy(y, free(vt.Constrain(nil, v))) }, u, &fd.JacobianSettings{Formula: fd.Central})
	var lu mat.LU
	lu.Factorize(jac)
	wantJ, _ := lu.LogDet()
	if math.Abs(logJ-wantJ) > 1e-6*math.Max(1, math.Abs(wantJ)) {
		t.Errorf("%s at %v: log-Jacobian %v, log |det| of the finite-difference Jacobian %v", vt.Describe(), u, logJ, wantJ)
	}
	g := fd.Gradient(nil, func(v []float64) float64 { _, lj, _, _ := recorded(vt, v); return lj }, u, settings)
	for j := range g {
		if math.Abs(g[j]-dlogJ[j]) > 1e-6 {
			t.Errorf("%s at %v: d logJ / du%d = %v, finite differences %v", vt.Describe(), u, j, dlogJ[j], g[j])
		}
	}
}

// TestSimplexTransform: every value is a simplex, and the transform's
// log-Jacobian is that of u ↦ (x₁, ..., x_{K−1}) (x_K = 1 − Σ is
// determined), the density's coordinates.
func TestSimplexTransform(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 1))
	for _, k := range []int{2, 3, 5, 8} {
		vt := simplexTransform{k: k}
		if got := vt.Constrain(nil, make([]float64, k-1)); !dist.IsSimplex(got) || math.Abs(got[0]-1/float64(k)) > 1e-15 {
			t.Errorf("K %d: constrain(0) = %v, want the centre 1/K", k, got)
		}
		for trial := 0; trial < 3; trial++ {
			u := make([]float64, k-1)
			for i := range u {
				u[i] = 1.5 * r.NormFloat64()
			}
			if x := vt.Constrain(nil, u); !dist.IsSimplex(x) {
				t.Errorf("K %d: constrain(%v) = %v is not a simplex", k, u, x)
			}
			checkTransform(t, vt, u, func(x []float64) []float64 { return x[:k-1] })
		}
	}
}

// TestCholeskyCorrTransform: every value is lower triangular with
// unit-length rows, and the log-Jacobian is that of u ↦ the strictly lower
// entries of L (row by row), the coordinates the LKJ density is defined on.
func TestCholeskyCorrTransform(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 2))
	for _, k := range []int{2, 3, 4} {
		vt := choleskyCorrTransform{k: k}
		strict := func(x []float64) []float64 {
			var out []float64
			for i := 1; i < k; i++ {
				for j := 0; j < i; j++ {
					out = append(out, x[j*k+i]) // column-major values
				}
			}
			return out
		}
		for trial := 0; trial < 3; trial++ {
			u := make([]float64, vt.Free())
			for i := range u {
				u[i] = r.NormFloat64()
			}
			x := vt.Constrain(nil, u)
			if _, err := vt.Held("L", vt.Value(x)); err != nil {
				t.Errorf("K %d: constrain(%v): %v", k, u, err)
			}
			checkTransform(t, vt, u, strict)
		}
	}
}

// TestTransformChecks: values outside the support are refused with a
// message naming the parameter.
func TestTransformChecks(t *testing.T) {
	s := simplexTransform{k: 3}
	for _, v := range []eval.Value{&eval.Vec{Data: []float64{0.2, 0.3, 0.6}}, &eval.Vec{Data: []float64{0, 0.5, 0.5}}, &eval.Vec{Data: []float64{0.5, 0.5}}, eval.Num(1)} {
		if _, err := s.Held("theta", v); err == nil {
			t.Errorf("simplex check accepted %v", v)
		}
	}
	c := choleskyCorrTransform{k: 2}
	for _, m := range [][]float64{{1, 0, 0.6, 0.7}, {1, 0.1, 0.6, 0.8}, {1, 0, 0.6, -0.8}, {2, 0, 0, 1}} {
		if _, err := c.Held("L", eval.NewMat(mat.NewDense(2, 2, m))); err == nil {
			t.Errorf("Cholesky check accepted %v", m)
		}
	}
	if _, err := c.Held("L", eval.NewMat(mat.NewDense(2, 2, []float64{1, 0, 0.6, 0.8}))); err != nil {
		t.Errorf("Cholesky check refused a valid factor: %v", err)
	}
}

// gridIntegral is the trapezoid rule for f over [−w, w]^dim with n points
// per axis; for the smooth, fast-decaying integrands here it is accurate to
// many digits.
func gridIntegral(dim, n int, w float64, f func(u []float64) float64) float64 {
	h := 2 * w / float64(n-1)
	u := make([]float64, dim)
	idx := make([]int, dim)
	total := 0.0
	for {
		wt := 1.0
		for i, k := range idx {
			u[i] = -w + h*float64(k)
			if k == 0 || k == n-1 {
				wt /= 2
			}
		}
		total += wt * f(u)
		i := 0
		for ; i < dim; i++ {
			idx[i]++
			if idx[i] < n {
				break
			}
			idx[i] = 0
		}
		if i == dim {
			break
		}
	}
	return total * math.Pow(h, float64(dim))
}

// TestTransformedDensitiesIntegrateToOne: a normalised density on the
// constrained values times the transform's Jacobian is a normalised density
// on the free reals, which checks the log-Jacobians and the normalising
// constants together: Dirichlet(2, 3, 5) through the simplex transform,
// LKJ(η) for K = 3 through the Cholesky-correlation transform.
func TestTransformedDensitiesIntegrateToOne(t *testing.T) {
	s := simplexTransform{k: 3}
	alpha := []float64{2, 3, 5}
	got := gridIntegral(2, 301, 15, func(u []float64) float64 {
		x, lj, _, _ := recorded(s, u)
		return math.Exp(dist.DirichletLogPDF(x, alpha, nil, nil) + lj)
	})
	if math.Abs(got-1) > 1e-6 {
		t.Errorf("Dirichlet(2, 3, 5) on the free reals integrates to %v", got)
	}
	c := choleskyCorrTransform{k: 3}
	for _, eta := range []float64{1, 2.5} {
		got := gridIntegral(3, 41, 9, func(u []float64) float64 {
			x, lj, _, _ := recorded(c, u)
			lp, _ := dist.LKJCholeskyLogPDF([]float64{x[0], x[4], x[8]}, eta, nil)
			return math.Exp(lp + lj)
		})
		if math.Abs(got-1) > 2e-4 { // the coarse 3-D grid's error is ~4e-5
			t.Errorf("LKJ(%v), K = 3, on the free reals integrates to %v", eta, got)
		}
	}
}
