package bke

import (
	"fmt"
	"math"
	"sync"

	"github.com/kml-lang/kml/runtime/internal/fastexp"
	"github.com/kml-lang/kml/runtime/internal/par"
)

// blockRows is the number of data rows summed together before their block
// totals are combined. Blocks are combined in row order, so a result does
// not depend on the number of workers. Blocks are the unit of work: at 512
// rows the 900 rows of the Stan shape split 512/388 between two workers
// (at best ×1.76); at 128, four blocks against three and 4 rows.
const blockRows = 128

// minEntriesPerWorker is the least number of kernel entries n·m per extra
// goroutine: below it (n = 800, m = 20, say) starting one costs more than it
// saves.
const minEntriesPerWorker = 12288

// shiftRows is the number of evenly spaced rows whose kernel values give the
// shifts c_l of the centred sums.
const shiftRows = 32

// pass is one fused sweep over the data rows at fixed hyperparameters. It
// computes, with e_il = exp(−½ q_il), q_il = Σ_d (x_id − z_ld)²/ℓ_d² (the
// kernel at amplitude 1):
//
//   - the embedding μ̂_l = (1/n) Σ_i e_il and the centred sum of squares
//     Σ_il (e_il − μ̂_l)², both from sums shifted by c_l ≈ μ̂_l so that
//     neither cancels when every e_il is close to the same value;
//   - with grad, for each lengthscale p the sums of y_ilp = e_il q_il
//     (isotropic) or e_il (x_ip − z_lp)²/ℓ_p² (ARD), that is ℓ_p ∂e_il/∂ℓ_p,
//     and their centred cross products with e;
//   - with jac, Σ_i ½ log det G_i, G_i = Σ_l e_il² v_il v_ilᵀ, v_il = x_i − z_l,
//     and with grad also Σ_i Σ_l λ_il s_ilp, the terms of its derivative
//     (see closeJacobian).
type pass struct {
	md   *Model
	p    *params
	grad bool
	jac  bool
	np   int       // number of lengthscales: 1 or D
	c    []float64 // shifts of e, per landmark
	cy   []float64 // shifts of y, per landmark and lengthscale
}

// passResult holds a pass's totals at amplitude 1.
type passResult struct {
	mu     []float64 // μ̂_l
	css    float64   // Σ_il (e_il − μ̂_l)²
	ymean  []float64 // (1/n) Σ_i y_ilp, m×np row-major
	ycov   []float64 // Σ_il (e_il − μ̂_l) y_ilp, per p
	logJac float64   // Σ_i ½ log det G_i
	dJac   []float64 // Σ_i Σ_l λ_il s_ilp, per p
}

// scratch is one worker's per-row workspace.
type scratch struct {
	v   []float64 // m×D differences x_i − z_l
	s   []float64 // m×D scaled squares (x_id − z_ld)²/ℓ_d², used for ARD
	q   []float64 // m: q_il
	u   []float64 // m: exp(−½(q_il − min_l q_il))
	g   []float64 // D×D: G̃
	t   []float64 // np×D×D: T̃_p
	inv []float64 // D×D: the Cholesky factor of G̃, or elimination workspace
	tmp []float64 // D: a column in closeJacobian
	dj  []float64 // np: Σ_l λ_l s_lp of the current row
	idx []int     // D: a subset of landmarks
	// finishRow's deferred determinants: their mantissas' product and
	// exponents' sum (flushDet).
	detProd float64
	detExp  int
	// For cauchyBinet: log weights and landmarks by decreasing weight.
	lw      []float64
	order   []int
	cbSum   float64
	cbBound float64
	// tile is the workspace of the tile kernels, made on first use.
	tile *tileBuf
	// shift holds shifts' squared distances and exponentials.
	shift []float64
}

// newScratch returns a worker's workspace for this pass: one from the
// model's pool when there is one (a pass allocated m·(4 + 2D) + 2D²
// numbers per worker and evaluation before), else a new one sized for up
// to D lengthscales, with t and dj cut to this pass's number.
func (ps *pass) newScratch() *scratch {
	var sc *scratch
	if v := ps.md.scratch.Get(); v != nil {
		sc = v.(*scratch)
	} else {
		sc = ps.allocScratch()
	}
	dim := ps.md.dim
	sc.detProd, sc.detExp = 1, 0
	sc.t = sc.t[:ps.np*dim*dim]
	sc.dj = sc.dj[:ps.np]
	return sc
}

func (ps *pass) allocScratch() *scratch {
	m, dim := ps.md.m, ps.md.dim
	return &scratch{
		v:     make([]float64, m*dim),
		s:     make([]float64, m*dim),
		q:     make([]float64, m, paddedExps(m)), // rowExps uses more
		u:     make([]float64, m, paddedExps(m)),
		g:     make([]float64, dim*dim),
		t:     make([]float64, dim*dim*dim),
		inv:   make([]float64, dim*dim),
		tmp:   make([]float64, dim),
		dj:    make([]float64, dim),
		idx:   make([]int, dim),
		lw:    make([]float64, m),
		order: make([]int, m),
	}
}

