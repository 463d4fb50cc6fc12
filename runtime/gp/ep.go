package gp

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/internal/blas3"
	"github.com/kml-lang/kml/runtime/linalg"
)

// EP is expectation propagation's approximation to the log marginal
// likelihood (Minka 2001; Rasmussen and Williams 2006, Algorithm 3.5 and
// eq. 3.65; GPML's infEP), with sequential site updates (FitEP), and its
// posterior N(μ, (K⁻¹ + T̃)⁻¹).
type EP struct{}

// EP settings: sweeps over the sites end when no site's natural
// parameters move by more than epTol (relative), or when they have moved
// by at most epFloor and the largest move has not reached a new low in
// epStall sweeps (converging sites set one every sweep; these have
// settled at working precision: the posterior is
// recomputed as Σ = K − KRK from B = I + T̃^½KT̃^½, whose rounding grows
// with the square of the site precisions: count sites of precision 50,
// 700 and 7000 under a kernel of variance 5 keep moving by about 10⁻¹⁰,
// 10⁻⁸ and 3·10⁻⁶); after at most epMax sweeps a run that has not
// settled is repeated with the damping factors of epDamping in turn.
// GPML recomputes Σ after every sweep; fitEP does so after every
// epRefresh-th sweep and before it ends, keeping Σ by the rank-one updates
// alone in between, whose rounding (about 10⁻¹³ relative per sweep) is far
// below epTol's moves over epRefresh sweeps; and a run whose sites settle
// in a sweep that did not start from a recomputed Σ recomputes it and
// sweeps once more, so that the sweep that ends every run starts from the
// exact posterior, as GPML's do. That sweep more is mostly avoided by also
// recomputing Σ after a sweep whose moves, shrinking at the rate of the
// last two sweeps, would reach epTol in the next.
const (
	epTol   = 1e-11
	epFloor = 1e-5
	epStall = 20
	epMax   = 500
)

// epRefresh is fitEP's count of sweeps between recomputations of Σ; 1 is
// GPML's rule (TestEPRefresh compares the two).
var epRefresh = 20

var epDamping = []float64{1, 0.5, 0.25}

// ErrEP is returned when EP's sites do not settle at any damping.
var ErrEP = errors.New("gp: expectation propagation did not converge, even damped")

// The tilted integrals' composite Simpson rule: epFine intervals per
// likelihood scale (or cavity sd, if smaller) within epWide scales of the
// likelihood's centre (y, or 0 for the logistic), epCoarse intervals on
// each piece beyond it, where the log-likelihood is smooth on the
// cavity's scale.
const (
	epFine   = 16
	epWide   = 30
	epCoarse = 128
)

// tilted returns log Ẑ = log ∫ P(y | f) N(f | m, v) df and the mean and
// variance of the tilted distribution, and adds to dphi the derivatives of
// log Ẑ with respect to the likelihood's parameters (E[∂log P/∂φ] under the
// tilted distribution). The logistic's is by tiltedLogit; the others' by
// the composite Simpson rule on
// [m − 12√v, m + 12√v], in pieces split at the likelihood's centre c (so
// the Laplace's kink is a node) and at c ± 30 scales: fine nodes near c,
// where the likelihood changes on its own scale, coarse ones beyond. A
// count likelihood is unbounded in its ratio over the cavity's range (a
// count of 3000 outweighs a cavity 30 sd away), so its range is the
// tilted distribution's own (countTilted).
func (l Lik) tilted(dphi []float64, y, m, v float64) (logZ, mean, vr float64) {
	if l.Kind == Logit {
		logZ, mean, vr, _ = epTiltedLogit(y, m, v)
		return logZ, mean, vr
	}
	r := l.tiltedRule(y, m, v)
	return l.tiltedSimpson(dphi, &r, y, m, v)
}

// epTiltedLogit is the logistic's tilted integral tilted uses:
// tiltedLogit, or in TestEPGolden its Gauss–Legendre panels alone.
var epTiltedLogit = tiltedLogit

