package model

import "github.com/kml-lang/kml/runtime/linalg"

// DerivedRowAllocs is the allocations of one replayed row of d's derived
// quantities at q (d must replay; ok is false when it cannot), and the
// row.
func DerivedRowAllocs(d *Density, q []float64, allocs func(func()) float64) (float64, []float64, bool) {
	layout, err := d.Derived(q)
	if err != nil {
		return 0, nil, false
	}
	p, ok := newDerivedProgram(d, layout, true)
	if !ok {
		return 0, nil, false
	}
	row, cons := make([]float64, p.width), make([]float64, p.nPar)
	n := allocs(func() { ok = p.row(q, cons, row) })
	return n, row, ok && linalg.SameBits(cons, d.c.Constrain(nil, q))
}
