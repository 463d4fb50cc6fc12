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
	ChoiceOpt       Choice = "opt"       // rbf of highest estimated power on a held-out part
)

// Chosen is a test's kernel and how it was chosen.
type Chosen struct {
	Kernel kernels.Kernel
	Choice Choice
	// Ell is the kernel's lengthscales (nil if it has none).
	Ell []float64
	// BKL only: the number of rows held out as landmarks, the fixed τ²,
	// the number of landmark draws averaged, each draw's own choice, the
	// mean profile's local maxima (best first), the mean profile itself
	// (log pseudolikelihood on the log-spaced grid of lengthscales) and
	// why the choice is fragile (empty if it is not); see ChooseBKL.
	Landmarks int
	Tau2      float64
	Draws     int
	DrawEll   []float64
	Maxima    []bke.BKLMaximum
	Grid      []float64
	Profile   []float64
	Fragile   string
	// Variant is the BKE density BKL maximised.
	Variant bke.Variant
	// Bayes only: the posterior draws' summary and diagnostics.
	Bayes *BayesInfo
	// Opt only: the split and the power criterion (MMDOptTest).
	Opt *OptInfo
}

// Given wraps a user's kernel, reading its lengthscales when it is
// stationary (or a scaled stationary kernel).
func Given(k kernels.Kernel) Chosen {
	c := Chosen{Kernel: k, Choice: ChoiceGiven}
	_, inner := kernels.SplitScaled(k)
	if st, ok := inner.(*kernels.Stationary); ok {
		c.Ell = append([]float64(nil), st.Ell...)
	}
	return c
}

// Choose picks an rbf kernel for data by rule c: ChoiceMedian, the median
// heuristic (MedianHeuristic with seed); ChoiceBKL, Bayesian kernel
// learning by ChooseBKL with the default settings. The rules are functions of the pooled sample (MMD) or of one
// variable (HSIC), which a permutation leaves unchanged, so the tests keep
// their level. A cancelled ctx stops the BKL and Bayes rules with
// ctx.Err().
func Choose(ctx context.Context, c Choice, data *mat.Dense, seed uint64) (Chosen, error) {
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
		return ChooseBKL(ctx, data, seed, BKLOptions{})
	case ChoiceBayes:
		return ChooseBayes(ctx, data, BayesSettings{}, seed)
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