// simpsonRule is the composite Simpson rule of one tilted integral: the
// pieces [cuts[i], cuts[i+1]] for i < pieces, with ks[i] (even) intervals
// each.
type simpsonRule struct {
	cuts   [5]float64
	ks     [4]int
	pieces int
	total  int // nodes, the pieces' ends counted in each
}

// tiltedRule lays out tilted's rule for observation y and cavity N(m, v).
func (l Lik) tiltedRule(y, m, v float64) simpsonRule {
	sd := math.Sqrt(v)
	lo, hi := m-12*sd, m+12*sd
	c, scale := y, l.scale()
	switch {
	case l.Kind == Logit:
		c = 0
	case l.isCount():
		c, scale, lo, hi = l.countTilted(y, m, v)
	}
	var r simpsonRule
	r.cuts[0] = lo
	nc := 1
	for _, b := range []float64{c - epWide*scale, c, c + epWide*scale} {
		if b > lo && b < hi {
			r.cuts[nc] = b
			nc++
		}
	}
	r.cuts[nc] = hi
	r.pieces = nc
	for i := 0; i < r.pieces; i++ {
		a, b := r.cuts[i], r.cuts[i+1]
		k := epCoarse
		switch mid := (a + b) / 2; {
		case math.Abs(mid-c) >= epWide*scale:
		case l.isCount():
			// A fixed count (the piece is at most epWide scales long,
			// scale ≤ sd), so that the rule moves continuously with the
			// cavity and EP's fixed point is not blurred by jumps in it.
			k = epFine * epWide
		default:
			k = min(max(8, int(math.Ceil(epFine*(b-a)/math.Min(scale, sd)))), 20000)
		}
		k += k % 2
		r.ks[i] = k
		r.total += k + 1
	}
	return r
}

// tiltedSimpson is tilted by the rule r with the likelihood evaluated at
// every node (logProbFrom), for every likelihood.
func (l Lik) tiltedSimpson(dphi []float64, rule *simpsonRule, y, m, v float64) (logZ, mean, vr float64) {
	cuts, ks, total := rule.cuts[:rule.pieces+1], rule.ks, rule.total
	type node struct{ f, w float64 }
	nodes := make([]node, 0, total)
	for i := 0; i+1 < len(cuts); i++ {
		a, b := cuts[i], cuts[i+1]
		k := ks[i]
		h := (b - a) / float64(k)
		for j := 0; j <= k; j++ {
			nodes = append(nodes, node{a + h*float64(j), simpsonWeight(j, k) * h / 3})
		}
	}
	np := len(l.Params)
	if dphi == nil {
		np = 0
	}
	lw := make([]float64, len(nodes))
	dv := make([]float64, len(nodes)*np)
	top := math.Inf(-1)
	var buf, d0 [3]float64
	c0 := l.normaliser(d0[:], y) // once per integral
	for j, nd := range nodes {
		r := nd.f - m
		clear(buf[:])
		lw[j] = l.logProbFrom(buf[:], y, nd.f, c0, d0[:]) - 0.5*r*r/v
		copy(dv[j*np:(j+1)*np], buf[:np])
		top = math.Max(top, lw[j])
	}
	var z, s1, s2 float64
	acc := make([]float64, np)
	for j, nd := range nodes {
		e := nd.w * math.Exp(lw[j]-top)
		r := nd.f - m
		z += e
		s1 += e * r
		s2 += e * r * r
		for p := range acc {
			acc[p] += e * dv[j*np+p]
		}
	}
	mu := s1 / z
	vr = s2/z - mu*mu
	for p := range acc {
		dphi[p] += acc[p] / z
	}
	return top + math.Log(z) - 0.5*math.Log(2*math.Pi*v), m + mu, vr
}

