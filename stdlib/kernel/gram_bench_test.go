package kernel_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// BenchmarkGramScript is gram(rbf(1), x) evaluated from a script at
// n = 5,000 and D = 2 and 10: the cost a script pays, including making
// its matrix. bench/gram_numpy.sh runs it beside NumPy's
// exp(−½(‖x‖² + ‖y‖² − 2xᵀy)) on the same shapes.
func BenchmarkGramScript(b *testing.B) {
	for _, d := range []int{2, 10} {
		b.Run(fmt.Sprintf("n=5000,D=%d", d), func(b *testing.B) {
			var out bytes.Buffer
			in := eval.New(eval.Options{Stdout: &out, Stderr: &out})
			cols := make([]string, d)
			for c := range cols {
				cols[c] = fmt.Sprintf("draw(normal(0, 1), 5000, seed: %d)", c+1)
			}
			src := "let x = cbind(" + strings.Join(cols, ", ") + ")\nlet k = rbf(1)\n"
			if _, err := in.Eval("setup.kml", src); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				v, err := in.Eval("gram.kml", "gram(k, x)")
				if err != nil {
					b.Fatal(err)
				}
				if r, c := v.(*eval.Mat).Dims(); r != 5000 || c != 5000 {
					b.Fatalf("%d×%d", r, c)
				}
			}
		})
	}
}
