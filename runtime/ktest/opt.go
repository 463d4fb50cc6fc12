package ktest

import (
	"context"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/progress"
	"github.com/kml-lang/kml/runtime/rng"
)

// OptOptions are the settings of the "opt" kernel choice. The zero value
// is the default.
type OptOptions struct {
	// Train is the fraction of each sample (MMD) or of the pairs (HSIC)
	// on which the lengthscale is chosen; the rest is tested. Default
	// DefaultOptTrain.
	Train float64
	// Lambda is the regulariser λ of the criterion U/√(σ̂² + λ); default
	// DefaultOptLambda.
	Lambda float64
}

// DefaultOptTrain is the default training fraction: half, as in
// Sutherland et al. (2017) and Liu et al. (2020).
const DefaultOptTrain = 0.5

// The lengthscale search of "opt": OptGrid values log-spaced over
// OptDecades decades, from c·10⁻² to c·10 with c the median heuristic of
// the training part, then optRefine golden-section steps on log ℓ between
// the best grid value's neighbours.
const (
	OptGrid   = 31
	optLow    = 1e-2
	optHigh   = 10
	optRefine = 12
	// optRounds is the number of sweeps over (ℓ_x, ℓ_y) when HSIC
	// chooses both lengthscales (coordinate ascent).
	optRounds = 2
)

// OptInfo is what the "opt" choice reports: the split, the regulariser,
// the criterion at the chosen lengthscale and its profile along the last
// search over this lengthscale.
type OptInfo struct {
	Train float64
	// TrainRows and TestRows: MMD the rows of x and of y in each part;
	// HSIC the pairs (both entries).
	TrainRows, TestRows [2]int
	Lambda              float64
	Criterion           Criterion
	Grid, Profile       []float64
}

func (o OptOptions) withDefaults() (OptOptions, error) {
	if o.Train == 0 {
		o.Train = DefaultOptTrain
	}
	if !(o.Train > 0 && o.Train < 1) {
		return o, fmt.Errorf("the training fraction must be between 0 and 1, got %g", o.Train)
	}
	if o.Lambda == 0 {
		o.Lambda = DefaultOptLambda
	}
	if !(o.Lambda > 0) || math.IsInf(o.Lambda, 0) {
		return o, fmt.Errorf("the criterion's regulariser must be positive, got %g", o.Lambda)
	}
	return o, nil
}

// trainCount is how many of n rows train: round(f·n), at least lo and
// leaving at least lo.
func trainCount(n int, f float64, lo int, what string) (int, error) {
	t := int(math.Round(f * float64(n)))
	t = max(lo, min(t, n-lo))
	if n < 2*lo {
		return 0, fmt.Errorf("opt splits %s into a training and a test part of at least %d rows each; it has %d", what, lo, n)
	}
	return t, nil
}

// splitRows puts a seeded random choice of t of x's rows (in their order)
// in the training part and the rest in the test part.
func splitRows(x *mat.Dense, t int, perm []int) (train, test *mat.Dense) {
	n, d := x.Dims()
	chosen := append([]int(nil), perm[:t]...)
	sort.Ints(chosen)
	train, test = mat.NewDense(t, d, nil), mat.NewDense(n-t, d, nil)
	next, r := 0, 0
	for i := 0; i < n; i++ {
		if next < t && chosen[next] == i {
			train.SetRow(next, x.RawRowView(i))
			next++
			continue
		}
		test.SetRow(r, x.RawRowView(i))
		r++
	}
	return train, test
}

// optGrid is the search grid around scale c.
func optGrid(c float64) []float64 {
	g := make([]float64, OptGrid)
	for i := range g {
		g[i] = c * optLow * math.Pow(optHigh/optLow, float64(i)/float64(OptGrid-1))
	}
	return g
}

