package gp

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/linalg"
)

// lastEval remembers a latent GP term's last evaluation in an optimiser
// run (model.Eval.Local): its parameters' values, inputs and observations,
// to the bit, with the value and partials it gave. An optimising Density
// verifies its replay by walking the model and replaying it at the same
// point (lang/model's replay.go), and its checks after the fit walk the
// model at the optimum it has just evaluated: the second evaluation of
// the term at the same numbers is answered from here instead of a second
// Laplace fit. The term is a function of these numbers alone (with
// rgp.LaplaceWarm's start, a refit at the same kernel matrix gives the
// same bits), so the answer is the one a recomputation would give.
type lastEval struct {
	ok    bool
	x, d  []float64
	y     []float64
	xs    *mat.Dense
	xbits []float64
	v     float64
}

// get returns the remembered value, with the partials copied into d, when
// x, xs and y are those of the last evaluation to the bit.
func (m *lastEval) get(x, d []float64, xs *mat.Dense, y []float64) (float64, bool) {
	if m == nil || !m.ok || !linalg.SameBits(m.x, x) || !linalg.SameBits(m.y, y) || len(m.d) != len(d) {
		return 0, false
	}
	if xs != m.xs && !linalg.SameBits(m.xbits, xs.RawMatrix().Data) {
		return 0, false
	}
	copy(d, m.d)
	return m.v, true
}

// put remembers an evaluation; a value that is not finite is not kept.
func (m *lastEval) put(x, d []float64, xs *mat.Dense, y []float64, v float64) {
	if m == nil {
		return
	}
	m.ok, m.v = !math.IsNaN(v) && !math.IsInf(v, 0), v
	m.x = append(m.x[:0], x...)
	m.d = append(m.d[:0], d...)
	m.y = append(m.y[:0], y...)
	if xs != m.xs {
		m.xs = xs
		m.xbits = append(m.xbits[:0], xs.RawMatrix().Data...)
	}
}
