package kernels

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

func must[K any](k K, err error) K {
	if err != nil {
		panic(err)
	}
	return k
}

// testKernels returns every kernel, isotropic and ARD, and composites, for
// inputs of dimension d.
func testKernels(d int) map[string]Kernel {
	ard := make([]float64, d)
	for i := range ard {
		ard[i] = 0.6 + 0.3*float64(i)
	}
	iso := []float64{0.9}
	ks := map[string]Kernel{
		"rbf":          must(NewRBF(iso)),
		"rbf ard":      must(NewRBF(ard)),
		"laplacian":    must(NewLaplacian(iso)),
		"matern32":     must(NewMatern(3, iso)),
		"matern52 ard": must(NewMatern(5, ard)),
		"matern12 ard": must(NewMatern(1, ard)),
		"rq":           must(NewRQ(iso, 1.7)),
		"rq ard":       must(NewRQ(ard, 0.8)),
		"periodic":     must(NewPeriodic(1.1, 2.3)),
		"linear":       must(NewLinear(0.4)),
		"poly":         must(NewPoly(3, 0.7)),
		"constant":     Constant{},
	}
	ks["2 * rbf"] = must(NewScaled(2, ks["rbf"]))
	ks["rbf + linear"] = must(NewSum(ks["rbf"], ks["linear"]))
	ks["matern32 * periodic"] = must(NewProduct(ks["matern32"], ks["periodic"]))
	ks["nested"] = must(NewSum(must(NewScaled(0.5, must(NewProduct(ks["rbf ard"], ks["rq"])))), ks["poly"]))
	return ks
}

func randomPoints(rng *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	return x
}

func approx(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func TestGradientsMatchFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	set := &fd.Settings{Formula: fd.Central, Step: 1e-6}
	for _, d := range []int{1, 2, 5} {
		ks := testKernels(d)
		for _, name := range slices.Sorted(maps.Keys(ks)) {
			k := ks[name]
			for trial := 0; trial < 3; trial++ {
				x := randomPoints(rng, 1, d).RawRowView(0)
				y := randomPoints(rng, 1, d).RawRowView(0)
				h := k.Hyper(nil)
				got := make([]float64, len(h))
				v := k.GradHyper(got, x, y)
				if !approx(v, k.Eval(x, y), 1e-12) {
					t.Errorf("%s D=%d: GradHyper value %v, Eval %v", name, d, v, k.Eval(x, y))
				}
				if len(h) > 0 {
					want := fd.Gradient(nil, func(h []float64) float64 {
						kk, err := k.WithHyper(h)
						if err != nil {
							t.Fatal(err)
						}
						return kk.Eval(x, y)
					}, h, set)
					for i := range h {
						if !approx(got[i], want[i], 1e-5) {
							t.Errorf("%s D=%d: ∂k/∂%s = %v, finite differences %v", name, d, k.HyperNames()[i], got[i], want[i])
						}
					}
				}
				gx := make([]float64, d)
				k.GradX(gx, x, y)
				wantX := fd.Gradient(nil, func(x []float64) float64 { return k.Eval(x, y) }, x, set)
				for i := range gx {
					if !approx(gx[i], wantX[i], 1e-5) {
						t.Errorf("%s D=%d: ∂k/∂x_%d = %v, finite differences %v", name, d, i+1, gx[i], wantX[i])
					}
				}
			}
		}
	}
}

func TestGramEqualsNaiveLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range []int{1, 2, 5, 20} {
		x := randomPoints(rng, 70, d)
		y := randomPoints(rng, 45, d)
		ks := testKernels(d)
		for _, name := range slices.Sorted(maps.Keys(ks)) {
			k := ks[name]
			g, err := Gram(k, x)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Cross(k, x, y)
			if err != nil {
				t.Fatal(err)
			}
			gg, dg, err := GramGrad(k, x)
			if err != nil {
				t.Fatal(err)
			}
			cg, dc, err := CrossGrad(k, x, y)
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]float64, k.NumHyper())
			for i := 0; i < 70; i++ {
				for j := 0; j < 70; j++ {
					want := k.GradHyper(buf, x.RawRowView(i), x.RawRowView(j))
					if !approx(g.At(i, j), want, 1e-12) || !approx(gg.At(i, j), want, 1e-12) {
						t.Fatalf("%s D=%d: Gram[%d,%d] = %v, %v; Eval %v", name, d, i, j, g.At(i, j), gg.At(i, j), want)
					}
					for h, v := range buf {
						if !approx(dg[h].At(i, j), v, 1e-10) {
							t.Fatalf("%s D=%d: dGram/d%s[%d,%d] = %v, want %v", name, d, k.HyperNames()[h], i, j, dg[h].At(i, j), v)
						}
					}
				}
				for j := 0; j < 45; j++ {
					want := k.GradHyper(buf, x.RawRowView(i), y.RawRowView(j))
					if !approx(c.At(i, j), want, 1e-12) || !approx(cg.At(i, j), want, 1e-12) {
						t.Fatalf("%s D=%d: Cross[%d,%d] = %v, %v; Eval %v", name, d, i, j, c.At(i, j), cg.At(i, j), want)
					}
					for h, v := range buf {
						if !approx(dc[h].At(i, j), v, 1e-10) {
							t.Fatalf("%s D=%d: dCross/d%s[%d,%d] = %v, want %v", name, d, k.HyperNames()[h], i, j, dc[h].At(i, j), v)
						}
					}
				}
			}
		}
	}
}

