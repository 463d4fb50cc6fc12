package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/internal/par"
	sqd "github.com/kml-lang/kml/runtime/internal/sqdist"
	"github.com/kml-lang/kml/runtime/interrupt"
	"github.com/kml-lang/kml/runtime/linalg"
	"github.com/kml-lang/kml/runtime/rng"
)

// MedianMaxRows is the number of rows above which MedianHeuristic works on a
// seeded random subsample of that many rows (the median of n²/2 distances
// is then estimated from about 2·10⁶).
const MedianMaxRows = 2000

// MedianHeuristic returns the median Euclidean distance over pairs i < j of
// rows of x. The BKE paper (Flaxman et al. 2016, §2.3) names two
// conventions for turning it into an SE kernel: exp(−‖x − y‖²/ℓ²) with
// ℓ = median (Mooij et al. 2016) and exp(−‖x − y‖²/(2ℓ²)) with ℓ = median
// (Muandet et al. 2014). KML's rbf is exp(−‖x − y‖²/(2ℓ²)), so
// rbf(median_heuristic(x)) is the second; the first is rbf(median/√2).
// Above MedianMaxRows rows, a subsample of rows drawn with seed is used.
func MedianHeuristic(x *mat.Dense, seed uint64) (float64, error) {
	ds, err := sqDistances(x, seed)
	if err != nil {
		return 0, err
	}
	// Squared distances order as distances do; the median of an even count
	// is the mean of the middle two distances. Selection, not a sort: the
	// k-th smallest, then the largest of the k below it.
	k := len(ds)
	hi := math.Sqrt(Select(ds, k/2))
	if k%2 == 1 {
		return hi, nil
	}
	return (math.Sqrt(floats.Max(ds[:k/2])) + hi) / 2, nil
}

// DistanceQuantile returns the p-quantile (linear interpolation between
// order statistics, as stats.Quantile) of the Euclidean distances over
// pairs i < j of rows of x, with MedianHeuristic's subsample above
// MedianMaxRows rows, and the largest of those distances.
func DistanceQuantile(x *mat.Dense, p float64, seed uint64) (q, largest float64, err error) {
	ds, err := sqDistances(x, seed)
	if err != nil {
		return 0, 0, err
	}
	largest = math.Sqrt(floats.Max(ds))
	h := float64(len(ds)-1) * p
	lo := int(math.Floor(h))
	a := math.Sqrt(Select(ds, lo))
	if lo+1 >= len(ds) {
		return a, largest, nil
	}
	b := math.Sqrt(floats.Min(ds[lo+1:]))
	return a + (h-float64(lo))*(b-a), largest, nil
}

