package ktest

import (
	"context"

	"gonum.org/v1/gonum/floats"

	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/progress"
	"github.com/kml-lang/kml/runtime/rng"
)

// permBlock is how many permutations are multiplied by the features at
// once. It is fixed, not tied to the number of workers, and each
// permutation's statistic is a row of a product computed in a fixed order,
// so the null is bit-for-bit the same on any number of cores.
const permBlock = 32

// shuffled returns permutation b of 0..n−1, from its own seeded stream.
func shuffled(seed uint64, b int, perm []int) {
	for i := range perm {
		perm[i] = i
	}
	rnd := rng.New(seed, rng.Permutation.Index(b))
	rnd.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
}

// labelNull returns the MMD² of the samples as given (the first m of the
// N pooled rows against the rest) and of s.Permutations relabellings, in
// which permutation b puts rows perm_b[0..m−1] in the first sample.
func labelNull(ctx context.Context, f gramForms, m int, s Settings) (float64, []float64, error) {
	return f.labelNull(ctx, m, s)
}

// labelNull for features: permBlock permutations at a time, their
// indicators times Φ in one BLAS product.
func (f *featureForms) labelNull(ctx context.Context, m int, s Settings) (float64, []float64, error) {
	nTot := f.n
	n := nTot - m
	trace := floats.Sum(f.dg)
	stat := func(sx, rx float64, e []float64) float64 {
		return mmdFromForms(sx, rx, floats.Dot(f.dg, e), f.tot, trace, m, n, s.Estimator)
	}
	// The samples as given.
	e0 := make([]float64, nTot)
	for i := 0; i < m; i++ {
		e0[i] = 1
	}
	var s0, r0 [1]float64
	f.forms(e0, 1, make([]float64, f.r), s0[:], r0[:])
	obs := stat(s0[0], r0[0], e0)

	null := make([]float64, s.Permutations)
	type scratch struct {
		e, buf []float64
		sx, rx [permBlock]float64
		perm   []int
	}
	newScratch := func() *scratch {
		return &scratch{e: make([]float64, permBlock*nTot), buf: make([]float64, permBlock*f.r), perm: make([]int, nTot)}
	}
	task := progress.Start(ctx, "permutations", s.Permutations)
	defer task.Done()
	par.Each(s.Permutations, permBlock, s.Workers, newScratch, func(w *scratch, _, lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		defer task.Add(hi - lo)
		rows := hi - lo
		e := w.e
		clear(e)
		for b := 0; b < rows; b++ {
			shuffled(s.Seed, lo+b, w.perm)
			eb := e[b*nTot : (b+1)*nTot]
			for _, i := range w.perm[:m] {
				eb[i] = 1
			}
		}
		f.forms(e[:rows*nTot], rows, w.buf, w.sx[:rows], w.rx[:rows])
		for b := 0; b < rows; b++ {
			null[lo+b] = stat(w.sx[b], w.rx[b], e[b*nTot:(b+1)*nTot])
		}
	})
	return obs, null, ctx.Err()
}

// permutationsVec runs a body for permutation b = 0..Permutations−1 of
// 0..n−1 on the workers; each worker gets its own body (and buffers) from
// newBody, and permutation b comes from its own seeded stream. When ctx is
// cancelled the workers stop and it returns ctx.Err().
func permutationsVec(ctx context.Context, n int, s Settings, newBody func() func(b int, perm []int)) error {
	type worker struct {
		body func(b int, perm []int)
		perm []int
	}
	newWorker := func() worker { return worker{newBody(), make([]int, n)} }
	task := progress.Start(ctx, "permutations", s.Permutations)
	defer task.Done()
	par.Each(s.Permutations, 1, s.Workers, newWorker, func(w worker, b, _, _ int) {
		if ctx.Err() != nil {
			return
		}
		defer task.Add(1)
		shuffled(s.Seed, b, w.perm)
		w.body(b, w.perm)
	})
	return ctx.Err()
}
