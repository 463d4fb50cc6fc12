package par

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

func TestEachCoversBlocks(t *testing.T) {
	for _, c := range []struct{ n, block, workers int }{
		{0, 4, 2}, {1, 4, 2}, {4, 4, 3}, {5, 4, 3}, {100, 7, 1}, {100, 7, 0}, {100, 7, 4}, {100, 1, 16},
	} {
		var mu sync.Mutex
		var got [][3]int
		var scratches atomic.Int64
		Each(c.n, c.block, c.workers, func() []int {
			scratches.Add(1)
			return make([]int, 1)
		}, func(s []int, b, lo, hi int) {
			s[0]++ // a worker's scratch is its own
			mu.Lock()
			got = append(got, [3]int{b, lo, hi})
			mu.Unlock()
		})
		slices.SortFunc(got, func(a, b [3]int) int { return a[0] - b[0] })
		nb := NumBlocks(c.n, c.block)
		if len(got) != nb {
			t.Fatalf("%+v: %d blocks run, want %d", c, len(got), nb)
		}
		for b, g := range got {
			if want := [3]int{b, b * c.block, min((b+1)*c.block, c.n)}; g != want {
				t.Fatalf("%+v: block %v, want %v", c, g, want)
			}
		}
		if s := scratches.Load(); s > int64(max(1, min(c.workers, nb))) {
			t.Fatalf("%+v: %d scratches", c, s)
		}
	}
}

// TestSumsDoNotDependOnWorkers sums values whose total depends on the
// order of addition.
func TestSumsDoNotDependOnWorkers(t *testing.T) {
	const n = 1000
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Pow(10, float64(i%31-15)) * (1 + float64(i)/7)
	}
	sum := func(workers int) []float64 {
		dst := []float64{1, 2}
		Sums(dst, n, 16, workers, nil, func(_ struct{}, i int, acc []float64) {
			acc[0] += v[i]
			acc[1] += v[n-1-i]
		})
		return dst
	}
	want := sum(1)
	for _, w := range []int{2, 3, 8, 64} {
		for range 20 {
			if got := sum(w); got[0] != want[0] || got[1] != want[1] {
				t.Fatalf("workers=%d: %v, want %v", w, got, want)
			}
		}
	}
}

func TestEachPanicsOnCaller(t *testing.T) {
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v", r)
		}
	}()
	Blocks(100, 1, 4, func(b, _, _ int) {
		if b == 50 {
			panic("boom")
		}
	})
	t.Fatal("no panic")
}