// blockSums views one block's slice of the accumulation buffer.
type blockSums struct {
	s1, s2  []float64 // Σ(e − c), Σ(e − c)² per landmark
	sy, sky []float64 // Σ(y − c_y), Σ(e − c)(y − c_y) per landmark and p
	dJac    []float64 // per p
	logJac  *float64
}

func (ps *pass) blockSize() int { return 2*ps.md.m + 2*ps.md.m*ps.np + ps.np + 1 }

func (ps *pass) view(buf []float64) blockSums {
	m, np := ps.md.m, ps.np
	return blockSums{
		s1:     buf[:m],
		s2:     buf[m : 2*m],
		sy:     buf[2*m : 2*m+m*np],
		sky:    buf[2*m+m*np : 2*m+2*m*np],
		dJac:   buf[2*m+2*m*np : 2*m+2*m*np+np],
		logJac: &buf[2*m+2*m*np+np],
	}
}

// passBufs are a pass's buffers, kept with a log density's other
// workspaces (evalBufs) between evaluations: allocating them, the pass
// and its result at every gradient was, with the landmark side's, a
// tenth of `kml run bench/stan/bke1.kml` in the allocator and the
// garbage collector.
type passBufs struct {
	ps            pass
	c, cy         []float64 // the shifts, m and m·D
	blocks, tot   []float64 // the blocks' sums, and their total
	errs          []error   // per block
	res           passResult
	mu, ymean, yc []float64 // res's slices: m, m·D, D
}

// run performs the pass, in new buffers.
func (md *Model) run(p *params, grad, jac bool) (*passResult, error) {
	return md.runIn(p, grad, jac, nil)
}

// runIn performs the pass in pb's buffers (new ones when pb is nil); the
// result lives in pb until its next pass.
func (md *Model) runIn(p *params, grad, jac bool, pb *passBufs) (*passResult, error) {
	if pb == nil {
		pb = new(passBufs)
	}
	pb.ps = pass{md: md, p: p, grad: grad, jac: jac, np: len(p.ell)}
	ps := &pb.ps
	ps.shifts(pb)

	nb := par.NumBlocks(md.n, blockRows)
	size := ps.blockSize()
	buf := grow(&pb.blocks, nb*size)
	clear(buf)
	errs := pb.errs[:0]
	for range nb {
		errs = append(errs, nil)
	}
	pb.errs = errs
	workers := min(md.workers, max(1, md.n*md.m/minEntriesPerWorker), nb)
	if workers <= 1 {
		// One scratch, the blocks in order: what par.Each does with one
		// worker, without its closures on the heap.
		sc := ps.newScratch()
		for b := 0; b < nb; b++ {
			errs[b] = ps.block(sc, ps.view(buf[b*size:(b+1)*size]), b*blockRows, min((b+1)*blockRows, md.n))
		}
		md.scratch.Put(sc)
	} else {
		var (
			mu   sync.Mutex
			used []*scratch
		)
		newScratch := func() *scratch {
			sc := ps.newScratch()
			mu.Lock()
			used = append(used, sc)
			mu.Unlock()
			return sc
		}
		par.Each(md.n, blockRows, workers, newScratch, func(sc *scratch, b, lo, hi int) {
			errs[b] = ps.block(sc, ps.view(buf[b*size:(b+1)*size]), lo, hi)
		})
		for _, sc := range used {
			md.scratch.Put(sc)
		}
	}
	// The first error in row order, whichever block failed first in time.
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}

	// Combine the blocks in order.
	tot := grow(&pb.tot, size)
	clear(tot)
	for b := 0; b < nb; b++ {
		for k, v := range buf[b*size : (b+1)*size] {
			tot[k] += v
		}
	}
	t := ps.view(tot)
	n := float64(md.n)
	pb.res = passResult{
		mu:     grow(&pb.mu, md.m),
		ymean:  grow(&pb.ymean, md.m*ps.np),
		ycov:   grow(&pb.yc, ps.np),
		logJac: *t.logJac,
		dJac:   t.dJac,
	}
	res := &pb.res
	clear(res.ymean)
	clear(res.ycov)
	for l := 0; l < md.m; l++ {
		res.mu[l] = ps.c[l] + t.s1[l]/n
		res.css += math.Max(0, t.s2[l]-t.s1[l]*t.s1[l]/n)
		if grad {
			for k := 0; k < ps.np; k++ {
				j := l*ps.np + k
				res.ymean[j] = ps.cy[j] + t.sy[j]/n
				// Σ_i (e − μ̂)(y − ȳ) from the shifted sums.
				res.ycov[k] += t.sky[j] - t.s1[l]*t.sy[j]/n
			}
		}
	}
	return res, nil
}