// EPSites are EP's Gaussian site precisions Tau and precision-means Nu
// (site i is ∝ exp(−½τ_i f_i² + ν_i f_i)), the posterior mean Mu and
// variances Var, and the sweeps taken at the damping used.
type EPSites struct {
	Tau, Nu, Mu, Var []float64
	Sweeps           int
	Damping          float64
	// logdet is log|I + KT̃| and r is T̃(I + KT̃)⁻¹.
	logdet float64
	r      *mat.SymDense
	// recomputed counts the recomputations of Σ (TestEPRefresh).
	recomputed int
}

// FitEP runs sequential EP for kernel matrix K and likelihood l (R&W
// Algorithm 3.5): each site in turn is replaced by the one that makes the
// posterior marginal match the tilted moments, damped by the factor d
// (τ ← (1 − d)τ + dτ_new, likewise ν), with the posterior updated by a
// rank-one correction and recomputed from B = I + T̃^½KT̃^½ every
// epRefresh sweeps and at the end. A Student-t observation far from the
// rest gets a negative site precision (the tilted distribution is wider
// than the cavity); unlike
// GPML, which clips it to zero and so leaves that site's moments
// unmatched (and the gradient of the fixed point wrong), it is kept, and
// the posterior is recomputed through the LU factor of I + KT̃ (as
// Laplace's approximation does with W < 0); a cavity or a posterior that
// stops being proper is an error. Undamped EP can cycle;
// a run that has not settled after epMax sweeps is repeated with d = ½,
// then ¼.
func FitEP(K *mat.SymDense, y []float64, l Lik) (*EPSites, error) {
	return fitEPFrom(K, y, l, nil)
}

// epStart is a start for EP's sweeps other than the zero sites: the sites
// and the posterior Σ (full, row-major) they give.
type epStart struct {
	tau, nu, sigma []float64
}

// fitEPFrom is FitEP from start (the zero sites when nil).
func fitEPFrom(K *mat.SymDense, y []float64, l Lik, start *epStart) (*EPSites, error) {
	var last error = ErrEP
	for _, d := range epDamping {
		s, err := fitEP(K, y, l, d, start)
		if err == nil {
			return s, nil
		}
		last = err
	}
	return nil, last
}

// epBlock is how many site updates fitEP holds back before it applies
// them to Σ together, as one DGEMM.
const epBlock = 32

// fitEP is FitEP at damping d from start (the zero sites, Σ = K, when
// nil), one epSweeper.sweep at a time. The rank-one updates of Σ are those of
// GPML's infEP, Σ ← Σ − c s sᵀ with s = Σ[:, i] and c = δτ/(1 + δτ Σ_ii),
// applied epBlock at a time (Σ −= Sᵀ diag(c) S for the block's columns S,
// to the upper triangle alone, one blas3.Dgemmt): until then site i's
// column is the stored one less the block's pending updates,
// Σ[:, i] = Σ₀[:, i] − Sᵀ(c ∘ S[:, i]), one DGEMV. The updates are GPML's
// in exact arithmetic; they cost n²/2 per site rather than n², at level-3
// speed rather than one row at a time.
func fitEP(K *mat.SymDense, y []float64, l Lik, d float64, start *epStart) (*EPSites, error) {
	n := K.SymmetricDim()
	tau := make([]float64, n)
	nu := make([]float64, n)
	var sigma []float64      // Σ, both triangles, row-major
	mu := make([]float64, n) // μ = Σν, from each recomputation
	if start != nil {
		copy(tau, start.tau)
		copy(nu, start.nu)
		sigma = append([]float64(nil), start.sigma...)
	} else {
		sigma = fullSym(K)
	}
	w := newEPSweeper(n)
	best, gained := math.Inf(1), 0
	fresh := true // Σ at the sweep's start is exact: K, the start's, or recomputed
	prev := math.Inf(1)
	recomputed := 0
	for sweep := 1; sweep <= epMax; sweep++ {
		moved, err := w.sweep(y, l, d, tau, nu, sigma)
		if err != nil {
			return nil, err
		}
		if moved < best {
			best, gained = moved, sweep
		}
		done := moved <= epTol || best <= epFloor && sweep-gained >= epStall
		// The moves shrinking at their last rate would settle in the next
		// sweep: that sweep had better start from a recomputed Σ.
		soon := sweep > 1 && moved < prev && moved*(moved/prev) <= epTol
		prev = moved
		if !done && !soon && sweep%epRefresh != 0 {
			w.flush(sigma)
			fresh = false
			continue
		}
		// The sweep's last block is not applied: Σ is recomputed.
		w.drop()
		recomputed++
		// At the end only Σ's diagonal is wanted.
		logdet, rFn, err := epPosterior(K, tau, nu, sigma, mu, &w.post, done && fresh)
		if err != nil {
			return nil, err
		}
		if done && !fresh {
			fresh = true
			continue // once more, from the exact Σ
		}
		fresh = true
		if done {
			R, err := rFn()
			if err != nil {
				return nil, err
			}
			s := &EPSites{Tau: tau, Nu: nu, Mu: mu, Var: make([]float64, n), Sweeps: sweep, Damping: d, logdet: logdet, r: R, recomputed: recomputed}
			for i := range s.Var {
				s.Var[i] = sigma[i*n+i]
			}
			return s, nil
		}
	}
	return nil, ErrEP
}