// sqDistances returns the squared distances over pairs i < j of rows of x
// (of a seeded subsample of MedianMaxRows rows above that).
func sqDistances(x *mat.Dense, seed uint64) ([]float64, error) {
	if err := CheckData(x, "the data"); err != nil {
		return nil, err
	}
	n, d := x.Dims()
	if n < 2 {
		return nil, fmt.Errorf("the median heuristic needs at least 2 rows, got %d", n)
	}
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	if n > MedianMaxRows {
		rnd := rng.New(seed, rng.Median)
		rnd.Shuffle(n, func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		rows = rows[:MedianMaxRows]
	}
	data := linalg.RowMajor(x)
	ds := make([]float64, 0, len(rows)*(len(rows)-1)/2)
	for a := 0; a < len(rows); a++ {
		xa := data[rows[a]*d : (rows[a]+1)*d]
		for b := a + 1; b < len(rows); b++ {
			xb := data[rows[b]*d : (rows[b]+1)*d]
			s := 0.0
			for c, v := range xa {
				t := v - xb[c]
				s += t * t
			}
			ds = append(ds, s)
		}
	}
	return ds, nil
}

// Select reorders a so that a[k] is its k-th smallest value (0-based),
// with nothing larger before it and nothing smaller after it, and returns
// it: Hoare's quickselect with a median-of-three pivot, O(len(a)) expected.
func Select(a []float64, k int) float64 {
	lo, hi := 0, len(a)-1
	for hi > lo {
		mid := lo + (hi-lo)/2
		// Median of three to a[mid], then use it as the pivot.
		if a[mid] < a[lo] {
			a[mid], a[lo] = a[lo], a[mid]
		}
		if a[hi] < a[lo] {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if a[hi] < a[mid] {
			a[hi], a[mid] = a[mid], a[hi]
		}
		pivot := a[mid]
		i, j := lo, hi
		for i <= j {
			for a[i] < pivot {
				i++
			}
			for a[j] > pivot {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		// Now a[lo..j] ≤ pivot ≤ a[i..hi], and a[j+1..i−1] = pivot.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return a[k]
		}
	}
	return a[k]
}

// LandmarkMethod is how Landmarks chooses its rows. It is a string type so
// that a user's spelling reaches Landmarks unchanged and is validated there;
// use the constants.
type LandmarkMethod string

// The landmark methods.
const (
	// RandomRows draws m rows without replacement (the default, also "").
	RandomRows LandmarkMethod = "random"
	// KMeans returns the centres of a seeded k-means.
	KMeans LandmarkMethod = "kmeans"
)

// Landmarks picks m representative rows of x: RandomRows draws m rows
// without replacement; KMeans returns the centres of a seeded k-means
// (k-means++ starts, then Lloyd iterations until no point moves, at most
// 100).
func Landmarks(x *mat.Dense, m int, seed uint64, method LandmarkMethod) (*mat.Dense, error) {
	if err := CheckData(x, "the data"); err != nil {
		return nil, err
	}
	n, d := x.Dims()
	if m < 1 || m > n {
		return nil, fmt.Errorf("cannot choose %d landmarks from %d rows", m, n)
	}
	rnd := rng.New(seed, rng.Landmarks)
	data := linalg.RowMajor(x)
	switch method {
	case RandomRows, "":
		idx := rnd.Perm(n)[:m]
		out := mat.NewDense(m, d, nil)
		for r, i := range idx {
			out.SetRow(r, data[i*d:(i+1)*d])
		}
		return out, nil
	case KMeans:
		return kmeans(data, n, d, m, rnd), nil
	}
	return nil, fmt.Errorf("method must be \"random\" or \"kmeans\", got %q", method)
}

func sqdist(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		t := v - b[i]
		s += float64(t * t) // never fused: as sqdist.RowExact
	}
	return s
}

// kmeansBlock is the rows k-means handles between interrupt checks, and
// the unit its passes over the rows share among the processors: each row's
// nearest centre does not depend on the others', so the result is the same
// whatever the number of workers.
const kmeansBlock = 1024

// kmeans is k-means++ seeding followed by at most 100 of Lloyd's
// iterations. Its passes over the rows run on every processor and check
// for an interrupt (runtime/interrupt.Check) every kmeansBlock rows: at
// n = 10⁵ and m = 512 one assignment pass is 5·10⁷ distances. The
// iterations skip the rows whose nearest centre provably has not changed
// (Hamerly 2010; see lloyd), so the result is that of plain Lloyd
// iterations.
func kmeans(data []float64, n, d, m int, rng *rand.Rand) *mat.Dense {
	workers := runtime.GOMAXPROCS(0)
	centres := make([]float64, 0, m*d)
	first := rng.IntN(n)
	centres = append(centres, data[first*d:(first+1)*d]...)
	near := make([]float64, n)
	for i := range near {
		near[i] = sqdist(data[i*d:(i+1)*d], centres[:d])
	}
	// k-means++: each new centre drawn with probability ∝ squared distance
	// to the nearest chosen one.
	for len(centres) < m*d {
		total := 0.0
		for _, v := range near {
			total += v
		}
		pick := rng.IntN(n)
		if total > 0 {
			u := rng.Float64() * total
			for i, v := range near {
				u -= v
				if u < 0 {
					pick = i
					break
				}
			}
		}
		c := data[pick*d : (pick+1)*d]
		centres = append(centres, c...)
		par.Blocks(n, kmeansBlock, workers, func(_, lo, hi int) {
			interrupt.Check()
			for i := lo; i < hi; i++ {
				near[i] = math.Min(near[i], sqdist(data[i*d:(i+1)*d], c))
			}
		})
	}
	lloyd(data, n, d, m, centres, workers)
	return mat.NewDense(m, d, centres)
}

// lloyd runs at most 100 of Lloyd's iterations from centres (m × d, row
// major, updated in place), stopping when no row changes its centre; a
// row's centre is the first of the nearest by sqdist, and a centre left
// with no rows stays where it is. Rows whose centre cannot have changed
// are skipped by Hamerly's bounds (G. Hamerly, "Making k-means even
// faster", SDM 2010): upper[i] ≥ the distance from row i to its centre,
// lower[i] ≤ its distance to every other centre, both carried across an
// iteration by the centres' movements, and half[c] half the distance
// from centre c to its nearest other centre. A row is skipped only when
// upper[i] + slack < max(lower[i], half[c]), where slack (10⁻⁹ of a
// bound on the data's diameter) exceeds the rounding of the bounds, so
// that the nearest centre is then the same, and strictly nearest, under
// sqdist's rounding too; every other row is scanned over all centres as
// in a plain Lloyd iteration. The assignments, hence the centres, are
// those of plain Lloyd iterations (TestKMeansHamerlyExact checks it
// against them).
func lloyd(data []float64, n, d, m int, centres []float64, workers int) {
	assign := make([]int, n)
	for i := range assign {
		assign[i] = -1
	}
	// The diameter of the data's convex hull, which holds every centre,
	// is at most twice the largest distance from row 0.
	r2 := 0.0
	for i := 0; i < n; i++ {
		r2 = math.Max(r2, sqdist(data[i*d:(i+1)*d], data[:d]))
	}
	slack := 1e-9 * 2 * math.Sqrt(r2)
	upper, lower := make([]float64, n), make([]float64, n)
	half := make([]float64, m)
	move := make([]float64, m)
	old := make([]float64, m*d)
	ct := make([]float64, d*m) // centres, column-major
	for iter := 0; iter < 100; iter++ {
		if iter > 0 {
			par.Blocks(m, 64, workers, func(_, lo, hi int) {
				for c := lo; c < hi; c++ {
					best := math.Inf(1)
					for o := 0; o < m; o++ {
						if o != c {
							best = math.Min(best, sqdist(centres[c*d:(c+1)*d], centres[o*d:(o+1)*d]))
						}
					}
					half[c] = math.Sqrt(best) / 2
				}
			})
		}
		for c := 0; c < m; c++ {
			for j := 0; j < d; j++ {
				ct[j*m+c] = centres[c*d+j]
			}
		}
		movedIn := make([]bool, par.NumBlocks(n, kmeansBlock))
		par.Each(n, kmeansBlock, workers, func() []float64 { return make([]float64, m) }, func(dist []float64, b, lo, hi int) {
			interrupt.Check()
			for i := lo; i < hi; i++ {
				xi := data[i*d : (i+1)*d]
				if a := assign[i]; a >= 0 {
					bound := math.Max(lower[i], half[a])
					if upper[i]+slack < bound {
						continue
					}
					upper[i] = math.Sqrt(sqdist(xi, centres[a*d:(a+1)*d]))
					if upper[i]+slack < bound {
						continue
					}
				}
				// sqdist to every centre, rounded as sqdist rounds.
				sqd.RowExact(dist, ct, m, xi)
				best, bestD, second := 0, math.Inf(1), math.Inf(1)
				for c, dd := range dist {
					if dd < bestD {
						best, bestD, second = c, dd, bestD
					} else if dd < second {
						second = dd
					}
				}
				upper[i], lower[i] = math.Sqrt(bestD), math.Sqrt(second)
				if assign[i] != best {
					assign[i], movedIn[b] = best, true
				}
			}
		})
		moved := false
		for _, mv := range movedIn {
			moved = moved || mv
		}
		if !moved {
			break
		}
		copy(old, centres)
		sums := make([]float64, m*d)
		counts := make([]int, m)
		for i, c := range assign {
			counts[c]++
			for j := 0; j < d; j++ {
				sums[c*d+j] += data[i*d+j]
			}
		}
		// The largest movement (of centre far) and the largest of the
		// others: a row of centre far need only lower its bound by the
		// second.
		maxMove, nextMove, far := 0.0, 0.0, -1
		for c := 0; c < m; c++ {
			if counts[c] > 0 {
				for j := 0; j < d; j++ {
					centres[c*d+j] = sums[c*d+j] / float64(counts[c])
				}
			}
			move[c] = math.Sqrt(sqdist(centres[c*d:(c+1)*d], old[c*d:(c+1)*d]))
			switch {
			case move[c] > maxMove:
				maxMove, nextMove, far = move[c], maxMove, c
			case move[c] > nextMove:
				nextMove = move[c]
			}
		}
		for i, c := range assign {
			upper[i] += move[c]
			if c == far {
				lower[i] -= nextMove
			} else {
				lower[i] -= maxMove
			}
		}
	}
}
