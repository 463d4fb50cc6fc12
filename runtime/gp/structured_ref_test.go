package gp

import (
	"math"
	"runtime"
	"testing"

	"github.com/kml-lang/kml/runtime/internal/fastexp"
	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// The pair-at-a-time fill and contraction that structured.go's row passes
// replaced, kept as the reference TestStructuredRowsMatchPairs holds them
// to: every term's value at every pair through one switch, the
// exponential one pair at a time.

// value is the base kernel b(x_i, x_j) of t (diag: i = j).
func (t *term) pairValue(xi, xj []float64, diag bool) float64 {
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
func fillSymPairs(dst []float64, terms []term, xs []float64, n, d int, noise []float64) {
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
					b := t.pairValue(xi, xj, i == j)
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
func contractSymPairs(dst []float64, terms []term, xs []float64, n, d int, w []float64) {
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
				contractTermPair(acc, &terms[m], xi, xj, i == j, wij, i*n+j)
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

// contractTerm adds one pair's wᵢⱼ ∂(c b)/∂h for the term t to acc; ij
// is the pair's place in t.cache.
func contractTermPair(acc []float64, t *term, xi, xj []float64, diag bool, wij float64, ij int) {
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

// TestStructuredRowsMatchPairs holds the row passes of structured.go to
// the pair-at-a-time reference above: the fill to 1e-14 relative (the
// vectorised exponential may differ from the scalar one in the last bits),
// and the contraction, given the same cached RBF and linear values, to
// the bit when every term has a scale of its own and at most one RBF term
// (a second is exponentiated again, by the vectorised exponential), and
// to 1e-12 otherwise.
func TestStructuredRowsMatchPairs(t *testing.T) {
	const d = 4
	fast, _ := testKernels(t, d)
	// c·(rbf + linear): two terms with one scale.
	iso, _ := kernels.NewRBF([]float64{0.9})
	lin, _ := kernels.NewLinear(0.2)
	il, _ := kernels.NewSum(iso, lin)
	shared, _ := kernels.NewScaled(1.4, il)
	for _, n := range []int{1, 17, 40} {
		x, y := testData(n, d, uint64(20+n))
		xs := linalg.RowMajor(x)
		for ki, k := range append(fast, shared) {
			terms, ok := structured(k, d)
			if !ok {
				t.Fatalf("%s is not structured", k)
			}
			// The caches LogMarginal gives: the first RBF term's and the
			// first scaled linear term's.
			rbf, lin := false, false
			for m := range terms {
				tm := &terms[m]
				if tm.kind == termRBF && !rbf || tm.kind == termLinear && tm.ci >= 0 && !lin {
					rbf, lin = rbf || tm.kind == termRBF, lin || tm.kind == termLinear
					tm.cache = make([]float64, n*n)
				}
			}
			got, want := make([]float64, n*n), make([]float64, n*n)
			noise := []float64{0.1}
			fillSym(got, terms, xs, n, d, noise)
			caches := make([][]float64, len(terms))
			for m := range terms {
				caches[m] = append([]float64(nil), terms[m].cache...)
			}
			fillSymPairs(want, terms, xs, n, d, noise)
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					g, w := got[i*n+j], want[i*n+j]
					if math.Abs(g-w) > 1e-14*math.Abs(w) {
						t.Fatalf("n = %d, %s: K[%d,%d] = %.17g, pairs %.17g", n, k, i, j, g, w)
					}
				}
			}
			for m := range terms {
				copy(terms[m].cache, caches[m]) // the rows' values for both
			}
			w := make([]float64, n*n)
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					w[i*n+j] = y[i]*y[j] - 0.3*y[(i+j)%n]
				}
			}
			nh := k.NumHyper()
			have, ref := make([]float64, nh), make([]float64, nh)
			contractSym(have, terms, xs, n, d, w)
			contractSymPairs(ref, terms, xs, n, d, w)
			rbfs := 0
			for m := range terms {
				if terms[m].kind == termRBF {
					rbfs++
				}
			}
			exact := k != shared && rbfs <= 1
			for h := range ref {
				if exact && math.Float64bits(have[h]) != math.Float64bits(ref[h]) ||
					math.Abs(have[h]-ref[h]) > 1e-12*(1+math.Abs(ref[h])) {
					t.Errorf("n = %d, kernel %d (%s): ∂/∂%s = %.17g, pairs %.17g (exact: %v)", n, ki, k, k.HyperNames()[h], have[h], ref[h], exact)
				}
			}
		}
	}
}
