package ktest

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// The power criteria of the "opt" kernel choice: a test's statistic on the
// training part divided by an estimate of its standard deviation under the
// alternative. For a test that rejects when n·U exceeds a null quantile
// c_α, P(reject) ≈ Φ(√n·U/σ_H1 − c_α/(√n·σ_H1)), and the first term
// dominates as n grows, so the kernel that maximises U/σ_H1 maximises the
// asymptotic power (Gretton et al. 2012b; Sutherland et al. 2017; Liu et
// al. 2020). λ keeps the ratio finite where the estimated variance
// vanishes.

// Criterion is a power criterion at one kernel: the statistic U, its
// estimated variance under the alternative σ̂² (of √n·U) and the ratio
// J = U/√(σ̂² + λ).
type Criterion struct {
	Stat, Var, J float64
}

// DefaultOptLambda is the regulariser λ of the power criterion: the value
// of Liu et al. (2020)'s code, small against the variances of kernels with
// values in [0, 1].
const DefaultOptLambda = 1e-8

// sqDists is the matrix of squared Euclidean distances between the rows of
// a and of b, row-major len(a)×len(b).
func sqDists(a, b *mat.Dense) []float64 {
	na, d := a.Dims()
	nb, _ := b.Dims()
	out := make([]float64, na*nb)
	for i := 0; i < na; i++ {
		ra := a.RawRowView(i)
		for j := 0; j < nb; j++ {
			rb := b.RawRowView(j)
			var s float64
			for c := 0; c < d; c++ {
				t := ra[c] - rb[c]
				s += t * t
			}
			out[i*nb+j] = s
		}
	}
	return out
}

// rbfInto sets k[i] = exp(−d2[i]/(2ℓ²)).
func rbfInto(k, d2 []float64, ell float64) {
	f := -0.5 / (ell * ell)
	for i, v := range d2 {
		k[i] = math.Exp(f * v)
	}
}

// mmdPaired holds the squared distances of n paired rows (x_i, y_i): the
// MMD criterion's data.
type mmdPaired struct {
	n             int
	dxx, dyy, dxy []float64
	kxx, kyy, kxy []float64
}

func newMMDPaired(x, y *mat.Dense) *mmdPaired {
	n := min(x.RawMatrix().Rows, y.RawMatrix().Rows)
	xs, ys := x.Slice(0, n, 0, x.RawMatrix().Cols).(*mat.Dense), y.Slice(0, n, 0, y.RawMatrix().Cols).(*mat.Dense)
	p := &mmdPaired{n: n, dxx: sqDists(xs, xs), dyy: sqDists(ys, ys), dxy: sqDists(xs, ys)}
	p.kxx, p.kyy, p.kxy = make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	return p
}

// at is the MMD criterion of Liu et al. (2020, eq. 4–5) for rbf(ℓ):
// with H_ij = k(x_i, x_j) + k(y_i, y_j) − k(x_i, y_j) − k(y_i, x_j),
// U = Σ_{i≠j} H_ij/(n(n − 1)) and σ̂² = 4/n³ Σ_i (Σ_j H_ij)² −
// 4/n⁴ (Σ_ij H_ij)².
func (p *mmdPaired) at(ell, lambda float64) Criterion {
	rbfInto(p.kxx, p.dxx, ell)
	rbfInto(p.kyy, p.dyy, ell)
	rbfInto(p.kxy, p.dxy, ell)
	n := p.n
	var off, all, rows2 float64
	for i := 0; i < n; i++ {
		var row float64
		for j := 0; j < n; j++ {
			h := p.kxx[i*n+j] + p.kyy[i*n+j] - p.kxy[i*n+j] - p.kxy[j*n+i]
			row += h
			if j != i {
				off += h
			}
		}
		all += row
		rows2 += row * row
	}
	fn := float64(n)
	u := off / (fn * (fn - 1))
	v := 4*rows2/(fn*fn*fn) - 4*all*all/(fn*fn*fn*fn)
	return Criterion{Stat: u, Var: v, J: u / math.Sqrt(math.Max(v, 0)+lambda)}
}

