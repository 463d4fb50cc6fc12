package bke

import (
	"math"

	"github.com/kml-lang/kml/runtime/internal/fastexp"
)

// row1 and row2 are rowGeneral written out for D = 1 and D = 2 with the
// Jacobian terms, so that G̃ and T̃ accumulate in registers rather than
// through memory, and with a row's exponentials from one call of
// fastexp.Exps. Their distance loops (row2: one lengthscale) and, with the
// gradient, their accumulating loops run four landmarks at a time in AVX2
// assembly where the CPU has it (rows_amd64.s): the distance loop in Go
// was a third of the pass at n = 10⁴, m = 50, D = 2. They compute the same sums
// (TestRowsMatchGeneral, with and without the assembly). With AVX2 or
// AVX-512 the tiles of tile.go take their place but for the last rows of
// a pass (and for D = 2 with two lengthscales).

// row1 is row for D = 1 (where isotropic and ARD coincide).
func (ps *pass) row1(sc *scratch, bs blockSums, i int) error {
	m := ps.md.m
	x := ps.md.x[i]
	z := ps.md.z[:m]
	a := ps.p.inv2[0]
	v, q := sc.v[:m], sc.q[:m]
	qmin := math.Inf(1)
	l0 := 0
	if rowAsm() {
		// Four landmarks at a time in assembly; the rest below.
		l0 = m &^ 3
		qmin = dist1(x, a, z[:l0], v, q[:l0])
	}
	for l := l0; l < m; l++ {
		zl := z[l]
		d := x - zl
		v[l] = d
		ql := d * d * a
		q[l] = ql
		if ql < qmin {
			qmin = ql
		}
	}
	if math.IsInf(qmin, 1) {
		return overflowError(i)
	}
	u, cq := ps.rowExps(sc, qmin)
	c, s1, s2 := ps.c[:m], bs.s1[:m], bs.s2[:m]
	var g, t float64
	if ps.grad {
		cy, sy, sky := ps.cy[:m], bs.sy[:m], bs.sky[:m]
		m4 := 0
		if rowAsm() {
			// Four landmarks at a time in assembly; the rest below.
			m4 = m &^ 3
			var acc [8]float64
			row1Grad(u[:m4], q, c, cy, v, s1, s2, sy, sky, cq, &acc)
			g = acc[0] + acc[1] + acc[2] + acc[3]
			t = acc[4] + acc[5] + acc[6] + acc[7]
		}
		for l := m4; l < m; l++ {
			ql, u := q[l], u[l]
			e := cq * u
			de := e - c[l]
			s1[l] += de
			s2[l] += de * de
			dy := e*ql - cy[l]
			sy[l] += dy
			sky[l] += de * dy
			w := u * u * v[l] * v[l]
			g += w
			t += w * ql
		}
	} else {
		for l, u := range u {
			de := cq*u - c[l]
			s1[l] += de
			s2[l] += de * de
			g += u * u * v[l] * v[l]
		}
	}
	sc.g[0], sc.t[0] = g, t
	return ps.finishRow(sc, bs, i, qmin)
}

