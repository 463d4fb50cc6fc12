package ktest

import (
	"context"

	"gonum.org/v1/gonum/floats"

	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/internal/subsum"
	"github.com/kml-lang/kml/runtime/progress"
)

// The exact MMD null by the method of four Russians. eᵀKe is a sum over
// groups of groupRows consecutive rows: the rows of a group that are in the
// first sample form a mask of groupRows bits, and the sum of those rows
// over a tile of columns is a lookup in a table of all 2^groupRows subset
// sums of the group's rows, built once for all permutations. A permutation
// then costs, per group and tile, one sum of the looked-up row's entries
// in the first sample's columns instead of one per first-sample row: with
// K's symmetry (tiles on and above the diagonal, the diagonal ones at
// weight ½), N²/(2·groupRows) masked additions, and the tables
// N²·2^groupRows/(2·groupRows) additions shared by all permutations. Both
// run in the vector kernels of runtime/internal/subsum; the indicators are
// bit sets, so a tile's columns of a permutation are one word.
const groupRows = 8

// nullChunk is the most relabellings whose indicators are held at once
// (N bits each): more permutations are done in chunks, each building the
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
// workers, and the kernels of runtime/internal/subsum round alike on every
// vector path, so neither does it on KML_CPU.
func exactChunk(ctx context.Context, f *exactForms, m int, s Settings, ids []int) ([]float64, error) {
	n := f.n
	nb := len(ids)
	// The first sample's indicator of relabelling b as a bit set:
	// bit i%64 of words[(i/64)·nb + b], so that a group's mask and a
	// tile's column bits of all relabellings lie side by side.
	nw := (n + 63) / 64
	words := make([]uint64, nw*nb)
	perm := make([]int, n)
	for b, id := range ids {
		if id < 0 {
			for i := 0; i < m; i++ {
				words[(i/64)*nb+b] |= 1 << (i % 64)
			}
			continue
		}
		shuffled(s.Seed, id, perm)
		for _, i := range perm[:m] {
			words[(i/64)*nb+b] |= 1 << (i % 64)
		}
	}
	t := f.tile
	nt := (n + t - 1) / t
	part := make([]float64, nt*nb) // part[J*nb+b]
	type scratch struct{ table, off, diag []float64 }
	newScratch := func() *scratch {
		return &scratch{
			table: make([]float64, (1<<groupRows)*t),
			off:   make([]float64, subsum.Lanes*nb),
			diag:  make([]float64, subsum.Lanes*nb),
		}
	}
	par.Each(nt, 1, s.Workers, newScratch, func(w *scratch, jt, _, _ int) {
		if ctx.Err() != nil {
			return
		}
		f.tileSums(jt, words, nb, w.table, w.off, w.diag, part[jt*nb:(jt+1)*nb])
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
		// 1ᵀKe and Σ e_i K_ii, the selected entries in index order.
		rx, tx := 0.0, 0.0
		for i := 0; i < n; i++ {
			if words[(i/64)*nb+b]>>(i%64)&1 != 0 {
				rx += f.rowSum[i]
				tx += f.dg[i]
			}
		}
		stats[b] = mmdFromForms(2*sx, rx, tx, f.tot, trace, m, n-m, s.Estimator)
	}
	return stats, nil
}

// tileSums sets out[b], for column tile jt, to Σ_g w·(subset sum of group
// g's rows in the first sample)·e_b over the tile, for the groups in the
// row tiles above the diagonal (w = 1, lanes off) and on it (w = ½, lanes
// diag): subsum.Table builds a group's subset sums over the tile and
// subsum.MaskedSums adds each relabelling's row of it on the columns in
// the first sample. The eight lanes are added in a fixed order.
func (f *exactForms) tileSums(jt int, words []uint64, nb int, table, off, diag, out []float64) {
	n, t := f.n, f.tile
	j0 := jt * t
	tj := min(t, n-j0)
	wp := (tj + subsum.Lanes - 1) / subsum.Lanes * subsum.Lanes
	cols := words[(j0/64)*nb : (j0/64+1)*nb]
	cshift := uint(j0 % 64)
	clear(off)
	clear(diag)
	for g := 0; g*groupRows < n; g++ {
		r0 := g * groupRows
		if r0 >= j0+tj {
			break // below the diagonal
		}
		acc := off
		if r0 >= j0 {
			acc = diag
		}
		rows := min(groupRows, n-r0)
		subsum.Table(table, wp, f.g[r0*n+j0:], n, tj, rows)
		masks := words[(r0/64)*nb : (r0/64+1)*nb]
		subsum.MaskedSums(acc, table, wp, masks, uint(r0%64), cols, cshift)
	}
	for b := range out {
		out[b] = lanesSum(off[b*subsum.Lanes:]) + 0.5*lanesSum(diag[b*subsum.Lanes:])
	}
}

// lanesSum adds the eight lanes pairwise, in a fixed order.
func lanesSum(a []float64) float64 {
	return ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]))
}
