package kml_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/core"
	"github.com/kml-lang/kml/stdlib/dists"
	"github.com/kml-lang/kml/stdlib/fit"
	"github.com/kml-lang/kml/stdlib/kernel"
)

// A Go program sets data into a script's scope, evaluates KML on it and
// reads the results back.
func ExampleInterpreter() {
	in := kml.New(kml.Seed(1))
	in.Set("y", []float64{1.5, 2.5, 3.5})
	in.Set("X", mat.NewDense(3, 2, []float64{1, 0, 1, 1, 1, 2}))

	v, err := in.Eval("X @ [0.5, 1] + y")
	if err != nil {
		fmt.Println(in.FormatError(err))
		return
	}
	fmt.Println(v)

	_, err = in.Eval("let s = {mean: mean(y), n: len(y)}")
	if err != nil {
		fmt.Println(in.FormatError(err))
		return
	}
	s, _ := in.Get("s")
	fmt.Println(s.(map[string]any)["mean"], s.(map[string]any)["n"])

	_, err = in.Eval("y + [1, 2]")
	fmt.Print(in.FormatError(err))
	// Output:
	// [2 4 6]
	// 2.5 3
	// <eval 3>:1:3: error: shapes do not match for +: vector of length 3 and vector of length 2
	// y + [1, 2]
	//   ^
}

// An embedder chooses the library's domains: here numbers, distributions,
// kernels and fitting, without file input and output or plots, so a script
// cannot touch the disk.
func ExampleBuiltins() {
	r := eval.NewRegistry()
	core.Register(r)
	dists.Register(r)
	kernel.Register(r)
	fit.Register(r)
	in := kml.New(kml.Builtins(r))

	v, err := in.Eval("gram(rbf(1), [[0], [1]])[1, 2]")
	if err != nil {
		fmt.Println(in.FormatError(err))
		return
	}
	fmt.Printf("%.4f\n", v)
	_, err = in.Eval(`write_csv([1, 2], "out.csv")`)
	fmt.Print(in.FormatError(err))
	// Output:
	// 0.6065
	// <eval 2>:1:1: error: undefined: write_csv
	// write_csv([1, 2], "out.csv")
	// ^
}

// A host bounds how many calls a script may make, so one that would run
// without end stops with a positioned error; each Eval starts a new count.
func ExampleMaxSteps() {
	in := kml.New(kml.MaxSteps(1000))
	_, err := in.Eval("fn fib(n) = if n < 2 then n else fib(n - 1) + fib(n - 2)\nfib(10)")
	fmt.Println(err == nil)
	_, err = in.Eval("fib(25)")
	fmt.Print(in.FormatError(err))
	// Output:
	// true
	// <eval>:1:34: error: the program made more than 1000 calls, its step budget (kml run --max-steps or kml.MaxSteps sets it)
	// fn fib(n) = if n < 2 then n else fib(n - 1) + fib(n - 2)
	//                                  ^
	// note: in fib called at <eval>:1:34
	// note: in fib called at <eval>:1:47
	// note: in fib called at <eval>:1:34
	// note: in fib called at <eval>:1:47
	// note: in fib called at <eval>:1:34
}

// A Go program follows a long computation through the Progress option:
// here every report of a kernel test's permutations from the start, the
// last one marking its end.
func ExampleProgress() {
	var reports int
	var last kml.ProgressEvent
	in := kml.New(kml.Progress(func(e kml.ProgressEvent) {
		reports++
		last = e
	}, 0))
	_, err := in.Eval(`let x = draw(normal(0, 1), 50, seed: 1)
let y = draw(normal(1, 1), 50, seed: 2)
let r = mmd_test(x, y, rbf(1), permutations: 500, seed: 3)`)
	if err != nil {
		fmt.Println(in.FormatError(err))
		return
	}
	fmt.Println(reports > 1, last.Name, last.What, last.Done, last.Total, last.End)
	fmt.Println(last.Line)
	// Output:
	// true mmd_test permutations 500 500 true
	// permutations 500/500 (100%)  0s left
}