// row2 is row for D = 2.
func (ps *pass) row2(sc *scratch, bs blockSums, i int) error {
	m := ps.md.m
	x0, x1 := ps.md.x[2*i], ps.md.x[2*i+1]
	z := ps.md.z[:2*m]
	a0, a1 := ps.p.inv2[0], ps.p.inv2[1]
	v, s, q := sc.v[:2*m], sc.s[:2*m], sc.q[:m]
	qmin := math.Inf(1)
	if ps.np == 1 {
		// The per-dimension terms s are read only for ARD: not stored.
		l0 := 0
		if rowAsm() {
			// Four landmarks at a time in assembly; the rest below.
			l0 = m &^ 3
			qmin = dist2(x0, x1, a0, a1, z[:2*l0], v, q[:l0])
		}
		for l := l0; l < m; l++ {
			d0 := x0 - z[2*l]
			d1 := x1 - z[2*l+1]
			v[2*l], v[2*l+1] = d0, d1
			ql := d0*d0*a0 + d1*d1*a1
			q[l] = ql
			if ql < qmin {
				qmin = ql
			}
		}
	} else {
		for l := range q {
			d0 := x0 - z[2*l]
			d1 := x1 - z[2*l+1]
			v[2*l], v[2*l+1] = d0, d1
			s0, s1 := d0*d0*a0, d1*d1*a1
			s[2*l], s[2*l+1] = s0, s1
			ql := s0 + s1
			q[l] = ql
			if ql < qmin {
				qmin = ql
			}
		}
	}
	if math.IsInf(qmin, 1) {
		return overflowError(i)
	}
	u, cq := ps.rowExps(sc, qmin)
	c, sum1, sum2 := ps.c[:m], bs.s1[:m], bs.s2[:m]
	var g00, g10, g11 float64
	switch {
	case !ps.grad:
		for l, u := range u {
			de := cq*u - c[l]
			sum1[l] += de
			sum2[l] += de * de
			d0, d1 := v[2*l], v[2*l+1]
			w := u * u
			w0 := w * d0
			g00 += w0 * d0
			g10 += w0 * d1
			g11 += w * d1 * d1
		}
	case ps.np == 1:
		cy, sy, sky := ps.cy[:m], bs.sy[:m], bs.sky[:m]
		var t00, t10, t11 float64
		m4 := 0
		if rowAsm() {
			// Four landmarks at a time in assembly; the rest below.
			m4 = m &^ 3
			var acc [24]float64
			row2Iso(u[:m4], q, c, cy, v, sum1, sum2, sy, sky, cq, &acc)
			for k := 0; k < 4; k++ {
				g00 += acc[k]
				g10 += acc[4+k]
				g11 += acc[8+k]
				t00 += acc[12+k]
				t10 += acc[16+k]
				t11 += acc[20+k]
			}
		}
		for l := m4; l < m; l++ {
			ql, u := q[l], u[l]
			e := cq * u
			de := e - c[l]
			sum1[l] += de
			sum2[l] += de * de
			dy := e*ql - cy[l]
			sy[l] += dy
			sky[l] += de * dy
			d0, d1 := v[2*l], v[2*l+1]
			w := u * u
			w0, w1 := w*d0, w*d1
			p00, p10, p11 := w0*d0, w0*d1, w1*d1
			g00 += p00
			g10 += p10
			g11 += p11
			t00 += p00 * ql
			t10 += p10 * ql
			t11 += p11 * ql
		}
		sc.t[0], sc.t[2], sc.t[3] = t00, t10, t11
	default:
		cy, sy, sky := ps.cy[:2*m], bs.sy[:2*m], bs.sky[:2*m]
		var t000, t010, t011, t100, t110, t111 float64
		for l, u := range u {
			e := cq * u
			de := e - c[l]
			sum1[l] += de
			sum2[l] += de * de
			s0, s1 := s[2*l], s[2*l+1]
			dy0 := e*s0 - cy[2*l]
			dy1 := e*s1 - cy[2*l+1]
			sy[2*l] += dy0
			sy[2*l+1] += dy1
			sky[2*l] += de * dy0
			sky[2*l+1] += de * dy1
			d0, d1 := v[2*l], v[2*l+1]
			w := u * u
			w0, w1 := w*d0, w*d1
			p00, p10, p11 := w0*d0, w0*d1, w1*d1
			g00 += p00
			g10 += p10
			g11 += p11
			t000 += p00 * s0
			t010 += p10 * s0
			t011 += p11 * s0
			t100 += p00 * s1
			t110 += p10 * s1
			t111 += p11 * s1
		}
		sc.t[0], sc.t[2], sc.t[3] = t000, t010, t011
		sc.t[4], sc.t[6], sc.t[7] = t100, t110, t111
	}
	sc.g[0], sc.g[2], sc.g[3] = g00, g10, g11
	return ps.finishRow(sc, bs, i, qmin)
}

// rowExps sets sc.u[:m] to the row's exponentials u_l = e^{−½(q_l − qmin)}
// and returns them with cq = e^{−½ qmin}, all from one vectorised call:
// −½q_l + ½qmin is −½(q_l − qmin) rounded once, and cq is the extra element
// q_m = 2 qmin, for which −½q_m + ½qmin = −½qmin exactly. (A separate
// scalar exponential for cq cost a tenth of the pass at m = 50.) The call
// is padded with copies of q_m to a multiple of expsPad elements: Exps's
// masked AVX-512 tail costs about two full 8-lane steps (at m = 20 it
// took as long as the 16 elements before it).
func (ps *pass) rowExps(sc *scratch, qmin float64) (u []float64, cq float64) {
	m := ps.md.m
	mp := paddedExps(m)
	q, ux := sc.q[:mp], sc.u[:mp]
	for l := m; l < mp; l++ {
		q[l] = 2 * qmin
	}
	fastexp.Exps(ux, q, -0.5, 0.5*qmin)
	return ux[:m], ux[m]
}

// expsPad is the multiple rowExps pads its Exps calls to: the AVX-512
// width, a multiple of the AVX2 one.
const expsPad = 8

// paddedExps is the length of rowExps's call for m landmarks: m + 1
// rounded up to a multiple of expsPad.
func paddedExps(m int) int { return (m + expsPad) / expsPad * expsPad }
