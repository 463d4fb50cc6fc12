package gp

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// The reference every approximation's tests compare with: the true log
// marginal likelihood of a latent GP at n = 2 or 3 by quadrature.

// quadNodes is the number of trapezoid nodes per axis the reference takes:
// 601 at n = 2, 81 at n = 3.
func quadNodes(n int) int {
	if n == 3 {
		return 81
	}
	return 601
}

// quadLogZ is log P(y) = log ∫ N(u | 0, K) Π P(y_i | u_i) du for kernel k at
// the rows of x (n = 2 or 3) by denseLogZ.
func quadLogZ(k kernels.Kernel, x *mat.Dense, y []float64, l Lik) float64 {
	n, _ := x.Dims()
	dummy := make([]float64, 3)
	return denseLogZ(k, x, func(i int, u float64) float64 { return l.logProb(dummy, y[i], u) }, quadNodes(n))
}

// denseLogZ is log ∫ N(u | 0, K) Π exp(term(i, u_i)) du by the trapezoid
// rule in whitened coordinates u = Lv on [−8, 8]^n with m points per axis.
func denseLogZ(k kernels.Kernel, x *mat.Dense, term func(i int, u float64) float64, m int) float64 {
	logZ, _, _ := denseMoments(k, x, term, m)
	return logZ
}

// quadPosterior is log P(y) and the posterior means and variances of the
// latent u_i by denseMoments.
func quadPosterior(k kernels.Kernel, x *mat.Dense, y []float64, l Lik) (logZ float64, mean, vr []float64) {
	n, _ := x.Dims()
	dummy := make([]float64, 3)
	return denseMoments(k, x, func(i int, u float64) float64 { return l.logProb(dummy, y[i], u) }, quadNodes(n))
}

// denseMoments is denseLogZ with the mean and variance of each u_i under
// the normalised integrand.
func denseMoments(k kernels.Kernel, x *mat.Dense, term func(i int, u float64) float64, m int) (logZ float64, mean, vr []float64) {
	n, _ := x.Dims()
	K, _ := kernels.Gram(k, x)
	var ch mat.Cholesky
	ch.Factorize(K)
	var L mat.TriDense
	ch.LTo(&L)
	h := 16.0 / float64(m-1)
	idx := make([]int, n)
	v := make([]float64, n)
	u := make([]float64, n)
	s1, s2 := make([]float64, n), make([]float64, n)
	var sum float64
	for {
		w := 1.0
		for i := range idx {
			v[i] = -8 + h*float64(idx[i])
			w *= math.Exp(-0.5*v[i]*v[i]) / math.Sqrt(2*math.Pi) * h
			if idx[i] == 0 || idx[i] == m-1 {
				w *= 0.5
			}
		}
		lp := 0.0
		for i := 0; i < n; i++ {
			u[i] = 0
			for j := 0; j <= i; j++ {
				u[i] += L.At(i, j) * v[j]
			}
			lp += term(i, u[i])
		}
		e := w * math.Exp(lp)
		sum += e
		for i := range u {
			s1[i] += e * u[i]
			s2[i] += e * u[i] * u[i]
		}
		i := 0
		for ; i < n; i++ {
			idx[i]++
			if idx[i] < m {
				break
			}
			idx[i] = 0
		}
		if i == n {
			break
		}
	}
	mean, vr = make([]float64, n), make([]float64, n)
	for i := range mean {
		mean[i] = s1[i] / sum
		vr[i] = s2[i]/sum - mean[i]*mean[i]
	}
	return math.Log(sum), mean, vr
}
