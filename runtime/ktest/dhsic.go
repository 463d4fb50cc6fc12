package ktest

import (
	"context"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/progress"
	"github.com/kml-lang/kml/runtime/rng"
)

// dhsicState holds the Gram matrices of d variables and what the
// permutations leave unchanged: each matrix's row means and the product
// of their grand means.
type dhsicState struct {
	ks   [][]float64 // n×n each, row by row
	n, d int
	rows [][]float64 // rows[j][a] = (1/n) Σ_b K^j_ab
	prod float64     // Π_j (1/n²) Σ_ab K^j_ab
}

func newDHSICState(ks [][]float64, n int) *dhsicState {
	s := &dhsicState{ks: ks, n: n, d: len(ks), prod: 1}
	for _, k := range ks {
		r := make([]float64, n)
		tot := 0.0
		for a := 0; a < n; a++ {
			for _, v := range k[a*n : (a+1)*n] {
				r[a] += v
			}
			tot += r[a]
			r[a] /= float64(n)
		}
		s.rows = append(s.rows, r)
		s.prod *= tot / float64(n*n)
	}
	return s
}

// stat is dHSIC (Pfister et al. 2018, the V-statistic) of the sample in
// which variable j's rows are permuted by perms[j] (perms[0] and a nil
// entry mean no permutation):
//
//	(1/n²) Σ_ab Π_j K^j_ab + Π_j (1/n²) Σ_ab K^j_ab − (2/n) Σ_a Π_j (1/n) Σ_b K^j_ab.
func (s *dhsicState) stat(perms [][]int) float64 {
	n := s.n
	idx := func(j, a int) int {
		if perms[j] == nil {
			return a
		}
		return perms[j][a]
	}
	var t1, t3 float64
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			p := 1.0
			for j, k := range s.ks {
				p *= k[idx(j, a)*n+idx(j, b)]
			}
			t1 += p
		}
		p := 1.0
		for j, r := range s.rows {
			p *= r[idx(j, a)]
		}
		t3 += p
	}
	return t1/float64(n*n) + s.prod - 2*t3/float64(n)
}

// gamma is the two-moment gamma approximation to the null of n·dHSIC
// (Pfister et al. 2018, section 4.3, as in their R package dHSIC): the
// null mean and variance are estimated from aⱼ = mean(Kʲ),
// bⱼ = mean(Kʲ∘Kʲ) and cⱼ = (1/n³) Σ_a (Σ_b Kʲ_ab)², and the p-value is
// the gamma tail at n·dHSIC. It returns the p-value with the estimated
// mean and variance of n·dHSIC.
func (s *dhsicState) gamma(stat float64) (p, mean, variance float64) {
	n, d := float64(s.n), s.d
	a, b, c := make([]float64, d), make([]float64, d), make([]float64, d)
	for j, k := range s.ks {
		for _, v := range k {
			a[j] += v
			b[j] += v * v
		}
		a[j] /= n * n
		b[j] /= n * n
		for _, r := range s.rows[j] {
			c[j] += (n * r) * (n * r)
		}
		c[j] /= n * n * n
	}
	// prodExcept is Π_{i ∉ skip} f(i).
	prodExcept := func(f func(i int) float64, skip ...int) float64 {
		p := 1.0
	next:
		for i := 0; i < d; i++ {
			for _, s := range skip {
				if i == s {
					continue next
				}
			}
			p *= f(i)
		}
		return p
	}
	fa := func(i int) float64 { return a[i] }
	fa2 := func(i int) float64 { return a[i] * a[i] }
	fb := func(i int) float64 { return b[i] }
	fc := func(i int) float64 { return c[i] }
	dm := float64(d - 1)
	e := 1 + dm*prodExcept(fa)
	for j := 0; j < d; j++ {
		e -= prodExcept(fa, j)
	}
	e /= n
	v := prodExcept(fb) + dm*dm*prodExcept(fa2) + 2*dm*prodExcept(fc)
	for r := 0; r < d; r++ {
		v += b[r]*prodExcept(fa2, r) - 2*b[r]*prodExcept(fc, r) - 2*dm*c[r]*prodExcept(fa2, r)
		for t := r + 1; t < d; t++ {
			v += 2 * c[r] * c[t] * prodExcept(fa2, r, t)
		}
	}
	// 2·(n − 2d)(n − 2d − 1)⋯(n − 4d + 3) / (n(n − 1)⋯(n − 2d + 1)).
	f := 2.0
	for j := 0; j < 2*d-2; j++ {
		f *= n - float64(2*d+j)
	}
	for j := 0; j < 2*d; j++ {
		f /= n - float64(j)
	}
	v *= f
	return gammaSurvival(n*stat, n*e, n*n*v), n * e, n * n * v
}

