package kst

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/kml-lang/kml/stdlib/kernel"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/kernels"
	rkst "github.com/kml-lang/kml/runtime/kst"
	"github.com/kml-lang/kml/runtime/stats"
)

// quadPoints is the number of trapezoid points tune's "logpdf" score uses
// to normalise a one-dimensional density over its window.
const quadPoints = 2001

func tuneBuiltin(a *eval.Args) (eval.Value, error) {
	var x *mat.Dense
	var method, score string
	var s0s, as, bs []float64
	if err := a.Unpack("x", &x, "method", &method, "score", &score, "sigma0", &s0s, "alpha", &as, "beta", &bs); err != nil {
		return nil, err
	}
	if method != "kst" && method != "kde" {
		return nil, a.Errorf("method", `method must be "kst" or "kde", got %q`, method)
	}
	if method == "kde" {
		s0s, as, bs = nil, nil, nil // a Parzen window has only the kernel
	}
	kernelFor, ells, rows, err := tuneKernels(a)
	if err != nil {
		return nil, err
	}
	train, valid, err := tuneSplit(a, x, score)
	if err != nil {
		return nil, err
	}
	scoreFn, err := tuneScore(a, score, valid)
	if err != nil {
		return nil, err
	}
	candidates := len(ells)
	if method != "kde" {
		candidates *= max(len(s0s), 1) * max(len(as), 1) * max(len(bs), 1)
	}
	task := a.Progress("candidates", candidates)
	defer task.Done()
	build := func(k kernels.Kernel, h rkst.Hyper) (rkst.Density, error) {
		// Each candidate is a fit: the check that lets Ctrl-C stop tune.
		if err := a.Step(task); err != nil {
			return nil, err
		}
		if method == "kde" {
			return rkst.NewKDE(k, train)
		}
		return rkst.Fit(k, train, h)
	}
	best, all, err := rkst.Tune(rkst.Grid{Ell: ells, Sigma0: s0s, Alpha: as, Beta: bs}, kernelFor, build, scoreFn)
	if err != nil {
		var ae *ast.Error
		if errors.As(err, &ae) {
			return nil, err // from the kernel function, at its own position
		}
		return nil, a.Fail("%v", err)
	}
	sign := 1.0
	if score == "error" {
		sign = -1 // scores are maximised; report the error rate
	}
	k, err := kernelFor(best.Ell)
	if err != nil {
		return nil, err // it worked a moment ago
	}
	grid := eval.NewRecord()
	col := func(f func(p rkst.Point) float64) *eval.Vec {
		out := make([]float64, len(all))
		for i, p := range all {
			out[i] = f(p)
		}
		return &eval.Vec{Data: out}
	}
	res := eval.NewRecord().Set("kernel", kernel.Fixed(k))
	switch {
	case rows != nil:
		res.Set("ell", &eval.Vec{Data: append([]float64(nil), rows[int(best.Ell)]...)})
		m := mat.NewDense(len(all), len(rows[0]), nil)
		for i, p := range all {
			m.SetRow(i, rows[int(p.Ell)])
		}
		grid.Set("ell", eval.NewMat(m))
	case ells != nil:
		res.Set("ell", eval.Num(best.Ell))
		grid.Set("ell", col(func(p rkst.Point) float64 { return p.Ell }))
	}
	if method == "kst" {
		res.Set("sigma0", eval.Num(best.Hyper.Sigma0)).Set("alpha", eval.Num(best.Hyper.Alpha)).Set("beta", eval.Num(best.Hyper.Beta))
		grid.Set("sigma0", col(func(p rkst.Point) float64 { return p.Hyper.Sigma0 }))
		grid.Set("alpha", col(func(p rkst.Point) float64 { return p.Hyper.Alpha }))
		grid.Set("beta", col(func(p rkst.Point) float64 { return p.Hyper.Beta }))
	}
	grid.Set("score", col(func(p rkst.Point) float64 { return sign * p.Score }))
	return res.Set("score", eval.Num(sign*best.Score)).Set("grid", grid), nil
}

