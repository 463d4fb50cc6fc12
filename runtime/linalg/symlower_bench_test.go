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
// not marked exactly symmetric, into the fresh buffer it returns, as
// chol's result is (its allocation and page faults included). It reports
// cpu-ms/op, the processor time on all threads per call.
func BenchmarkSymLower(b *testing.B) {
	for _, n := range []int{1000, 2000} {
		rng := rand.New(rand.NewPCG(77, 1))
		a := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				x := rng.NormFloat64()
				a.Data[i*n+j], a.Data[j*n+i] = x, x
			}
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			c0 := cputime.Used()
			for range b.N {
				if _, _, _, err := SymLower(a, 1e-10); err != nil {
					b.Fatal("symmetric finite matrix refused")
				}
			}
			b.ReportMetric(float64((cputime.Used()-c0).Nanoseconds())/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}
