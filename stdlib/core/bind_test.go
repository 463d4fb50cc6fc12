package core_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestBind checks rbind and cbind of numbers, vectors, empty vectors and
// matrices element by element against the blocks put together by hand.
func TestBind(t *testing.T) {
	in, _ := kmltest.Run(t, `
let M = [[1, 2], [3, 4]]
let r = rbind([5, 6], M, [], [[7, 8]], transpose([9, 10]))
let c = cbind([5, 6], M, [], [[7], [8]], 11 * [1, 1])
let s = cbind(1, 2, 3)
let t = rbind(M[1:1, :], 4 * M)
`)
	for _, tc := range []struct {
		name string
		want *mat.Dense
	}{
		{"r", mat.NewDense(5, 2, []float64{5, 6, 1, 2, 3, 4, 7, 8, 9, 10})},
		{"c", mat.NewDense(2, 5, []float64{5, 1, 2, 7, 11, 6, 3, 4, 8, 11})},
		{"s", mat.NewDense(1, 3, []float64{1, 2, 3})},
		{"t", mat.NewDense(3, 2, []float64{1, 2, 4, 8, 12, 16})},
	} {
		got := kmltest.Lookup[*eval.Mat](t, in, tc.name).M
		if !mat.Equal(got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, mat.Formatted(got), mat.Formatted(tc.want))
		}
	}
	kmltest.ExpectError(t, `let b = rbind([1, 2], [1, 2, 3])`, "widths differ: 1×2 and 1×3 (argument 2)")
	kmltest.ExpectError(t, `let b = cbind([1, 2], [], [1, 2, 3])`, "heights differ: 2×1 and 3×1 (argument 3)")
}

// TestBindLinear checks that cbind of many vectors allocates about its
// result once: joining pairwise copied the growing result at each argument,
// 1000 vectors of 1000 numbers allocating 4 GB for an 8 MB result.
func TestBindLinear(t *testing.T) {
	args := make([]string, 1000)
	for i := range args {
		args[i] = fmt.Sprintf("v + %d", i)
	}
	src := "let v = linspace(0, 1, 1000)\nlet m = cbind(" + strings.Join(args, ", ") + ")\n"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	in, _ := kmltest.Run(t, src)
	runtime.ReadMemStats(&after)
	m := kmltest.Lookup[*eval.Mat](t, in, "m").M
	if r, c := m.Dims(); r != 1000 || c != 1000 || m.At(10, 20) != float64(10)/999+20 {
		t.Fatalf("cbind gave %d×%d with m[11, 21] = %v", r, c, m.At(10, 20))
	}
	// The result (8 MB), the 1000 arguments (8 MB) and the interpreter.
	if got := after.TotalAlloc - before.TotalAlloc; got > 40<<20 {
		t.Errorf("cbind of 1000 vectors of 1000 allocated %d MB; the result is 8 MB", got>>20)
	}
}

// TestConcatBudget: concat works out its length first and refuses a result
// that would not fit beside the live values before allocating it.
func TestConcatBudget(t *testing.T) {
	in, _ := kmltest.Run(t, `let c = concat(1, [2, 3], transpose([4, 5]), [], 6)`)
	if got := kmltest.Lookup[*eval.Vec](t, in, "c").Data; fmt.Sprint(got) != "[1 2 3 4 5 6]" {
		t.Errorf("concat gave %v", got)
	}
	var out strings.Builder
	in = eval.New(eval.Options{Stdout: &out, Stderr: &out, MaxMemory: 20 << 20})
	_, err := in.Eval("t.kml", "let a = rep(1, 1e6)\nlet c = concat(a, a, a)")
	if err == nil || !strings.Contains(err.Error(), "t.kml:2:9: error: concat: the result would be 3000000 numbers (22.9 MB), more than the memory budget of 20 MB") {
		t.Errorf("concat over the budget: %v", err)
	}
}
