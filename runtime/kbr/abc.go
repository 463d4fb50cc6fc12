package kbr

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ABCSettings control rejection ABC. The zero value is not usable: Tol
// must be positive.
type ABCSettings struct {
	// Tol is the tolerance: a simulation y is accepted for observation
	// y_obs when the Euclidean distance ‖y − y_obs‖ ≤ Tol.
	Tol float64
	// Accept is the number of accepted parameters wanted per observation;
	// 0 means 100.
	Accept int
	// MaxSims caps the simulations; 0 means 10⁶.
	MaxSims int
	// Batch is the number of parameters drawn and simulated at a time;
	// 0 means 1000.
	Batch int
}

// ABCResult holds, for each observation, the accepted parameters (rows)
// and the number of simulations run (shared by all observations).
type ABCResult struct {
	Accepted    []*mat.Dense
	Simulations int
}

// Rejection is rejection ABC (§4.4): draw parameters θ from the prior
// (draw(k) returns k rows), simulate y ~ p(y | θ) (sim returns one row per
// parameter row) and keep θ when ‖y − y_obs‖ ≤ Tol, until every
// observation (a row of obs) has Accept parameters or MaxSims simulations
// have run. The simulations are shared by the observations. An
// observation with no accepted parameter is an error; fewer than Accept is
// not (the caller may warn).
func Rejection(draw func(k int) (*mat.Dense, error), sim func(theta *mat.Dense) (*mat.Dense, error), obs *mat.Dense, s ABCSettings) (*ABCResult, error) {
	if !(s.Tol > 0) {
		return nil, fmt.Errorf("the tolerance must be positive, got %v", s.Tol)
	}
	if s.Accept <= 0 {
		s.Accept = 100
	}
	if s.MaxSims <= 0 {
		s.MaxSims = 1_000_000
	}
	if s.Batch <= 0 {
		s.Batch = 1000
	}
	m, dy := obs.Dims()
	acc := make([][]float64, m) // accepted rows, flattened
	count := make([]int, m)
	res := &ABCResult{}
	dim := -1
	for res.Simulations < s.MaxSims {
		done := true
		for _, c := range count {
			done = done && c >= s.Accept
		}
		if done {
			break
		}
		k := min(s.Batch, s.MaxSims-res.Simulations)
		theta, err := draw(k)
		if err != nil {
			return nil, err
		}
		kr, d := theta.Dims()
		if kr != k {
			return nil, fmt.Errorf("the prior gave %d draws when asked for %d", kr, k)
		}
		if dim >= 0 && d != dim {
			return nil, fmt.Errorf("the prior's draws changed from %d to %d columns", dim, d)
		}
		dim = d
		y, err := sim(theta)
		if err != nil {
			return nil, err
		}
		if yr, yc := y.Dims(); yr != k || yc != dy {
			return nil, fmt.Errorf("the simulator returned %d×%d for %d parameters; want %d×%d (a row per parameter, as wide as the observation)", yr, yc, k, k, dy)
		}
		res.Simulations += k
		for i := 0; i < k; i++ {
			yi := y.RawRowView(i)
			for j := 0; j < m; j++ {
				if count[j] >= s.Accept {
					continue
				}
				oj := obs.RawRowView(j)
				var d2 float64
				for l := range yi {
					d2 += (yi[l] - oj[l]) * (yi[l] - oj[l])
				}
				if math.Sqrt(d2) <= s.Tol {
					acc[j] = append(acc[j], theta.RawRowView(i)...)
					count[j]++
				}
			}
		}
	}
	res.Accepted = make([]*mat.Dense, m)
	for j := range acc {
		if count[j] == 0 {
			return nil, fmt.Errorf("observation %d: no simulation came within %v of it in %d simulations (raise the tolerance or the simulation budget)", j+1, s.Tol, res.Simulations)
		}
		res.Accepted[j] = mat.NewDense(count[j], dim, acc[j])
	}
	if dim < 0 {
		return nil, errors.New("no simulations were run")
	}
	return res, nil
}
