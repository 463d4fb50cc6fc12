//go:build !amd64 || purego

package blas3

import "github.com/kml-lang/kml/runtime/internal/cpufeat"

func archShape(cpufeat.Level) *shape { return nil }

func gatherVec(dst, src []float64, ld, kc, w int) bool { return false }