// search maximises f over the grid around c, then refines between the best
// grid value's neighbours by golden section on log ℓ. It returns the best
// ℓ found, its value, and f along the grid. task counts the evaluations.
func search(ctx context.Context, task *progress.Task, c float64, f func(ell float64) float64) (float64, float64, []float64, []float64, error) {
	grid := optGrid(c)
	prof := make([]float64, len(grid))
	best := 0
	for i, ell := range grid {
		if err := ctx.Err(); err != nil {
			return 0, 0, nil, nil, err
		}
		prof[i] = f(ell)
		task.Add(1)
		if prof[i] > prof[best] || math.IsNaN(prof[best]) {
			best = i
		}
	}
	bestEll, bestF := grid[best], prof[best]
	a := math.Log(grid[max(best-1, 0)])
	b := math.Log(grid[min(best+1, len(grid)-1)])
	const phi = 0.6180339887498949
	c1, c2 := b-phi*(b-a), a+phi*(b-a)
	f1, f2 := f(math.Exp(c1)), f(math.Exp(c2))
	task.Add(2)
	for it := 2; it < optRefine; it++ {
		if err := ctx.Err(); err != nil {
			return 0, 0, nil, nil, err
		}
		if f1 >= f2 {
			b, c2, f2 = c2, c1, f1
			c1 = b - phi*(b-a)
			f1 = f(math.Exp(c1))
		} else {
			a, c1, f1 = c1, c2, f2
			c2 = a + phi*(b-a)
			f2 = f(math.Exp(c2))
		}
		task.Add(1)
	}
	for _, p := range []struct{ x, v float64 }{{c1, f1}, {c2, f2}} {
		if p.v > bestF {
			bestEll, bestF = math.Exp(p.x), p.v
		}
	}
	return bestEll, bestF, grid, prof, nil
}

const optEvals = OptGrid + optRefine

// MMDOptTest tests P = Q with the rbf kernel of highest estimated power:
// a seeded random fraction o.Train of x's rows and of y's rows (stream
// rng.OptSplit) is the training part, on which ℓ maximises the criterion
// of MMDCriterion (the first min rows of the two training samples paired);
// the rest is tested with rbf(ℓ) by MMDTest (method Permutation) or
// MMDGammaTest (Gamma) with s. The test part is independent of the choice,
// so the test keeps its level exactly; its power is that of a test on the
// test part only. A cancelled ctx stops it with ctx.Err().
func MMDOptTest(ctx context.Context, x, y *mat.Dense, method Method, o OptOptions, s Settings) (Result, Chosen, error) {
	o, err := o.withDefaults()
	if err != nil {
		return Result{}, Chosen{}, err
	}
	if err := kernels.CheckData(x, "the first sample"); err != nil {
		return Result{}, Chosen{}, err
	}
	if err := kernels.CheckData(y, "the second sample"); err != nil {
		return Result{}, Chosen{}, err
	}
	m, dx := x.Dims()
	n, dy := y.Dims()
	if dx != dy {
		return Result{}, Chosen{}, fmt.Errorf("the samples have different numbers of columns: %d×%d and %d×%d", m, dx, n, dy)
	}
	tx, err := trainCount(m, o.Train, 2, "the first sample")
	if err != nil {
		return Result{}, Chosen{}, err
	}
	ty, err := trainCount(n, o.Train, 2, "the second sample")
	if err != nil {
		return Result{}, Chosen{}, err
	}
	r := rng.New(s.Seed, rng.OptSplit)
	xtr, xte := splitRows(x, tx, r.Perm(m))
	ytr, yte := splitRows(y, ty, r.Perm(n))
	var pooled mat.Dense
	pooled.Stack(xtr, ytr)
	c, err := kernels.MedianHeuristic(&pooled, s.Seed)
	if err != nil {
		return Result{}, Chosen{}, err
	}
	if !(c > 0) {
		return Result{}, Chosen{}, fmt.Errorf("the median distance of the training part is 0: every pair of points coincides")
	}
	task := progress.Start(ctx, "power criterion", optEvals)
	p := newMMDPaired(xtr, ytr)
	ell, _, grid, prof, err := search(ctx, task, c, func(ell float64) float64 { return p.at(ell, o.Lambda).J })
	task.Done()
	if err != nil {
		return Result{}, Chosen{}, err
	}
	k, err := kernels.NewRBF([]float64{ell})
	if err != nil {
		return Result{}, Chosen{}, err
	}
	info := &OptInfo{Train: o.Train, TrainRows: [2]int{tx, ty}, TestRows: [2]int{m - tx, n - ty},
		Lambda: o.Lambda, Criterion: p.at(ell, o.Lambda), Grid: grid, Profile: prof}
	ch := Chosen{Kernel: k, Choice: ChoiceOpt, Ell: []float64{ell}, Opt: info}
	var res Result
	if method == Gamma {
		res, err = MMDGammaTest(k, xte, yte, s)
	} else {
		res, err = MMDTest(ctx, k, xte, yte, s)
	}
	if err != nil {
		return Result{}, Chosen{}, err
	}
	return res, ch, nil
}

