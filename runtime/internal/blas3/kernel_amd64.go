//go:build amd64 && !purego

package blas3

import "github.com/kml-lang/kml/runtime/internal/cpufeat"

// The micro-kernels in kernel_amd64.s; see kernelFunc. They read only the
// base pointers of a, b and c.
//
//go:noescape
func kernAVX2(k int, a, b, c []float64, ldc int, alpha float64)

//go:noescape
func kernAVX512(k int, a, b, c []float64, ldc int, alpha float64)

var (
	avx2Shape   = shape{mr: 6, nr: 8, mc: 144, kc: 256, nc: 4080, kern: kernAVX2}
	avx512Shape = shape{mr: 8, nr: 24, mc: 192, kc: 192, nc: 4080, kern: kernAVX512}
)

func archShape(l cpufeat.Level) *shape {
	switch {
	case l >= cpufeat.AVX512:
		return &avx512Shape
	case l >= cpufeat.AVX2:
		return &avx2Shape
	}
	return nil
}
