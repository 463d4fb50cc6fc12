package blas3

import (
	"fmt"
	"testing"

	"github.com/kml-lang/kml/internal/cputime"
	"github.com/kml-lang/kml/runtime/internal/cpufeat"
)

// BenchmarkKernel times the micro-kernel alone on L1-resident panels: the
// ceiling the blocked DGEMM can reach on one core.
func BenchmarkKernel(b *testing.B) {
	for _, l := range cpufeat.Levels() {
		b.Run(fmt.Sprint(l), func(b *testing.B) {
			defer cpufeat.Use(l)()
			s := current()
			const k = 256
			ap, bp := make([]float64, s.mr*k), make([]float64, s.nr*k)
			c := make([]float64, s.mr*s.nr)
			cpu0 := cputime.Used()
			for b.Loop() {
				s.kern(k, ap, bp, c, s.nr, 1)
			}
			report(b, 2*float64(s.mr*s.nr*k), cpu0)
		})
	}
}
