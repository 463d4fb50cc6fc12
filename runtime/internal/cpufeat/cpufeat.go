// Package cpufeat chooses the vector instruction set of the assembly
// kernels in runtime/internal/fastexp and runtime/internal/sqdist, so the
// two always agree and the choice is made, and overridden, in one place.
package cpufeat

import "fmt"

// Level is a vector instruction set the kernels are written for, each
// including the ones below it.
type Level int

const (
	// None is the portable Go code.
	None Level = iota
	// AVX2 is AVX2 with FMA: 4 lanes of float64.
	AVX2
	// AVX512 is AVX-512F (with AVX2 and FMA): 8 lanes.
	AVX512
)

// String is "none", "avx2" or "avx512", the names Vectorised reports.
func (l Level) String() string {
	switch l {
	case None:
		return "none"
	case AVX2:
		return "avx2"
	case AVX512:
		return "avx512"
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// Detected is the widest level this build and CPU support: from the CPU's
// features (which golang.org/x/sys/cpu reports only when the OS saves the
// registers too) on amd64, and None on other architectures or with the
// purego build tag.
var Detected = detect()

// Vector is the level the kernels use. It starts at Detected; only tests
// change it, through Use.
var Vector = Detected

// Levels lists the levels this machine can run, None first.
func Levels() []Level {
	var ls []Level
	for l := None; l <= Detected; l++ {
		ls = append(ls, l)
	}
	return ls
}

// Use makes the kernels use level l (at most Detected) and returns a
// function that restores the previous level. It is for tests and
// benchmarks that compare the paths, and must not run beside kernels.
func Use(l Level) (restore func()) {
	if l > Detected {
		panic(fmt.Sprintf("cpufeat: %v is not available (detected %v)", l, Detected))
	}
	old := Vector
	Vector = l
	return func() { Vector = old }
}
