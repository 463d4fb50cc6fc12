package kernels

import (
	"fmt"
	"math"
)

// SpectralDensity returns the spectral density S(ω) of a stationary kernel
// at the frequency ω ∈ R^D (D = len(w)), in the convention
// k(τ) = (2π)^(−D) ∫ S(ω) e^{iωᵀτ} dω, and, when grad is not nil (length
// k.NumHyper()), writes ∂S/∂h for each hyperparameter h in the kernel's
// order. It is what the Hilbert-space approximation (hilbert.go) weights
// its basis by.
//
// With u = Σ_d ℓ_d²ω_d² (ℓ_d = ℓ for an isotropic kernel) and P = Π_d ℓ_d,
// the closed forms (Rasmussen and Williams 2006, eqs. 4.15 and 4.20;
// Riutort-Mayol et al. 2023, eqs. 1–2) are
//
//	rbf:        S = P (2π)^(D/2) exp(−u/2)
//	matern(ν):  S = P 2^D π^(D/2) Γ(ν + D/2) (2ν)^ν / Γ(ν) · (2ν + u)^(−(ν + D/2))
//
// for ν = 1/2 (laplacian, matern12), 3/2 and 5/2. A scaled kernel c·k has
// c·S_k, and a sum the sum of its parts' densities. Other kernels are
// refused by CheckSpectral's error (the periodic kernel, whose spectrum is
// point masses, has its own features in HSFeatures).
func SpectralDensity(k Kernel, w, grad []float64) (float64, error) {
	switch k := k.(type) {
	case *Scaled:
		var g []float64
		if grad != nil {
			g = grad[1:]
		}
		s, err := SpectralDensity(k.K, w, g)
		if err != nil {
			return 0, err
		}
		if grad != nil {
			for i := range g {
				g[i] *= k.C
			}
			grad[0] = s
		}
		return k.C * s, nil
	case *Sum:
		var ga, gb []float64
		if grad != nil {
			na := k.A.NumHyper()
			ga, gb = grad[:na], grad[na:]
		}
		sa, err := SpectralDensity(k.A, w, ga)
		if err != nil {
			return 0, err
		}
		sb, err := SpectralDensity(k.B, w, gb)
		if err != nil {
			return 0, err
		}
		return sa + sb, nil
	case *Stationary:
		return k.spectral(w, grad)
	}
	return 0, CheckSpectral(k, len(w))
}

// CheckSpectral returns nil when SpectralDensity can evaluate k's spectral
// density on D-dimensional inputs, and otherwise an error saying why not.
func CheckSpectral(k Kernel, dim int) error {
	switch k := k.(type) {
	case *Scaled:
		return CheckSpectral(k.K, dim)
	case *Sum:
		if err := CheckSpectral(k.A, dim); err != nil {
			return err
		}
		return CheckSpectral(k.B, dim)
	case *Stationary:
		if k.kind == profRQ {
			return fmt.Errorf("%s: the rational quadratic kernel's spectral density involves the modified Bessel function of the second kind K_ν, which KML does not evaluate; use rbf or a matern kernel", k)
		}
		if d := k.Dim(); d != 0 && d != dim {
			return fmt.Errorf("%s has %d lengthscales but the inputs have %d columns", k, d, dim)
		}
		return nil
	case *Periodic:
		return fmt.Errorf("%s: the periodic kernel has no spectral density (its spectrum is point masses at multiples of 2π/period); hsgp approximates it by its cosine series instead (Riutort-Mayol et al. 2023, §5)", k)
	case *Product:
		return fmt.Errorf("%s: a product of kernels has the convolution of their spectral densities, which KML does not compute; use a single rbf or matern kernel, scaled, or a sum of them", k)
	}
	return fmt.Errorf("%s has no spectral density: only stationary kernels do (rbf, laplacian, matern12, matern32, matern52, their scaled versions and sums; hsgp also takes periodic on one input column)", k)
}

// spectral is SpectralDensity for a Stationary kernel. Its gradient is
// computed through log S: ∂log S/∂ℓ_d = (1 + 2u_d·(log g)′(u))/ℓ_d with
// u_d = ℓ_d²ω_d² and g the factor in u, summed over d for one isotropic ℓ.
func (k *Stationary) spectral(w, grad []float64) (float64, error) {
	dim := len(w)
	if err := CheckSpectral(k, dim); err != nil {
		return 0, err
	}
	D := float64(dim)
	u, logP := 0.0, 0.0
	ell := func(d int) float64 {
		if len(k.Ell) == 1 {
			return k.Ell[0]
		}
		return k.Ell[d]
	}
	for d, wd := range w {
		l := ell(d)
		u += l * l * wd * wd
		logP += math.Log(l)
	}
	var logS, dlogg float64 // log S and (log g)′(u)
	if k.kind == profRBF {
		logS = logP + D/2*math.Log(2*math.Pi) - u/2
		dlogg = -0.5
	} else {
		nu := map[profile]float64{profMatern12: 0.5, profMatern32: 1.5, profMatern52: 2.5}[k.kind]
		lgA, _ := math.Lgamma(nu + D/2)
		lgB, _ := math.Lgamma(nu)
		logS = logP + D*math.Ln2 + D/2*math.Log(math.Pi) + lgA - lgB + nu*math.Log(2*nu) - (nu+D/2)*math.Log(2*nu+u)
		dlogg = -(nu + D/2) / (2*nu + u)
	}
	s := math.Exp(logS)
	if grad != nil {
		if len(k.Ell) == 1 {
			grad[0] = s * (D + 2*u*dlogg) / k.Ell[0]
		} else {
			for d, wd := range w {
				l := k.Ell[d]
				grad[d] = s * (1 + 2*l*l*wd*wd*dlogg) / l
			}
		}
	}
	return s, nil
}

// spectral1D is spectral at the one-dimensional frequency w, with also
// ∂S/∂ω = S·(log g)′(u)·2ℓ²ω (u = ℓ²ω²), which the product of a periodic
// and a stationary kernel needs for the period's derivative.
func (k *Stationary) spectral1D(w float64, grad []float64) (s, dw float64, err error) {
	s, err = k.spectral([]float64{w}, grad)
	if err != nil {
		return 0, 0, err
	}
	l := k.Ell[0]
	u := l * l * w * w
	dlogg := -0.5
	if k.kind != profRBF {
		nu := map[profile]float64{profMatern12: 0.5, profMatern32: 1.5, profMatern52: 2.5}[k.kind]
		dlogg = -(nu + 0.5) / (2*nu + u)
	}
	return s, s * dlogg * 2 * l * l * w, nil
}
