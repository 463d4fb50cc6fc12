package hmc

import "math"

// dualAverage adapts the step size towards a target mean acceptance
// statistic by Nesterov dual averaging of log ε (Hoffman & Gelman 2014,
// with Stan's constants γ = 0.05, t0 = 10, κ = 0.75).
type dualAverage struct {
	delta, mu    float64
	counter      float64
	sBar, xBar   float64
	gamma, t0, k float64
}

func newDualAverage(delta float64) *dualAverage {
	return &dualAverage{delta: delta, gamma: 0.05, t0: 10, k: 0.75}
}

func (a *dualAverage) restart(eps float64) {
	a.counter, a.sBar, a.xBar = 0, 0, 0
	a.mu = math.Log(10 * eps)
}

// learn updates ε after a transition with acceptance statistic stat.
func (a *dualAverage) learn(eps *float64, stat float64) {
	a.counter++
	stat = math.Min(stat, 1)
	eta := 1 / (a.counter + a.t0)
	a.sBar = (1-eta)*a.sBar + eta*(a.delta-stat)
	x := a.mu - a.sBar*math.Sqrt(a.counter)/a.gamma
	xEta := math.Pow(a.counter, -a.k)
	a.xBar = (1-xEta)*a.xBar + xEta*x
	*eps = math.Exp(x)
}

// final is the step size used after warm-up.
func (a *dualAverage) final() float64 { return math.Exp(a.xBar) }

// windows schedules Stan's windowed warm-up: a fast initial buffer (step
// size only), slow windows that double in length and each end with a new
// metric, and a fast terminal buffer. With fewer than 150 warm-up iterations
// the stages shrink to 15%, 75% and 10% of the warm-up, as in Stan.
type windows struct {
	numWarmup                          int
	initBuffer, termBuffer, baseWindow int
	counter, windowSize, nextWindow    int
}

func newWindows(numWarmup int) *windows {
	w := &windows{numWarmup: numWarmup, initBuffer: 75, termBuffer: 50, baseWindow: 25}
	if numWarmup < 20 {
		// Too short to estimate a metric: step size adaptation only.
		w.initBuffer, w.termBuffer, w.baseWindow = numWarmup, 0, 0
	} else if w.initBuffer+w.baseWindow+w.termBuffer > numWarmup {
		w.initBuffer = int(0.15 * float64(numWarmup))
		w.termBuffer = int(0.1 * float64(numWarmup))
		w.baseWindow = numWarmup - (w.initBuffer + w.termBuffer)
	}
	w.windowSize = w.baseWindow
	w.nextWindow = w.initBuffer + w.windowSize - 1
	return w
}

// inWindow reports whether the current iteration feeds the metric estimate.
func (w *windows) inWindow() bool {
	return w.baseWindow > 0 && w.counter >= w.initBuffer && w.counter < w.numWarmup-w.termBuffer && w.counter != w.numWarmup
}

// endOfWindow reports whether the current iteration closes a slow window.
func (w *windows) endOfWindow() bool {
	return w.baseWindow > 0 && w.counter == w.nextWindow && w.counter != w.numWarmup
}

func (w *windows) computeNextWindow() {
	if w.nextWindow == w.numWarmup-w.termBuffer-1 {
		return
	}
	w.windowSize *= 2
	w.nextWindow = w.counter + w.windowSize
	if w.nextWindow != w.numWarmup-w.termBuffer-1 {
		if w.nextWindow+2*w.windowSize >= w.numWarmup-w.termBuffer {
			w.nextWindow = w.numWarmup - w.termBuffer - 1
		}
	}
}

// covEstimator accumulates Welford's running mean and (co)variance.
type covEstimator struct {
	dense bool
	dim   int
	n     float64
	mean  []float64
	m2    []float64 // dim (diagonal) or dim×dim
	delta []float64
}

func newCovEstimator(dim int, dense bool) *covEstimator {
	e := &covEstimator{dense: dense, dim: dim, mean: make([]float64, dim), delta: make([]float64, dim)}
	if dense {
		e.m2 = make([]float64, dim*dim)
	} else {
		e.m2 = make([]float64, dim)
	}
	return e
}

func (e *covEstimator) restart() {
	e.n = 0
	clear(e.mean)
	clear(e.m2)
}

func (e *covEstimator) add(q []float64) {
	e.n++
	for i, x := range q {
		e.delta[i] = x - e.mean[i]
		e.mean[i] += e.delta[i] / e.n
	}
	if !e.dense {
		for i, x := range q {
			e.m2[i] += e.delta[i] * (x - e.mean[i])
		}
		return
	}
	d := e.dim
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			e.m2[i*d+j] += e.delta[i] * (q[j] - e.mean[j])
		}
	}
}

// regularised returns the sample (co)variance shrunk towards 1e-3·I as Stan
// does: (n/(n+5))·Σ + 1e-3·(5/(n+5))·I.
func (e *covEstimator) regularised() []float64 {
	n := e.n
	out := make([]float64, len(e.m2))
	w := n / (n + 5)
	for i, v := range e.m2 {
		out[i] = w * v / (n - 1)
	}
	shrink := 1e-3 * 5 / (n + 5)
	if e.dense {
		for i := 0; i < e.dim; i++ {
			out[i*e.dim+i] += shrink
		}
	} else {
		for i := range out {
			out[i] += shrink
		}
	}
	return out
}
