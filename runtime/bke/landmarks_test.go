package bke

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestGramMatchesGradHyper checks PriorKernel.gram, the batched R and ∂R
// of the landmark system, against Eval and GradHyper pair by pair, for
// each measure, isotropic and ARD, to 1e-14 relative (Exps against
// math.Exp).
func TestGramMatchesGradHyper(t *testing.T) {
	rng := rand.New(rand.NewPCG(3011, 3012))
	const m, dim = 9, 2
	z := randMatrix(rng, m, dim, 1.5)
	zs := z.RawMatrix().Data
	for _, measure := range []Prior{Normalised, Lebesgue, Gaussian} {
		for _, ell := range [][]float64{{0.7}, {0.6, 1.3}} {
			pk, err := NewPriorKernel(1.4, ell, measure, 0.9)
			if err != nil {
				t.Fatal(err)
			}
			r := make([]float64, m*m)
			dr := make([][]float64, len(ell))
			for k := range dr {
				dr[k] = make([]float64, m*m)
			}
			pk.gram(r, dr, zs, m, nil)
			rv := make([]float64, m*m)
			pk.gram(rv, nil, zs, m, make([]float64, 3*m*m))
			gh := make([]float64, pk.NumHyper())
			for j := 0; j < m; j++ {
				for k := 0; k < m; k++ {
					zj, zk := zs[j*dim:(j+1)*dim], zs[k*dim:(k+1)*dim]
					want := pk.GradHyper(gh, zj, zk)
					close := func(what string, got, want float64) {
						if math.Abs(got-want) > 1e-14*math.Abs(want) {
							t.Errorf("%v ell=%v (%d,%d): %s %.17g, want %.17g", measure, ell, j, k, what, got, want)
						}
					}
					close("r", r[j*m+k], want)
					close("r without gradient", rv[j*m+k], pk.Eval(zj, zk))
					for q := range ell {
						close("dr", dr[q][j*m+k], gh[1+q])
					}
				}
			}
		}
	}
}

// TestLandmarkSolveInverse checks the landmark system's solve and inverse
// against A = R + nugget·I formed densely: A·solve(b) = b and
// A·inverse = I to 1e-12.
func TestLandmarkSolveInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3013, 3014))
	for _, m := range []int{2, 5, 17} {
		md, err := New(randMatrix(rng, 20, 2, 1), randMatrix(rng, m, 2, 1), Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := md.prepare(Hyper{Ell: []float64{0.9}, Tau2: 1}, true)
		if err != nil {
			t.Fatal(err)
		}
		ls, err := md.landmarks(p, 0.05, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		a := mat.NewDense(m, m, append([]float64(nil), ls.r...))
		for j := 0; j < m; j++ {
			a.Set(j, j, a.At(j, j)+ls.nugget)
		}
		b := make([]float64, m)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		x := append([]float64(nil), b...)
		ls.solve(x)
		var ax mat.VecDense
		ax.MulVec(a, mat.NewVecDense(m, x))
		for i := range b {
			if math.Abs(ax.AtVec(i)-b[i]) > 1e-12*(1+math.Abs(b[i])) {
				t.Errorf("m=%d: (A·solve(b))_%d = %v, b = %v", m, i, ax.AtVec(i), b[i])
			}
		}
		var ai mat.Dense
		ai.Mul(a, mat.NewDense(m, m, ls.inverse()))
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(ai.At(i, j)-want) > 1e-12 {
					t.Errorf("m=%d: (A·inverse)_%d%d = %v", m, i, j, ai.At(i, j))
				}
			}
		}
		var ld float64
		var chol mat.Cholesky
		if !chol.Factorize(mat.NewSymDense(m, a.RawMatrix().Data)) {
			t.Fatal("A not positive definite")
		}
		if ld = chol.LogDet(); math.Abs(ls.logDet-ld) > 1e-12*(1+math.Abs(ld)) {
			t.Errorf("m=%d: log det %v, mat.Cholesky %v", m, ls.logDet, ld)
		}
	}
}

// TestGramTermsMatchGeneral requires gramTerms, the pair loop for the
// normalised and Lebesgue measures, to give logTerm's bits (those of
// gramTermsGeneral) in every entry, isotropic and ARD, D = 1 to 3.
func TestGramTermsMatchGeneral(t *testing.T) {
	rng := rand.New(rand.NewPCG(3015, 3016))
	const m = 11
	for _, measure := range []Prior{Normalised, Lebesgue} {
		for dim := 1; dim <= 3; dim++ {
			zs := randMatrix(rng, m, dim, 2).RawMatrix().Data
			ells := [][]float64{{0.3 + rng.Float64()}}
			if dim > 1 {
				ard := make([]float64, dim)
				for d := range ard {
					ard[d] = 0.2 + 2*rng.Float64()
				}
				ells = append(ells, ard)
			}
			for _, ell := range ells {
				pk, err := NewPriorKernel(1, ell, measure, 0)
				if err != nil {
					t.Fatal(err)
				}
				np2 := m * (m + 1) / 2
				for _, np := range []int{0, len(ell)} {
					e, de := make([]float64, np2), make([]float64, np*np2)
					we, wde := make([]float64, np2), make([]float64, np*np2)
					pk.gramTerms(e, de, zs, m)
					pk.gramTermsGeneral(we, wde, zs, m)
					for i := range e {
						if math.Float64bits(e[i]) != math.Float64bits(we[i]) {
							t.Errorf("%v D=%d ell=%v: log r[%d] %v, logTerm's %v", measure, dim, ell, i, e[i], we[i])
						}
					}
					for i := range de {
						if math.Float64bits(de[i]) != math.Float64bits(wde[i]) {
							t.Errorf("%v D=%d ell=%v: ∂ term %d %v, logTerm's %v", measure, dim, ell, i, de[i], wde[i])
						}
					}
				}
			}
		}
	}
}
