package bke

import (
	"math"

	"github.com/kml-lang/kml/runtime/internal/fastexp"
)

// The tile path is the pass for D = 1 and for D = 2 with one lengthscale
// on CPUs with AVX-512 or AVX2: eight data rows at a time, one per vector lane,
// with the landmarks in the loop (tile_amd64.s). Lanes as rows rather
// than landmarks need no horizontal sums per row (G̃ and T̃ of each row
// build up in its own lane, in the order rowGeneral adds them) and no
// padding of m; the per-landmark sums build up in eight lanes each, added
// together once per block. A tile makes four calls: tileDist (the
// distances, each row's qmin and q − qmin), one fastexp.Exps over all
// (m + 1)·8 exponents (the last eight give cq = e^{−½ qmin} per row, as
// rowExps's extra element does), tileAcc and tileJac (the rows' Jacobian
// terms; tileFinish); the per-row rows called
// row1/row2 made one Exps call of m + 1 padded to a multiple of 8 per
// row, and their loops ran four landmarks per AVX2 step. The exponentials
// are bit for bit those of row1 and row2: r = q − qmin rounded once and
// e^{−½r} is what Exps(q, −½, ½qmin) computes with its fused
// multiply–add.
//
// A block's rows beyond its last whole tile (at most 7, in the last block
// only, since blockRows is a multiple of 8) go through row. A row whose
// Jacobian needs finishSlow (closeJacobian, closeRotated or cauchyBinet)
// gets its G̃, T̃, q, u and x − z copied out of its lane first (tileSlow).

// tileRows is the number of data rows of a tile: the lanes of AVX-512,
// two halves of AVX2's (the …Y kernels, with tileJacGo for the closing).
const tileRows = 8

// tileBuf is a worker's workspace for the tile kernels. Its arrays are
// landmark-major with eight lanes per landmark (element l·8 + k is
// landmark l, row k of the tile).
type tileBuf struct {
	d0, d1, q       []float64 // m×8: x − z per coordinate (d1 for D = 2), q
	r               []float64 // (m+1)×8: q − qmin and qmin, then their exponentials
	s1, s2, sy, sky []float64 // m×8: the block's sums, by lane
	// g holds each row's G̃ (g00, g10, g11) and T̃ (t00, t10, t11), eight
	// lanes each, as tileAcc2 leaves them.
	g    [48]float64
	qmin [tileRows]float64 // each row's qmin, kept from r before Exps
}

// newTileBuf returns a tile workspace for m landmarks in dim dimensions.
// For D = 1, g holds G̃ = [g 0; 0 1] and T̃ = [t 0; 0 0], so that tileJac
// and tileSlow read D = 1 as D = 2 (det G̃ = g, tr(G̃⁻¹T̃) = t/g).
func newTileBuf(m, dim int) *tileBuf {
	const k = tileRows
	tb := &tileBuf{
		d0: make([]float64, m*k), d1: make([]float64, m*k), q: make([]float64, m*k),
		r:  make([]float64, (m+1)*k),
		s1: make([]float64, m*k), s2: make([]float64, m*k),
		sy: make([]float64, m*k), sky: make([]float64, m*k),
	}
	if dim == 1 {
		for j := 16; j < 24; j++ {
			tb.g[j] = 1
		}
	}
	return tb
}

// tiled reports whether this pass runs its rows by tiles.
func (ps *pass) tiled() bool {
	return ps.jac && !generalRows && tileKernels() && (ps.md.dim == 1 || ps.md.dim == 2 && ps.np == 1)
}

// block adds the rows [lo, hi) to the block sums bs: by tiles where the
// pass runs by tiles, the rest row by row.
func (ps *pass) block(sc *scratch, bs blockSums, lo, hi int) error {
	i := lo
	if ps.tiled() {
		done, err := ps.tiles(sc, bs, lo, hi)
		if err != nil {
			return err
		}
		i += done
	}
	for ; i < hi; i++ {
		if err := ps.row(sc, bs, i); err != nil {
			return err
		}
	}
	sc.flushDet(bs)
	return nil
}

