package inference

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"

	"gonum.org/v1/gonum/optimize"

	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/progress"
	"github.com/kml-lang/kml/runtime/rng"
)

// Settings configure Maximize. The zero value works.
type Settings struct {
	// Starts is the number of seeded starting points; default 1.
	Starts int
	// Seed seeds the starting points: start s draws from its own stream.
	Seed uint64
	// Init is the first start (unconstrained); NaN entries, and every
	// entry of later starts, are drawn uniformly in (−2, 2). Nil: all drawn.
	Init []float64
	// Fixed marks coordinates held at their Init value.
	Fixed []bool
	// MaxIterations bounds L-BFGS iterations per start; default 1000.
	MaxIterations int
	// GradTol stops a start when the largest free gradient component is
	// below it; default 1e-6.
	GradTol float64
	// Workers bounds the starts run at once; default GOMAXPROCS.
	Workers int
	// LineSearchMax caps the objective evaluations of one line search
	// (LineSearch); 0 is DefaultLineSearchMax, < 0 no cap.
	LineSearchMax int
}

// StartResult is the outcome of one start.
type StartResult struct {
	X          []float64
	Value      float64
	Converged  bool
	Iterations int
	// Evaluations counts the log densities the start asked for at points
	// it had not just evaluated: the search for a finite start and
	// L-BFGS's (its calls for a value and a gradient at one point are one).
	Evaluations int
	Status      string
	Err         error
}

// Result is the best start and the record of all of them.
type Result struct {
	X          []float64
	Value      float64
	GradNorm   float64
	Converged  bool
	Iterations int
	// Evaluations is the sum of the starts' Evaluations.
	Evaluations int
	// Status is the best start's reason for stopping.
	Status string
	Starts []StartResult
}

