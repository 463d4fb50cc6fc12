//go:build !amd64 || purego

package blas3

import "github.com/kml-lang/kml/runtime/internal/cpufeat"

func archShape(cpufeat.Level) *shape { return nil }
