package kbr

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// CV's scores against the criteria written out: the folds are rebuilt from
// the same random stream, the posterior weights from the dense formula,
// and the RKHS norms from kernel sums.
func TestCVMatchesDirectComputation(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 1))
	x, y := joint(r, 36)
	const ell = 1.0
	eps, delta := []float64{0.01, 0.1}, []float64{1e-4, 1e-2}
	k := gauss(ell)
	for _, crit := range []Criterion{Marginal, Pointwise} {
		got, err := CV(context.Background(), x, y, rbf(t, ell), rbf(t, ell), eps, delta, 3, crit, Settings{}, rand.New(rand.NewPCG(9, 9)))
		if err != nil {
			t.Fatal(err)
		}
		perm := rand.New(rand.NewPCG(9, 9)).Perm(36)
		for a, e := range eps {
			for b, d := range delta {
				want := 0.0
				for f := 0; f < 3; f++ {
					var tr, te []int
					for i, p := range perm {
						if i%3 == f {
							te = append(te, p)
						} else {
							tr = append(tr, p)
						}
					}
					xtr, ytr, xte, yte := rowsOf(x, tr, 2), rowsOf(y, tr, 2), rowsOf(x, te, 2), rowsOf(y, te, 2)
					gamma := make([]float64, len(tr))
					for i := range gamma {
						gamma[i] = 1 / float64(len(tr))
					}
					w, _ := densePosterior(t, xtr, ytr, xtr, gamma, ell, ell, e, d, yte)
					// ‖Σ_i c_i k(·, P_i)‖² over points P = training then test rows.
					pts := mat.NewDense(len(tr)+len(te), 2, nil)
					pts.Stack(xtr, xte)
					g := denseGram(k, pts, pts)
					norm2 := func(c []float64) float64 {
						s := 0.0
						for i := range c {
							for j := range c {
								s += c[i] * c[j] * g.At(i, j)
							}
						}
						return s
					}
					m := len(te)
					if crit == Marginal {
						c := make([]float64, len(tr)+m)
						for j := 0; j < m; j++ {
							for i := range tr {
								c[i] += w.At(i, j) / float64(m)
							}
							c[len(tr)+j] = -1 / float64(m)
						}
						want += norm2(c)
					} else {
						for j := 0; j < m; j++ {
							c := make([]float64, len(tr)+m)
							for i := range tr {
								c[i] = w.At(i, j)
							}
							c[len(tr)+j] = -1
							want += norm2(c) / float64(m)
						}
					}
				}
				if math.Abs(got.At(a, b)-want) > 1e-8*math.Max(1, want) {
					t.Errorf("%s, eps %g, delta %g: score %g, want %g", crit, e, d, got.At(a, b), want)
				}
			}
		}
	}
}
