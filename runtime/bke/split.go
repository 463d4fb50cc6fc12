package bke

import (
	"fmt"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/rng"
)

// Split holds out m rows of x, chosen uniformly at random with the given
// seed, as landmarks, as the paper suggests (§4.3: "a small held out
// portion of the data"). landmarks holds the chosen rows in their order in
// x and rest the others, also in order. The same seed gives the same split.
// Split panics unless 1 ≤ m < rows of x.
func Split(x *mat.Dense, m int, seed uint64) (rest, landmarks *mat.Dense) {
	n, dim := x.Dims()
	if m < 1 || m >= n {
		panic(fmt.Sprintf("bke: Split: %d landmarks from %d rows: need 1 ≤ m < %d", m, n, n))
	}
	rnd := rng.New(seed, rng.BKESplit)
	chosen := rnd.Perm(n)[:m]
	sort.Ints(chosen)
	landmarks = mat.NewDense(m, dim, nil)
	rest = mat.NewDense(n-m, dim, nil)
	next, r := 0, 0
	for i := 0; i < n; i++ {
		if next < m && chosen[next] == i {
			landmarks.SetRow(next, x.RawRowView(i))
			next++
			continue
		}
		rest.SetRow(r, x.RawRowView(i))
		r++
	}
	return rest, landmarks
}
