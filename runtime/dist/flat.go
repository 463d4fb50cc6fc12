package dist

import (
	"math"
	"math/rand/v2"
)

func init() { register(flat{family{"flat", nil, nil}}) }

// Improper is a family whose density does not integrate (flat()): it may
// be a parameter's prior, where only the posterior must be proper, but it
// has no draws, moments or normalised log density.
type Improper interface{ Improper() bool }

// IsImproper reports an improper family.
func IsImproper(f Family) bool {
	i, ok := f.(Improper)
	return ok && i.Improper()
}

// flat() is the improper uniform density on the real line, Stan's default
// for a parameter without a prior: log density 0 everywhere.
type flat struct{ family }

func (flat) Improper() bool                                               { return true }
func (flat) LogProb(float64, []float64) float64                           { return 0 }
func (flat) LogProbGrad([]float64, float64, []float64) (float64, float64) { return 0, 0 }
func (flat) Rand(*rand.Rand, []float64) float64                           { return math.NaN() }
func (flat) Mean([]float64) float64                                       { return math.NaN() }
func (flat) StdDev([]float64) float64                                     { return math.NaN() }
func (flat) Support([]float64) (float64, float64)                         { return math.Inf(-1), math.Inf(1) }