// DHSICTest tests the joint independence of d ≥ 2 variables observed on
// the same n rows (xs[j] the n rows of variable j, with kernel ks[j]) by
// dHSIC (Pfister, Bühlmann, Schölkopf and Peters 2018). Method
// "permutation" permutes the rows of variables 2..d independently
// (permutation b draws them in turn from its own stream, so with d = 2
// the permutations are HSICTest's), p = (1 + #{T_b ≥ T})/(1 + B), exact;
// "gamma" is the gamma approximation (dhsicState.gamma), fast and
// approximate, which needs n ≥ 4d. The statistic is dHSIC itself (for
// d = 2, the biased HSIC). A cancelled ctx stops it and it returns
// ctx.Err().
func DHSICTest(ctx context.Context, ks []kernels.Kernel, xs []*mat.Dense, method Method, s Settings) (Result, error) {
	s = s.withDefaults(Biased)
	d := len(xs)
	if d < 2 || len(ks) != d {
		return Result{}, fmt.Errorf("dHSIC needs at least 2 variables, each with a kernel; got %d variables and %d kernels", d, len(ks))
	}
	if method == "" {
		method = Permutation
	}
	if method != Permutation && method != Gamma {
		return Result{}, fmt.Errorf(`method must be "permutation" or "gamma", got %q`, method)
	}
	n, _ := xs[0].Dims()
	names := make([]string, d)
	grams := make([][]float64, d)
	for j, x := range xs {
		if r, _ := x.Dims(); r != n {
			return Result{}, fmt.Errorf("variable %d has %d rows, variable 1 has %d", j+1, r, n)
		}
		grams[j] = make([]float64, n*n)
		if err := kernels.GramFullInto(grams[j], ks[j], x); err != nil {
			return Result{}, err
		}
		names[j] = ks[j].String()
	}
	if n < 2*d {
		return Result{}, fmt.Errorf("dHSIC needs at least 2d = %d rows, got %d", 2*d, n)
	}
	st := newDHSICState(grams, n)
	res := Result{Estimator: Biased, Method: method, Approx: Exact, Kernel: strings.Join(names, ", ")}
	res.Statistic = st.stat(make([][]int, d))
	if method == Gamma {
		if n < 4*d {
			return Result{}, fmt.Errorf("the gamma approximation needs at least 4d = %d rows, got %d", 4*d, n)
		}
		res.PValue, _, _ = st.gamma(res.Statistic)
		if math.IsNaN(res.PValue) {
			return Result{}, fmt.Errorf("the gamma approximation is not defined for these data (constant kernel matrices?)")
		}
		return res, nil
	}
	res.Permutations = s.Permutations
	null := make([]float64, s.Permutations)
	type scratch struct{ perms [][]int }
	newScratch := func() *scratch {
		w := &scratch{perms: make([][]int, d)}
		for j := 1; j < d; j++ {
			w.perms[j] = make([]int, n)
		}
		return w
	}
	task := progress.Start(ctx, "permutations", s.Permutations)
	defer task.Done()
	par.Each(s.Permutations, 1, s.Workers, newScratch, func(w *scratch, b, _, _ int) {
		if ctx.Err() != nil {
			return
		}
		defer task.Add(1)
		jointPermutations(s.Seed, b, w.perms[1:])
		null[b] = st.stat(w.perms)
	})
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	res.PValue = pValue(res.Statistic, null)
	return res, nil
}

// jointPermutations fills perms with permutations of 0..n−1 drawn in turn
// from permutation b's stream; the first is shuffled(seed, b).
func jointPermutations(seed uint64, b int, perms [][]int) {
	rnd := rng.New(seed, rng.Permutation.Index(b))
	for _, p := range perms {
		for i := range p {
			p[i] = i
		}
		rnd.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
	}
}
