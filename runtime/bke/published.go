package bke

import (
	"fmt"
	"math"
)

// publishedJacobian returns the Jacobian term of the Published density,
//
//	Σ_i log(½ Σ_l ‖∇ₓ k(x_i, z_l)‖²),  ‖∇ₓ k(x, z)‖² = σ⁴ e² Σ_d (x_d − z_d)²/ℓ_d⁴,
//
// e = exp(−½ Σ_d (x_d − z_d)²/ℓ_d²), and, when dEll is not nil, its
// derivative with respect to each lengthscale in dEll (len(p.ell)); its
// derivative with respect to σ² is 2n/σ².
//
// Why this definition in D > 1. The authors' Stan program (Flaxman et al.
// 2016, appendix B) is written for D = 1: it forms J = K .* K .* xu_dist2 /
// ℓ⁴, the n×m matrix of squared derivatives (∂k(x_i, z_l)/∂x)², and adds
// log(.5 * sum(J[i])) per point. Written for D columns the same program
// has xu_dist2 the squared distances and, per dimension, the derivative
// −k (x_d − z_d)/ℓ_d², so J_il = ‖∇ₓ k(x_i, z_l)‖²: the squared volume
// det(J_l J_lᵀ) of the 1×D Jacobian of the map x ↦ k(x, z_l) (eq. 13's
// generalised determinant for one landmark). The program's sum over l is
// then tr(JᵀJ) of the full m×D Jacobian, where the derivation (Derived)
// takes ½ log det(JᵀJ); the two agree in form only for D = 1, where JᵀJ is
// 1×1, and both keep the program's other two departures (the factor ½
// inside the log and log in place of ½ log). The eigenvalue ordering that
// drops the mean-embedding term does not depend on D and stays. Taking
// log(½ det JᵀJ) instead would also reduce to the program at D = 1, but it
// is not what the program computes in D > 1 (the sum over landmarks of the
// per-landmark terms is); this is not a change of variables of x and not
// a normalised density in either case, only the program's objective.
//
// The sum over l is taken relative to its largest-weight landmark among
// those not at x_i (weights e² relative to the largest), so nothing
// underflows far from the landmarks; a point that coincides with every
// landmark of non-negligible weight has a zero term and is reported by
// row.
func (md *Model) publishedJacobian(p *params, dEll []float64) (float64, error) {
	n, m, dim := md.n, md.m, md.dim
	np := len(p.ell)
	for k := range dEll {
		dEll[k] = 0
	}
	q := make([]float64, m)
	s := make([]float64, m)
	dq := make([]float64, dim) // per dimension, Σ_l w_l v_ld² (s_l·2/ℓ_d³ − 4/ℓ_d⁵)
	inv4 := make([]float64, dim)
	for d := 0; d < dim; d++ {
		inv4[d] = p.inv2[d] * p.inv2[d]
	}
	var total float64
	for i := 0; i < n; i++ {
		x := md.xrow(i)
		qmin := math.Inf(1)
		for l := 0; l < m; l++ {
			z := md.zrow(l)
			var ql, sl float64
			for d := 0; d < dim; d++ {
				v := x[d] - z[d]
				ql += v * v * p.inv2[d]
				sl += v * v * inv4[d]
			}
			q[l], s[l] = ql, sl
			if sl > 0 && ql < qmin {
				qmin = ql
			}
		}
		var sum float64
		for d := range dq {
			dq[d] = 0
		}
		for l := 0; l < m; l++ {
			if s[l] == 0 {
				continue
			}
			w := math.Exp(qmin - q[l])
			sum += w * s[l]
			if dEll != nil {
				z := md.zrow(l)
				for d := 0; d < dim; d++ {
					v := x[d] - z[d]
					ld := p.lengthscale(d)
					// ∂(e² s)/∂ℓ_d = e² (s·2v²/ℓ³ − 4v²/ℓ⁵).
					dq[d] += w * v * v * (s[l]*2*p.inv2[d]/ld - 4*inv4[d]/ld)
				}
			}
		}
		if !(sum > 0) || math.IsInf(qmin, 1) {
			return 0, fmt.Errorf("bke: data row %d coincides with every landmark near it: the published density's Jacobian term log(½ Σ_l |∇k(x, z_l)|²) is −∞ there", i+1)
		}
		total += math.Log(0.5*sum) - qmin
		if dEll != nil {
			for d := 0; d < dim; d++ {
				k := d
				if np == 1 {
					k = 0
				}
				dEll[k] += dq[d] / sum
			}
		}
	}
	return total + 2*float64(n)*math.Log(p.amp), nil
}