// epSweeper holds one sweep's work space (fitEP), and epPosterior's.
type epSweeper struct {
	n, np                       int // np: the pending updates, rows of pend
	pend, scaled, cs, coef, col []float64
	post                        epWork
}

// epWork is epPosterior's work space: T̃^½, B and V.
type epWork struct{ sw, b, v []float64 }

// get returns the work space for n, allocated on first use.
func (w *epWork) get(n int) (sw, b, v []float64) {
	if w == nil {
		return make([]float64, n), make([]float64, n*n), make([]float64, n*n)
	}
	if len(w.sw) != n {
		w.sw, w.b, w.v = make([]float64, n), make([]float64, n*n), make([]float64, n*n)
	}
	return w.sw, w.b, w.v
}

func newEPSweeper(n int) *epSweeper {
	return &epSweeper{n: n, pend: make([]float64, epBlock*n), scaled: make([]float64, epBlock*n),
		cs: make([]float64, epBlock), coef: make([]float64, epBlock), col: make([]float64, n)}
}

// sweep updates every site in turn at damping d, with Σ (sigma, row-major,
// of which the updates keep the upper triangle; the lower is left as the
// last recomputation wrote it) kept current by the blocked rank-one
// updates, and returns the largest relative move of a site's parameters.
// Site i's cavity takes μ_i = Σ[i, :]ν from the column it reads, so μ is
// not kept (GPML updates it with Σ at every site, n more products each).
// The sweep's last block is left pending: the caller applies it (flush)
// or recomputes Σ instead (drop).
func (w *epSweeper) sweep(y []float64, l Lik, d float64, tau, nu, sigma []float64) (float64, error) {
	n, pend, cs, coef, col := w.n, w.pend, w.cs, w.coef, w.col
	moved := 0.0
	w.np = 0
	for i := 0; i < n; i++ {
		np := w.np
		// Σ[:, i] from the upper triangle: down column i, then along row i.
		for a := 0; a < i; a++ {
			col[a] = sigma[a*n+i]
		}
		copy(col[i:], sigma[i*n+i:(i+1)*n])
		if np > 0 {
			for k := 0; k < np; k++ {
				coef[k] = cs[k] * pend[k*n+i]
			}
			blas64.Gemv(blas.Trans, -1, blas64.General{Rows: np, Cols: n, Stride: n, Data: pend[:np*n]},
				blas64.Vector{N: np, Inc: 1, Data: coef[:np]}, 1, blas64.Vector{N: n, Inc: 1, Data: col})
		}
		sii := col[i]
		tauC := 1/sii - tau[i]
		nuC := linalg.Dot(col, nu)/sii - nu[i] // μ_i = Σ[i, :]ν
		if !(tauC > 0) {
			return 0, ErrEP
		}
		_, mh, vh := l.tilted(nil, y[i], nuC/tauC, 1/tauC)
		if !(vh > 0) {
			return 0, ErrEP
		}
		tNew := 1/vh - tauC
		nNew := mh/vh - nuC
		tNew = (1-d)*tau[i] + d*tNew
		nNew = (1-d)*nu[i] + d*nNew
		dt := tNew - tau[i]
		moved = math.Max(moved, math.Abs(dt)/(1+math.Abs(tNew)))
		moved = math.Max(moved, math.Abs(nNew-nu[i])/(1+math.Abs(nNew)))
		tau[i], nu[i] = tNew, nNew
		c := dt / (1 + dt*sii)
		copy(pend[np*n:(np+1)*n], col)
		cs[np] = c
		w.np++
		if w.np == epBlock && i < n-1 {
			w.flush(sigma)
		}
	}
	return moved, nil
}

