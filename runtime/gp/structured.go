package gp

import (
	"math"
	"runtime"

	"github.com/kml-lang/kml/runtime/internal/fastexp"
	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/kernels"
)

// The marginal likelihood's kernels are mostly sums of scaled RBF, linear,
// white and constant kernels. For those, fillSym and contractSym below
// replace kernels.Gram and Contract: one pass per pair for every term,
// without the per-pair interface calls, per-term n×n temporaries and
// recomputed scale products of the generic paths, which cost more than the
// Cholesky factor at n = 442.

type termKind int

const (
	termRBF termKind = iota
	termLinear
	termWhite
	termConst
)

// term is c·b for a base kernel b of the sum.
type term struct {
	kind termKind
	c    float64
	ci   int // the index of c in the hyperparameters, −1 when unscaled
	hi   int // the index of b's first hyperparameter
	// RBF: 1/ℓ² per input dimension (ARD) or one (isotropic).
	inv2 []float64
	// Linear: the offset of xᵀy + lc.
	lc float64
	// cache, when not nil, holds b at every pair i ≤ j (row-major, stride
	// n): fillSym writes it and contractSym reads it rather than
	// recomputing the distance and the exponential.
	cache []float64
}

// structured splits k into terms, or reports false when k is not a sum of
// (singly scaled) RBF, linear, white and constant kernels on d inputs.
func structured(k kernels.Kernel, d int) ([]term, bool) {
	var out []term
	var walk func(k kernels.Kernel, off int, c float64, ci int) bool
	walk = func(k kernels.Kernel, off int, c float64, ci int) bool {
		t := term{c: c, ci: ci, hi: off}
		switch k := k.(type) {
		case *kernels.Sum:
			return walk(k.A, off, c, ci) && walk(k.B, off+k.A.NumHyper(), c, ci)
		case *kernels.Scaled:
			if ci >= 0 {
				return false
			}
			return walk(k.K, off+1, k.C, off)
		case *kernels.Stationary:
			if !k.IsRBF() || k.NumHyper() != len(k.Ell) || len(k.Ell) != 1 && len(k.Ell) != d {
				return false
			}
			t.kind = termRBF
			for _, l := range k.Ell {
				t.inv2 = append(t.inv2, 1/(l*l))
			}
		case *kernels.Linear:
			t.kind, t.lc = termLinear, k.C
		case kernels.White, *kernels.White:
			t.kind = termWhite
		case kernels.Constant, *kernels.Constant:
			t.kind = termConst
		default:
			return false
		}
		out = append(out, t)
		return true
	}
	if !walk(k, 0, 1, -1) {
		return nil, false
	}
	return out, true
}

// sqDist is Σ_d (x_d − y_d)² w_d, with one weight for every d when w has
// length 1.
func sqDist(x, y, w []float64) float64 {
	var u float64
	if len(w) == 1 {
		for d, v := range x {
			t := v - y[d]
			u += t * t
		}
		return u * w[0]
	}
	for d, v := range x {
		t := v - y[d]
		u += t * t * w[d]
	}
	return u
}

func dotRow(x, y []float64) float64 {
	var s float64
	for d, v := range x {
		s += v * y[d]
	}
	return s
}

// value is the base kernel b(x_i, x_j) of t (diag: i = j).
func (t *term) value(xi, xj []float64, diag bool) float64 {
	switch t.kind {
	case termRBF:
		if diag {
			return 1
		}
		return fastexp.ExpNegOrZero(-0.5 * sqDist(xi, xj, t.inv2))
	case termLinear:
		return dotRow(xi, xj) + t.lc
	case termWhite:
		if diag {
			return 1
		}
		return 0
	}
	return 1
}

// fillSym writes the upper triangle of K + diag(noise) (row-major, stride
// n) for the terms on the rows of xs (n×d row-major).
func fillSym(dst []float64, terms []term, xs []float64, n, d int, noise []float64) {
	// Blocks of 16 rows of the triangle, handed out in order.
	par.Blocks(n, 16, runtime.GOMAXPROCS(0), func(_, i0, i1 int) {
		for i := i0; i < i1; i++ {
			xi := xs[i*d : (i+1)*d]
			row := dst[i*n:]
			for j := i; j < n; j++ {
				xj := xs[j*d : (j+1)*d]
				var v float64
				for m := range terms {
					t := &terms[m]
					b := t.value(xi, xj, i == j)
					if t.cache != nil {
						t.cache[i*n+j] = b
					}
					v += t.c * b
				}
				row[j] = v
			}
			row[i] += noise[min(i, len(noise)-1)]
		}
	})
}

// contractSym is Contract for the terms: dst[h] = ½ Σᵢⱼ Wᵢⱼ ∂Kᵢⱼ/∂h from
// the upper triangle of w (row-major, stride n), with a sum that does not
// depend on the schedule.
func contractSym(dst []float64, terms []term, xs []float64, n, d int, w []float64) {
	clear(dst)
	par.Sums(dst, n, 16, runtime.GOMAXPROCS(0), nil, func(_ struct{}, i int, acc []float64) {
		xi := xs[i*d : (i+1)*d]
		row := w[i*n:]
		for j := i; j < n; j++ {
			xj := xs[j*d : (j+1)*d]
			wij := row[j]
			if i == j {
				wij *= 0.5 // the diagonal counts once, each pair i < j twice
			}
			for m := range terms {
				contractTerm(acc, &terms[m], xi, xj, i == j, wij, i*n+j)
			}
		}
	})
	// The lengthscale sums above are Σ wᵢⱼ c b Δ²/ℓ²; ∂/∂ℓ multiplies by
	// 1/ℓ (∂b/∂ℓ_d = b Δ_d²/ℓ_d³).
	for m := range terms {
		t := &terms[m]
		if t.kind == termRBF {
			for q, v := range t.inv2 {
				dst[t.hi+q] *= sqrtInv(v)
			}
		}
	}
}

// sqrtInv is 1/ℓ from 1/ℓ².
func sqrtInv(inv2 float64) float64 { return math.Sqrt(inv2) }

// contractTerm adds one pair's wᵢⱼ ∂(c b)/∂h for the term t to acc; ij
// is the pair's place in t.cache.
func contractTerm(acc []float64, t *term, xi, xj []float64, diag bool, wij float64, ij int) {
	switch t.kind {
	case termRBF:
		if diag {
			if t.ci >= 0 {
				acc[t.ci] += wij
			}
			return
		}
		var b float64
		if t.cache != nil {
			b = t.cache[ij]
		} else {
			b = fastexp.ExpNegOrZero(-0.5 * sqDist(xi, xj, t.inv2))
		}
		if t.ci >= 0 {
			acc[t.ci] += wij * b
		}
		s := wij * t.c * b
		if len(t.inv2) == 1 {
			acc[t.hi] += s * sqDist(xi, xj, t.inv2)
			return
		}
		g := acc[t.hi : t.hi+len(t.inv2)]
		for q, v := range xi {
			r := v - xj[q]
			g[q] += s * r * r * t.inv2[q]
		}
	case termLinear:
		if t.ci >= 0 {
			acc[t.ci] += wij * (dotRow(xi, xj) + t.lc)
		}
		acc[t.hi] += wij * t.c
	case termWhite:
		if diag && t.ci >= 0 {
			acc[t.ci] += wij
		}
	case termConst:
		if t.ci >= 0 {
			acc[t.ci] += wij
		}
	}
}
