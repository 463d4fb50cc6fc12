package kernels

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// plainLloyd is lloyd without Hamerly's bounds: every row scanned over
// every centre at every iteration (kmeans's iterations before the
// bounds), the reference lloyd must agree with bit for bit.
func plainLloyd(data []float64, n, d, m int, centres []float64) (iters int) {
	assign := make([]int, n)
	for i := range assign {
		assign[i] = -1
	}
	for iter := 0; iter < 100; iter++ {
		moved := false
		for i := 0; i < n; i++ {
			best, bestD := 0, math.Inf(1)
			for c := 0; c < m; c++ {
				if dd := sqdist(data[i*d:(i+1)*d], centres[c*d:(c+1)*d]); dd < bestD {
					best, bestD = c, dd
				}
			}
			if assign[i] != best {
				assign[i], moved = best, true
			}
		}
		if !moved {
			return iter
		}
		sums := make([]float64, m*d)
		counts := make([]int, m)
		for i, c := range assign {
			counts[c]++
			for j := 0; j < d; j++ {
				sums[c*d+j] += data[i*d+j]
			}
		}
		for c := 0; c < m; c++ {
			if counts[c] == 0 {
				continue
			}
			for j := 0; j < d; j++ {
				centres[c*d+j] = sums[c*d+j] / float64(counts[c])
			}
		}
	}
	return 100
}

// TestKMeansHamerlyExact checks that lloyd's skipping leaves the centres
// exactly those of plain Lloyd iterations from the same start: on
// uniform, clustered and integer-grid data (ties between centres, rows
// on top of each other, duplicate starting centres), with one to
// several hundred centres and one to several workers. A skip that the
// bounds do not justify moves some row to another centre than plain
// Lloyd's scan and changes the centres.
func TestKMeansHamerlyExact(t *testing.T) {
	rnd := rand.New(rand.NewPCG(39, 4))
	type tc struct {
		name       string
		n, d, m    int
		gen        func() float64
		dupCentres bool
	}
	cases := []tc{
		{"uniform", 3000, 8, 64, func() float64 { return 4*rnd.Float64() - 2 }, false},
		{"uniform-m1", 500, 3, 1, func() float64 { return rnd.Float64() }, false},
		{"grid-ties", 2000, 2, 40, func() float64 { return float64(rnd.IntN(5)) }, false},
		{"clustered", 2500, 4, 150, func() float64 { return float64(rnd.IntN(3)) + 0.01*rnd.NormFloat64() }, false},
		{"dup-centres", 1500, 2, 30, func() float64 { return rnd.NormFloat64() }, true},
		{"m-near-n", 300, 1, 250, func() float64 { return rnd.NormFloat64() }, false},
	}
	for _, c := range cases {
		data := make([]float64, c.n*c.d)
		for i := range data {
			data[i] = c.gen()
		}
		start := make([]float64, c.m*c.d)
		for j := 0; j < c.m; j++ {
			r := rnd.IntN(c.n)
			if c.dupCentres && j%3 == 1 {
				copy(start[j*c.d:], start[(j-1)*c.d:j*c.d])
				continue
			}
			copy(start[j*c.d:(j+1)*c.d], data[r*c.d:(r+1)*c.d])
		}
		want := slices.Clone(start)
		iters := plainLloyd(data, c.n, c.d, c.m, want)
		for _, workers := range []int{1, 3} {
			got := slices.Clone(start)
			lloyd(data, c.n, c.d, c.m, got, workers)
			if !slices.Equal(got, want) {
				t.Errorf("%s, %d workers: centres differ from plain Lloyd's (%d iterations)", c.name, workers, iters)
			}
		}
		if iters < 2 && c.m > 1 {
			t.Errorf("%s: plain Lloyd stopped after %d iterations, too few to test the bounds", c.name, iters)
		}
	}
}

// TestKMeansHamerlyExactMany is TestKMeansHamerlyExact on 200 small
// random problems (n 100–400, D 1–3, m 2–40, clustered or uniform, starts
// from random rows), where a bound that is not one (a lower bound lowered
// by less than the movement of some other centre) lets a row keep a
// centre that is no longer its nearest in a few of them.
func TestKMeansHamerlyExactMany(t *testing.T) {
	rnd := rand.New(rand.NewPCG(39, 6))
	bad := 0
	for trial := 0; trial < 200; trial++ {
		n, d, m := 100+rnd.IntN(301), 1+rnd.IntN(3), 2+rnd.IntN(39)
		clustered := rnd.IntN(2) == 0
		data := make([]float64, n*d)
		for i := range data {
			data[i] = rnd.NormFloat64()
			if clustered {
				data[i] = float64(rnd.IntN(4)) + 0.2*data[i]
			}
		}
		start := make([]float64, m*d)
		for j := 0; j < m; j++ {
			r := rnd.IntN(n)
			copy(start[j*d:(j+1)*d], data[r*d:(r+1)*d])
		}
		want := slices.Clone(start)
		plainLloyd(data, n, d, m, want)
		got := slices.Clone(start)
		lloyd(data, n, d, m, got, 1+trial%3)
		if !slices.Equal(got, want) {
			bad++
			if bad <= 3 {
				t.Errorf("trial %d (n = %d, D = %d, m = %d): centres differ from plain Lloyd's", trial, n, d, m)
			}
		}
	}
}

// BenchmarkKMeansLandmarks is Landmarks' k-means at gp()'s default m =
// 512 on n uniform rows in (−2, 2)⁸ (BenchmarkSGPRMLII's data).
func BenchmarkKMeansLandmarks(b *testing.B) {
	for _, n := range []int{10000, 30000, 100000} {
		rnd := rand.New(rand.NewPCG(39, 5))
		x := randomPoints(rnd, n, 8)
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			for range b.N {
				if _, err := Landmarks(x, 512, 1, KMeans); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
