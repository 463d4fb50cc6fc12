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
	// recomputing the distance and the exponential (RBF) or the dot
	// product (linear).
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

// fillSym writes the upper triangle of K + diag(noise) (row-major, stride
// n) for the terms on the rows of xs (n×d row-major), a row at a time and
// a term at a time: each RBF term's exponents for the whole row, then one
// vectorised fastexp.Exps over them (the pair-at-a-time exponential was a
// third of the fill at n = 442, D = 10). Each entry is the same sum
// Σ_m c_m b_m, in term order, as one pass per pair would form.
func fillSym(dst []float64, terms []term, xs []float64, n, d int, noise []float64) {
	// Blocks of 16 rows of the triangle, handed out in order; a row buffer
	// per worker for the exponentials of RBF terms without a cache.
	newBuf := func() []float64 { return make([]float64, n) }
	par.Each(n, 16, runtime.GOMAXPROCS(0), newBuf, func(buf []float64, _, i0, i1 int) {
		for i := i0; i < i1; i++ {
			row := dst[i*n+i : (i+1)*n] // the pairs (i, j ≥ i)
			clear(row)
			for m := range terms {
				fillTermRow(row, &terms[m], xs, i, n, d, buf)
			}
			row[0] += noise[min(i, len(noise)-1)]
		}
	})
}

// fillTermRow adds c·b(x_i, x_j) of the term t to row[j − i] for j ≥ i,
// and keeps b in t.cache when it has one.
func fillTermRow(row []float64, t *term, xs []float64, i, n, d int, buf []float64) {
	xi := xs[i*d : (i+1)*d]
	c := t.c
	switch t.kind {
	case termRBF:
		b := buf[:len(row)]
		if t.cache != nil {
			b = t.cache[i*n+i : (i+1)*n]
		}
		b[0] = 1
		for k := 1; k < len(b); k++ {
			j := i + k
			b[k] = -0.5 * sqDist(xi, xs[j*d:(j+1)*d], t.inv2)
		}
		// The exponents are formed as the pair-at-a-time exp(−½q) formed
		// them; Exps(·, 1, 0) takes them as they are (0 below −708).
		fastexp.Exps(b[1:], b[1:], 1, 0)
		for k, v := range b {
			row[k] += c * v
		}
	case termLinear:
		if t.cache != nil {
			b := t.cache[i*n+i : (i+1)*n]
			for k := range b {
				j := i + k
				b[k] = dotRow(xi, xs[j*d:(j+1)*d]) + t.lc
				row[k] += c * b[k]
			}
			return
		}
		for k := range row {
			j := i + k
			row[k] += c * (dotRow(xi, xs[j*d:(j+1)*d]) + t.lc)
		}
	case termWhite:
		row[0] += c
	case termConst:
		for k := range row {
			row[k] += c
		}
	}
}

// contractSym is Contract for the terms: dst[h] = ½ Σᵢⱼ Wᵢⱼ ∂Kᵢⱼ/∂h from
// the upper triangle of w (row-major, stride n), with a sum that does not
// depend on the schedule. It runs a row at a time and a term at a time;
// every accumulator belongs to one term (unless two terms share a scale,
// c·(k₁ + k₂)), so each sums its pairs in the same order as a pass over
// the pairs with every term inside would.
func contractSym(dst []float64, terms []term, xs []float64, n, d int, w []float64) {
	clear(dst)
	newBuf := func() []float64 { return make([]float64, n) }
	par.Sums(dst, n, 16, runtime.GOMAXPROCS(0), newBuf, func(buf []float64, i int, acc []float64) {
		row := w[i*n+i : (i+1)*n]
		for m := range terms {
			contractTermRow(acc, &terms[m], xs, i, n, d, row, buf)
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

// contractTermRow adds Σ_{j ≥ i} wᵢⱼ ∂(c b)/∂h for the term t to acc, where
// row[j − i] = wᵢⱼ (the diagonal counts once, each pair i < j twice, so
// wᵢᵢ enters halved).
func contractTermRow(acc []float64, t *term, xs []float64, i, n, d int, row, buf []float64) {
	xi := xs[i*d : (i+1)*d]
	wii := 0.5 * row[0]
	switch t.kind {
	case termRBF:
		var b []float64
		if t.cache != nil {
			b = t.cache[i*n+i : (i+1)*n]
		} else {
			b = buf[:len(row)]
			for k := 1; k < len(b); k++ {
				j := i + k
				b[k] = -0.5 * sqDist(xi, xs[j*d:(j+1)*d], t.inv2)
			}
			fastexp.Exps(b[1:], b[1:], 1, 0)
		}
		c := t.c
		if t.ci >= 0 {
			a := acc[t.ci] + wii
			for k := 1; k < len(row); k++ {
				a += row[k] * b[k]
			}
			acc[t.ci] = a
		}
		if len(t.inv2) == 1 {
			g := acc[t.hi]
			for k := 1; k < len(row); k++ {
				j := i + k
				s := row[k] * c * b[k]
				g += s * sqDist(xi, xs[j*d:(j+1)*d], t.inv2)
			}
			acc[t.hi] = g
			return
		}
		g := acc[t.hi : t.hi+d]
		inv2 := t.inv2[:d]
		for k := 1; k < len(row); k++ {
			j := i + k
			s := row[k] * c * b[k]
			xj := xs[j*d : (j+1)*d]
			for q, v := range xi {
				r := v - xj[q]
				g[q] += s * r * r * inv2[q]
			}
		}
	case termLinear:
		if t.ci >= 0 && t.cache != nil {
			b := t.cache[i*n+i : (i+1)*n]
			a := acc[t.ci] + wii*b[0]
			for k := 1; k < len(row); k++ {
				a += row[k] * b[k]
			}
			acc[t.ci] = a
		} else if t.ci >= 0 {
			a := acc[t.ci] + wii*(dotRow(xi, xi)+t.lc)
			for k := 1; k < len(row); k++ {
				j := i + k
				a += row[k] * (dotRow(xi, xs[j*d:(j+1)*d]) + t.lc)
			}
			acc[t.ci] = a
		}
		a := acc[t.hi] + wii*t.c
		for k := 1; k < len(row); k++ {
			a += row[k] * t.c
		}
		acc[t.hi] = a
	case termWhite:
		if t.ci >= 0 {
			acc[t.ci] += wii
		}
	case termConst:
		if t.ci >= 0 {
			a := acc[t.ci] + wii
			for k := 1; k < len(row); k++ {
				a += row[k]
			}
			acc[t.ci] = a
		}
	}
}