// tiles adds the whole tiles of the rows [lo, hi) to bs and returns the
// number of rows they hold.
func (ps *pass) tiles(sc *scratch, bs blockSums, lo, hi int) (int, error) {
	md := ps.md
	m, n := md.m, md.n
	nt := (hi - lo) / tileRows
	if nt == 0 {
		return 0, nil
	}
	if sc.tile == nil {
		sc.tile = newTileBuf(m, md.dim)
	}
	tb := sc.tile
	clear(tb.s1)
	clear(tb.s2)
	clear(tb.sy)
	clear(tb.sky)
	inv2 := ps.p.inv2
	wide := tileWide()
	for t := 0; t < nt; t++ {
		i := lo + t*tileRows
		switch {
		case md.dim == 1 && wide:
			tileDist1((*[8]float64)(md.xt[i:]), inv2[0], md.z, tb.d0, tb.q, tb.r)
		case md.dim == 1:
			tileDist1Y((*[8]float64)(md.xt[i:]), inv2[0], md.z, tb.d0, tb.q, tb.r)
		case wide:
			tileDist2((*[8]float64)(md.xt[i:]), (*[8]float64)(md.xt[n+i:]), inv2[0], inv2[1], md.z, tb.d0, tb.d1, tb.q, tb.r)
		default:
			tileDist2Y((*[8]float64)(md.xt[i:]), (*[8]float64)(md.xt[n+i:]), inv2[0], inv2[1], md.z, tb.d0, tb.d1, tb.q, tb.r)
		}
		tb.qmin = [tileRows]float64(tb.r[m*tileRows:])
		fastexp.Exps(tb.r, tb.r, -0.5, 0)
		switch {
		case md.dim == 1 && wide:
			tileAcc1(tb.r, tb.q, tb.d0, ps.c, ps.cy, tb.s1, tb.s2, tb.sy, tb.sky, &tb.g)
		case md.dim == 1:
			tileAcc1Y(tb.r, tb.q, tb.d0, ps.c, ps.cy, tb.s1, tb.s2, tb.sy, tb.sky, &tb.g)
		case wide:
			tileAcc2(tb.r, tb.q, tb.d0, tb.d1, ps.c, ps.cy, tb.s1, tb.s2, tb.sy, tb.sky, &tb.g)
		default:
			tileAcc2Y(tb.r, tb.q, tb.d0, tb.d1, ps.c, ps.cy, tb.s1, tb.s2, tb.sy, tb.sky, &tb.g)
		}
		if err := ps.tileFinish(sc, tb, bs, i, wide); err != nil {
			return 0, err
		}
	}
	// Each landmark's eight lanes by a fixed tree of sums (eight sums in a
	// chain were 6% of the pass at m = 50), then into the block's sums.
	for l := 0; l < m; l++ {
		lanes := l * tileRows
		bs.s1[l] += laneSum(tb.s1[lanes : lanes+tileRows])
		bs.s2[l] += laneSum(tb.s2[lanes : lanes+tileRows])
		if ps.grad {
			bs.sy[l] += laneSum(tb.sy[lanes : lanes+tileRows])
			bs.sky[l] += laneSum(tb.sky[lanes : lanes+tileRows])
		}
	}
	return nt * tileRows, nil
}

// jacLimits are the constants tileJac compares with, passed from here so
// that they are finishFast's.
type jacLimits [5]float64

var tileJacLimits = jacLimits{1, tinyDiag, hadamardLimit, minNormal, math.MaxFloat64}

// laneSum is ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7)).
func laneSum(v []float64) float64 {
	v = v[:tileRows]
	return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]))
}

