package kbrstudy

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// sqDist returns the squared Euclidean distances between the rows of a
// and those of b.
func sqDist(a, b *mat.Dense) *mat.Dense {
	na, d := a.Dims()
	nb, _ := b.Dims()
	out := mat.NewDense(na, nb, nil)
	for i := 0; i < na; i++ {
		ai := a.RawRowView(i)
		for j := 0; j < nb; j++ {
			bj := b.RawRowView(j)
			s := 0.0
			for k := 0; k < d; k++ {
				e := ai[k] - bj[k]
				s += e * e
			}
			out.Set(i, j, s)
		}
	}
	return out
}

// kdeIW is §5.1's baseline. The conditional density is estimated by
// kernel density estimation with Gaussian kernels of bandwidth h on both
// X and Y (h_X = h_Y = h, as the paper sets them),
//
//	p̂(y | x) = Σ_i K_h(x − X_i) K_h(y − Y_i) / Σ_i K_h(x − X_i),
//
// and the prior sample U_j is importance-weighted by it: ζ_j ∝ p̂(y | U_j),
// E[X | y] ≈ Σ_j ζ_j U_j. dux and dyy are the squared distances
// |U_j − X_i|² (ℓ×n) and |Y_i − y_k|² (n×m), so that several bandwidths
// share them.
//
// In 64 dimensions the kernel values underflow (|U − X|² is in the
// thousands), so everything is in logs: with a_ji = −|U_j − X_i|²/2h² and
// b_ik = −|Y_i − y_k|²/2h², log p̂(y_k | U_j) = LSE_i(a_ji + b_ik) −
// LSE_i(a_ji). The first term is a matrix product of exp(a − max_i a) and
// exp(b − max_i b), times the two maxima; where that product underflows
// (below 1e-280) the log-sum-exp is taken directly.
func kdeIW(dux, dyy *mat.Dense, u *mat.Dense, h float64) *mat.Dense {
	l, n := dux.Dims()
	_, m := dyy.Dims()
	c := -1 / (2 * h * h)
	a := mat.NewDense(l, n, nil)
	amax := make([]float64, l)
	den := make([]float64, l)
	for j := 0; j < l; j++ {
		row := make([]float64, n)
		mx := math.Inf(-1)
		for i := 0; i < n; i++ {
			row[i] = c * dux.At(j, i)
			mx = math.Max(mx, row[i])
		}
		amax[j] = mx
		den[j] = logSumExp(row)
		for i := 0; i < n; i++ {
			a.Set(j, i, math.Exp(row[i]-mx))
		}
	}
	b := mat.NewDense(n, m, nil)
	bmax := make([]float64, m)
	for k := 0; k < m; k++ {
		mx := math.Inf(-1)
		for i := 0; i < n; i++ {
			mx = math.Max(mx, c*dyy.At(i, k))
		}
		bmax[k] = mx
		for i := 0; i < n; i++ {
			b.Set(i, k, math.Exp(c*dyy.At(i, k)-mx))
		}
	}
	var prod mat.Dense
	prod.Mul(a, b)
	_, d := u.Dims()
	est := mat.NewDense(m, d, nil)
	logw := make([]float64, l)
	terms := make([]float64, n)
	for k := 0; k < m; k++ {
		for j := 0; j < l; j++ {
			if p := prod.At(j, k); p > 1e-280 {
				logw[j] = math.Log(p) + amax[j] - den[j]
			} else {
				for i := 0; i < n; i++ {
					terms[i] = c*dux.At(j, i) + c*dyy.At(i, k)
				}
				logw[j] = logSumExp(terms) - den[j]
			}
		}
		z := logSumExp(logw)
		for j := 0; j < l; j++ {
			w := math.Exp(logw[j] - z)
			for q := 0; q < d; q++ {
				est.Set(k, q, est.At(k, q)+w*u.At(j, q))
			}
		}
	}
	return est
}

// lscv returns the two terms of least-squares cross-validation (Rudemo
// 1982; Bowman 1984) for the Gaussian product-kernel density estimate of
// the rows of z (n × D) with bandwidth h, in logs:
//
//	LSCV(h) = ∫ f̂² − (2/n) Σ_i f̂_{−i}(z_i) = exp(l1) − exp(l2),
//	∫ f̂² = (1/n²) Σ_ij φ_{√2h}(z_i − z_j),
//	(2/n) Σ_i f̂_{−i}(z_i) = 2/(n(n−1)) Σ_{i≠j} φ_h(z_i − z_j),
//
// with φ_s the N(0, s²I_D) density. dzz holds the squared distances
// |z_i − z_j|². Logs keep the terms (about 10⁻²⁰⁰ in 128 dimensions)
// comparable across bandwidths.
func lscv(dzz *mat.Dense, dim int, h float64) (l1, l2 float64) {
	n, _ := dzz.Dims()
	logphi := func(r2, s float64) float64 {
		return -0.5*float64(dim)*math.Log(2*math.Pi*s*s) - r2/(2*s*s)
	}
	all := make([]float64, 0, n*n)
	off := make([]float64, 0, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			all = append(all, logphi(dzz.At(i, j), math.Sqrt2*h))
			if i != j {
				off = append(off, logphi(dzz.At(i, j), h))
			}
		}
	}
	nf := float64(n)
	return logSumExp(all) - 2*math.Log(nf), logSumExp(off) + math.Log(2/(nf*(nf-1)))
}

// lscvChoice returns the bandwidth of hs minimising LSCV on z.
func lscvChoice(z *mat.Dense, hs []float64) float64 {
	_, dim := z.Dims()
	dzz := sqDist(z, z)
	l1 := make([]float64, len(hs))
	l2 := make([]float64, len(hs))
	shift := math.Inf(-1)
	for i, h := range hs {
		l1[i], l2[i] = lscv(dzz, dim, h)
		shift = math.Max(shift, math.Max(l1[i], l2[i]))
	}
	best, arg := math.Inf(1), hs[0]
	for i, h := range hs {
		if v := math.Exp(l1[i]-shift) - math.Exp(l2[i]-shift); v < best {
			best, arg = v, h
		}
	}
	return arg
}
