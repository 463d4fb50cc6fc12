package bke

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

// Degeneracy names the pathology Degenerate found.
type Degeneracy int

const (
	// NotDegenerate: the pseudolikelihood is informative at h.
	NotDegenerate Degeneracy = iota
	// Underflow: every k(x_i, z_j) underflows to 0, so the embedding is
	// identically zero (a lengthscale far below the data's spacing).
	Underflow
	// ConstantEmbedding: the embedding is constant to about five
	// significant digits (a lengthscale far above the data's spread).
	ConstantEmbedding
	// NoiseBelowRounding: τ² is below the rounding error of the kernel
	// values.
	NoiseBelowRounding
)

// Finding is what Degenerate found, with the values that show it; the
// caller words it for its user.
type Finding struct {
	Kind Degeneracy
	// Ell are the lengthscales, Amp the kernel's amplitude σ² (every
	// k(x_i, z_j) ≈ Amp for a constant embedding), Tau2 the noise and MeanK2
	// the mean k(x_i, z_j)² at the point examined.
	Ell       []float64
	Amp, Tau2 float64
	MeanK2    float64
}

// Degenerate reports whether the model is at hyperparameters where the
// empirical embedding is numerically constant, the known pathology of the
// pseudolikelihood with ℓ and τ² both free (MATH.md, known pitfalls): as
// ℓ → ∞ every k(x_i, z_j) tends to σ², the centred sum of squares falls like
// ℓ⁻⁴, the best τ² follows it and −½ m(n−1) log τ² outgrows the Jacobian's
// −2nD log ℓ, so the density rises without bound. With K = [k(x_i, z_j)]
// and μ̂ its column means, it finds
//
//   - Underflow when every k(x_i, z_j) underflows to 0;
//   - ConstantEmbedding when Σ_ij (K_ij − μ̂_j)² ≤ 1e-10 ‖K‖_F²;
//   - NoiseBelowRounding when τ² ≤ 2⁻⁵² ‖K‖_F²/(nm).
//
// h.Tau2 is only used by the last test.
func (md *Model) Degenerate(h Hyper) Finding {
	p, err := md.prepare(h, false)
	if err != nil {
		return Finding{}
	}
	res, err := md.run(p, false, false)
	if err != nil {
		return Finding{}
	}
	n, m := float64(md.n), float64(md.m)
	var mu2 float64
	for _, v := range res.mu {
		mu2 += v * v
	}
	kf2 := res.css + n*mu2 // ‖K‖_F² at amplitude 1
	f := Finding{Ell: append([]float64(nil), p.ell...), Amp: p.amp, Tau2: h.Tau2, MeanK2: p.amp * p.amp * kf2 / (n * m)}
	switch {
	case kf2 == 0:
		f.Kind = Underflow
	case res.css <= constantEmbedding*kf2:
		f.Kind = ConstantEmbedding
	case h.Tau2 > 0 && h.Tau2 <= tau2Floor*p.amp*p.amp*kf2/(n*m):
		f.Kind = NoiseBelowRounding
	}
	return f
}