// grow returns (*s)[:n], reallocating *s when it is too short.
func grow(s *[]float64, n int) []float64 {
	if cap(*s) < n {
		*s = make([]float64, n)
	}
	*s = (*s)[:n]
	return *s
}

// shifts sets c_l and c_y to the means of e and y over a few evenly spaced
// rows: close enough to the full means that the shifted sums do not cancel.
// The rows' exponentials come from one Exps call (one scalar exponential
// each was a sixth of the pass at n = 900, m = 30).
func (ps *pass) shifts(pb *passBufs) {
	md := ps.md
	m, dim, np := md.m, md.dim, ps.np
	c, cy := grow(&pb.c, m), grow(&pb.cy, m*np)
	clear(c)
	clear(cy)
	ps.c, ps.cy = c, cy
	ns := min(md.n, shiftRows)
	sc := ps.newScratch()
	defer md.scratch.Put(sc)
	if len(sc.shift) < 2*ns*m {
		sc.shift = make([]float64, 2*shiftRows*m)
	}
	q, e := sc.shift[:ns*m], sc.shift[ns*m:2*ns*m]
	inv2, z := ps.p.inv2[:dim], md.z[:m*dim]
	for k := 0; k < ns; k++ {
		xi := md.xrow(k * md.n / ns)
		qk := q[k*m : (k+1)*m]
		switch dim {
		case 1:
			x0, a0 := xi[0], inv2[0]
			for l := range qk {
				v := x0 - z[l]
				qk[l] = v * v * a0
			}
		case 2:
			x0, x1, a0, a1 := xi[0], xi[1], inv2[0], inv2[1]
			for l := range qk {
				v0, v1 := x0-z[2*l], x1-z[2*l+1]
				qk[l] = v0*v0*a0 + v1*v1*a1
			}
		default:
			for l := range qk {
				zl := z[l*dim : (l+1)*dim]
				var ql float64
				for d, a := range inv2 {
					v := xi[d] - zl[d]
					ql += v * v * a
				}
				qk[l] = ql
			}
		}
	}
	fastexp.Exps(e, q, -0.5, 0)
	for k := 0; k < ns; k++ {
		ek, qk := e[k*m:(k+1)*m], q[k*m:(k+1)*m]
		for l, el := range ek {
			c[l] += el
		}
		if !ps.grad {
			continue
		}
		if np == 1 {
			for l, el := range ek {
				cy[l] += el * qk[l]
			}
			continue
		}
		xi := md.xrow(k * md.n / ns)
		for l, el := range ek {
			zl := z[l*dim : (l+1)*dim]
			for d, a := range inv2 {
				v := xi[d] - zl[d]
				cy[l*np+d] += el * v * v * a
			}
		}
	}
	for l := range c {
		c[l] /= float64(ns)
	}
	for j := range cy {
		cy[j] /= float64(ns)
	}
}

// generalRows makes row use rowGeneral for every D, and finishRow take a
// logarithm per row, the reference the written-out rows are tested
// against (TestFastRowsMatchGeneral).
var generalRows = false

// row adds data row i to the block sums.
func (ps *pass) row(sc *scratch, bs blockSums, i int) error {
	if ps.jac && !generalRows {
		switch ps.md.dim {
		case 1:
			return ps.row1(sc, bs, i)
		case 2:
			return ps.row2(sc, bs, i)
		}
	}
	return ps.rowGeneral(sc, bs, i)
}

