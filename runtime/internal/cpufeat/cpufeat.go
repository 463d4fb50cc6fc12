// Package cpufeat chooses the vector instruction set of the assembly
// kernels (runtime/internal/fastexp, runtime/internal/sqdist,
// runtime/internal/blas3, runtime/internal/subsum, runtime/bke), so they
// always agree and the choice is made, and overridden, in one place.
//
// The choice is the widest level the CPU supports, capped by the
// environment variable KML_CPU (see Select), so one machine can measure
// every path it has: an AVX-512 machine its AVX2 and pure-Go paths too.
package cpufeat

import (
	"fmt"
	"os"
)

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

// Env is the environment variable that caps the level: generic (or none),
// avx2 or avx512.
const Env = "KML_CPU"

// Detected is the widest level this build and CPU support: from the CPU's
// features (which golang.org/x/sys/cpu reports only when the OS saves the
// registers too) on amd64, and None on other architectures or with the
// purego build tag.
var Detected = detect()

// Max is the widest level the kernels may use: Detected capped by
// KML_CPU, read once when the program starts. EnvErr is the error of an
// unknown KML_CPU value, for which Max is Detected (the kml command
// reports it and stops; tests and benchmarks go on with Detected and
// print the path they ran).
var Max, EnvErr = Select(Detected, os.Getenv(Env))

// Vector is the level the kernels use. It starts at Max; only tests and
// benchmarks change it, through Use.
var Vector = Max

// Select is the level the kernels use on a CPU whose widest level is
// detected when KML_CPU is env: the level env names, but never above
// detected (KML_CPU=avx512 on an AVX2 machine runs AVX2). An empty env
// is no cap. An unknown value is an error, with detected as the level.
func Select(detected Level, env string) (Level, error) {
	var c Level
	switch env {
	case "":
		return detected, nil
	case "generic", "none":
		c = None
	case "avx2":
		c = AVX2
	case "avx512":
		c = AVX512
	default:
		return detected, fmt.Errorf("%s=%q is not one of generic, avx2, avx512", Env, env)
	}
	return min(c, detected), nil
}

// Levels lists the levels the kernels may use here (up to Max), None
// first.
func Levels() []Level {
	var ls []Level
	for l := None; l <= Max; l++ {
		ls = append(ls, l)
	}
	return ls
}

// Use makes the kernels use level l (at most Max) and returns a function
// that restores the previous level. It is for tests and benchmarks that
// compare the paths, and must not run beside kernels.
func Use(l Level) (restore func()) {
	if l > Max {
		panic(fmt.Sprintf("cpufeat: %v is not available (detected %v, %s=%q)", l, Detected, Env, os.Getenv(Env)))
	}
	old := Vector
	Vector = l
	return func() { Vector = old }
}

// Describe is one line naming the path the kernels use, the CPU's widest
// level, the KML_CPU setting and the CPU model, for benchmark output and
// `kml version`: "isa: avx2 (cpu avx512, KML_CPU=avx2) model: ...".
func Describe() string {
	env := os.Getenv(Env)
	if env == "" {
		env = "unset"
	}
	return fmt.Sprintf("isa: %v (cpu %v, %s=%s) model: %s", Vector, Detected, Env, env, Model())
}
