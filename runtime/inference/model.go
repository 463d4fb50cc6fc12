package inference

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
)

// Model is a differentiable log density on R^Dim (the unconstrained scale):
// what NUTS samples, L-BFGS maximises and Pathfinder approximates. One Model
// value is used by one goroutine at a time; the methods that run in
// parallel ask a factory for one Model per worker.
type Model interface {
	Dim() int
	// LogDensity returns log p(q) up to a constant and writes ∇ log p(q)
	// into grad. A non-finite value or a non-nil error means q is outside
	// the support or numerically unusable: samplers treat it as a
	// divergence and initialisation rejects it as a starting point.
	LogDensity(grad, q []float64) (float64, error)
}

// NewModels calls newModel n times.
func NewModels(newModel func() (Model, error), n int) ([]Model, error) {
	models := make([]Model, n)
	for i := range models {
		m, err := newModel()
		if err != nil {
			return nil, err
		}
		models[i] = m
	}
	return models, nil
}

// ForEach runs body(k, m) for k = 0..n−1, each in its own goroutine and
// each holding one of models that no other call holds meanwhile (so at most
// len(models) run at once). A panic in body (a bug in a model) is recovered:
// panics[k] is then "internal error: …", and nil otherwise.
func ForEach(models []Model, n int, body func(k int, m Model)) (panics []error) {
	panics = make([]error, n)
	free := make(chan Model, len(models))
	for _, m := range models {
		free <- m
	}
	var wg sync.WaitGroup
	for k := 0; k < n; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			m := <-free
			defer func() { free <- m }()
			defer func() {
				if r := recover(); r != nil {
					panics[k] = fmt.Errorf("internal error: %v", r)
				}
			}()
			body(k, m)
		}(k)
	}
	wg.Wait()
	return panics
}

// InitTries is how many uniform draws initialisation makes before it gives
// up, as Stan does.
const InitTries = 100

// UniformInit draws a starting point with each free coordinate (NaN in
// fixed, or every one when fixed is nil) uniform in (−radius, radius) and
// the others at their fixed values, retrying up to InitTries times until the
// log density and its gradient are finite. It returns the point and the
// number of evaluations.
func UniformInit(m Model, fixed []float64, rng *rand.Rand, radius float64) ([]float64, int64, error) {
	q, evals, lastErr := drawInit(m, fixed, rng, radius, true)
	if q != nil {
		return q, evals, nil
	}
	msg := fmt.Sprintf("hmc: no initial point with a finite log density and gradient after 100 uniform draws in (%g, %g)", -radius, radius)
	if lastErr != nil {
		msg += ": " + lastErr.Error()
	}
	return nil, evals, errors.New(msg)
}

// drawInit is UniformInit's loop; with finiteGrad false only the log
// density must be finite. It returns a nil point, the number of evaluations
// and the last error when every draw fails.
func drawInit(m Model, fixed []float64, rng *rand.Rand, radius float64, finiteGrad bool) ([]float64, int64, error) {
	dim := m.Dim()
	q := make([]float64, dim)
	grad := make([]float64, dim)
	var evals int64
	var lastErr error
	for try := 0; try < InitTries; try++ {
		for i := range q {
			if fixed != nil && !math.IsNaN(fixed[i]) {
				q[i] = fixed[i]
			} else {
				q[i] = radius * (2*rng.Float64() - 1)
			}
		}
		evals++
		lp, err := m.LogDensity(grad, q)
		if err == nil && finite(lp) && (!finiteGrad || allFinite(grad)) {
			return q, evals, nil
		}
		lastErr = err
	}
	return nil, evals, lastErr
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func allFinite(xs []float64) bool {
	for _, x := range xs {
		if !finite(x) {
			return false
		}
	}
	return true
}
