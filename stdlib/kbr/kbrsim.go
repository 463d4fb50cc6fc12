package kbr

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model/dists"
	rkbr "github.com/kml-lang/kml/runtime/kbr"
)

// Likelihood-free inference (KBR paper §4.4): simulate makes the joint
// sample kbr needs from a prior and a simulator; abc is rejection ABC, the
// baseline.
func registerKbrsim(reg *eval.Registry) {
	reg.Register("simulate(prior, simulator, n, seed?)",
		"A joint sample [x, y] for kbr: n parameters x from prior (a distribution, or a function of n returning n rows) and y = simulator(x), the simulator a function called once on all n parameters (a vector, or a matrix with a row each) that returns one simulated observation per row.",
		func(a *eval.Args) (eval.Value, error) {
			var n eval.PositiveInt
			if err := a.Unpack("n", &n); err != nil {
				return nil, err
			}
			s, err := newSimulation(a)
			if err != nil {
				return nil, err
			}
			x, err := s.draw(int(n))
			if err != nil {
				return nil, err
			}
			y, err := s.sim(x)
			if err != nil {
				return nil, err
			}
			return &eval.List{Elems: []eval.Value{dataValue(x), dataValue(y)}}, nil
		})
	reg.Register("abc(prior, simulator, observed, tolerance, n = 100, max_sims = 1000000, batch = 1000, seed?)",
		"Rejection ABC: draws parameters from prior and simulates them in batches (as simulate) and keeps those whose simulation is within tolerance (Euclidean distance) of the observation, until n are kept or max_sims simulations have run. observed is one observation, or a matrix with one per row sharing the simulations. Returns a weighted sample with equal weights (fields simulations, accepted, tolerance).",
		func(a *eval.Args) (eval.Value, error) {
			var tol float64
			var n, maxSims, batch eval.PositiveInt
			if err := a.Unpack("tolerance", &tol, "n", &n, "max_sims", &maxSims, "batch", &batch); err != nil {
				return nil, err
			}
			if !(tol > 0) {
				return nil, a.Errorf("tolerance", "tolerance must be positive, got %v", tol)
			}
			s, err := newSimulation(a)
			if err != nil {
				return nil, err
			}
			// The observation's width is the simulator's: simulate one
			// parameter to learn it.
			x1, err := s.draw(1)
			if err != nil {
				return nil, err
			}
			y1, err := s.sim(x1)
			if err != nil {
				return nil, err
			}
			_, dy := y1.Dims()
			obs, batched, err := observations(a, "observed", dy)
			if err != nil {
				return nil, err
			}
			// The simulations run until n are kept: their count, without a
			// total, is abc's progress.
			task := a.Progress("simulations", 0)
			defer task.Done()
			sim := func(x *mat.Dense) (*mat.Dense, error) {
				y, err := s.sim(x)
				if err == nil {
					k, _ := x.Dims()
					task.Add(k)
				}
				return y, err
			}
			res, err := rkbr.Rejection(s.draw, sim, obs, rkbr.ABCSettings{Tol: tol, Accept: int(n), MaxSims: int(maxSims), Batch: int(batch)})
			if err != nil {
				return nil, a.Fail("%v", err)
			}
			return abcSample(a, res, int(n), batched, tol), nil
		})
}

