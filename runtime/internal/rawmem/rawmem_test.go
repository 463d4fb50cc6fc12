package rawmem

import (
	"runtime"
	"testing"
)

// TestFloat64sIsItsOwn checks that buffers from Float64s are distinct,
// hold what is written through a collection and reuse of freed memory,
// and have the length asked for: two live buffers written with different
// patterns, with garbage of the same size made and collected between,
// must read back unchanged.
func TestFloat64sIsItsOwn(t *testing.T) {
	const n = 1 << 17 // 1 MB: a large object, from the heap directly
	a := Float64s(n)
	for i := range a {
		a[i] = float64(i)
	}
	for range 4 {
		g := Float64s(n)
		for i := range g {
			g[i] = -1
		}
		runtime.GC()
	}
	b := Float64s(n)
	for i := range b {
		b[i] = float64(2 * i)
	}
	runtime.GC()
	if len(a) != n || len(b) != n || len(Float64s(0)) != 0 {
		t.Fatalf("lengths %d, %d", len(a), len(b))
	}
	for i := range n {
		if a[i] != float64(i) || b[i] != float64(2*i) {
			t.Fatalf("element %d: %v, %v", i, a[i], b[i])
		}
	}
}