// flush applies the pending updates to Σ's upper triangle:
// Σ −= Sᵀ diag(c) S, one Dgemmt (half a DGEMM's work).
func (w *epSweeper) flush(sigma []float64) {
	n, np, pend, scaled := w.n, w.np, w.pend, w.scaled
	if np == 0 {
		return
	}
	for k := 0; k < np; k++ {
		ck, src, dst := w.cs[k], pend[k*n:(k+1)*n], scaled[k*n:(k+1)*n]
		for a, v := range src {
			dst[a] = ck * v
		}
	}
	blas3.Dgemmt(blas.Upper, blas.Trans, blas.NoTrans, n, np, -1, scaled[:np*n], n, pend[:np*n], n, 1, sigma, n)
	w.np = 0
}

// drop discards the pending updates (Σ is about to be recomputed).
func (w *epSweeper) drop() { w.np = 0 }

// epPosterior recomputes Σ = (K⁻¹ + T̃)⁻¹ (both triangles of sigma,
// row-major) and μ = Σν, as GPML's infEP does after every sweep: with
// T̃ ≥ 0, from the Cholesky factor B = I + T̃^½KT̃^½ = UᵀU as Σ = K − VᵀV,
// V = U⁻ᵀT̃^½K (one DTRSM and one DSYRK through blas3); with a negative
// site precision, as K − KRK from laplaceDet's LU path. It returns
// log|I + KT̃| and a function that gives R = T̃(I + KT̃)⁻¹ = T̃^½B⁻¹T̃^½,
// which the caller asks for once, at convergence (it overwrites the
// factor). ws, if not nil, is the work space B and V are kept in (the
// function returned reads it). With diag, on the Cholesky path, only Σ's
// diagonal is set (the rest of sigma holds K), K_ii less the squared norm
// of V's column i, and μ = Kν − Vᵀ(Vν): the DSYRK is left out, as at the
// end of a run.
func epPosterior(K *mat.SymDense, tau, nu []float64, sigma []float64, mu []float64, ws *epWork, diag bool) (float64, func() (*mat.SymDense, error), error) {
	n := len(tau)
	neg := false
	for _, v := range tau {
		neg = neg || v < 0
	}
	k := K.RawSymmetric()
	var logdet float64
	var rFn func() (*mat.SymDense, error)
	if neg {
		ld, R, err := laplaceDet(K, tau, true)
		if err != nil {
			return 0, nil, err
		}
		krk := sandwich(K, R)
		for i := 0; i < n; i++ {
			ki := k.Data[i*k.Stride:]
			for j := i; j < n; j++ {
				v := ki[j] - 0.5*(krk[i*n+j]+krk[j*n+i])
				sigma[i*n+j], sigma[j*n+i] = v, v
			}
		}
		logdet, rFn = ld, func() (*mat.SymDense, error) { return R, nil }
	} else {
		sw, b, v := ws.get(n)
		for i := range sw {
			sw[i] = math.Sqrt(tau[i])
		}
		for i := 0; i < n; i++ {
			ki := k.Data[i*k.Stride:]
			for j := 0; j < n; j++ {
				kij := ki[j]
				if j < i {
					kij = k.Data[j*k.Stride+i]
				}
				v[i*n+j] = sw[i] * kij
				sigma[i*n+j] = kij
				if j >= i {
					b[i*n+j] = sw[i] * kij * sw[j]
				}
			}
			b[i*n+i]++
		}
		t, ok := potrf(blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: b})
		if !ok {
			return 0, nil, ErrNotPD
		}
		logdet = logDetUpper(t)
		vg := blas64.General{Rows: n, Cols: n, Stride: n, Data: v}
		blas64.Trsm(blas.Left, blas.Trans, 1, t, vg)
		rFn = epR(t, sw)
		if diag {
			ss := make([]float64, n) // the squared column norms of V
			for r := 0; r < n; r++ {
				for i, x := range v[r*n : (r+1)*n] {
					ss[i] += x * x
				}
			}
			for i, x := range ss {
				sigma[i*n+i] = k.Data[i*k.Stride+i] - x
			}
			vn := make([]float64, n)
			blas64.Gemv(blas.NoTrans, 1, vg, blas64.Vector{N: n, Inc: 1, Data: nu}, 0, blas64.Vector{N: n, Inc: 1, Data: vn})
			blas64.Symv(1, k, blas64.Vector{N: n, Inc: 1, Data: nu}, 0, blas64.Vector{N: n, Inc: 1, Data: mu})
			blas64.Gemv(blas.Trans, -1, vg, blas64.Vector{N: n, Inc: 1, Data: vn}, 1, blas64.Vector{N: n, Inc: 1, Data: mu})
			return logdet, rFn, nil
		}
		blas64.Syrk(blas.Trans, -1, vg, 1, blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: sigma})
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				sigma[j*n+i] = sigma[i*n+j]
			}
		}
	}
	blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: n, Cols: n, Stride: n, Data: sigma},
		blas64.Vector{N: n, Inc: 1, Data: nu}, 0, blas64.Vector{N: n, Inc: 1, Data: mu})
	return logdet, rFn, nil
}