// tuneKernels reads the kernel argument: a kernel, or a function of a
// lengthscale called at each value of ell. ell may also be a matrix whose
// rows are tried in turn, each passed to the function as a vector (several
// lengthscales tuned jointly); then the grid runs over row indices and rows
// holds the rows.
func tuneKernels(a *eval.Args) (func(float64) (kernels.Kernel, error), []float64, [][]float64, error) {
	kv := a.Value("kernel")
	if _, ok := kv.(*kernel.KernelVal); ok {
		if a.Given("ell") {
			return nil, nil, nil, a.Errorf("ell", "ell is the grid for a kernel given as a function of the lengthscale, such as fn k(l) = rbf(l); kernel is a fixed kernel")
		}
		k, err := fixedKernel(a, "kernel")
		if err != nil {
			return nil, nil, nil, err
		}
		return func(float64) (kernels.Kernel, error) { return k, nil }, nil, nil, nil
	}
	if _, ok := kv.(eval.Callable); !ok {
		return nil, nil, nil, a.Errorf("kernel", "kernel must be a kernel or a function of a lengthscale returning one, got %s", eval.Describe(kv))
	}
	if !a.Given("ell") {
		return nil, nil, nil, a.Errorf("kernel", "a kernel given as a function needs ell, the lengthscales to try")
	}
	var ells []float64
	var rows [][]float64
	if m, ok := a.Value("ell").(*eval.Mat); ok {
		r, _ := m.M.Dims()
		for i := 0; i < r; i++ {
			rows = append(rows, append([]float64(nil), m.M.RawRowView(i)...))
			ells = append(ells, float64(i))
		}
	} else if err := a.Unpack("ell", &ells); err != nil {
		return nil, nil, nil, err
	}
	if len(ells) == 0 {
		return nil, nil, nil, a.Errorf("ell", "ell is empty")
	}
	vals := ells
	if rows != nil {
		vals = nil
		for _, r := range rows {
			vals = append(vals, r...)
		}
	}
	for _, l := range vals {
		if !(l > 0) || math.IsInf(l, 0) {
			return nil, nil, nil, a.Errorf("ell", "lengthscales must be positive and finite, got %v", l)
		}
	}
	pos := a.PosOf("kernel")
	return func(l float64) (kernels.Kernel, error) {
		arg, at := eval.Value(eval.Num(l)), eval.FormatNumber(l)
		if rows != nil {
			arg, at = &eval.Vec{Data: append([]float64(nil), rows[int(l)]...)}, fmt.Sprint(rows[int(l)])
		}
		v, err := a.Th.CallValue(pos, kv, arg)
		if err != nil {
			return nil, err
		}
		k, ok := v.(*kernel.KernelVal)
		if !ok {
			return nil, fmt.Errorf("the kernel function returned %s at ell = %s, not a kernel", eval.Describe(v), at)
		}
		if k.HasAD() {
			return nil, fmt.Errorf("the kernel's hyperparameters must be numbers, not model parameters")
		}
		return k.K, nil
	}, ells, rows, nil
}

// tuneSplit returns the training and validation rows: valid as given, or m
// random rows of x held out.
func tuneSplit(a *eval.Args, x *mat.Dense, score string) (train, valid *mat.Dense, err error) {
	v := a.Value("valid")
	if _, ok := v.(eval.Num); !ok {
		m, ok := eval.ToMatrix(v)
		if !ok {
			return nil, nil, a.Errorf("valid", "valid must be a matrix of held-out rows or a number of rows of x to hold out, got %s", eval.Describe(v))
		}
		return x, m, nil
	}
	if score == "auc" {
		return nil, nil, a.Errorf("valid", `score "auc" needs the held-out rows themselves, with novel: marking the novel ones`)
	}
	var m int
	if err := a.Unpack("valid", &m); err != nil {
		return nil, nil, err
	}
	n, d := x.Dims()
	if m < 1 || m >= n {
		return nil, nil, a.Errorf("valid", "cannot hold out %d of %d rows", m, n)
	}
	rnd, err := a.Rand()
	if err != nil {
		return nil, nil, err
	}
	perm := rnd.Perm(n)
	held := append([]int(nil), perm[:m]...)
	rest := append([]int(nil), perm[m:]...)
	sort.Ints(held)
	sort.Ints(rest)
	pick := func(rows []int) *mat.Dense {
		out := mat.NewDense(len(rows), d, nil)
		for i, r := range rows {
			out.SetRow(i, x.RawRowView(r))
		}
		return out
	}
	return pick(rest), pick(held), nil
}

