package dists

import (
	"fmt"
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
)

// CategoricalLogit is categorical_logit(beta): a category in 1..K with
// P(y = k) = softmax(beta)ₖ, as Stan's categorical_logit. It is a
// distribution for data (observations), not for parameters.
type CategoricalLogit struct {
	// Beta is a vector of K, on the tape or not, or a latent function
	// with one GP per class (a ClassLatent), which the density hands the
	// observation (lang/model's Density.observeClasses).
	Beta eval.Value
	// OfLatent says Beta is such a latent function (set by the builtin:
	// this package does not know lang/model's Latent).
	OfLatent bool
}

func (c *CategoricalLogit) Type() string   { return "distribution" }
func (c *CategoricalLogit) String() string { return fmt.Sprintf("categorical_logit(%s)", c.Beta) }

// HasAD reports log-odds that depend on model parameters.
func (c *CategoricalLogit) HasAD() bool { return eval.IsAD(c.Beta) }

// K is the number of categories.
func (c *CategoricalLogit) K() int { return paramLen(c.Beta) }

// LogDensity sums log softmax(beta)_{yᵢ} over the observations y:
// Σᵢ beta_{yᵢ} − n·log Σₖ e^{betaₖ}, with ∂/∂betaₖ = countₖ − n·softmaxₖ.
func (c *CategoricalLogit) LogDensity(t *ad.Tape, x eval.Value, what string) (eval.Value, error) {
	if c.OfLatent {
		return nil, fmt.Errorf("categorical_logit of a latent GP is for observations of data in a model")
	}
	k := c.K()
	ys, ok := eval.ToFloats(x)
	if !ok || eval.IsAD(x) {
		return nil, fmt.Errorf("%s must be categories (whole numbers from 1 to %d), got %s", what, k, eval.Describe(x))
	}
	count := make([]float64, k)
	for i, y := range ys {
		if y != math.Trunc(y) || y < 1 || y > float64(k) {
			return nil, &SupportError{fmt.Sprintf("%s has element %d = %s, not a category from 1 to %d", what, i+1, eval.FormatNumber(y), k)}
		}
		count[int(y)-1]++
	}
	n := float64(len(ys))
	// A number for data log-odds; on the tape one replayable node that
	// recomputes the sum from the log-odds at each replay.
	params := make([]eval.Value, k)
	for j := range params {
		params[j] = eval.Elem(c.Beta, j)
	}
	return eval.FuncNode(params, func(b, d []float64) float64 {
		m := math.Inf(-1)
		for _, bj := range b {
			m = math.Max(m, bj)
		}
		z := 0.0
		for _, bj := range b {
			z += math.Exp(bj - m)
		}
		lse := m + math.Log(z)
		total := 0.0
		for _, y := range ys {
			total += b[int(y)-1]
		}
		total -= n * lse
		for j := range d {
			d[j] = count[j] - n*math.Exp(b[j]-lse)
		}
		return total
	}), nil
}