// tileFinish adds the Jacobian terms of the tile's rows i0, ..., i0 + 7
// from their lanes of G̃ and T̃: as finishFast does for the rows whose
// det G̃ is a normal number, eight at a time by tileJac (the arithmetic
// of small2 and small2Grad; one row at a time in Go, mostly divisions,
// was a tenth of the pass), and the other rows, in order, by finishSlow.
func (ps *pass) tileFinish(sc *scratch, tb *tileBuf, bs blockSums, i0 int, wide bool) error {
	var out [32]float64 // per lane: mantissa, exponent, tr(G̃⁻¹T̃), qmin
	var ok uint64
	switch { // direct calls: through a func value, out escapes
	case !wide:
		ok = tileJacGo(ps.md.dim, &tb.g, &tb.qmin, &tileJacLimits, &out)
	case ps.md.dim == 1:
		ok = tileJac1(&tb.g, &tb.qmin, &tileJacLimits, &out)
	default:
		ok = tileJac(&tb.g, &tb.qmin, &tileJacLimits, &out)
	}
	f := out[:8]
	sc.detProd *= ((f[0] * f[1]) * (f[2] * f[3])) * ((f[4] * f[5]) * (f[6] * f[7]))
	sc.detExp += int(laneSum(out[8:16]))
	*bs.logJac -= float64(ps.md.dim) * laneSum(out[24:32]) / 2
	if ps.grad {
		bs.dJac[0] += laneSum(out[16:24])
	}
	if ok == 1<<tileRows-1 {
		return nil
	}
	for k := 0; k < tileRows; k++ {
		if ok&(1<<k) != 0 {
			continue
		}
		if math.IsInf(tb.qmin[k], 1) {
			return overflowError(i0 + k)
		}
		if err := ps.tileSlow(sc, tb, bs, i0, k); err != nil {
			return err
		}
	}
	return nil
}

// tileSlow finishes row i0 + k of a tile by finishSlow, with G̃, T̃, q, u
// and x − z copied out of lane k.
func (ps *pass) tileSlow(sc *scratch, tb *tileBuf, bs blockSums, i0, k int) error {
	g := &tb.g
	m, dim := ps.md.m, ps.md.dim
	if dim == 1 {
		sc.g[0], sc.t[0] = g[k], g[24+k]
	} else {
		sc.g[0], sc.g[2], sc.g[3] = g[k], g[8+k], g[16+k]
		sc.t[0], sc.t[2], sc.t[3] = g[24+k], g[32+k], g[40+k]
	}
	for l := 0; l < m; l++ {
		sc.q[l] = tb.q[l*tileRows+k]
		sc.u[l] = tb.r[l*tileRows+k]
		sc.v[l*dim] = tb.d0[l*tileRows+k]
		if dim == 2 {
			sc.v[l*dim+1] = tb.d1[l*tileRows+k]
		}
	}
	return ps.finishSlow(sc, bs, i0+k, tb.qmin[k])
}

// tileJacGo is tileJac (dim 2) or tileJac1 (dim 1) in Go, for the AVX2
// path: the same operations in the same order, without fused
// multiply–adds, so the same bits (TestTileJacGo).
func tileJacGo(dim int, acc *[48]float64, qmin *[8]float64, lim *jacLimits, out *[32]float64) (ok uint64) {
	for k := range tileRows {
		var det, tr float64
		fast := false
		if dim == 1 {
			g := acc[k]
			det = g
			fast = g > lim[1] && g > lim[3] && g <= lim[4]
			tr = acc[24+k] / g
		} else {
			a, b, c := acc[k], acc[8+k], acc[16+k]
			// float64(·) rounds each product, as the kernel does: Go
			// may otherwise fuse x·y + z (GOAMD64=v3).
			ba, bc := b/a, b/c
			r := lim[0] - float64(ba*bc)
			det = float64(a*c) * r
			fast = a > lim[1] && c > lim[1] && r >= lim[2] && det > lim[3] && det <= lim[4]
			t := float64(c*acc[24+k]) - float64((b+b)*acc[32+k])
			tr = (t + float64(a*acc[40+k])) / det
		}
		if !fast {
			out[k], out[8+k], out[16+k], out[24+k] = 1, 0, 0, 0
			continue
		}
		ok |= 1 << k
		frac, e := math.Frexp(det) // det is a positive normal number
		out[k], out[8+k], out[16+k], out[24+k] = 2*frac, float64(e-1), tr, qmin[k]
	}
	return ok
}
