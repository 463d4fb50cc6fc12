package linalg

import (
	"errors"
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/internal/rawmem"
	"github.com/kml-lang/kml/runtime/interrupt"
)

// symTile is the side of the tiles SymLower compares: a 64×64 tile of
// float64 is 32 KiB, so the tile read down its columns stays in L1 while
// the one read along its rows streams.
const symTile = 64

// symParMin is the order from which SymLower uses every processor: below
// it the n²/2 comparisons take about as long as starting a goroutine.
const symParMin = 256

// The errors of SymLower.
var (
	ErrNotSymmetric = errors.New("linalg: matrix not symmetric")
	ErrNotFinite    = errors.New("linalg: matrix has a NaN or infinite element")
)

// SymLower returns a new n×n row-major buffer (stride n) with the lower
// triangle of the n×n matrix a (the diagonal included) and a strict upper
// triangle of zeros, and checks in the same pass that every element of a
// is finite and that a is symmetric:
// |a[i,j] − a[j,i]| ≤ tol·max(1, |a[i,j]|, |a[j,i]|) for every i > j.
//
// It is the pass before a Cholesky factorisation of a user's matrix, so
// it must cost little beside it: one read of a and one write of the
// buffer, which is never cleared first (rawmem: make would clear all n²
// elements on one core before this pass writes them again); the
// comparison goes tile by tile, each 64×64 tile below the diagonal against
// its mirror above, so that both are read from cache rather than one of
// them a column at a time through memory; equal elements cost one
// subtraction and one comparison (the finiteness check rides on it: x − y
// is 0 only when both are finite); and it runs on every processor from
// n = 256 on (blocks of 64 rows, each writing only its rows). Before each
// block it checks for an interrupt (runtime/interrupt.Check: a panic with
// interrupt.Stop on the caller).
//
// The error is ErrNotFinite when some element of a is NaN or ±Inf (this
// takes precedence; the caller finds which), else ErrNotSymmetric with
// i > j the first pair that differs in row order (the pair a serial
// row-by-row scan finds first). There is then no buffer.
func SymLower(a blas64.General, tol float64) (dst []float64, i, j int, err error) {
	n := a.Rows
	if a.Cols != n {
		panic("linalg: SymLower needs a square matrix")
	}
	dst = rawmem.Float64s(n * n)
	workers := 1
	if n >= symParMin {
		workers = runtime.GOMAXPROCS(0)
	}
	bad := make([]bool, par.NumBlocks(n, symTile))
	par.Blocks(n, symTile, workers, func(b, lo, hi int) {
		interrupt.Check()
		for i := lo; i < hi; i++ {
			copy(dst[i*n:i*n+i+1], a.Data[i*a.Stride:i*a.Stride+i+1])
			clear(dst[i*n+i+1 : i*n+n])
			if d := a.Data[i*a.Stride+i]; d-d != 0 {
				bad[b] = true
				return
			}
		}
		for jb := 0; jb <= lo; jb += symTile {
			for i := lo; i < hi; i++ {
				row := a.Data[i*a.Stride : i*a.Stride+min(jb+symTile, i)]
				for j := jb; j < len(row); j++ {
					x, y := row[j], a.Data[j*a.Stride+i]
					if x-y != 0 && symFar(x, y, tol) {
						bad[b] = true
						return
					}
				}
			}
		}
	})
	for b := range bad {
		if bad[b] {
			i, j, err := symFirst(a, b*symTile, tol)
			return nil, i, j, err
		}
	}
	return dst, 0, 0, nil
}

// symFar reports whether x and y, not equal, are not both finite or differ
// by more than tol relative to the larger of 1 and their magnitudes.
func symFar(x, y, tol float64) bool {
	return x-x != 0 || y-y != 0 || math.Abs(x-y) > tol*max(1, math.Abs(x), math.Abs(y))
}

// symFirst is SymLower's error once a block from row lo on failed: a
// non-finite element anywhere, else the first pair in row order, which is
// in that block or after it.
func symFirst(a blas64.General, lo int, tol float64) (i, j int, err error) {
	n := a.Rows
	for i := 0; i < n; i++ {
		for _, x := range a.Data[i*a.Stride : i*a.Stride+n] {
			if x-x != 0 {
				return 0, 0, ErrNotFinite
			}
		}
	}
	for i := lo; i < n; i++ {
		for j, x := range a.Data[i*a.Stride : i*a.Stride+i] {
			if y := a.Data[j*a.Stride+i]; math.Abs(x-y) > tol*max(1, math.Abs(x), math.Abs(y)) {
				return i, j, ErrNotSymmetric
			}
		}
	}
	panic("linalg: SymLower found a difference it cannot find again")
}
