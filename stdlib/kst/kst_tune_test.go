package kst_test

import (
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// tune with a matrix ell tries each row as a vector of lengthscales: its
// grid scores are the scores of densities built at each row by hand, and
// the best row comes back as ell.
func TestTuneMatrixEll(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = rbind([0, 0], [0.2, 0.1], [-0.1, 0.2], [3, 3], [3.2, 2.9], [2.8, 3.1])
let rows = cbind(y, onehot([1, 1, 1, 2, 2, 2], 2))
let valid = rbind([0.1, 0.1, 1, 0], [2.9, 3, 0, 1], [0.3, 0, 0, 1], [3, 3.3, 1, 0])
let novel = [0, 0, 1, 1]
fn k2(l) = rbf(concat(rep(l[1], 2), rep(l[2], 2)))
let ells = rbind([1, 0.05], [0.3, 3], [2, 1])
let t = tune(rows, valid, kernel: k2, ell: ells, sigma0: [0.1, 1], novel: novel)
fn at(l, s0) = auc(novelty(kst(rows, k2(l), sigma0: s0), valid), novel)
let want = [at([1, 0.05], 0.1), at([1, 0.05], 1), at([0.3, 3], 0.1), at([0.3, 3], 1), at([2, 1], 0.1), at([2, 1], 1)]
let td = tune(rows, valid, kernel: k2, ell: ells, method: "kde", novel: novel)
`)
	tr := kmltest.Lookup[*eval.Record](t, in, "t")
	grid, _ := tr.Attr("grid")
	scores, _ := grid.(*eval.Record).Attr("score")
	gell, _ := grid.(*eval.Record).Attr("ell")
	want := kmltest.Lookup[*eval.Vec](t, in, "want").Data
	got := scores.(*eval.Vec).Data
	best := 0
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("grid point %d: tune %v, by hand %v", i, got[i], want[i])
		}
		if want[i] > want[best] {
			best = i
		}
	}
	if r, c := gell.(*eval.Mat).M.Dims(); r != 6 || c != 2 {
		t.Errorf("grid ell is %d×%d, want 6×2", r, c)
	}
	ell, _ := tr.Attr("ell")
	e := ell.(*eval.Vec).Data
	rowsWant := [][]float64{{1, 0.05}, {0.3, 3}, {2, 1}}[best/2]
	if len(e) != 2 || e[0] != rowsWant[0] || e[1] != rowsWant[1] {
		t.Errorf("best ell %v, want %v", e, rowsWant)
	}
	if _, err := kmltest.Lookup[*eval.Record](t, in, "td").Attr("ell"); !err {
		t.Error("kde tune has no ell")
	}
}
