package ktest

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/bke"
)

// BKLSensitivity is how BKL's choice moves with its two settings: ℓ̂ over
// the landmark counts M (m/2, m, 2m) and the noises Tau2 (τ²/4, τ², 4τ²)
// around the settings m, τ² of a choice, each cell by the same rule (the
// profile averaged over the same number of seeded landmark draws). Ell[i][j]
// is ℓ̂ at M[i], Tau2[j], NaN where M[i] cannot be held out; Ratio is the
// largest over the smallest of the finite cells.
type BKLSensitivity struct {
	M     []int
	Tau2  []float64
	Ell   [][]float64
	Ratio float64
}

// SensitiveFactor is the ratio of ℓ̂ over the sensitivity grid above which
// the choice is called fragile.
const SensitiveFactor = 2

// ChooseBKLSensitivity returns the sensitivity of the BKL choice c (made by
// ChooseBKL from data with seed and drawn landmarks) to its landmark count
// and τ², and adds to c.Fragile when ℓ̂ moves by more than SensitiveFactor
// over the grid. Its cost is that of 8 more choices, 3 of them at twice the
// landmarks (each evaluation of the pseudolikelihood O(n·m·D + m³)).
func ChooseBKLSensitivity(ctx context.Context, data *mat.Dense, seed uint64, c *Chosen) (BKLSensitivity, error) {
	if c.Choice != ChoiceBKL || c.Landmarks == 0 {
		return BKLSensitivity{}, fmt.Errorf("bkl: the sensitivity is for a choice with drawn landmarks")
	}
	n, d := data.Dims()
	m, tau2 := c.Landmarks, c.Tau2
	s := BKLSensitivity{M: []int{m / 2, m, 2 * m}, Tau2: []float64{tau2 / 4, tau2, 4 * tau2}}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, mi := range s.M {
		row := make([]float64, len(s.Tau2))
		for j, t := range s.Tau2 {
			row[j] = math.NaN()
			switch {
			case mi <= d || mi >= n:
				continue
			case i == 1 && j == 1:
				row[j] = c.Ell[0]
			default:
				r, err := bke.BKLDraws(ctx, data, mi, c.Draws, seed, bke.BKLSettings{Tau2: t, Options: bke.Options{Variant: c.Variant}})
				if err != nil {
					if e := ctx.Err(); e != nil {
						return BKLSensitivity{}, e
					}
					continue
				}
				row[j] = r.Ell
			}
			lo, hi = math.Min(lo, row[j]), math.Max(hi, row[j])
		}
		s.Ell = append(s.Ell, row)
	}
	s.Ratio = hi / lo
	if s.Ratio > SensitiveFactor {
		why := fmt.Sprintf("over m ∈ {%d, %d, %d} × τ² ∈ {%.3g, %.3g, %.3g} ℓ̂ runs from %.3g to %.3g", s.M[0], s.M[1], s.M[2], s.Tau2[0], s.Tau2[1], s.Tau2[2], lo, hi)
		if c.Fragile != "" {
			c.Fragile += "; " + why
		} else {
			c.Fragile = why
		}
	}
	return s, nil
}
