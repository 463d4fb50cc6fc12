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

// transpose4 sets dst[p·w+i] = src[i·ld+p] for i < 4 and p < k&^3; it
// needs AVX.
//
//go:noescape
func transpose4(dst, src []float64, ld, k, w int)

// gatherVec is the four-row step of gather in assembly, when the vector
// level has AVX; it reports whether it ran.
func gatherVec(dst, src []float64, ld, kc, w int) bool {
	if cpufeat.Vector < cpufeat.AVX2 || kc < 4 {
		return false
	}
	k4 := kc &^ 3
	_ = dst[(k4-1)*w+3]
	_ = src[3*ld+k4-1]
	transpose4(dst, src, ld, k4, w)
	r0, r1, r2, r3 := src[k4:kc], src[ld+k4:ld+kc], src[2*ld+k4:2*ld+kc], src[3*ld+k4:3*ld+kc]
	for p, v := range r0 {
		d := dst[(k4+p)*w : (k4+p)*w+4 : (k4+p)*w+4]
		d[0], d[1], d[2], d[3] = v, r1[p], r2[p], r3[p]
	}
	return true
}

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