// HSICOptTest tests independence of paired rows of x and y with rbf
// kernels of highest estimated power: a seeded random fraction o.Train of
// the pairs (stream rng.OptSplit) is the training part, on which the
// lengthscale of each side whose kernel is nil maximises HSICCriterion (a
// non-nil kx or ky is kept; with both nil, optRounds sweeps of coordinate
// ascent from the median heuristics); the other pairs are tested by
// HSICTest with method and s. The test keeps its level exactly, as for
// MMDOptTest. A cancelled ctx stops it with ctx.Err().
func HSICOptTest(ctx context.Context, kx, ky kernels.Kernel, x, y *mat.Dense, method Method, o OptOptions, s Settings) (Result, Chosen, Chosen, error) {
	o, err := o.withDefaults()
	if err != nil {
		return Result{}, Chosen{}, Chosen{}, err
	}
	if kx != nil && ky != nil {
		return Result{}, Chosen{}, Chosen{}, fmt.Errorf("opt needs at least one of the kernels to choose")
	}
	if err := checkPaired(x, y, Biased); err != nil {
		return Result{}, Chosen{}, Chosen{}, err
	}
	n, _ := x.Dims()
	t, err := trainCount(n, o.Train, 5, "the pairs")
	if err != nil {
		return Result{}, Chosen{}, Chosen{}, err
	}
	perm := rng.New(s.Seed, rng.OptSplit).Perm(n)
	xtr, xte := splitRows(x, t, perm)
	ytr, yte := splitRows(y, t, perm)
	type side struct {
		k    kernels.Kernel
		data *mat.Dense
		d2   []float64 // squared distances (chosen side)
		gram []float64 // the given kernel's Gram matrix (given side)
		ell  float64
		grid []float64
		prof []float64
	}
	sides := [2]*side{{k: kx, data: xtr}, {k: ky, data: ytr}}
	sweeps := 0
	for i, sd := range sides {
		if sd.k != nil {
			if sd.gram, err = kernels.GramFull(sd.k, sd.data); err != nil {
				return Result{}, Chosen{}, Chosen{}, err
			}
			continue
		}
		sweeps++
		sd.d2 = sqDists(sd.data, sd.data)
		if sd.ell, err = kernels.MedianHeuristic(sd.data, s.Seed); err != nil {
			return Result{}, Chosen{}, Chosen{}, err
		}
		if !(sd.ell > 0) {
			return Result{}, Chosen{}, Chosen{}, fmt.Errorf("%s: the median distance of the training part is 0: every pair of points coincides", [2]string{"x", "y"}[i])
		}
	}
	rounds := 1
	if sweeps == 2 {
		rounds = optRounds
	}
	kb, lb := make([]float64, t*t), make([]float64, t*t)
	fill := func(buf []float64, sd *side, ell float64) {
		if sd.k != nil {
			copy(buf, sd.gram)
		} else {
			rbfInto(buf, sd.d2, ell)
		}
	}
	crit := func(ex, ey float64) Criterion {
		fill(kb, sides[0], ex)
		fill(lb, sides[1], ey)
		return hsicCriterion(kb, lb, t, o.Lambda)
	}
	task := progress.Start(ctx, "power criterion", rounds*sweeps*optEvals)
	for round := 0; round < rounds; round++ {
		for i, sd := range sides {
			if sd.k != nil {
				continue
			}
			other := sides[1-i]
			f := func(ell float64) float64 {
				if i == 0 {
					return crit(ell, other.ell).J
				}
				return crit(other.ell, ell).J
			}
			ell, _, grid, prof, err := search(ctx, task, sd.ell, f)
			if err != nil {
				task.Done()
				return Result{}, Chosen{}, Chosen{}, err
			}
			sd.ell, sd.grid, sd.prof = ell, grid, prof
		}
	}
	task.Done()
	cr := crit(sides[0].ell, sides[1].ell)
	var chosen [2]Chosen
	for i, sd := range sides {
		if sd.k != nil {
			chosen[i] = Given(sd.k)
			continue
		}
		k, err := kernels.NewRBF([]float64{sd.ell})
		if err != nil {
			return Result{}, Chosen{}, Chosen{}, err
		}
		sd.k = k
		chosen[i] = Chosen{Kernel: k, Choice: ChoiceOpt, Ell: []float64{sd.ell}, Opt: &OptInfo{Train: o.Train,
			TrainRows: [2]int{t, t}, TestRows: [2]int{n - t, n - t}, Lambda: o.Lambda, Criterion: cr,
			Grid: sd.grid, Profile: sd.prof}}
	}
	res, err := HSICTest(ctx, sides[0].k, sides[1].k, xte, yte, method, s)
	if err != nil {
		return Result{}, Chosen{}, Chosen{}, err
	}
	return res, chosen[0], chosen[1], nil
}
