package ktest

import (
	"context"
	"math/bits"

	"gonum.org/v1/gonum/floats"

	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/progress"
)

// The exact MMD null by the method of four Russians. eᵀKe is a sum over
// groups of groupRows consecutive rows: the rows of a group that are in the
// first sample form a mask of groupRows bits, and the sum of those rows
// over a tile of columns is a lookup in a table of all 2^groupRows subset
// sums of the group's rows, built once for all permutations. A permutation
// then costs one dot product of tile length per group and tile instead of
// one per first-sample row: with K's symmetry (tiles on and above the
// diagonal, the diagonal ones at weight ½), N²/(2·groupRows) multiply-adds,
// and the tables N²·2^groupRows/(2·groupRows) additions shared by all
// permutations.
const groupRows = 8

// nullChunk is the most relabellings whose indicators are held at once
// (N values each): more permutations are done in chunks, each building the
// tables again (a quarter of the chunk's own work).
const nullChunk = 1024

// exactLabelNull is labelNull for the exact Gram matrix: the samples as
// given (index −1) and permutations 0..B−1, in fixed chunks of nullChunk.
func exactLabelNull(ctx context.Context, f *exactForms, m int, s Settings) (float64, []float64, error) {
	all := make([]float64, 0, s.Permutations+1)
	task := progress.Start(ctx, "permutations", s.Permutations)
	defer task.Done()
	for lo := -1; lo < s.Permutations; lo += nullChunk {
		ids := make([]int, 0, nullChunk)
		for b := lo; b < min(lo+nullChunk, s.Permutations); b++ {
			ids = append(ids, b)
		}
		st, err := exactChunk(ctx, f, m, s, ids)
		if err != nil {
			return 0, nil, err
		}
		all = append(all, st...)
		task.Add(len(ids) - max(0, -lo)) // the samples as given are no permutation
	}
	return all[0], all[1:], nil
}

// exactChunk returns the MMD² of the relabellings ids (−1: the samples as
// given; b ≥ 0: permutation b). The tiles of columns are shared among the
// workers; each tile keeps its own partial sums per relabelling, added in
// tile order at the end, so the result does not depend on the number of
// workers.
func exactChunk(ctx context.Context, f *exactForms, m int, s Settings, ids []int) ([]float64, error) {
	n := f.n
	nb := len(ids)
	// e[b]: the 0/1 indicator of the first sample; masks[b][g]: its bits
	// on group g.
	e := make([]float64, nb*n)
	ng := (n + groupRows - 1) / groupRows
	masks := make([]uint8, nb*ng)
	perm := make([]int, n)
	for b, id := range ids {
		eb := e[b*n : (b+1)*n]
		if id < 0 {
			for i := 0; i < m; i++ {
				eb[i] = 1
			}
		} else {
			shuffled(s.Seed, id, perm)
			for _, i := range perm[:m] {
				eb[i] = 1
			}
		}
		mb := masks[b*ng : (b+1)*ng]
		for i := 0; i < n; i++ {
			if eb[i] != 0 {
				mb[i/groupRows] |= 1 << (i % groupRows)
			}
		}
	}
	t := f.tile
	nt := (n + t - 1) / t
	part := make([]float64, nt*nb) // part[J*nb+b]
	newTable := func() []float64 { return make([]float64, (1<<groupRows)*t) }
	par.Each(nt, 1, s.Workers, newTable, func(table []float64, jt, _, _ int) {
		if ctx.Err() != nil {
			return
		}
		f.tileSums(jt, e, masks, nb, ng, table, part[jt*nb:(jt+1)*nb])
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	trace := floats.Sum(f.dg)
	stats := make([]float64, nb)
	for b := range stats {
		sx := 0.0
		for jt := 0; jt < nt; jt++ {
			sx += part[jt*nb+b]
		}
		eb := e[b*n : (b+1)*n]
		stats[b] = mmdFromForms(2*sx, floats.Dot(f.rowSum, eb), floats.Dot(f.dg, eb), f.tot, trace, m, n-m, s.Estimator)
	}
	return stats, nil
}

// tileSums adds to out[b], for column tile jt, Σ_g w·(subset sum of group
// g's rows in the first sample)·e_b over the tile, for the groups in the
// row tiles on and above the diagonal.
func (f *exactForms) tileSums(jt int, e []float64, masks []uint8, nb, ng int, table, out []float64) {
	n, t := f.n, f.tile
	j0 := jt * t
	tj := min(t, n-j0)
	for g := 0; g < ng; g++ {
		r0 := g * groupRows
		if r0 >= j0+tj {
			break // below the diagonal
		}
		w := 1.0
		if r0 >= j0 {
			w = 0.5 // the diagonal tile
		}
		rows := min(groupRows, n-r0)
		// table[mask] = Σ_{k in mask} K[r0+k, j0:j0+tj], each from a
		// smaller subset by adding one row.
		clear(table[:tj])
		for mask := 1; mask < 1<<rows; mask++ {
			k := bits.TrailingZeros(uint(mask))
			dst := table[mask*tj : (mask+1)*tj]
			src := table[(mask&^(1<<k))*tj:]
			row := f.g[(r0+k)*n+j0:]
			for c := range dst {
				dst[c] = src[c] + row[c]
			}
		}
		for b := 0; b < nb; b++ {
			mask := int(masks[b*ng+g])
			if mask == 0 {
				continue
			}
			out[b] += w * floats.Dot(table[mask*tj:(mask+1)*tj], e[b*n+j0:b*n+j0+tj])
		}
	}
}
