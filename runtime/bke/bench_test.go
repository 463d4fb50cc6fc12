package bke

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kml-lang/kml/runtime/internal/fastexp"
)

var benchSink float64

func benchModel(b *testing.B, n, m, dim, workers int) *Model {
	rng := rand.New(rand.NewPCG(71, 72))
	md, err := New(randMatrix(rng, n, dim, 1), randMatrix(rng, m, dim, 1), Options{Workers: workers})
	if err != nil {
		b.Fatal(err)
	}
	return md
}

func benchLogDensity(b *testing.B, md *Model, h Hyper) {
	var g Grad
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v, err := md.LogDensity(h, &g)
		if err != nil {
			b.Fatal(err)
		}
		benchSink += v
	}
}

// BenchmarkBKELogDensityGrad is one log density with its gradient at
// n = 100,000, m = 50, D = 2, beside n·m calls of math.Exp (the "exp"
// sub-benchmark) and n·m exponentials from fastexp.Exps in rows of m
// ("exps"), the bound the fused pass is measured against.
func BenchmarkBKELogDensityGrad(b *testing.B) {
	const n, m, dim = 100_000, 50, 2
	b.Run("exp", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var s float64
			for k := 0; k < n*m; k++ {
				s += math.Exp(-float64(k&1023) * 0.004)
			}
			benchSink += s
		}
	})
	b.Run("exps", func(b *testing.B) {
		q, u := make([]float64, m), make([]float64, m)
		for l := range q {
			q[l] = float64(l) * 0.3
		}
		for i := 0; i < b.N; i++ {
			var s float64
			for r := 0; r < n; r++ {
				fastexp.Exps(u, q, -0.5, 0)
				s += u[r%m]
			}
			benchSink += s
		}
	})
	for _, ard := range []bool{false, true} {
		h := Hyper{Ell: []float64{0.8}, Tau2: 1}
		name := "iso"
		if ard {
			h.Ell = []float64{0.8, 1.1}
			name = "ard"
		}
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", name, w), func(b *testing.B) {
				benchLogDensity(b, benchModel(b, n, m, dim, w), h)
			})
		}
	}
}

// BenchmarkBKEStanShapes times a log density with gradient at the shapes of
// the Stan comparison (Stan, bench/stan bke1 and bke2: 1.4 ms and 4.2 ms of
// CPU per gradient).
func BenchmarkBKEStanShapes(b *testing.B) {
	for _, c := range []struct{ n, m, dim int }{{800, 20, 1}, {900, 30, 2}} {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("n=%d,m=%d,D=%d/workers=%d", c.n, c.m, c.dim, w), func(b *testing.B) {
				benchLogDensity(b, benchModel(b, c.n, c.m, c.dim, w), Hyper{Ell: []float64{0.8}, Tau2: 1})
			})
		}
	}
}

// BenchmarkExp compares math.Exp with fastexp.ExpNeg on the arguments of the pass.
func BenchmarkExp(b *testing.B) {
	b.Run("math.Exp", func(b *testing.B) {
		var s float64
		for i := 0; i < b.N; i++ {
			s += math.Exp(-float64(i&1023) * 0.004)
		}
		benchSink += s
	})
	b.Run("fastexp.ExpNeg", func(b *testing.B) {
		var s float64
		for i := 0; i < b.N; i++ {
			s += fastexp.ExpNegOrZero(-float64(i&1023) * 0.004)
		}
		benchSink += s
	})
}

// BenchmarkBKEFarRows is a log density with gradient where ℓ is so small
// that every row's Jacobian goes to cauchyBinet (n = 10,000, m = 50).
func BenchmarkBKEFarRows(b *testing.B) {
	for _, dim := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("D=%d", dim), func(b *testing.B) {
			n := 10_000
			if dim == 3 {
				n = 200
			}
			benchLogDensity(b, benchModel(b, n, 50, dim, 1), Hyper{Ell: []float64{0.01}, Tau2: 1})
		})
	}
}