// MMDCriterion is the "opt" choice's power criterion of rbf(ell) on the
// first min(m, n) rows of x and of y, paired by index (Liu et al. 2020).
func MMDCriterion(x, y *mat.Dense, ell, lambda float64) (Criterion, error) {
	if min(x.RawMatrix().Rows, y.RawMatrix().Rows) < 2 {
		return Criterion{}, fmt.Errorf("the MMD power criterion needs at least 2 rows in each sample")
	}
	return newMMDPaired(x, y).at(ell, lambda), nil
}

// hsicCentred returns K̃: K with its diagonal set to 0 (Song et al. 2012's
// unbiased estimator works on the kernel matrices with zero diagonal), in
// place, and its row sums.
func zeroDiagRowSums(k []float64, n int) []float64 {
	u := make([]float64, n)
	for i := 0; i < n; i++ {
		k[i*n+i] = 0
		var s float64
		for _, v := range k[i*n : (i+1)*n] {
			s += v
		}
		u[i] = s
	}
	return u
}

// hsicU is Song et al. (2012)'s unbiased HSIC from its sums: n rows,
// t = tr(K̃L̃), sk = 1ᵀK̃1, sl = 1ᵀL̃1, p = 1ᵀK̃L̃1.
func hsicU(n, t, sk, sl, p float64) float64 {
	return (t + sk*sl/((n-1)*(n-2)) - 2*p/(n-2)) / (n * (n - 3))
}

// hsicCriterion is the HSIC power criterion from the zero-diagonal Gram
// matrices k and l (n×n, row-major): U = HSIC_u (Song et al. 2012) and
// σ̂² = 16(R − U²), R = (1/n) Σ_i h̄_i², where h̄_i is the mean of the
// order-4 kernel h over the (n − 1)(n − 2)(n − 3) ordered triples of other
// rows (Song et al. 2012, Theorem 5). h̄_i is computed exactly in O(n²)
// from the leave-one-out statistic: the ordered 4-tuples that contain i sum
// to n_(4)·U − (n − 1)_(4)·U₋ᵢ and to 4·(n − 1)_(3)·h̄_i, so
// h̄_i = (n·U − (n − 4)·U₋ᵢ)/4.
func hsicCriterion(k, l []float64, n int, lambda float64) Criterion {
	u := zeroDiagRowSums(k, n)
	v := zeroDiagRowSums(l, n)
	var t, sk, sl, p float64
	w := make([]float64, n)  // (K̃∘L̃)1
	kv := make([]float64, n) // K̃v
	lu := make([]float64, n) // L̃u
	for i := 0; i < n; i++ {
		kr, lr := k[i*n:(i+1)*n], l[i*n:(i+1)*n]
		var wi, kvi, lui float64
		for j := range kr {
			wi += kr[j] * lr[j]
			kvi += kr[j] * v[j]
			lui += lr[j] * u[j]
		}
		w[i], kv[i], lu[i] = wi, kvi, lui
		t += wi
		sk += u[i]
		sl += v[i]
		p += u[i] * v[i]
	}
	fn := float64(n)
	hs := hsicU(fn, t, sk, sl, p)
	var r float64
	for i := 0; i < n; i++ {
		// The sums without row and column i.
		ti := t - 2*w[i]
		ski := sk - 2*u[i]
		sli := sl - 2*v[i]
		pi := p - (kv[i] + lu[i] + u[i]*v[i] - w[i])
		loo := hsicU(fn-1, ti, ski, sli, pi)
		h := (fn*hs - (fn-4)*loo) / 4
		r += h * h
	}
	r /= fn
	va := 16 * (r - hs*hs)
	return Criterion{Stat: hs, Var: va, J: hs / math.Sqrt(math.Max(va, 0)+lambda)}
}

// HSICCriterion is the "opt" choice's power criterion of rbf(ellX) on x
// and rbf(ellY) on y (paired rows, at least 5).
func HSICCriterion(x, y *mat.Dense, ellX, ellY, lambda float64) (Criterion, error) {
	n, _ := x.Dims()
	if ny, _ := y.Dims(); ny != n {
		return Criterion{}, fmt.Errorf("HSIC needs paired samples: %d and %d rows", n, ny)
	}
	if n < 5 {
		return Criterion{}, fmt.Errorf("the HSIC power criterion needs at least 5 pairs, got %d", n)
	}
	k, l := sqDists(x, x), sqDists(y, y)
	rbfInto(k, k, ellX)
	rbfInto(l, l, ellY)
	return hsicCriterion(k, l, n, lambda), nil
}
