package kernels

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/kml-lang/kml/runtime/interrupt"
	"gonum.org/v1/gonum/mat"
)

// TestGramStopsOnInterrupt: once the run's token is raised, a kernel
// matrix (symmetric or cross, on one worker or several) panics with
// interrupt.Stop on the calling goroutine; after the run ends it is
// computed again, equal to the pairwise definition.
func TestGramStopsOnInterrupt(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	x := mat.NewDense(300, 2, nil)
	for i := range 300 {
		x.Set(i, 0, r.NormFloat64())
		x.Set(i, 1, r.NormFloat64())
	}
	k, err := NewRBF([]float64{0.7})
	if err != nil {
		t.Fatal(err)
	}
	stopped := func(f func()) (v any) {
		defer func() { v = recover() }()
		f()
		return nil
	}
	tok := interrupt.Begin(context.Background())
	tok.Raise()
	for _, workers := range []int{1, 2} {
		if got := stopped(func() { GramN(k, x, workers) }); !interrupt.Is(got) {
			t.Errorf("Gram on %d workers after Raise: panicked with %v", workers, got)
		}
		if got := stopped(func() { CrossN(k, x, x, workers) }); !interrupt.Is(got) {
			t.Errorf("Cross on %d workers after Raise: panicked with %v", workers, got)
		}
	}
	tok.End()
	g, err := Gram(k, x)
	if err != nil {
		t.Fatal(err)
	}
	for _, ij := range [][2]int{{0, 0}, {3, 7}, {299, 150}} {
		want := k.Eval(x.RawRowView(ij[0]), x.RawRowView(ij[1]))
		if got := g.At(ij[0], ij[1]); got != want && (got-want > 1e-12 || want-got > 1e-12) {
			t.Errorf("after End: K[%d, %d] = %v, k(x_i, x_j) = %v", ij[0], ij[1], got, want)
		}
	}
}

// TestKMeansStopsAndIsWorkerFree: k-means landmarks are the same on one
// processor and on several (its row passes are split among them), and
// once the run's token is raised they stop with interrupt.Stop.
func TestKMeansStopsAndIsWorkerFree(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 4))
	n := 3*kmeansBlock + 17
	x := mat.NewDense(n, 3, nil)
	for i := range n {
		for j := range 3 {
			x.Set(i, j, r.NormFloat64()+float64(i%5))
		}
	}
	prev := runtime.GOMAXPROCS(1)
	one, err := Landmarks(x, 40, 7, KMeans)
	runtime.GOMAXPROCS(max(prev, 3))
	several, err2 := Landmarks(x, 40, 7, KMeans)
	runtime.GOMAXPROCS(prev)
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	if !mat.Equal(one, several) {
		t.Error("k-means landmarks differ between one processor and several")
	}
	tok := interrupt.Begin(context.Background())
	tok.Raise()
	got := func() (v any) {
		defer func() { v = recover() }()
		Landmarks(x, 40, 7, KMeans)
		return nil
	}()
	tok.End()
	if !interrupt.Is(got) {
		t.Errorf("k-means after Raise: panicked with %v, want interrupt.Stop", got)
	}
}
