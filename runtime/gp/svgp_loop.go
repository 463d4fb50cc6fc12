package gp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/rng"
)

// The pieces of a stochastic variational fit that the one-GP (SVGP) and
// the C-class (SVGPMulti) fits share: the settings' checks, the
// minibatches and Adam on the logarithms of the learnt parameters. Each
// Fit keeps only what differs, its q(u) states, expectations and
// natural-gradient steps.

// check refuses settings no fit can take.
func (set SVGPSettings) check() error {
	if !(set.Gamma > 0 && set.Gamma <= 1) {
		return fmt.Errorf("gp: SVGP's natural-gradient step size must be in (0, 1], got %g", set.Gamma)
	}
	if set.Steps < 0 || set.LR < 0 {
		return fmt.Errorf("gp: SVGP needs steps ≥ 0 and lr ≥ 0, got %d and %g", set.Steps, set.LR)
	}
	return nil
}

// minibatches deals the rows of x (labels y) out in seeded shuffles, b
// rows at a time; with b = n every step takes every row in order.
type minibatches[T any] struct {
	x    *mat.Dense
	y    []T
	b    int
	src  *rand.PCG // rnd's generator, whose state clone copies
	rnd  *rand.Rand
	perm []int
	pos  int // the next row of perm; n: a shuffle before the next batch
	xb   *mat.Dense
	yb   []T
}

// newMinibatches deals batches of set.Batch rows (0 or at least n: all of
// them) from the stream of set.Seed.
func newMinibatches[T any](x *mat.Dense, y []T, set SVGPSettings) *minibatches[T] {
	n, d := x.Dims()
	mb := &minibatches[T]{x: x, y: y, b: set.Batch, pos: n}
	if mb.b <= 0 || mb.b > n {
		mb.b = n
		return mb
	}
	mb.src = rng.Source(set.Seed, rng.SVGP)
	mb.rnd = rand.New(mb.src)
	mb.perm = make([]int, n)
	for i := range mb.perm {
		mb.perm[i] = i
	}
	mb.xb, mb.yb = mat.NewDense(mb.b, d, nil), make([]T, mb.b)
	return mb
}

// clone is an independent copy of mb at its place in its shuffles.
func (mb *minibatches[T]) clone() *minibatches[T] {
	c := &minibatches[T]{x: mb.x, y: mb.y, b: mb.b, pos: mb.pos}
	if mb.src == nil {
		return c
	}
	src := *mb.src
	c.src = &src
	c.rnd = rand.New(c.src)
	c.perm = append([]int(nil), mb.perm...)
	_, d := mb.x.Dims()
	c.xb, c.yb = mat.NewDense(c.b, d, nil), make([]T, c.b)
	return c
}

// next is the next batch's rows and labels (x and y themselves when every
// row is in every batch; otherwise buffers reused by the following call).
func (mb *minibatches[T]) next() (*mat.Dense, []T) {
	n := len(mb.y)
	if mb.b == n {
		return mb.x, mb.y
	}
	if mb.pos+mb.b > n {
		mb.rnd.Shuffle(n, func(i, j int) { mb.perm[i], mb.perm[j] = mb.perm[j], mb.perm[i] })
		mb.pos = 0
	}
	for i := 0; i < mb.b; i++ {
		r := mb.perm[mb.pos+i]
		copy(mb.xb.RawRowView(i), mb.x.RawRowView(r))
		mb.yb[i] = mb.y[r]
	}
	mb.pos += mb.b
	return mb.xb, mb.yb
}

// logAdam is Adam (β₁ = 0.9, β₂ = 0.999, ε = 10⁻⁸) on the logarithms of
// the positive parameters it learns.
type logAdam struct {
	learn  []bool
	am, av []float64
	t      int
}

