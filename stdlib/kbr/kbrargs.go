package kbr

import (
	"fmt"
	"math"

	"github.com/kml-lang/kml/stdlib/kernel"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rkbr "github.com/kml-lang/kml/runtime/kbr"
	"github.com/kml-lang/kml/runtime/kernels"
)

// The arguments the KBR builtins share: weighted samples, joint samples,
// kernels with their median-heuristic default, regularisers, priors,
// observations, and calls of a KML function on each point.

// weightedArg is an argument that must be a weighted sample.
type weightedArg struct{ *WeightedVal }

func (w *weightedArg) UnpackArg(name string, v eval.Value) error {
	wv, ok := v.(*WeightedVal)
	if !ok {
		return fmt.Errorf("%s must be a weighted sample (from condition, weighted or abc), got %s", name, eval.Describe(v))
	}
	w.WeightedVal = wv
	return nil
}

// jointArgs are the paired samples, kernels and settings of kbr and cme.
type jointArgs struct {
	x, y     *mat.Dense
	kx, ky   kernels.Kernel
	settings rkbr.Settings
}

// kernelSettings reads the kernels (the median heuristic by default), eps
// (0.1/sqrt(n) by default) and rank shared by kbr and cme for the paired
// samples x and y, which where names the argument they came from.
func kernelSettings(a *eval.Args, x, y *mat.Dense, where string) (*jointArgs, error) {
	j := &jointArgs{x: x, y: y}
	if err := kernels.CheckData(x, "x"); err != nil {
		return nil, a.Errorf(where, "%v", err)
	}
	if err := kernels.CheckData(y, "y"); err != nil {
		return nil, a.Errorf(where, "%v", err)
	}
	nx, _ := x.Dims()
	if ny, _ := y.Dims(); nx != ny {
		return nil, a.Errorf(where, "x has %d rows and y has %d: the samples are paired by row", nx, ny)
	}
	if nx < 2 {
		return nil, a.Errorf(where, "the joint sample needs at least 2 pairs, got %d", nx)
	}
	var err error
	if j.kx, err = kernelOrMedian(a, "kx", x); err != nil {
		return nil, err
	}
	if j.ky, err = kernelOrMedian(a, "ky", y); err != nil {
		return nil, err
	}
	s := &j.settings
	s.Eps = 0.1 / math.Sqrt(float64(nx))
	var rank eval.Length
	if err := a.Unpack("eps?", &s.Eps, "rank", &rank); err != nil {
		return nil, err
	}
	if !(s.Eps > 0) || math.IsInf(s.Eps, 0) {
		return nil, a.Errorf("eps", "eps must be a positive number, got %v", s.Eps)
	}
	s.Rank = int(rank)
	if s.Rank == 0 {
		// The exact rule keeps the two Gram matrices and their factorisations.
		if err := a.CheckDense(nx, 4*nx, "the exact rule's n×n matrices (four of them)", "use rank: r (incomplete Cholesky, O(n·r) memory), or a smaller sample"); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// unpackDelta reads kbr's delta, eps² by default: δ regularises (ΛG_Y)²,
// whose eigenvalues are the squares of those ε competes with in G_X/n.
func unpackDelta(a *eval.Args, s *rkbr.Settings) error {
	s.Delta = s.Eps * s.Eps
	if err := a.Unpack("delta?", &s.Delta); err != nil {
		return err
	}
	if !(s.Delta > 0) || math.IsInf(s.Delta, 0) {
		return a.Errorf("delta", "delta must be a positive number, got %v", s.Delta)
	}
	return nil
}

// splitJoint reads a joint sample: [x, y] of two vectors (which the
// language makes a 2×n matrix), a list of two data values, or a record
// with fields x and y.
func splitJoint(v eval.Value) (x, y *mat.Dense, err error) {
	two := func(vx, vy eval.Value) (*mat.Dense, *mat.Dense, error) {
		x, ok := eval.ToMatrix(vx)
		if !ok {
			return nil, nil, fmt.Errorf("x must be data (a vector or a matrix), got %s", eval.Describe(vx))
		}
		y, ok := eval.ToMatrix(vy)
		if !ok {
			return nil, nil, fmt.Errorf("y must be data (a vector or a matrix), got %s", eval.Describe(vy))
		}
		return x, y, nil
	}
	switch v := v.(type) {
	case *eval.Mat:
		r, n := v.Dims()
		if r != 2 {
			return nil, nil, fmt.Errorf("joint must be [x, y] (two vectors, or a list of two samples) or {x: X, y: Y}, got %s", eval.Describe(v))
		}
		return mat.NewDense(n, 1, mat.Row(nil, 0, v.M)), mat.NewDense(n, 1, mat.Row(nil, 1, v.M)), nil
	case *eval.List:
		if len(v.Elems) != 2 {
			return nil, nil, fmt.Errorf("joint must hold two samples [x, y], got %d items", len(v.Elems))
		}
		return two(v.Elems[0], v.Elems[1])
	case *eval.Record:
		vx, okx := v.Attr("x")
		vy, oky := v.Attr("y")
		if !okx || !oky {
			return nil, nil, fmt.Errorf("a joint record needs fields x and y")
		}
		return two(vx, vy)
	}
	return nil, nil, fmt.Errorf("joint must be [x, y] (two vectors, or a list of two samples) or {x: X, y: Y}, got %s", eval.Describe(v))
}

// kernelOrMedian returns the kernel argument, or rbf at the median
// heuristic of data (a fixed subsample above 2000 rows, so the default
// does not draw from the run's stream).
func kernelOrMedian(a *eval.Args, name string, data *mat.Dense) (kernels.Kernel, error) {
	if a.Given(name) {
		var k kernel.Arg
		if err := a.Unpack(name, &k); err != nil {
			return nil, err
		}
		if k.HasAD() {
			return nil, a.Errorf(name, "%s must not depend on model parameters", name)
		}
		return k.K, nil
	}
	m, err := kernels.MedianHeuristic(data, 1)
	if err != nil {
		return nil, a.Errorf(name, "default %s: %v", name, err)
	}
	if !(m > 0) {
		return nil, a.Errorf(name, "default %s: the median distance between points is 0 (are the points all equal?); pass %s: rbf(...)", name, name)
	}
	k, err := kernels.NewRBF([]float64{m})
	if err != nil {
		return nil, a.Errorf(name, "%v", err)
	}
	return k, nil
}

// unpackPrior reads a prior: a sample (equal weights) or weighted(U, w).
func unpackPrior(a *eval.Args, v eval.Value) (rkbr.Prior, error) {
	if w, ok := v.(*WeightedVal); ok {
		if w.Batch {
			return rkbr.Prior{}, a.Errorf("prior", "prior is a weighted sample for several observations; condition on one to use it as a prior")
		}
		return rkbr.Prior{U: w.X, Weights: w.column(0)}, nil
	}
	u, ok := eval.ToMatrix(v)
	if !ok {
		return rkbr.Prior{}, a.Errorf("prior", "prior must be a sample (a vector or a matrix) or weighted(U, w), got %s", eval.Describe(v))
	}
	if err := kernels.CheckData(u, "the prior sample"); err != nil {
		return rkbr.Prior{}, a.Errorf("prior", "%v", err)
	}
	return rkbr.Prior{U: u}, nil
}

// observations reads argument name as observations of dimension d: a
// number or a vector of length d is one (batch false); a matrix, or a
// vector when d = 1, holds one per row.
func observations(a *eval.Args, name string, d int) (*mat.Dense, bool, error) {
	v := a.Value(name)
	switch v := v.(type) {
	case eval.Num:
		if d != 1 {
			return nil, false, a.Errorf(name, "an observation has %d values here (y has %d columns), got a number", d, d)
		}
		return mat.NewDense(1, 1, []float64{float64(v)}), false, nil
	case *eval.Vec:
		if d == 1 {
			if len(v.Data) == 0 {
				return nil, false, a.Errorf(name, "%s is empty", name)
			}
			return mat.NewDense(len(v.Data), 1, append([]float64(nil), v.Data...)), true, nil
		}
		if len(v.Data) != d {
			return nil, false, a.Errorf(name, "an observation has %d values here (y has %d columns), got %s", d, d, eval.Describe(v))
		}
		return mat.NewDense(1, d, append([]float64(nil), v.Data...)), false, nil
	case *eval.Mat:
		if _, c := v.Dims(); c != d {
			return nil, false, a.Errorf(name, "observations must have %d columns (as y), got %s", d, eval.Describe(v))
		}
		return v.M, true, nil
	}
	return nil, false, a.Errorf(name, "%s must be an observation (a number or a vector) or a matrix of them, got %s", name, eval.Describe(v))
}

// callRows calls f on each row of x (a number for one column, a vector
// otherwise) and stacks the results, numbers or equal-length vectors, as
// rows.
func callRows(a *eval.Args, name string, f eval.Value, x *mat.Dense) (*mat.Dense, error) {
	n, d := x.Dims()
	var out *mat.Dense
	for i := 0; i < n; i++ {
		var arg eval.Value
		if d == 1 {
			arg = eval.Num(x.At(i, 0))
		} else {
			arg = &eval.Vec{Data: mat.Row(nil, i, x)}
		}
		v, err := a.Th.CallValue(a.PosOf(name), f, arg)
		if err != nil {
			return nil, err
		}
		vals, ok := eval.ToFloats(v)
		if !ok {
			return nil, a.Errorf(name, "%s must return a number or a vector, got %s at point %d", name, eval.Describe(v), i+1)
		}
		if out == nil {
			out = mat.NewDense(n, len(vals), nil)
		} else if _, k := out.Dims(); k != len(vals) {
			return nil, a.Errorf(name, "%s returned %d values at point 1 and %d at point %d", name, k, len(vals), i+1)
		}
		out.SetRow(i, vals)
	}
	return out, nil
}
