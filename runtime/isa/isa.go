// Package isa reports the vector instruction set the numerical kernels
// run on (runtime/internal/cpufeat: the CPU's widest, capped by the
// environment variable KML_CPU=generic|avx2|avx512), for the kml command
// and for benchmarks, which print it beside their figures so a speed
// quoted from one machine names the path that produced it.
package isa

import "github.com/kml-lang/kml/runtime/internal/cpufeat"

// Path is the level the kernels use: "none", "avx2" or "avx512".
func Path() string { return cpufeat.Vector.String() }

// Describe is one line with the path, the CPU's widest level, the
// KML_CPU setting and the CPU model:
// "isa: avx2 (cpu avx512, KML_CPU=avx2) model: ...".
func Describe() string { return cpufeat.Describe() }

// EnvErr is the error of a KML_CPU value that is not generic, none, avx2
// or avx512 (the kernels then use the CPU's widest level), or nil.
func EnvErr() error { return cpufeat.EnvErr }