// newLogAdam learns, of the parameters par, those learn says (nil: every
// positive one); a learnt parameter must be positive.
func newLogAdam(par []float64, learn []bool) (*logAdam, error) {
	if learn != nil && len(learn) != len(par) {
		return nil, fmt.Errorf("gp: SVGP's Learn has %d entries for %d parameters", len(learn), len(par))
	}
	a := &logAdam{learn: make([]bool, len(par)), am: make([]float64, len(par)), av: make([]float64, len(par))}
	for j, v := range par {
		a.learn[j] = v > 0
		if learn != nil {
			if learn[j] && !(v > 0) {
				return nil, fmt.Errorf("gp: SVGP learns positive parameters on the log scale; parameter %d is %g", j+1, v)
			}
			a.learn[j] = learn[j]
		}
	}
	return a, nil
}

// clone is an independent copy of a.
func (a *logAdam) clone() *logAdam {
	return &logAdam{learn: append([]bool(nil), a.learn...), am: append([]float64(nil), a.am...), av: append([]float64(nil), a.av...), t: a.t}
}

// step moves par (in place) by one Adam step of size lr on log par, from
// grad, the gradient in par itself.
func (a *logAdam) step(par, grad []float64, lr float64) {
	const beta1, beta2, eps = 0.9, 0.999, 1e-8
	a.t++
	c1 := 1 - math.Pow(beta1, float64(a.t))
	c2 := 1 - math.Pow(beta2, float64(a.t))
	for j := range par {
		if !a.learn[j] {
			continue
		}
		gj := grad[j] * par[j] // ∂/∂log p
		a.am[j] = beta1*a.am[j] + (1-beta1)*gj
		a.av[j] = beta2*a.av[j] + (1-beta2)*gj*gj
		par[j] *= math.Exp(lr * (a.am[j] / c1) / (math.Sqrt(a.av[j]/c2) + eps))
	}
}

// ErrResume is the error of a Fit with SVGPSettings.Resume that cannot
// continue the previous one.
var ErrResume = errors.New("the SVGP fit cannot be resumed")

// svgpLoop is what a stochastic variational fit carries from one Fit to
// the next so that a resumed fit (SVGPSettings.Resume) continues as if it
// had not stopped: Adam's moments and step count, the minibatches' place
// in their shuffles, and the settings that must not change on the way.
type svgpLoop[T any] struct {
	adam    *logAdam
	batches *minibatches[T]
	n       int
	set     SVGPSettings // Batch, Quad, Seed and Learn as started
	steps   int          // steps taken, over every Fit
}

// startLoop returns the loop a Fit on x and y with set runs: a new one
// from the parameters par, or, when set.Resume, prev continued (prev may
// not be nil and must have the same rows and settings).
func startLoop[T any](prev *svgpLoop[T], x *mat.Dense, y []T, par []float64, set SVGPSettings) (*svgpLoop[T], error) {
	n, _ := x.Dims()
	if !set.Resume {
		adam, err := newLogAdam(par, set.Learn)
		if err != nil {
			return nil, err
		}
		return &svgpLoop[T]{adam: adam, batches: newMinibatches(x, y, set), n: n, set: set}, nil
	}
	if prev == nil {
		return nil, fmt.Errorf("%w: this SVGP has not been fitted", ErrResume)
	}
	old := prev.set
	if prev.n != n || old.Batch != set.Batch || old.Quad != set.Quad || old.Seed != set.Seed || !slices.Equal(old.Learn, set.Learn) {
		return nil, fmt.Errorf("%w: a resumed fit needs the rows, batch, seed, quadrature and learnt parameters it started with (it had %d rows, batch %d, seed %d)", ErrResume, prev.n, old.Batch, old.Seed)
	}
	prev.batches.x, prev.batches.y = x, y
	return prev, nil
}

// clone is an independent copy of l (nil for nil).
func (l *svgpLoop[T]) clone() *svgpLoop[T] {
	if l == nil {
		return nil
	}
	return &svgpLoop[T]{adam: l.adam.clone(), batches: l.batches.clone(), n: l.n, set: l.set, steps: l.steps}
}
