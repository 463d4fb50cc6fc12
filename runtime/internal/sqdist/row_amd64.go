//go:build amd64 && !purego

package sqdist

import "golang.org/x/sys/cpu"

// The kernels in row_amd64.s handle len(dst) rounded down to a multiple of
// their lane count (4 or 8); len(x) ≥ 1.
//
//go:noescape
func rowAVX2(dst, yt []float64, stride int, x []float64)

//go:noescape
func rowAVX512(dst, yt []float64, stride int, x []float64)

// useAVX2 and useAVX512 select the kernel from the CPU's features; tests
// clear them to exercise the fallback.
var (
	useAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	useAVX512 = useAVX2 && cpu.X86.HasAVX512F
)

// Vectorised reports which vectorised kernel Row uses: "avx512", "avx2" or
// "none".
func Vectorised() string {
	switch {
	case useAVX512:
		return "avx512"
	case useAVX2:
		return "avx2"
	}
	return "none"
}

func rowVec(dst, yt []float64, stride int, x []float64) int {
	switch {
	case useAVX512:
		n := len(dst) &^ 7
		if n > 0 {
			rowAVX512(dst[:n], yt, stride, x)
		}
		return n
	case useAVX2:
		n := len(dst) &^ 3
		if n > 0 {
			rowAVX2(dst[:n], yt, stride, x)
		}
		return n
	}
	return 0
}