// Fit is EP's log marginal likelihood at kernel matrix K (R&W eq. 3.65 in
// GPML's form) with, for needs.Gradient, its gradient: at EP's fixed point
// the sites are stationary, so the kernel part is ½ tr((bbᵀ − R)∂K),
// b = ν − R K ν, R = T̃(I + KT̃)⁻¹, and the likelihood part Σ_i ∂log Ẑ_i/∂φ
// at the cavities (GPML's infEP). The posterior is given as b (μ = Kb) and
// R: at new inputs with cross-covariances k* the predictive mean is k*ᵀb
// and the variance k** − k*ᵀRk*.
func (EP) Fit(K *mat.SymDense, y []float64, l Lik, needs Needs) (*Posterior, error) {
	s, err := FitEP(K, y, l)
	if err != nil {
		return nil, err
	}
	return epResult(K, y, l, s, needs), nil
}

// epValue is −nlZ of GPML's infEP with a zero prior mean at the sites of
// s, with the likelihood part of its gradient added to dl.
func epValue(y []float64, l Lik, s *EPSites, dl []float64) float64 {
	val := -0.5 * s.logdet
	var quad float64
	for i := range s.Mu {
		quad += s.Nu[i] * s.Mu[i] // νᵀΣν
	}
	val += 0.5 * quad
	for i := range s.Mu {
		tauC := 1/s.Var[i] - s.Tau[i]
		nuC := s.Mu[i]/s.Var[i] - s.Nu[i]
		lz, _, _ := l.tilted(dl, y[i], nuC/tauC, 1/tauC)
		tt, tn := s.Tau[i], s.Nu[i]
		val += lz
		val += 0.5 * nuC * (tt/tauC*nuC - 2*tn) / (tt + tauC)
		val -= 0.5 * tn * tn / (tauC + tt)
		val += 0.5 * math.Log1p(tt/tauC)
	}
	return val
}