// Maximize finds a maximum of the objective by L-BFGS (gonum/optimize) from
// each start, in parallel, and keeps the best. A start whose log density is
// not finite at its initial point redraws it, up to InitTries times, as Stan
// does. A cancelled ctx stops every start and Maximize returns ctx.Err().
// ctx's progress reporter shows the iterations, log density and gradient
// norm of one start from its first evaluation, or the starts done and the
// iterations of several (optprogress.go).
func Maximize(ctx context.Context, newObj func() (Model, error), s Settings) (*Result, error) {
	if s.Starts <= 0 {
		s.Starts = 1
	}
	if s.MaxIterations <= 0 {
		s.MaxIterations = 1000
	}
	if s.GradTol <= 0 {
		s.GradTol = 1e-6
	}
	if s.Workers <= 0 {
		s.Workers = runtime.GOMAXPROCS(0)
	}
	if s.LineSearchMax == 0 {
		s.LineSearchMax = DefaultLineSearchMax
	}
	objs, err := NewModels(newObj, min(s.Workers, s.Starts))
	if err != nil {
		return nil, err
	}
	dim := objs[0].Dim()
	if s.Init != nil && len(s.Init) != dim || s.Fixed != nil && len(s.Fixed) != dim {
		panic(fmt.Sprintf("inference: Init and Fixed need %d values", dim))
	}
	res := &Result{Starts: make([]StartResult, s.Starts)}
	prog := startOptProgress(ctx, s.Starts)
	panics := ForEach(objs, s.Starts, func(k int, o Model) {
		defer prog.done()
		res.Starts[k] = runStart(ctx, o, k, s, prog.recorder())
	})
	prog.end()
	for k, err := range panics {
		if err != nil {
			res.Starts[k] = StartResult{Err: err, Value: math.NaN()}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	best := -1
	for k, st := range res.Starts {
		if st.Err != nil || math.IsNaN(st.Value) {
			continue
		}
		if best < 0 || st.Value > res.Starts[best].Value {
			best = k
		}
	}
	if best < 0 {
		return nil, fmt.Errorf("every start failed; the first: %w", res.Starts[0].Err)
	}
	for _, st := range res.Starts {
		res.Evaluations += st.Evaluations
	}
	b := res.Starts[best]
	res.X, res.Value, res.Converged, res.Iterations, res.Status = b.X, b.Value, b.Converged, b.Iterations, b.Status
	for _, st := range res.Starts {
		res.Evaluations += st.Evaluations
	}
	grad := make([]float64, dim)
	if _, err := objs[0].LogDensity(grad, b.X); err == nil {
		for i, g := range grad {
			if s.Fixed == nil || !s.Fixed[i] {
				res.GradNorm = math.Max(res.GradNorm, math.Abs(g))
			}
		}
	}
	return res, nil
}

// runStart optimises from start k over the free coordinates; rec, when
// not nil, records its evaluations and iterations (the progress line).
func runStart(ctx context.Context, o Model, k int, s Settings, rec optimize.Recorder) StartResult {
	dim := o.Dim()
	rnd := rng.New(s.Seed, rng.OptimizeStart.Index(k))
	grad := make([]float64, dim)
	var freeIdx []int
	for i := 0; i < dim; i++ {
		if s.Fixed == nil || !s.Fixed[i] {
			freeIdx = append(freeIdx, i)
		}
	}
	// The first start keeps Init's values; fixed coordinates keep them
	// always; the rest are drawn.
	fixed := make([]float64, dim)
	for i := range fixed {
		fixed[i] = math.NaN()
		if s.Fixed != nil && s.Fixed[i] || k == 0 && s.Init != nil {
			fixed[i] = s.Init[i]
		}
	}
	full, tries, lastErr := drawInit(o, fixed, rnd, 2, false)
	evals := int(tries)
	if full == nil {
		msg := "no starting point with a finite log density after 100 draws in (-2, 2)"
		if lastErr != nil {
			msg += ": " + lastErr.Error()
		}
		return StartResult{Err: errors.New(msg), Value: math.NaN()}
	}
	if len(freeIdx) == 0 {
		lp, err := o.LogDensity(grad, full)
		return StartResult{X: append([]float64(nil), full...), Value: lp, Converged: true, Err: err}
	}
	// gonum minimises; Func and Grad share one evaluation through a cache.
	var cacheX []float64
	var cacheF float64
	cacheG := make([]float64, dim)
	eval := func(x []float64) float64 {
		if ctx.Err() != nil {
			return math.Inf(1) // fails every line search, ending the run
		}
		if cacheX != nil && equal(cacheX, x) {
			return cacheF
		}
		for j, i := range freeIdx {
			full[i] = x[j]
		}
		// gonum calls this on a goroutine of its own, which nothing
		// else guards: a panic (a bug in a model, or a dense kernel
		// stopped by runtime/interrupt) must become an error here.
		evals++
		lp, err := safeEval(o, grad, full)
		if err != nil || math.IsNaN(lp) {
			lp = math.Inf(-1)
		}
		cacheX = append(cacheX[:0], x...)
		cacheF = -lp
		copy(cacheG, grad)
		return cacheF
	}
	prob := optimize.Problem{
		Func: eval,
		Grad: func(g, x []float64) {
			eval(x)
			for j, i := range freeIdx {
				g[j] = -cacheG[i]
			}
		},
	}
	x0 := make([]float64, len(freeIdx))
	for j, i := range freeIdx {
		x0[j] = full[i]
	}
	settings := &optimize.Settings{
		GradientThreshold: s.GradTol,
		MajorIterations:   s.MaxIterations,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-12, Relative: 1e-12, Iterations: 50},
		Recorder:          rec,
	}
	ls := &LineSearch{Max: max(s.LineSearchMax, 0)}
	r, err := optimize.Minimize(prob, x0, settings, &optimize.LBFGS{Linesearcher: ls})
	if ctx.Err() != nil {
		return StartResult{Err: ctx.Err(), Value: math.NaN()}
	}
	if r == nil {
		return StartResult{Err: err, Value: math.NaN()}
	}
	for j, i := range freeIdx {
		full[i] = r.X[j]
	}
	st := StartResult{X: append([]float64(nil), full...), Value: -r.F, Iterations: r.MajorIterations, Evaluations: evals, Status: r.Status.String()}
	st.Converged = r.Status == optimize.GradientThreshold || r.Status == optimize.FunctionConvergence
	switch {
	case errors.Is(err, ErrRoundingLimit):
		// The last search found no step that changes the objective beyond
		// its rounding error: as converged as the objective can tell.
		st.Converged, st.Status = true, "RoundingLimit"
	case errors.Is(err, ErrLineSearchMax):
		st.Status += fmt.Sprintf(": %v (maxls = %d)", err, ls.Max)
	case err != nil && !st.Converged:
		st.Status += ": " + err.Error()
	}
	if math.IsInf(r.F, 0) || math.IsNaN(r.F) {
		st.Err = fmt.Errorf("the optimiser ended where the log density is not finite (%s)", st.Status)
	}
	return st
}

func equal(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Profile evaluates the log density at each point, in parallel over at most
// workers objectives (default GOMAXPROCS). Points where the density is zero
// or cannot be evaluated give −Inf. A cancelled ctx stops the evaluation
// and Profile returns ctx.Err(). The points are counted as "points" on
// ctx's progress reporter.
func Profile(ctx context.Context, newObj func() (Model, error), points [][]float64, workers int) ([]float64, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(points)))
	objs, err := NewModels(newObj, workers)
	if err != nil {
		return nil, err
	}
	type worker struct {
		o    Model
		grad []float64
	}
	var taken atomic.Int64
	newWorker := func() worker {
		o := objs[taken.Add(1)-1]
		return worker{o, make([]float64, o.Dim())}
	}
	out := make([]float64, len(points))
	task := progress.Start(ctx, "points", len(points))
	defer task.Done()
	par.Each(len(points), 1, workers, newWorker, func(w worker, i, _, _ int) {
		if ctx.Err() != nil {
			return
		}
		defer task.Add(1)
		lp, err := safeEval(w.o, w.grad, points[i])
		if err != nil || math.IsNaN(lp) {
			lp = math.Inf(-1)
		}
		out[i] = lp
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// safeEval evaluates o, turning a panic (a bug in a model) into an error.
func safeEval(o Model, grad, q []float64) (lp float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return o.LogDensity(grad, q)
}