// tuneScore builds the held-out score (higher is better).
func tuneScore(a *eval.Args, score string, valid *mat.Dense) (func(rkst.Density) (float64, error), error) {
	nv, cols := valid.Dims()
	logpdf := func(d rkst.Density, x *mat.Dense) ([]float64, error) {
		r, _ := x.Dims()
		out := make([]float64, r)
		return out, d.LogPDF(out, x)
	}
	switch score {
	case "auc":
		if !a.Given("novel") {
			return nil, a.Errorf("score", `score "auc" needs novel: a 0/1 vector marking the novel rows of valid`)
		}
		novel, err := zeroOne(a, "novel")
		if err != nil {
			return nil, err
		}
		if len(novel) != nv {
			return nil, a.Errorf("novel", "novel has %d values but valid has %d rows", len(novel), nv)
		}
		return func(d rkst.Density) (float64, error) {
			lp, err := logpdf(d, valid)
			if err != nil {
				return 0, err
			}
			for i := range lp {
				lp[i] = -lp[i]
			}
			return stats.AUC(lp, novel)
		}, nil
	case "error":
		if !a.Given("labels") {
			return nil, a.Errorf("score", `score "error" needs labels, as in classify`)
		}
		labels, err := labelValues(a, "labels")
		if err != nil {
			return nil, err
		}
		k := len(labels)
		if cols <= k {
			return nil, a.Errorf("valid", "valid has %d columns, too few for features and %d one-hot labels", cols, k)
		}
		p := cols - k
		truth := make([]int, nv)
		for i := 0; i < nv; i++ {
			truth[i] = -1
			for j, v := range valid.RawRowView(i)[p:] {
				if v == 1 && truth[i] < 0 {
					truth[i] = j
				} else if v != 0 {
					return nil, a.Errorf("valid", "row %d of valid does not end in a one-hot label of %d columns", i+1, k)
				}
			}
			if truth[i] < 0 {
				return nil, a.Errorf("valid", "row %d of valid does not end in a one-hot label of %d columns", i+1, k)
			}
		}
		feat := mat.DenseCopyOf(valid.Slice(0, nv, 0, p))
		return func(d rkst.Density) (float64, error) {
			got, _, err := rkst.Classify(d, feat, k)
			if err != nil {
				return 0, err
			}
			wrong := 0
			for i := range got {
				if got[i] != truth[i] {
					wrong++
				}
			}
			return -float64(wrong) / float64(nv), nil
		}, nil
	case "logpdf":
		if !a.Given("window") {
			return nil, a.Errorf("score", `score "logpdf" needs window: [lo, hi], the interval over which each density is normalised (kst with a shift-invariant kernel is not normalisable on the whole line)`)
		}
		var w []float64
		if err := a.Unpack("window", &w); err != nil {
			return nil, err
		}
		if len(w) != 2 || !(w[0] < w[1]) || math.IsInf(w[0], 0) || math.IsInf(w[1], 0) {
			return nil, a.Errorf("window", "window must be [lo, hi] with finite lo < hi")
		}
		if cols != 1 {
			return nil, a.Errorf("score", `score "logpdf" needs one-dimensional data (the normaliser is found by quadrature); valid has %d columns`, cols)
		}
		for i := 0; i < nv; i++ {
			if v := valid.At(i, 0); v < w[0] || v > w[1] {
				return nil, a.Errorf("window", "held-out point %s lies outside the window", eval.FormatNumber(v))
			}
		}
		return func(d rkst.Density) (float64, error) {
			lz, err := rkst.LogNormaliser1D(d, w[0], w[1], quadPoints)
			if err != nil {
				return 0, err
			}
			lp, err := logpdf(d, valid)
			if err != nil {
				return 0, err
			}
			s := 0.0
			for _, v := range lp {
				s += v - lz
			}
			return s / float64(nv), nil
		}, nil
	}
	return nil, a.Errorf("score", `score must be "auc", "error" or "logpdf", got %q`, score)
}