// rowGeneral is row for any D.
func (ps *pass) rowGeneral(sc *scratch, bs blockSums, i int) error {
	md := ps.md
	m, dim, np := md.m, md.dim, ps.np
	xi := md.xrow(i)
	ard := np > 1
	inv2 := ps.p.inv2

	qmin := math.Inf(1)
	for l := 0; l < m; l++ {
		zl := md.zrow(l)
		var q float64
		for d := 0; d < dim; d++ {
			v := xi[d] - zl[d]
			sc.v[l*dim+d] = v
			s := v * v * inv2[d]
			sc.s[l*dim+d] = s
			q += s
		}
		sc.q[l] = q
		qmin = math.Min(qmin, q)
	}

	if math.IsInf(qmin, 1) {
		return overflowError(i)
	}
	// e_l = exp(−½ q_l) = cq·u_l with u_l = exp(−½(q_l − qmin)) ≤ 1, so the
	// Jacobian weights u_l² stay representable when every e_l underflows.
	cq := math.Exp(-qmin / 2)
	if ps.jac {
		clear(sc.g)
		clear(sc.t)
	}
	fastexp.Exps(sc.u[:m], sc.q[:m], -0.5, 0.5*qmin)
	for l := 0; l < m; l++ {
		u := sc.u[l]
		e := cq * u
		de := e - ps.c[l]
		bs.s1[l] += de
		bs.s2[l] += de * de
		if ps.grad {
			if !ard {
				dy := e*sc.q[l] - ps.cy[l]
				bs.sy[l] += dy
				bs.sky[l] += de * dy
			} else {
				for k := 0; k < np; k++ {
					j := l*np + k
					dy := e*sc.s[l*dim+k] - ps.cy[j]
					bs.sy[j] += dy
					bs.sky[j] += de * dy
				}
			}
		}
		if !ps.jac {
			continue
		}
		w := u * u
		vl := sc.v[l*dim : (l+1)*dim]
		for a := 0; a < dim; a++ {
			wa := w * vl[a]
			for b := 0; b <= a; b++ {
				sc.g[a*dim+b] += wa * vl[b]
			}
		}
		if !ps.grad {
			continue
		}
		for k := 0; k < np; k++ {
			var wk float64
			if ard {
				wk = w * sc.s[l*dim+k]
			} else {
				wk = w * sc.q[l]
			}
			tk := sc.t[k*dim*dim : (k+1)*dim*dim]
			for a := 0; a < dim; a++ {
				wa := wk * vl[a]
				for b := 0; b <= a; b++ {
					tk[a*dim+b] += wa * vl[b]
				}
			}
		}
	}
	if !ps.jac {
		return nil
	}
	return ps.finishRow(sc, bs, i, qmin)
}

// finishRow adds row i's Jacobian terms, from sc.g and sc.t or, when those
// are inaccurate, by cauchyBinet.
func (ps *pass) finishRow(sc *scratch, bs blockSums, i int, qmin float64) error {
	if ps.finishFast(sc, bs, qmin) {
		return nil
	}
	return ps.finishSlow(sc, bs, i, qmin)
}

// finishFast is finishRow for a row with D ≤ 2 whose det G̃ is a normal
// number, and reports whether the row was one. It defers the row's
// logarithm: the determinant's mantissa multiplies sc.detProd and its
// binary exponent adds to sc.detExp, and flushDet takes one logarithm per
// block (a logarithm per row was a tenth of the pass at m = 20; 128
// mantissas in [½, 1) cannot underflow). The reference rows
// (generalRows) take a logarithm per row, in finishSlow.
func (ps *pass) finishFast(sc *scratch, bs blockSums, qmin float64) bool {
	dim, np := ps.md.dim, ps.np
	if dim > 2 || generalRows {
		return false
	}
	a, c, r, ok := ps.closeSmall(sc)
	if !ok {
		return false
	}
	det := a * c * r
	if !(det > minNormal && det <= math.MaxFloat64) {
		return false
	}
	f, e := frexpNormal(det)
	sc.detProd *= f
	sc.detExp += e
	*bs.logJac -= float64(dim) * qmin / 2
	if ps.grad {
		for k := 0; k < np; k++ {
			bs.dJac[k] += sc.dj[k]
		}
	}
	return true
}

// finishSlow is finishRow for the other rows: by closeJacobian, with one
// logarithm, or when that is inaccurate by closeRotated (D = 2) or
// cauchyBinet (which read sc.q, sc.v and, closeRotated, sc.u and sc.s).
func (ps *pass) finishSlow(sc *scratch, bs blockSums, i int, qmin float64) error {
	dim, np := ps.md.dim, ps.np
	half, ok := ps.closeJacobian(sc)
	if !ok && dim == 2 && !generalRows { // the reference goes to cauchyBinet
		half, ok = ps.closeRotated(sc)
	}
	if ok {
		half -= float64(dim) * qmin / 2
	} else {
		var err error
		if half, err = ps.cauchyBinet(sc, i); err != nil {
			return err
		}
	}
	*bs.logJac += half
	if ps.grad {
		for k := 0; k < np; k++ {
			bs.dJac[k] += sc.dj[k]
		}
	}
	return nil
}

// flushDet adds the deferred ½ log det G̃ of finishRow's rows to bs; run
// calls it at the end of every block, before the block's sums are read.
func (sc *scratch) flushDet(bs blockSums) {
	if sc.detProd != 1 || sc.detExp != 0 {
		*bs.logJac += 0.5 * (math.Log(sc.detProd) + float64(sc.detExp)*math.Ln2)
	}
	sc.detProd, sc.detExp = 1, 0
}

// overflowError reports a row whose squared distances to every landmark,
// scaled by the lengthscale, overflow.
func overflowError(i int) error {
	return fmt.Errorf("bke: data row %d: its squared distances to the landmarks, divided by the squared lengthscale, overflow: rescale the data or use a larger lengthscale", i+1)
}