func TestWhiteGramIsIdentity(t *testing.T) {
	x := mat.NewDense(3, 1, []float64{1, 1, 2}) // rows 1 and 2 coincide
	g, _ := Gram(White{}, x)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			if g.At(i, j) != want {
				t.Errorf("white Gram[%d,%d] = %v", i, j, g.At(i, j))
			}
		}
	}
	c, _ := Cross(White{}, x, mat.NewDense(1, 1, []float64{1}))
	if c.At(0, 0) != 1 || c.At(2, 0) != 0 {
		t.Errorf("white cross %v", mat.Formatted(c))
	}
}

// Jitter is the diagonal added before factorising a Gram matrix in these
// tests: 1e-8 times the mean diagonal.
func TestGramMatricesArePositiveDefinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, d := range []int{1, 2, 5} {
		x := randomPoints(rng, 60, d)
		ks := testKernels(d)
		for _, name := range slices.Sorted(maps.Keys(ks)) {
			k := ks[name]
			g, _ := Gram(k, x)
			mean := 0.0
			for i := 0; i < 60; i++ {
				mean += g.At(i, i) / 60
			}
			a := mat.NewSymDense(60, nil)
			a.CopySym(g)
			for i := 0; i < 60; i++ {
				a.SetSym(i, i, a.At(i, i)+1e-8*mean)
			}
			// Low-rank kernels (constant, linear, poly) are only positive
			// semi-definite; the jitter makes them factorise too.
			var ch mat.Cholesky
			if ok := ch.Factorize(a); !ok {
				t.Errorf("%s D=%d: Gram matrix does not factorise with jitter", name, d)
			}
		}
	}
}

func TestDistancePathsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, d := range []int{1, 2, 3, 10, expandMinDim - 1, expandMinDim} {
		x := randomPoints(rng, 50, d)
		y := randomPoints(rng, 30, d)
		k := must(NewRBF([]float64{float64(d) / 3}))
		c, _ := Cross(k, x, y)
		g, _ := Gram(k, x)
		for i := 0; i < 50; i++ {
			for j := 0; j < 30; j++ {
				if want := k.Eval(x.RawRowView(i), y.RawRowView(j)); !approx(c.At(i, j), want, 1e-12) {
					t.Fatalf("D=%d cross [%d,%d]: %v, direct %v", d, i, j, c.At(i, j), want)
				}
			}
			for j := 0; j < 50; j++ {
				if want := k.Eval(x.RawRowView(i), x.RawRowView(j)); !approx(g.At(i, j), want, 1e-12) {
					t.Fatalf("D=%d gram [%d,%d]: %v, direct %v", d, i, j, g.At(i, j), want)
				}
			}
		}
	}
}

func TestBadInputs(t *testing.T) {
	k := must(NewRBF([]float64{1, 2}))
	x := mat.NewDense(3, 2, []float64{1, 2, 3, math.NaN(), 5, 6})
	cases := []struct {
		err  error
		want string
	}{
		{func() error { _, err := NewRBF([]float64{-1}); return err }(), "rbf: lengthscale ell must be positive and finite, got -1"},
		{func() error { _, err := NewRQ([]float64{1, 0}, 1); return err }(), "rq: lengthscale ell[2] must be positive"},
		{func() error { _, err := NewPeriodic(1, 0); return err }(), "periodic: period must be positive"},
		{func() error { _, err := Gram(k, x); return err }(), "the data has NaN in row 2, column 2"},
		{func() error { _, err := Gram(k, mat.NewDense(2, 3, nil)); return err }(), "rbf([1, 2]) has 2 lengthscales but the data has 3 columns"},
		{func() error {
			_, err := Cross(must(NewRBF([]float64{1})), mat.NewDense(2, 3, nil), mat.NewDense(4, 2, nil))
			return err
		}(), "different numbers of columns: 2×3 and 4×2"},
		{func() error { _, err := Gram(k, &mat.Dense{}); return err }(), "the data is empty"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("got %v, want %q", c.err, c.want)
		}
	}
}

