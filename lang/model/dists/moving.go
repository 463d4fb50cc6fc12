package dists

import (
	"fmt"
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
)

// movingTransform maps each element onto the support of its prior as
// evaluated in the current run, whose ends may be tape values (truncate.go:
// movingEnds, recordMoving): the prior is read at every evaluation, and a
// point is constrained only by running the model. start is the support at
// the starting point, which names the map.
type movingTransform struct {
	p     eval.ModelParam
	start transform
}

func (m movingTransform) Free() int                     { return m.p.Dim() }
func (m movingTransform) Size() int                     { return m.p.Dim() }
func (m movingTransform) Names(string) []string         { return m.p.Names() }
func (m movingTransform) NeedsPrior() bool              { return true }
func (m movingTransform) Admits(eval.Value) bool        { return true }
func (m movingTransform) Value(xs []float64) eval.Value { return plainValue(m.p, xs) }

func (m movingTransform) Describe() string {
	return m.start.String() + " onto the prior's bounds, which move with other parameters"
}

func (m movingTransform) Held(name string, v eval.Value) (eval.Value, error) {
	return plainHeld(m.p, v)
}

// Record records each element on the support of prior, a *DistVal of a
// dist.Bounded family (DistVal.Support says so).
func (m movingTransform) Record(t *ad.Tape, u []ad.Var, prior Distribution) (eval.Value, []ad.Var, bool) {
	dv := prior.(*DistVal)
	out := make([]ad.Var, m.p.Dim())
	logJ := make([]ad.Var, 0, len(out))
	for i := range out {
		lo, hi := movingEnds(dv, i)
		x, j, ok := recordMoving(t, u[i], lo, hi)
		if !ok {
			return nil, nil, false
		}
		out[i] = x
		logJ = append(logJ, j)
	}
	if m.p.Size == 0 {
		return &eval.ADNum{T: t, V: out[0]}, logJ, true
	}
	return &eval.ADVec{T: t, Vs: out}, logJ, true
}

// Constrain cannot know the bounds without the model (NeedsPrior).
func (m movingTransform) Constrain(dst, u []float64) []float64 {
	for range m.p.Dim() {
		dst = append(dst, math.NaN())
	}
	return dst
}

func (m movingTransform) Unconstrain(name string, _ eval.Value) ([]float64, error) {
	return nil, fmt.Errorf("the bounds of %s depend on other parameters, so it cannot be given a starting or grid value; hold it with fix: or leave it out", name)
}
