package linalg

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/kml-lang/kml/runtime/internal/rawmem"
)

// poison fills memory with -7 in buffers of n float64s, drops them and
// collects them, so that the next allocation of that size likely reuses
// it: a buffer the code under test should have cleared then shows -7.
func poison(n int) {
	for range 4 {
		b := rawmem.Float64s(n)
		for i := range b {
			b[i] = -7
		}
	}
	runtime.GC()
}

// TestSymLowerMatchesScan checks SymLower against a row-by-row scan on
// random matrices, serial (n < 512) and parallel, n on and off the tile
// size, with a stride wider than n: the lower triangle is copied exactly,
// the strict upper triangle of the buffer is zero although the memory
// freed just before held -7 (poison), and an asymmetric matrix
// yields the scan's first pair in row order.
func TestSymLowerMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(4242, 1))
	for _, n := range []int{1, 3, 64, 100, 512, 650} {
		for trial := 0; trial < 4; trial++ {
			stride := n + 2
			a := blas64.General{Rows: n, Cols: n, Stride: stride, Data: make([]float64, n*stride)}
			for i := 0; i < n; i++ {
				for j := 0; j <= i; j++ {
					x := rng.NormFloat64() * 1e3
					a.Data[i*stride+j], a.Data[j*stride+i] = x, x
				}
			}
			// Trial 0 stays symmetric (with a difference within the
			// tolerance); the others break 1 to 3 random pairs.
			if n > 1 {
				a.Data[(n-1)*stride] *= 1 + 1e-12
			}
			for k := 0; k < trial && n > 1; k++ {
				i := 1 + rng.IntN(n-1)
				j := rng.IntN(i)
				if rng.IntN(2) == 0 {
					i, j = j, i
				}
				a.Data[i*stride+j] += 1
			}
			wi, wj, wok := -1, -1, true
		scan:
			for i := 0; i < n; i++ {
				for j := 0; j < i; j++ {
					x, y := a.Data[i*stride+j], a.Data[j*stride+i]
					if math.Abs(x-y) > 1e-10*math.Max(1, math.Max(math.Abs(x), math.Abs(y))) {
						wi, wj, wok = i, j, false
						break scan
					}
				}
			}
			poison(n * n)
			dst, i, j, err := SymLower(a, 1e-10)
			if ok := err == nil; ok != wok || !ok && (i != wi || j != wj || err != ErrNotSymmetric) {
				t.Fatalf("n=%d trial %d: SymLower = %d, %d, %v; scan %d, %d, %v", n, trial, i, j, err, wi, wj, wok)
			}
			if err != nil {
				continue
			}
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					want := 0.0 // the buffer is not cleared first
					if j <= i {
						want = a.Data[i*stride+j]
					}
					if dst[i*n+j] != want {
						t.Fatalf("n=%d: dst[%d, %d] = %v, want %v", n, i, j, dst[i*n+j], want)
					}
				}
			}
		}
	}
}

// TestSymLowerNotFinite checks that a NaN or an infinity anywhere (on the
// diagonal, below it, above it, or mirrored by the same infinity) is
// ErrNotFinite, also in a matrix that is asymmetric elsewhere, before it.
func TestSymLowerNotFinite(t *testing.T) {
	n := 300
	for _, c := range []struct {
		i, j   int
		x      float64
		mirror bool
	}{
		{5, 5, math.NaN(), false}, {299, 299, math.Inf(1), false}, {200, 3, math.NaN(), false},
		{3, 200, math.Inf(-1), false}, {150, 140, math.Inf(1), true}, {250, 20, math.NaN(), true},
	} {
		for _, asym := range []bool{false, true} {
			a := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
			for i := 0; i < n; i++ {
				a.Data[i*n+i] = 2
			}
			a.Data[c.i*n+c.j] = c.x
			if c.mirror {
				a.Data[c.j*n+c.i] = c.x
			}
			if asym {
				a.Data[1*n+0] = 1
			}
			if _, _, _, err := SymLower(a, 1e-10); err != ErrNotFinite {
				t.Errorf("%v at [%d, %d] (mirrored %v, asymmetric at [1, 0] %v): %v", c.x, c.i, c.j, c.mirror, asym, err)
			}
		}
	}
}
