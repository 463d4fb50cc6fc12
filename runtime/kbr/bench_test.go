package kbr

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// BenchmarkKBRCondition times building the posterior operator and
// conditioning on 100 observations, on the two-dimensional Gaussian model:
// exact at n = 2,000 and rank 200 at n = 20,000 (with a prior sample of
// 2,000 points).
//
//	go test -run '^$' -bench KBRCondition -benchtime 3x ./runtime/kbr
func BenchmarkKBRCondition(b *testing.B) {
	for _, c := range []struct{ n, rank int }{{2000, 0}, {20000, 200}} {
		r := rand.New(rand.NewPCG(61, 0x62656e)) // "ben"
		x := randMat(r, c.n, 2, 1)
		y := randMat(r, c.n, 2, 0.5)
		y.Add(y, x)
		u := randMat(r, 2000, 2, 1)
		ys := randMat(r, 100, 2, 1.1)
		mx, _ := kernels.MedianHeuristic(x, 1)
		my, _ := kernels.MedianHeuristic(y, 1)
		kx, _ := kernels.NewRBF([]float64{mx})
		ky, _ := kernels.NewRBF([]float64{my})
		s := Settings{Eps: 1e-3, Delta: 1e-6, Rank: c.rank}
		name := fmt.Sprintf("n=%d/rank=%d", c.n, c.rank)
		var p *Posterior
		b.Run(name+"/build", func(b *testing.B) {
			for range b.N {
				var err error
				if p, err = New(x, y, kx, ky, Prior{U: u}, s); err != nil {
					b.Fatal(err)
				}
			}
		})
		if p == nil {
			continue
		}
		b.Run(name+"/condition100", func(b *testing.B) {
			var w *mat.Dense
			for range b.N {
				w, _ = p.Condition(ys)
			}
			_ = w
		})
	}
}
