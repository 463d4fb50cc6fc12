//go:build unix

package linalg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/kml-lang/kml/internal/cputime"
)

// BenchmarkSymLower is chol's pass before the factorisation of a matrix
// not marked exactly symmetric, into a reused n² buffer (reuse) and into a fresh one, as chol's result is
// (fresh: the allocation, its zeroing and page faults included). Each
// reports cpu-ms/op, the processor time on all threads per call.
func BenchmarkSymLower(b *testing.B) {
	benchLower(b, func(dst []float64, a blas64.General) bool {
		_, _, err := SymLower(dst, a, 1e-10)
		return err == nil
	})
}

func benchLower(b *testing.B, pass func(dst []float64, a blas64.General) bool) {
	for _, n := range []int{1000, 2000} {
		rng := rand.New(rand.NewPCG(77, 1))
		a := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				x := rng.NormFloat64()
				a.Data[i*n+j], a.Data[j*n+i] = x, x
			}
		}
		for _, fresh := range []bool{false, true} {
			name := "reuse"
			if fresh {
				name = "fresh"
			}
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
				dst := make([]float64, n*n)
				c0 := cputime.Used()
				for range b.N {
					if fresh {
						dst = make([]float64, n*n)
					}
					if !pass(dst, a) {
						b.Fatal("symmetric finite matrix refused")
					}
				}
				b.ReportMetric(float64((cputime.Used()-c0).Nanoseconds())/1e6/float64(b.N), "cpu-ms/op")
			})
		}
	}
}
