package gp

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Predict is the latent predictive of the C GPs at test points whose
// cross-covariances with the training inputs are the rows of ks (m × n)
// and whose prior variances are kss (Algorithm 3.4): for test point j the
// mean μⱼᶜ = k*ᵀâᶜ and the C × C covariance
//
//	Σⱼ[c][c'] = δ_cc'(k** − k*ᵀEᶜk*) + k*ᵀEᶜM⁻¹Eᶜ'k*,
//
// returned as mean[j][c] and cov[j][c*C+c'].
func (p *MultiPosterior) Predict(ks *mat.Dense, kss []float64) (mean [][]float64, cov [][]float64) {
	m, _ := ks.Dims()
	C := p.C
	mean = make([][]float64, m)
	cov = make([][]float64, m)
	for j := range m {
		mean[j] = make([]float64, C)
		cov[j] = make([]float64, C*C)
	}
	V := make([]*mat.Dense, C)
	var EK mat.Dense
	for c := range C {
		mv := mat.NewVecDense(m, nil)
		mv.MulVec(ks, mat.NewVecDense(p.N, p.Alpha[c]))
		EK.Mul(p.E[c], ks.T()) // n × m
		for j := range m {
			mean[j][c] = mv.AtVec(j)
			cov[j][c*C+c] = kss[j] - mat.Dot(ks.RowView(j), EK.ColView(j))
		}
		V[c] = mat.NewDense(p.N, m, nil)
		V[c].Mul(p.Z[c], ks.T())
	}
	for j := range m {
		for c := range C {
			for e := c; e < C; e++ {
				v := mat.Dot(V[c].ColView(j), V[e].ColView(j))
				cov[j][c*C+e] += v
				if e != c {
					cov[j][e*C+c] += v
				}
			}
		}
	}
	return mean, cov
}

// SoftmaxAverage is the predictive class probabilities E[softmax(f)] for
// f ~ N(mean, cov) (C × C, row-major), by Monte Carlo with draws draws in
// antithetic pairs (f = μ ± Lz, L the Cholesky factor of cov with a jitter
// of 1e-10·max diag if cov is singular) from r. Each draw's probabilities sum to 1, so their average does
// (to rounding).
func SoftmaxAverage(mean, cov []float64, draws int, r *rand.Rand) []float64 {
	C := len(mean)
	out := make([]float64, C)
	S := mat.NewSymDense(C, append([]float64(nil), cov...))
	var ch mat.Cholesky
	jit := 0.0
	for d := range C {
		jit = math.Max(jit, S.At(d, d))
	}
	jit = math.Max(jit, 1) * 1e-10
	for !ch.Factorize(S) {
		for d := range C {
			S.SetSym(d, d, S.At(d, d)+jit)
		}
		jit *= 10
	}
	var L mat.TriDense
	ch.LTo(&L)
	z := make([]float64, C)
	f := make([]float64, C)
	pr := make([]float64, C)
	pairs := max(draws/2, 1)
	for range pairs {
		for c := range z {
			z[c] = r.NormFloat64()
		}
		for sign := -1.0; sign <= 1; sign += 2 {
			for c := range f {
				v := 0.0
				for e := 0; e <= c; e++ {
					v += L.At(c, e) * z[e]
				}
				f[c] = mean[c] + sign*v
			}
			softmax(pr, f)
			for c := range out {
				out[c] += pr[c]
			}
		}
	}
	for c := range out {
		out[c] /= float64(2 * pairs)
	}
	return out
}

// softmax writes softmax(f) to dst.
func softmax(dst, f []float64) {
	m := math.Inf(-1)
	for _, v := range f {
		m = math.Max(m, v)
	}
	z := 0.0
	for c, v := range f {
		dst[c] = math.Exp(v - m)
		z += dst[c]
	}
	for c := range dst {
		dst[c] /= z
	}
}
