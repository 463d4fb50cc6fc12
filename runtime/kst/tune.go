package kst

import (
	"fmt"
	"math"

	"github.com/kml-lang/kml/runtime/kernels"
)

// Grid is the hyperparameter grid Tune searches. Ell holds lengthscales
// passed to the kernel builder (nil: one fixed kernel, the builder called
// with NaN). Empty slices of σ0, α or β mean {1}.
type Grid struct {
	Ell, Sigma0, Alpha, Beta []float64
}

// Point is one grid point with its validation score (higher is better).
type Point struct {
	Ell   float64
	Hyper Hyper
	Score float64
}

// Tune scores every grid point and returns the best (the first of equals,
// in grid order: ℓ slowest, then σ0, α, β) and all points. kernelFor makes
// the kernel for a lengthscale, build fits a density and score judges it on
// held-out data. For a Parzen window (ignoring σ0, α, β), pass a grid with
// those left empty. Every call runs on the caller's goroutine, in order.
func Tune(g Grid, kernelFor func(ell float64) (kernels.Kernel, error),
	build func(k kernels.Kernel, h Hyper) (Density, error),
	score func(Density) (float64, error)) (Point, []Point, error) {
	one := []float64{1}
	ells := g.Ell
	if len(ells) == 0 {
		ells = []float64{math.NaN()}
	}
	or := func(v []float64) []float64 {
		if len(v) == 0 {
			return one
		}
		return v
	}
	s0s, as, bs := or(g.Sigma0), or(g.Alpha), or(g.Beta)
	var all []Point
	best := Point{Score: math.Inf(-1)}
	found := false
	for _, ell := range ells {
		k, err := kernelFor(ell)
		if err != nil {
			return Point{}, nil, err
		}
		for _, s0 := range s0s {
			for _, a := range as {
				for _, b := range bs {
					h := Hyper{Sigma0: s0, Alpha: a, Beta: b}
					d, err := build(k, h)
					if err != nil {
						return Point{}, nil, err
					}
					s, err := score(d)
					if err != nil {
						return Point{}, nil, err
					}
					p := Point{Ell: ell, Hyper: h, Score: s}
					all = append(all, p)
					if !found || s > best.Score {
						best, found = p, true
					}
				}
			}
		}
	}
	if math.IsNaN(best.Score) {
		return Point{}, nil, fmt.Errorf("every grid point scored NaN")
	}
	return best, all, nil
}
