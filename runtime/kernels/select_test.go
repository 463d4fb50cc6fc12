package kernels

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/stats"
)

// Select against a sort, on data with and without ties.
func TestSelectAgainstSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	for _, n := range []int{1, 2, 3, 10, 101, 1000} {
		for _, ties := range []bool{false, true} {
			a := make([]float64, n)
			for i := range a {
				a[i] = rng.NormFloat64()
				if ties {
					a[i] = math.Round(a[i] * 2)
				}
			}
			s := append([]float64(nil), a...)
			sort.Float64s(s)
			for _, k := range []int{0, n / 3, n / 2, n - 1} {
				b := append([]float64(nil), a...)
				if got := Select(b, k); got != s[k] {
					t.Fatalf("n %d ties %v: Select(%d) = %v, sorted %v", n, ties, k, got, s[k])
				}
				for i, v := range b {
					if (i < k && v > s[k]) || (i > k && v < s[k]) {
						t.Fatalf("n %d: entry %d = %v on the wrong side of %v", n, i, v, s[k])
					}
				}
			}
		}
	}
}

// MedianHeuristic and DistanceQuantile against sorted pairwise distances.
func TestDistanceQuantilesAgainstSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	for _, n := range []int{2, 5, 40, 41} {
		x := mat.NewDense(n, 3, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < 3; j++ {
				x.Set(i, j, rng.NormFloat64())
			}
		}
		var ds []float64
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				var v mat.VecDense
				v.SubVec(x.RowView(i), x.RowView(j))
				ds = append(ds, mat.Norm(&v, 2))
			}
		}
		med, _ := MedianHeuristic(x, 1)
		if want := stats.Quantile(ds, 0.5); math.Abs(med-want) > 1e-12 {
			t.Errorf("n %d: median %v, sorted %v", n, med, want)
		}
		for _, p := range []float64{0, 0.05, 0.5, 1} {
			q, hi, _ := DistanceQuantile(x, p, 1)
			if want := stats.Quantile(ds, p); math.Abs(q-want) > 1e-12 {
				t.Errorf("n %d: quantile %v = %v, sorted %v", n, p, q, want)
			}
			if want := stats.Quantile(ds, 1); math.Abs(hi-want) > 1e-12 {
				t.Errorf("n %d: largest %v, sorted %v", n, hi, want)
			}
		}
	}
}

// GramFullInto fills a reused buffer with what GramFull returns.
func TestGramFullInto(t *testing.T) {
	rng := rand.New(rand.NewPCG(75, 76))
	x := mat.NewDense(37, 2, nil)
	for i := 0; i < 37; i++ {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
	}
	buf := make([]float64, 37*37)
	for _, ell := range []float64{0.5, 2} {
		k, _ := NewRBF([]float64{ell})
		want, _ := GramFull(k, x)
		if err := GramFullInto(buf, k, x); err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if buf[i] != want[i] {
				t.Fatalf("ell %v: entry %d: %v, GramFull %v", ell, i, buf[i], want[i])
			}
		}
	}
	if err := GramFullInto(buf[:10], must(NewRBF([]float64{1})), x); err == nil {
		t.Error("a short buffer accepted")
	}
}
