package bke

import (
	"fmt"
	"strconv"
	"strings"
)

// Degeneracy thresholds of Degenerate.
const (
	// constantEmbedding bounds the centred sum of squares relative to
	// ‖K‖_F²: below it the kernel values agree to about five significant
	// digits across the data.
	constantEmbedding = 1e-10
	// tau2Floor bounds τ² relative to the mean squared kernel value: below
	// it the noise is smaller than the rounding error of K.
	tau2Floor = 0x1p-52
)

// Degenerate reports whether the model is at hyperparameters where the
// empirical embedding is numerically constant, the known pathology of the
// pseudolikelihood with ℓ and τ² both free (MATH.md, known pitfalls): as
// ℓ → ∞ every k(x_i, z_j) tends to σ², the centred sum of squares falls like
// ℓ⁻⁴, the best τ² follows it and −½ m(n−1) log τ² outgrows the Jacobian's
// −2nD log ℓ, so the density rises without bound. With K = [k(x_i, z_j)]
// and μ̂ its column means, it fires when
//
//   - every k(x_i, z_j) underflows to 0 (a lengthscale far below the
//     spacing of the data: the embedding is identically zero), or
//   - Σ_ij (K_ij − μ̂_j)² ≤ 1e-10 ‖K‖_F² (the embedding is constant to about
//     five significant digits), or
//   - τ² ≤ 2⁻⁵² ‖K‖_F²/(nm) (the noise is below the rounding error of the
//     kernel values).
//
// The string says which, with the values and what to do, in words a user of
// KML understands; it is empty when Degenerate returns false. h.Tau2 is only
// used by the last test.
func (md *Model) Degenerate(h Hyper) (bool, string) {
	p, err := md.prepare(h, false)
	if err != nil {
		return false, ""
	}
	res, err := md.run(p, false, false)
	if err != nil {
		return false, ""
	}
	n, m := float64(md.n), float64(md.m)
	var mu2 float64
	for _, v := range res.mu {
		mu2 += v * v
	}
	kf2 := res.css + n*mu2 // ‖K‖_F² at amplitude 1
	ells := "lengthscale " + shortFloats(p.ell) + " is"
	if len(p.ell) > 1 {
		ells = "lengthscales " + shortFloats(p.ell) + " are"
	}
	switch {
	case kf2 == 0:
		return true, fmt.Sprintf("%s so small that every k(x_i, z_j) underflows to 0: the embedding is identically zero and the pseudolikelihood says nothing about the data; put a prior on ell that excludes this region", ells)
	case res.css <= constantEmbedding*kf2:
		return true, fmt.Sprintf("%s so large that every k(x_i, z_j) ≈ %s: the embedding is constant and the pseudolikelihood degenerate; fix tau2 (e.g. noise: 1) or put a prior on ell that excludes this region", ells, shortFloat(p.amp))
	case h.Tau2 > 0 && h.Tau2 <= tau2Floor*p.amp*p.amp*kf2/(n*m):
		return true, fmt.Sprintf("tau2 = %s is below the rounding error of the kernel values (mean k(x_i, z_j)² = %s): the pseudolikelihood is degenerate there; fix tau2 (e.g. noise: 1) or put a prior on tau2 that excludes this region", shortFloat(h.Tau2), shortFloat(p.amp*p.amp*kf2/(n*m)))
	}
	return false, ""
}

// shortFloat formats v with two significant digits, exponents as in 3.2e3.
func shortFloat(v float64) string {
	s := strconv.FormatFloat(v, 'g', 2, 64)
	s = strings.Replace(s, "e+0", "e", 1)
	s = strings.Replace(s, "e+", "e", 1)
	return strings.Replace(s, "e-0", "e-", 1)
}

func shortFloats(v []float64) string {
	if len(v) == 1 {
		return shortFloat(v[0])
	}
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = shortFloat(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
