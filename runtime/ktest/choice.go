package ktest

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/bke"
	"github.com/kml-lang/kml/runtime/kernels"
)

// Choice is how a test's kernel was chosen, as its record reports it.
type Choice string

// The choices.
const (
	ChoiceGiven     Choice = "given"     // a kernel given by the user
	ChoiceMedian    Choice = "median"    // rbf at the median heuristic
	ChoiceBKL       Choice = "bkl"       // rbf at the BKL lengthscale
	ChoiceAggregate Choice = "aggregate" // a collection of rbf kernels
)

// Chosen is a test's kernel and how it was chosen.
type Chosen struct {
	Kernel kernels.Kernel
	Choice Choice
	// Ell is the kernel's lengthscales (nil if it has none).
	Ell []float64
	// BKL only: the number of rows held out as landmarks and the fixed τ².
	Landmarks int
	Tau2      float64
	// Bayes only: the posterior draws' summary and diagnostics.
	Bayes *BayesInfo
}

// Given wraps a user's kernel, reading its lengthscales when it is
// stationary (or a scaled stationary kernel).
func Given(k kernels.Kernel) Chosen {
	c := Chosen{Kernel: k, Choice: ChoiceGiven}
	if s, ok := k.(*kernels.Scaled); ok {
		k = s.K
	}
	if st, ok := k.(*kernels.Stationary); ok {
		c.Ell = append([]float64(nil), st.Ell...)
	}
	return c
}

// Choose picks an rbf kernel for data by rule c: ChoiceMedian, the median
// heuristic (MedianHeuristic with seed); ChoiceBKL, Bayesian kernel
// learning with τ² = 1 and min(50, n/5) rows held out (seeded) as the
// landmarks. The rules are functions of the pooled sample (MMD) or of one
// variable (HSIC), which a permutation leaves unchanged, so the tests keep
// their level.
func Choose(c Choice, data *mat.Dense, seed uint64) (Chosen, error) {
	var ell float64
	out := Chosen{Choice: c}
	switch c {
	case ChoiceMedian:
		m, err := kernels.MedianHeuristic(data, seed)
		if err != nil {
			return Chosen{}, err
		}
		if m == 0 {
			return Chosen{}, fmt.Errorf("the median distance is 0: every pair of points coincides")
		}
		ell = m
	case ChoiceBKL:
		n, d := data.Dims()
		m := min(50, n/5)
		if m < max(d, 1) {
			return Chosen{}, fmt.Errorf("too few rows (%d) to hold out landmarks for bkl", n)
		}
		rest, z := bke.Split(data, m, seed)
		r, err := bke.BKL(rest, z, bke.BKLSettings{Tau2: 1})
		if err != nil {
			return Chosen{}, err
		}
		ell, out.Landmarks, out.Tau2 = r.Ell, m, 1
	case ChoiceBayes:
		return ChooseBayes(context.Background(), data, BayesSettings{}, seed)
	default:
		return Chosen{}, fmt.Errorf("ktest: no rule %q to choose a kernel", c)
	}
	k, err := kernels.NewRBF([]float64{ell})
	if err != nil {
		return Chosen{}, err
	}
	out.Kernel, out.Ell = k, []float64{ell}
	return out, nil
}