// epResult is Fit's Posterior at the converged sites s.
func epResult(K *mat.SymDense, y []float64, l Lik, s *EPSites, needs Needs) *Posterior {
	n := K.SymmetricDim()
	p := &Posterior{DLik: make([]float64, len(l.Params)), Iterations: s.Sweeps}
	p.LogZ = epValue(y, l, s, p.DLik)
	if !needs.Gradient && !needs.Predictive {
		return p
	}
	R := s.r
	var kn, rkn mat.VecDense
	kn.MulVec(K, mat.NewVecDense(n, s.Nu))
	rkn.MulVec(R, &kn)
	b := make([]float64, n)
	for i := range b {
		b[i] = s.Nu[i] - rkn.AtVec(i)
	}
	p.Alpha = b
	if needs.Predictive {
		p.r = R
	}
	if needs.Gradient {
		p.W = mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				p.W.SetSym(i, j, b[i]*b[j]-R.At(i, j))
			}
		}
	}
	return p
}

// logProbFrom is logProb given c0 and its parameter derivatives d0 from
// normaliser (the normalising constants, whose log-gamma functions
// dominate logProb's cost), for the many nodes of one tilted integral.
func (l Lik) logProbFrom(dp []float64, y, f, c0 float64, d0 []float64) float64 {
	switch l.Kind {
	case Laplace:
		b := l.Params[0]
		a := math.Abs(y - f)
		dp[0] += d0[0] + a/(b*b)
		return c0 - a/b
	case StudentT:
		nu, s := l.Params[0], l.Params[1]
		r := y - f
		x := r * r / (nu * s * s)
		lx := math.Log1p(x)
		q := x / (1 + x)
		dp[0] += d0[0] - 0.5*lx + (nu+1)/2*q/nu
		dp[1] += d0[1] + (nu+1)*q/s
		return c0 - (nu+1)/2*lx
	case Poisson, NegBinomial:
		return l.countLogProb(dp, y, f, c0, d0)
	}
	return logSigmoid(y * f)
}

// normaliser is the c0 and d0 logProbFrom starts from: log P(y | f = y)
// and its parameter derivatives for the location families, the part of
// log P that does not depend on f for the counts (countNormaliser).
func (l Lik) normaliser(d0 []float64, y float64) float64 {
	if l.isCount() {
		return l.countNormaliser(d0, y)
	}
	return l.logProb(d0, y, y)
}

// simpsonWeight is composite Simpson's weight of node j of k intervals
// (k even), before the factor h/3: 1 at the ends, 4 at odd nodes, 2 at
// even ones.
func simpsonWeight(j, k int) float64 {
	switch {
	case j == 0 || j == k:
		return 1
	case j%2 == 1:
		return 4
	}
	return 2
}

// epR is epPosterior's function that gives R = T̃^½B⁻¹T̃^½ from B's
// Cholesky factor t (overwritten) and sw = T̃^½.
func epR(t blas64.Triangular, sw []float64) func() (*mat.SymDense, error) {
	return func() (*mat.SymDense, error) {
		n := t.N
		if !potri(t) {
			return nil, ErrNotPD
		}
		R := mat.NewSymDense(n, nil)
		r := R.RawSymmetric()
		for i := 0; i < n; i++ {
			bi, ri := t.Data[i*t.Stride:], r.Data[i*r.Stride:]
			for j := i; j < n; j++ {
				ri[j] = sw[i] * bi[j] * sw[j]
			}
		}
		return R, nil
	}
}
