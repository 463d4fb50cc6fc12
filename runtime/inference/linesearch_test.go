package inference

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/optimize"
)

// minimise runs gonum's L-BFGS on −f with the given line search and
// returns the result, the error and the number of evaluations.
func minimise(f fn, x0 []float64, ls optimize.Linesearcher) (*optimize.Result, error, int) {
	evals := 0
	g := make([]float64, f.d)
	prob := optimize.Problem{
		Func: func(x []float64) float64 { evals++; return -f.f(g, x) },
		Grad: func(grad, x []float64) {
			f.f(grad, x)
			for i := range grad {
				grad[i] = -grad[i]
			}
		},
	}
	settings := &optimize.Settings{GradientThreshold: 1e-12,
		Converger: &optimize.FunctionConverge{Absolute: 1e-12, Relative: 1e-12, Iterations: 50}}
	r, err := optimize.Minimize(prob, x0, settings, &optimize.LBFGS{Linesearcher: ls})
	return r, err, evals
}

// With both stops off, LineSearch is gonum's Bisection: the same path,
// point for point, on Rosenbrock's function from three starts.
func TestLineSearchWithoutStopsIsBisection(t *testing.T) {
	for _, x0 := range [][]float64{{-1.2, 1}, {0.3, -0.8}, {2, 2}} {
		rg, errG, eg := minimise(rosenbrock, slices.Clone(x0), &optimize.Bisection{})
		rk, errK, ek := minimise(rosenbrock, slices.Clone(x0), &LineSearch{Tol: -1})
		if eg != ek || !slices.Equal(rg.X, rk.X) || rg.F != rk.F || rg.Status != rk.Status || (errG == nil) != (errK == nil) {
			t.Errorf("from %v: Bisection %v F %v (%d evaluations, %v, %v), LineSearch %v F %v (%d, %v, %v)",
				x0, rg.X, rg.F, eg, rg.Status, errG, rk.X, rk.F, ek, rk.Status, errK)
		}
	}
}

// noisy is the quadratic with a deterministic rounding-like perturbation
// of relative size 1e-14 and an offset, so the objective's last digits
// are noise, as a sum of many terms' are: gonum's bisection then halves
// its last bracket until the step is one floating-point number wide.
var noisy = fn{2, func(grad, q []float64) float64 {
	v := quadratic.f(grad, q) - 1000
	h := math.Float64bits(q[0])*0x9E3779B97F4A7C15 ^ math.Float64bits(q[1])*0xC2B2AE3D27D4EB4F
	return v * (1 + 1e-14*(float64(h>>11)/(1<<53)-0.5))
}}

// The rounding stop ends the noisy quadratic's fit at its maximum with
// far fewer evaluations than the bisection, which ends it by failure; the
// cap bounds every search's evaluations.
func TestLineSearchStops(t *testing.T) {
	x0 := []float64{-3, 4}
	rg, errG, eg := minimise(noisy, slices.Clone(x0), &LineSearch{Tol: -1})
	ls := &LineSearch{}
	rk, errK, ek := minimise(noisy, slices.Clone(x0), ls)
	if !errors.Is(errK, ErrRoundingLimit) {
		t.Fatalf("LineSearch ended with %v (%v), want the rounding stop", errK, rk.Status)
	}
	for _, r := range []*optimize.Result{rg, rk} {
		if math.Abs(r.X[0]-1.5) > 1e-6 || math.Abs(r.X[1]+0.5) > 1e-6 {
			t.Errorf("ended at %v, want (1.5, -0.5)", r.X)
		}
	}
	t.Logf("bisection: %d evaluations (%v); rounding stop: %d, longest search %d", eg, errG, ek, ls.maxEvals)
	if ek >= eg-20 {
		t.Errorf("the rounding stop took %d evaluations, the bisection (%v) %d", ek, errG, eg)
	}
	if ls.maxEvals > 20 {
		t.Errorf("a search made %d evaluations before the rounding stop", ls.maxEvals)
	}
	capped := &LineSearch{Max: 5, Tol: -1}
	_, errC, _ := minimise(noisy, slices.Clone(x0), capped)
	if !errors.Is(errC, ErrLineSearchMax) || capped.maxEvals != 5 {
		t.Errorf("capped at 5: ended with %v after a search of %d evaluations", errC, capped.maxEvals)
	}
	// Maximize counts the rounding stop as converged.
	r, err := Maximize(context.Background(), of(noisy), Settings{Init: x0, GradTol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Converged || r.Status != "RoundingLimit" {
		t.Errorf("Maximize: converged %v, status %q", r.Converged, r.Status)
	}
}