// abcSample joins the accepted parameters of every observation into one
// weighted sample: column j weighs observation j's accepted rows equally
// and the others zero.
func abcSample(a *eval.Args, res *rkbr.ABCResult, want int, batch bool, tol float64) *WeightedVal {
	total, short := 0, 0
	for _, acc := range res.Accepted {
		r, _ := acc.Dims()
		total += r
		if r < want {
			short++
		}
	}
	_, d := res.Accepted[0].Dims()
	x := mat.NewDense(total, d, nil)
	w := mat.NewDense(total, len(res.Accepted), nil)
	row := 0
	accepted := make([]float64, len(res.Accepted))
	for j, acc := range res.Accepted {
		r, _ := acc.Dims()
		accepted[j] = float64(r)
		for i := 0; i < r; i++ {
			x.SetRow(row, acc.RawRowView(i))
			w.Set(row, j, 1/float64(r))
			row++
		}
	}
	if short > 0 {
		a.Th.Interp().Warn(a.Pos, fmt.Sprintf("abc: %d of %d observations kept fewer than n = %d parameters within %d simulations", short, len(res.Accepted), want, res.Simulations))
	}
	info := eval.NewRecord().Set("simulations", eval.Num(res.Simulations)).Set("tolerance", eval.Num(tol))
	if batch {
		info.Set("accepted", &eval.Vec{Data: accepted})
	} else {
		info.Set("accepted", eval.Num(accepted[0]))
	}
	return &WeightedVal{X: x, W: w, Batch: batch, Info: info}
}

// simulation draws from a KML prior and runs a KML simulator.
type simulation struct {
	a                *eval.Args
	prior, simulator eval.Value
	dist             *dists.DistVal
	params           []float64
	rnd              *rand.Rand
}

func newSimulation(a *eval.Args) (*simulation, error) {
	s := &simulation{a: a, prior: a.Value("prior"), simulator: a.Value("simulator")}
	switch p := s.prior.(type) {
	case *dists.DistVal:
		params, ok := p.Scalar()
		if !ok {
			return nil, a.Errorf("prior", "cannot draw from %s: its parameters are vectors (write a function of n instead)", p)
		}
		s.dist, s.params = p, params
		rnd, err := a.Rand()
		if err != nil {
			return nil, err
		}
		s.rnd = rnd
	case eval.Callable:
	default:
		return nil, a.Errorf("prior", "prior must be a distribution or a function of n returning n draws, got %s", eval.Describe(p))
	}
	if _, ok := s.simulator.(eval.Callable); !ok {
		return nil, a.Errorf("simulator", "simulator must be a function, got %s", eval.Describe(s.simulator))
	}
	return s, nil
}

// draw returns k parameters as rows.
func (s *simulation) draw(k int) (*mat.Dense, error) {
	if s.dist != nil {
		// Checked before the allocation: n: 1e12 is a clear error, not
		// the process running out of memory.
		if err := s.a.CheckDense(k, 1, fmt.Sprintf("the %d parameters drawn from prior", k), "simulate fewer at a time"); err != nil {
			return nil, err
		}
		out := make([]float64, k)
		for i := range out {
			out[i] = s.dist.Family.Rand(s.rnd, s.params)
		}
		return mat.NewDense(k, 1, out), nil
	}
	v, err := s.a.Th.CallValue(s.a.PosOf("prior"), s.prior, eval.Num(k))
	if err != nil {
		return nil, err
	}
	m, ok := eval.ToMatrix(v)
	if !ok {
		return nil, s.a.Errorf("prior", "prior(%d) must return %d draws (a vector or a matrix), got %s", k, k, eval.Describe(v))
	}
	if r, _ := m.Dims(); r != k {
		return nil, s.a.Errorf("prior", "prior(%d) returned %s, not %d draws", k, eval.Describe(v), k)
	}
	return m, nil
}

// sim runs the simulator on parameter rows x.
func (s *simulation) sim(x *mat.Dense) (*mat.Dense, error) {
	k, _ := x.Dims()
	v, err := s.a.Th.CallValue(s.a.PosOf("simulator"), s.simulator, dataValue(x))
	if err != nil {
		return nil, err
	}
	m, ok := eval.ToMatrix(v)
	if !ok {
		return nil, s.a.Errorf("simulator", "simulator must return one observation per parameter (a vector or a matrix), got %s", eval.Describe(v))
	}
	if r, _ := m.Dims(); r != k {
		return nil, s.a.Errorf("simulator", "simulator returned %s for %d parameters: want one row per parameter", eval.Describe(v), k)
	}
	if r, c := m.Dims(); r == 1 && c == k && k > 1 {
		return nil, s.a.Errorf("simulator", "simulator returned a 1×%d matrix: want one row per parameter", k)
	}
	return m, nil
}