func TestFromDistancesEqualsCross(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	x, y := randomPoints(rng, 20, 3), randomPoints(rng, 15, 3)
	dist, err := NewDistances(x, y, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []*Stationary{must(NewRBF([]float64{0.7})), must(NewMatern(5, []float64{0.5, 1, 2})), must(NewRQ([]float64{1.3}, 2))} {
		got, err := k.FromDistances(dist)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Cross(k, x, y)
		if e := maxAbsDiff(got, want); e > 1e-13 {
			t.Errorf("%s: FromDistances differs from Cross by %g", k, e)
		}
	}
}

// GramInto reuses a destination: whatever it held before, the result equals
// a fresh Gram matrix, and a destination of the wrong size is refused.
func TestGramIntoReusesDestination(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	x := randomPoints(rng, 90, 3)
	dst := mat.NewSymDense(90, nil)
	ks := testKernels(3)
	for _, name := range slices.Sorted(maps.Keys(ks)) {
		raw := dst.RawSymmetric().Data
		for i := range raw {
			raw[i] = math.NaN()
		}
		if err := GramInto(dst, ks[name], x, 2); err != nil {
			t.Fatal(err)
		}
		want, _ := Gram(ks[name], x)
		for i := 0; i < 90; i++ {
			for j := 0; j < 90; j++ {
				if dst.At(i, j) != want.At(i, j) {
					t.Fatalf("%s: GramInto[%d,%d] = %v, Gram %v", name, i, j, dst.At(i, j), want.At(i, j))
				}
			}
		}
	}
	if err := GramInto(mat.NewSymDense(10, nil), ks["rbf"], x, 1); err == nil || !strings.Contains(err.Error(), "90 rows") {
		t.Errorf("a 10×10 destination for 90 rows: err %v", err)
	}
}

// GramGradInto gives GramGrad's values and derivatives whatever its
// destinations held, for stationary kernels (written in place) and others.
func TestGramGradIntoReusesDestinations(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	x := randomPoints(rng, 70, 2)
	ks := testKernels(2)
	for _, name := range slices.Sorted(maps.Keys(ks)) {
		k := ks[name]
		dst := mat.NewSymDense(70, nil)
		dk := make([]*mat.SymDense, k.NumHyper())
		for h := range dk {
			dk[h] = mat.NewSymDense(70, nil)
		}
		for _, a := range append([]*mat.SymDense{dst}, dk...) {
			raw := a.RawSymmetric().Data
			for i := range raw {
				raw[i] = math.NaN()
			}
		}
		if err := GramGradInto(dst, dk, k, x, 2); err != nil {
			t.Fatal(err)
		}
		want, wantD, _ := GramGrad(k, x)
		for i := 0; i < 70; i++ {
			for j := 0; j < 70; j++ {
				if dst.At(i, j) != want.At(i, j) {
					t.Fatalf("%s: value[%d,%d] = %v, GramGrad %v", name, i, j, dst.At(i, j), want.At(i, j))
				}
				for h := range dk {
					if dk[h].At(i, j) != wantD[h].At(i, j) {
						t.Fatalf("%s: d/d%s[%d,%d] = %v, GramGrad %v", name, k.HyperNames()[h], i, j, dk[h].At(i, j), wantD[h].At(i, j))
					}
				}
			}
		}
	}
	if err := GramGradInto(mat.NewSymDense(70, nil), nil, ks["rbf"], x, 1); err == nil {
		t.Error("no derivative matrix for rbf's lengthscale: want an error")
	}
}

// CrossGradInto gives CrossGrad's matrices and CrossInto gives Cross's,
// whatever their destinations held, and refuse a destination of the wrong shape.
func TestCrossIntoReusesDestinations(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	x, y := randomPoints(rng, 40, 2), randomPoints(rng, 25, 2)
	ks := testKernels(2)
	for _, name := range slices.Sorted(maps.Keys(ks)) {
		k := ks[name]
		val := mat.NewDense(40, 25, nil)
		dk := make([]*mat.Dense, k.NumHyper())
		for h := range dk {
			dk[h] = mat.NewDense(40, 25, nil)
		}
		for _, a := range append([]*mat.Dense{val}, dk...) {
			raw := a.RawMatrix().Data
			for i := range raw {
				raw[i] = math.NaN()
			}
		}
		if err := CrossGradInto(val, dk, k, x, y, 2); err != nil {
			t.Fatal(err)
		}
		want, wantD, _ := CrossGrad(k, x, y)
		if !mat.Equal(val, want) {
			t.Errorf("%s: CrossGradInto values differ from CrossGrad", name)
		}
		for h := range dk {
			if !mat.Equal(dk[h], wantD[h]) {
				t.Errorf("%s: CrossGradInto d/d%s differs from CrossGrad", name, k.HyperNames()[h])
			}
		}
		val.Zero()
		if wantV, _ := Cross(k, x, y); CrossInto(val, k, x, y, 1) != nil || !mat.Equal(val, wantV) {
			t.Errorf("%s: CrossInto differs from Cross", name)
		}
	}
	if err := CrossInto(mat.NewDense(25, 40, nil), ks["rbf"], x, y, 1); err == nil || !strings.Contains(err.Error(), "want 40×25") {
		t.Errorf("a 25×40 destination: err %v", err)
	}
}
