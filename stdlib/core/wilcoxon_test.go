package core_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// wilcoxon(x, y) tests the differences x − y: the same as wilcoxon(x - y),
// with scipy's p-value for these (tie-free) differences.
func TestWilcoxonBuiltin(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = [1.3, 0.9, 1.45, 1.8, 1.25, 0.4, 1.9, 2.1, 1.05, 1.7, 0.65, 1.55]
let y = rep(1, 12)
let a = wilcoxon(x, y)
let b = wilcoxon(x - y)
`)
	a, b := kmltest.Lookup[*eval.Record](t, in, "a"), kmltest.Lookup[*eval.Record](t, in, "b")
	pa, _ := a.Attr("p")
	pb, _ := b.Attr("p")
	w, _ := a.Attr("w")
	if pa != pb || float64(pa.(eval.Num)) != 0.06396484375 || float64(w.(eval.Num)) != 63 {
		t.Errorf("wilcoxon: p %v and %v, w %v; want p 0.06396484375 (scipy), w 63", pa, pb, w)
	}
	var out bytes.Buffer
	ev := eval.New(eval.Options{Stdout: &out, Stderr: &out})
	_, err := ev.Eval("t.kml", "wilcoxon([1, 2], [1])\n")
	if err == nil || !strings.Contains(err.Error(), "t.kml:1:18: error: wilcoxon: x has 2 values but y has 1") {
		t.Errorf("got %v", err)
	}
}
