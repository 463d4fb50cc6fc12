package gp

import (
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/internal/fastexp"
	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/internal/sqdist"
	"github.com/kml-lang/kml/runtime/interrupt"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// The matrix form of SGPR's bound for kernels that are sums of scaled
// stationary kernels (rbf, laplacian, matern32, matern52; isotropic or
// ARD): each block's K_bz is evaluated whole — the squared distances of
// the scaled inputs row by row (sqdist), the exponentials in one
// vectorised call per row (fastexp) — rather than through k.Eval per
// pair; the n × m products go through the level-3 BLAS (DTRMM, DSYRK and
// DGEMM of runtime/internal/blas3); the derivatives in the lengthscales
// come from the same block as
//
//	Σᵢⱼ Gᵢⱼ ∂k(xᵢ, zⱼ)/∂ℓ_d = −(2/ℓ_d) Σᵢⱼ Hᵢⱼ (x̃ᵢ_d − z̃ⱼ_d)²,
//	H = G ∘ c·f′(u),  x̃ = x/ℓ,
//
// expanded as Σᵢ x̃ᵢ_d² Σⱼ Hᵢⱼ + Σⱼ z̃ⱼ_d² Σᵢ Hᵢⱼ − 2 Σᵢ x̃ᵢ_d (H z̃)ᵢ_d with
// the inputs centred on the inducing points' mean (one n × m × D DGEMM),
// and the scales' from ⟨G, f⟩. The rows are cut into sgprLanes
// contiguous lanes, run on the available cores, each summing its own
// blocks; the lanes' sums are added in lane order, so the result does
// not depend on the number of cores. Other kernels take the general path
// (k.Eval and k.GradHyper per pair).

// sgprFastPath turns the matrix form on; tests turn it off to compare.
var sgprFastPath = true

// sgprFastBlock is the number of rows per block of the matrix form, and
// sgprLanes the number of lanes (fixed, so that sums do not depend on
// the number of cores).
var sgprFastBlock = 512

const sgprLanes = 8

// fastTerm is one stationary kernel of the sum, with the product of the
// scales above it.
type fastTerm struct {
	prof   string
	ell    []float64 // len 1 (isotropic) or d
	coef   float64   // product of the scales above it
	scales []int     // hyperparameter indices of those scales
	off    int       // hyperparameter index of its first lengthscale
	xs     []float64 // n × d, (x − c)/ℓ row-major
	zt     []float64 // d × m, (z − c)/ℓ column-major (sqdist's layout)
	zs     []float64 // m × d, (z − c)/ℓ row-major
}

// fastKernel is k as a sum of fastTerms; hyper are k's hyperparameters.
type fastKernel struct {
	terms []fastTerm
	hyper []float64
	n, m  int
	d     int
	// dist, when set (z = x, Dists), holds the n × n squared distances
	// of the raw inputs: an isotropic term's u is then dist/ℓ² instead of
	// a sqdist pass over its scaled coordinates.
	dist []float64
}

// newFastKernel returns k's matrix form for the inputs x and inducing
// points z, or nil if k is not a sum of scaled rbf/Matérn kernels.
func newFastKernel(k kernels.Kernel, x, z *mat.Dense) *fastKernel {
	n, d := x.Dims()
	m, dz := z.Dims()
	if dz != d {
		return nil // the general path reports it
	}
	fk := &fastKernel{hyper: k.Hyper(nil), n: n, m: m, d: d}
	if _, ok := fk.flatten(k, 0, 1, nil); !ok || len(fk.terms) == 0 {
		return nil
	}
	xr, zr := linalg.RowMajor(x), linalg.RowMajor(z)
	for t := range fk.terms {
		ft := &fk.terms[t]
		ell := func(j int) float64 {
			if len(ft.ell) == 1 {
				return ft.ell[0]
			}
			return ft.ell[j]
		}
		c := make([]float64, d)
		for i := 0; i < m; i++ {
			for j := 0; j < d; j++ {
				c[j] += zr[i*d+j]
			}
		}
		for j := range c {
			c[j] /= float64(m)
		}
		ft.xs = make([]float64, n*d)
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				ft.xs[i*d+j] = (xr[i*d+j] - c[j]) / ell(j)
			}
		}
		ft.zs, ft.zt = make([]float64, m*d), make([]float64, d*m)
		for i := 0; i < m; i++ {
			for j := 0; j < d; j++ {
				v := (zr[i*d+j] - c[j]) / ell(j)
				ft.zs[i*d+j], ft.zt[j*m+i] = v, v
			}
		}
	}
	return fk
}

// flatten appends k's terms, k's hyperparameters starting at index off
// under scales of product coef (indices scales); it returns the index
// after k's hyperparameters.
func (fk *fastKernel) flatten(k kernels.Kernel, off int, coef float64, scales []int) (int, bool) {
	switch k := k.(type) {
	case *kernels.Stationary:
		switch k.Profile() {
		case "rbf", "laplacian", "matern32", "matern52":
		default:
			return 0, false
		}
		if len(k.Ell) != 1 && len(k.Ell) != fk.d {
			return 0, false
		}
		fk.terms = append(fk.terms, fastTerm{prof: k.Profile(), ell: k.Ell, coef: coef,
			scales: append([]int(nil), scales...), off: off})
		return off + len(k.Ell), true
	case *kernels.Scaled:
		return fk.flatten(k.K, off+1, coef*k.C, append(scales, off))
	case *kernels.Sum:
		mid, ok := fk.flatten(k.A, off, coef, scales)
		if !ok {
			return 0, false
		}
		return fk.flatten(k.B, mid, coef, scales)
	}
	return 0, false
}

// fastScratch is one lane's working storage for blocks of up to nb rows.
type fastScratch struct {
	u, e   [][]float64 // per term: u, and e^{−s} (rbf: the value)
	kb, g  []float64   // nb × m: K_bz, G_b
	h, hz  []float64   // nb × m: H; nb × d: H z̃
	alpha  []float64   // nb
	lam    []float64   // nb: FITC's λᵢ
	colSum []float64   // m
}

func (fk *fastKernel) scratch(nb int) *fastScratch {
	m, T := fk.m, len(fk.terms)
	s := &fastScratch{u: make([][]float64, T), e: make([][]float64, T),
		kb: make([]float64, nb*m), g: make([]float64, nb*m), h: make([]float64, nb*m),
		hz: make([]float64, nb*fk.d), alpha: make([]float64, nb), lam: make([]float64, nb), colSum: make([]float64, m)}
	for t := range s.u {
		s.u[t], s.e[t] = make([]float64, nb*m), make([]float64, nb*m)
	}
	return s
}

// block writes K_bz for rows [i0, i1) into s.kb (row-major (i1−i0) × m),
// keeping each term's u and e^{−s} for the derivatives.
func (fk *fastKernel) block(s *fastScratch, i0, i1 int) { fk.blockFrom(s, i0, i1, 0) }

// blockFrom is block for the columns [c0, m) of K_bz only, written as
// (i1−i0) × (m−c0).
func (fk *fastKernel) blockFrom(s *fastScratch, i0, i1, c0 int) {
	d := fk.d
	m := fk.m - c0
	nb := i1 - i0
	kb := s.kb[:nb*m]
	clear(kb)
	for t := range fk.terms {
		ft := &fk.terms[t]
		u, e := s.u[t][:nb*m], s.e[t][:nb*m]
		if fk.dist != nil && len(ft.ell) == 1 {
			inv := 1 / (ft.ell[0] * ft.ell[0])
			for i := 0; i < nb; i++ {
				row := fk.dist[(i0+i)*fk.m+c0 : (i0+i+1)*fk.m]
				ui := u[i*m : (i+1)*m]
				for j, v := range row {
					ui[j] = v * inv
				}
			}
		} else {
			for i := 0; i < nb; i++ {
				sqdist.Row(u[i*m:(i+1)*m], ft.zt[c0:], fk.m, ft.xs[(i0+i)*d:(i0+i+1)*d])
			}
		}
		switch ft.prof {
		case "rbf":
			fastexp.Exps(e, u, -0.5, 0)
			for i, v := range e {
				kb[i] += ft.coef * v
			}
		case "laplacian":
			for i, v := range u {
				e[i] = math.Sqrt(v)
			}
			fastexp.Exps(e, e, -1, 0)
			for i, v := range e {
				kb[i] += ft.coef * v
			}
		case "matern32":
			for i, v := range u {
				e[i] = math.Sqrt(3 * v)
			}
			fastexp.Exps(e, e, -1, 0)
			for i, v := range e {
				kb[i] += ft.coef * (1 + math.Sqrt(3*u[i])) * v
			}
		case "matern52":
			for i, v := range u {
				e[i] = math.Sqrt(5 * v)
			}
			fastexp.Exps(e, e, -1, 0)
			for i, v := range e {
				kb[i] += ft.coef * (1 + math.Sqrt(5*u[i]) + 5*u[i]/3) * v
			}
		}
	}
}

// blockV writes V_bᵀ = K_bz L⁻ᵀ for the rows [i0, i1) into s.kb, in
// place of K_bz (whose terms' u and e stay in s for the derivatives), by
// DTRMM with linv = L⁻¹, and returns it.
func (fk *fastKernel) blockV(s *fastScratch, i0, i1 int, linv *mat.TriDense) blas64.General {
	m, nb := fk.m, i1-i0
	fk.block(s, i0, i1)
	vt := blas64.General{Rows: nb, Cols: m, Stride: m, Data: s.kb[:nb*m]}
	li := linv.RawTriangular()
	blas64.Trmm(blas.Right, blas.Trans, 1,
		blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: m, Stride: li.Stride, Data: li.Data}, vt)
	return vt
}

// value is term t's f (without its coefficient) at entry i of the block.
func (ft *fastTerm) value(u, e float64) float64 {
	switch ft.prof {
	case "matern32":
		return (1 + math.Sqrt(3*u)) * e
	case "matern52":
		return (1 + math.Sqrt(5*u) + 5*u/3) * e
	}
	return e
}

// deriv is term t's f′(u).
func (ft *fastTerm) deriv(u, e float64) float64 {
	switch ft.prof {
	case "rbf":
		return -0.5 * e
	case "laplacian":
		r := math.Sqrt(u)
		if r == 0 {
			return 0 // as Stationary.GradHyper: the factor (x − z)² is 0 there
		}
		return -e / (2 * r)
	case "matern32":
		return -1.5 * e
	default:
		return -(5.0 / 6) * (1 + math.Sqrt(5*u)) * e
	}
}

// contract adds into acc Σᵢⱼ Gᵢⱼ ∂k(xᵢ, zⱼ)/∂h for the block [i0, i1)
// whose G is s.g and whose terms' u, e are in s.
// When za is not nil it also adds, per term, H's column sums and Hᵀx̃_b
// (m × d) into za, the parts of ∂F/∂z (zGradAcc).
func (fk *fastKernel) contract(acc []float64, za *zGradAcc, s *fastScratch, i0, i1 int) {
	fk.contractFrom(acc, za, s, i0, i1, 0)
}

// zGradAcc holds one lane's sums for the gradient in the inducing points:
// per term, Σᵢ Hᵢⱼ (cs, m) and Σᵢ Hᵢⱼ x̃ᵢ (hx, m × d row-major), so that
//
//	Σᵢ Gᵢⱼ ∂k(xᵢ, zⱼ)/∂z_jq = c Σᵢ Gᵢⱼ f′(uᵢⱼ) ∂uᵢⱼ/∂z_jq
//	                       = −(2/ℓ_q) ((Hᵀx̃)ⱼ_q − z̃ⱼ_q Σᵢ Hᵢⱼ).
type zGradAcc struct {
	cs, hx [][]float64
}

func (fk *fastKernel) newZGradAcc() *zGradAcc {
	za := &zGradAcc{cs: make([][]float64, len(fk.terms)), hx: make([][]float64, len(fk.terms))}
	for t := range za.cs {
		za.cs[t], za.hx[t] = make([]float64, fk.m), make([]float64, fk.m*fk.d)
	}
	return za
}

// addZGrad adds the lanes' sums, in lane order, to ∂F/∂z in gz.
func (fk *fastKernel) addZGrad(gz []float64, lanes []*zGradAcc) {
	d := fk.d
	for t := range fk.terms {
		ft := &fk.terms[t]
		cs, hx := make([]float64, fk.m), make([]float64, fk.m*d)
		for _, za := range lanes {
			if za == nil {
				continue
			}
			for j, v := range za.cs[t] {
				cs[j] += v
			}
			for i, v := range za.hx[t] {
				hx[i] += v
			}
		}
		for j := 0; j < fk.m; j++ {
			for q := 0; q < d; q++ {
				ell := ft.ell[0]
				if len(ft.ell) > 1 {
					ell = ft.ell[q]
				}
				gz[j*d+q] += -2 / ell * (hx[j*d+q] - ft.zs[j*d+q]*cs[j])
			}
		}
	}
}

// contractFrom is contract over the columns [c0, m) of a block from
// blockFrom (G, u and e (i1−i0) × (m−c0)); za must be nil unless c0 = 0.
func (fk *fastKernel) contractFrom(acc []float64, za *zGradAcc, s *fastScratch, i0, i1, c0 int) {
	d := fk.d
	m := fk.m - c0
	nb := i1 - i0
	g := s.g[:nb*m]
	for t := range fk.terms {
		ft := &fk.terms[t]
		u, e, h := s.u[t][:nb*m], s.e[t][:nb*m], s.h[:nb*m]
		// ⟨G, f⟩ for the scales, and H = G ∘ c·f′(u).
		gf := 0.0
		if ft.prof == "rbf" {
			// f = e, f′ = −e/2, without a call per entry.
			c := -0.5 * ft.coef
			for i, gv := range g {
				ge := gv * e[i]
				gf += ge
				h[i] = c * ge
			}
		} else {
			for i, gv := range g {
				gf += gv * ft.value(u[i], e[i])
				h[i] = gv * ft.coef * ft.deriv(u[i], e[i])
			}
		}
		for _, sh := range ft.scales {
			c := 1.0
			for _, o := range ft.scales {
				if o != sh {
					c *= fk.hyper[o]
				}
			}
			acc[sh] += c * gf
		}
		if za != nil {
			// Hᵀx̃_b and H's column sums for ∂F/∂z.
			blas64.Gemm(blas.Trans, blas.NoTrans, 1,
				blas64.General{Rows: nb, Cols: m, Stride: m, Data: h},
				blas64.General{Rows: nb, Cols: d, Stride: d, Data: ft.xs[i0*d : i1*d]},
				1, blas64.General{Rows: m, Cols: d, Stride: d, Data: za.hx[t]})
			cs := za.cs[t]
			for i := 0; i < nb; i++ {
				for j, hv := range h[i*m : (i+1)*m] {
					cs[j] += hv
				}
			}
		}
		if len(ft.ell) == 1 {
			// ∂u/∂ℓ = −2u/ℓ.
			hu := 0.0
			for i, hv := range h {
				hu += hv * u[i]
			}
			acc[ft.off] += -2 / ft.ell[0] * hu
			continue
		}
		// Σᵢⱼ Hᵢⱼ (x̃ᵢ_d − z̃ⱼ_d)² = Σᵢ x̃ᵢ_d² rᵢ + Σⱼ z̃ⱼ_d² cⱼ − 2 Σᵢ x̃ᵢ_d (H z̃)ᵢ_d.
		hz := s.hz[:nb*d]
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1,
			blas64.General{Rows: nb, Cols: m, Stride: m, Data: h},
			blas64.General{Rows: m, Cols: d, Stride: d, Data: ft.zs[c0*d:]},
			0, blas64.General{Rows: nb, Cols: d, Stride: d, Data: hz})
		cs := s.colSum[:m]
		clear(cs)
		sums := make([]float64, d)
		for i := 0; i < nb; i++ {
			row := h[i*m : (i+1)*m]
			r := 0.0
			for j, hv := range row {
				r += hv
				cs[j] += hv
			}
			xi := ft.xs[(i0+i)*d : (i0+i+1)*d]
			for j, xv := range xi {
				sums[j] += xv*xv*r - 2*xv*hz[i*d+j]
			}
		}
		for j := 0; j < m; j++ {
			zj := ft.zs[(c0+j)*d : (c0+j+1)*d]
			for q, zv := range zj {
				sums[q] += zv * zv * cs[j]
			}
		}
		for q, v := range sums {
			acc[ft.off+q] += -2 / ft.ell[q] * v
		}
	}
}

// lanes runs body(lane, lo, hi) over sgprLanes contiguous row ranges on
// the available cores, each range in blocks of at most sgprFastBlock rows.
func (fk *fastKernel) lanes(body func(lane int, s *fastScratch, i0, i1 int)) {
	per := (fk.n + sgprLanes - 1) / sgprLanes
	fk.lanesOf(min(sgprFastBlock, max(per, 1)), body)
}

// lanesOf is lanes in blocks of at most nb rows.
func (fk *fastKernel) lanesOf(nb int, body func(lane int, s *fastScratch, i0, i1 int)) {
	n := fk.n
	per := (n + sgprLanes - 1) / sgprLanes
	par.Each(sgprLanes, 1, runtime.GOMAXPROCS(0), func() *fastScratch { return fk.scratch(nb) },
		func(s *fastScratch, lane, _, _ int) {
			lo, hi := lane*per, min((lane+1)*per, n)
			for i0 := lo; i0 < hi; i0 += nb {
				interrupt.Check()
				body(lane, s, i0, min(i0+nb, hi))
			}
		})
}

// fastPass is SGPR's first pass in the matrix form (see sgprFast): the
// sums of sgprStats, the factor of A = σ²I + VVᵀ with w = A⁻¹Vy, and L⁻¹.
func fastPass(fk *fastKernel, k kernels.Kernel, x, z *mat.Dense, y []float64, noise float64) (*sgprStats, *mat.TriDense, error) {
	s, linv, err := newStatsInv(k, x, z, y)
	if err != nil {
		return nil, nil, err
	}
	n, m := s.n, s.m
	type laneSums struct {
		p  []float64
		vy []float64
		yy float64
	}
	sums := make([]laneSums, sgprLanes)
	fk.lanes(func(lane int, sc *fastScratch, i0, i1 int) {
		ls := &sums[lane]
		if ls.p == nil {
			ls.p, ls.vy = make([]float64, m*m), make([]float64, m)
		}
		vt := fk.blockV(sc, i0, i1, linv)
		nb, kb := vt.Rows, vt.Data
		blas64.Syrk(blas.Trans, 1, vt, 1, blas64.Symmetric{Uplo: blas.Upper, N: m, Stride: m, Data: ls.p})
		yb := y[i0:i1]
		blas64.Gemv(blas.Trans, 1, blas64.General{Rows: nb, Cols: m, Stride: m, Data: kb},
			blas64.Vector{N: nb, Inc: 1, Data: yb}, 1, blas64.Vector{N: m, Inc: 1, Data: ls.vy})
		for _, v := range yb {
			ls.yy += v * v
		}
	})
	s.P, s.vy = mat.NewSymDense(m, nil), make([]float64, m)
	praw := s.P.RawSymmetric().Data
	for _, ls := range sums {
		if ls.p == nil {
			continue
		}
		for i := 0; i < m; i++ {
			for j := i; j < m; j++ {
				praw[i*m+j] += ls.p[i*m+j]
			}
			s.vy[i] += ls.vy[i]
		}
		s.yy += ls.yy
	}
	// tr Q = tr VᵀV = tr P. A non-finite entry of a block's K_bz reaches
	// V_bᵀ's column of that entry, hence P's diagonal, hence tr Q.
	for i := 0; i < m; i++ {
		s.trQ += praw[i*m+i]
	}
	if math.IsNaN(s.trQ) || math.IsInf(s.trQ, 0) {
		return nil, nil, ErrNonFinite
	}
	for i := 0; i < n; i++ {
		xi := x.RawRowView(i)
		s.trK += k.Eval(xi, xi)
	}
	if err := s.factorA(noise); err != nil {
		return nil, nil, err
	}
	return s, linv, nil
}

// newStatsInv is newStats with L⁻¹, formed once (m³/3 flops) so that each
// block's V_bᵀ = K_bz L⁻ᵀ is a triangular product (DTRMM, 46 GFLOP/cpu-s
// at n_b = m = 512 on AVX-512) rather than a triangular solve (DTRSM,
// 29–33, which inverts its diagonal blocks again at every call).
func newStatsInv(k kernels.Kernel, x, z *mat.Dense, y []float64) (*sgprStats, *mat.TriDense, error) {
	s, err := newStats(k, x, z, y)
	if err != nil {
		return nil, nil, err
	}
	var linv mat.TriDense
	if err := linalg.IgnoreCondition(linv.InverseTri(&s.L)); err != nil {
		return nil, nil, err
	}
	return s, &linv, nil
}

// sparseFast returns the matrix form of k for the data x and inducing
// points z, or nil when k has none or a test turned it off
// (sgprFastPath); it checks the data and the observations' number as the
// general path does.
func sparseFast(k kernels.Kernel, x, z *mat.Dense, y []float64) (*fastKernel, error) {
	if !sgprFastPath {
		return nil, nil
	}
	if err := kernels.CheckData(x, "the data"); err != nil {
		return nil, err
	}
	fk := newFastKernel(k, x, z)
	if fk != nil && len(y) != fk.n {
		return nil, fmt.Errorf("gp: %d observations for %d input rows", len(y), fk.n)
	}
	return fk, nil
}

// sgprFast is SGPRLogMarginal in the matrix form. With Kbz the block's
// n_b × m kernel matrix, the first pass accumulates P = VVᵀ (V_bᵀ =
// K_bz L⁻ᵀ by DTRMM with L⁻¹ formed once, then DSYRK) and Vy, and
// tr Q = tr P; the second forms G_b = V_bᵀM + α_b(Bα)ᵀ as K_bz(L⁻ᵀM) + α_b(Bα)ᵀ by one DGEMM, with
// α_b = (y_b − K_bz L⁻ᵀw)/σ², and contracts it with the kernel's
// derivatives; Σ_b B_b G_b = L⁻ᵀ(PM + Vα(Bα)ᵀ) is m × m work.
//
// With dtc it is LowRankLogMarginal instead, F + tr(K − Q)/(2σ²): without
// the trace term, G_b = W_bBᵀ keeps the −B_bᵀ/σ² = −K_bz K_zz⁻¹/σ² that
// cancelled, which is M' − K_zz⁻¹/σ² in place of M' (m × m work), Σ_b B_b
// G_b loses L⁻ᵀPL⁻¹/σ², and the diagonal's and σ²'s trace parts go.
//
// With gz not nil (not with dtc) it also writes ∂F/∂z (SGPRLogMarginalZ).
func sgprFast(fk *fastKernel, k kernels.Kernel, x, z *mat.Dense, y []float64, noise float64, grad, gz []float64, dtc bool) (float64, error) {
	s, linv, err := fastPass(fk, k, x, z, y, noise)
	if err != nil {
		return 0, err
	}
	n, m := s.n, s.m
	bound := s.bound(noise)
	if dtc {
		bound += 0.5 * (s.trK - s.trQ) / noise
	}
	if grad == nil {
		return bound, nil
	}
	va, ba, mm, err := s.gradParts(noise)
	if err != nil {
		return 0, err
	}
	// M' = L⁻ᵀM and w' = L⁻ᵀw.
	var mp mat.Dense
	if err := linalg.IgnoreCondition(mp.Solve(s.L.T(), mm)); err != nil {
		return 0, err
	}
	// L⁻¹ as a general matrix, so that its products are DGEMMs (gonum
	// multiplies triangular and symmetric operands element by element).
	var linvD *mat.Dense
	if dtc {
		// M' − K_zz⁻¹/σ², K_zz⁻¹ = L⁻ᵀL⁻¹ (of the jittered K_zz).
		linvD = mat.DenseCopyOf(linv)
		var kinv mat.Dense
		kinv.Mul(linvD.T(), linvD)
		kinv.Scale(-1/noise, &kinv)
		mp.Add(&mp, &kinv)
	}
	mpRaw := linalg.RowMajor(&mp)
	wp := mat.NewVecDense(m, nil)
	if err := linalg.IgnoreCondition(wp.SolveVec(s.L.T(), mat.NewVecDense(m, s.w))); err != nil {
		return 0, err
	}
	wpRaw := wp.RawVector().Data
	baRaw := ba.RawVector().Data
	nh := k.NumHyper()
	type laneGrad struct {
		g  []float64
		aa float64
	}
	gl := make([]laneGrad, sgprLanes)
	zl := make([]*zGradAcc, sgprLanes)
	fk.lanes(func(lane int, sc *fastScratch, i0, i1 int) {
		lg := &gl[lane]
		if lg.g == nil {
			lg.g = make([]float64, nh)
			if gz != nil {
				zl[lane] = fk.newZGradAcc()
			}
		}
		nb := i1 - i0
		fk.block(sc, i0, i1)
		kb := sc.kb[:nb*m]
		kg := blas64.General{Rows: nb, Cols: m, Stride: m, Data: kb}
		// α_b = (y_b − K_bz w')/σ².
		alpha := sc.alpha[:nb]
		copy(alpha, y[i0:i1])
		blas64.Gemv(blas.NoTrans, -1, kg, blas64.Vector{N: m, Inc: 1, Data: wpRaw},
			1, blas64.Vector{N: nb, Inc: 1, Data: alpha})
		for i := range alpha {
			alpha[i] /= noise
			lg.aa += alpha[i] * alpha[i]
		}
		// G_b = K_bz M' + α_b(Bα)ᵀ.
		gb := blas64.General{Rows: nb, Cols: m, Stride: m, Data: sc.g[:nb*m]}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, kg,
			blas64.General{Rows: m, Cols: m, Stride: m, Data: mpRaw}, 0, gb)
		blas64.Ger(1, blas64.Vector{N: nb, Inc: 1, Data: alpha},
			blas64.Vector{N: m, Inc: 1, Data: baRaw}, gb)
		fk.contract(lg.g, zl[lane], sc, i0, i1)
	})
	gsum := make([]float64, nh)
	var aa float64
	for _, lg := range gl {
		if lg.g == nil {
			continue
		}
		for h := range gsum {
			gsum[h] += lg.g[h]
		}
		aa += lg.aa
	}
	if gz != nil {
		fk.addZGrad(gz, zl)
	}
	tmp := make([]float64, nh)
	for i := 0; i < n && !dtc; i++ {
		xi := x.RawRowView(i)
		k.GradHyper(tmp, xi, xi)
		for h := range gsum {
			gsum[h] -= 0.5 * tmp[h] / noise
		}
	}
	// Σ_b B_b G_b = L⁻ᵀ(PM + Vα(Bα)ᵀ), less L⁻ᵀPL⁻¹/σ² for DTC.
	var pm, g2 mat.Dense
	pd := mat.DenseCopyOf(s.P) // a DGEMM, not gonum's Go DSYMM
	pm.Mul(pd, mm)
	pm.RankOne(&pm, 1, va, ba)
	if dtc {
		var pl mat.Dense
		pl.Mul(pd, linvD)
		pl.Scale(-1/noise, &pl)
		pm.Add(&pm, &pl)
	}
	if err := linalg.IgnoreCondition(g2.Solve(s.L.T(), &pm)); err != nil {
		return 0, err
	}
	if err := s.finishGrad(k, z, &g2, gsum, aa, noise, grad, gz); err != nil {
		return 0, err
	}
	if dtc {
		grad[nh] -= 0.5 * (s.trK - s.trQ) / (noise * noise)
	}
	return bound, nil
}

// predictFast is predict in the matrix form, for a kernel newFastKernel
// takes: per block of new rows, K_*z whole, V_*ᵀ = K_*z L⁻ᵀ by DTRMM,
// the mean V_*ᵀw, and V_*ᵀA⁻¹ by one DGEMM with A⁻¹ formed once for the
// variance k_** − |V_*|² + c·V_*ᵀA⁻¹V_*.
func (s *sgprStats) predictFast(k kernels.Kernel, linv *mat.TriDense, z, xnew *mat.Dense, c float64) (mean, fvar []float64, err error) {
	if err := kernels.CheckData(xnew, "the new inputs"); err != nil {
		return nil, nil, err
	}
	p, _ := xnew.Dims()
	mean, fvar = make([]float64, p), make([]float64, p)
	if p == 0 {
		return mean, fvar, nil
	}
	if _, d := xnew.Dims(); d != z.RawMatrix().Cols {
		return nil, nil, fmt.Errorf("gp: the new inputs have %d columns but the data have %d", d, z.RawMatrix().Cols)
	}
	fk := newFastKernel(k, xnew, z) // k and z as for the data, so not nil
	m := s.m
	var ainvS mat.SymDense
	if err := linalg.IgnoreCondition(s.la.InverseTo(&ainvS)); err != nil {
		return nil, nil, err
	}
	ainv := linalg.RowMajor(mat.DenseCopyOf(&ainvS))
	fk.lanes(func(_ int, sc *fastScratch, i0, i1 int) {
		vt := fk.blockV(sc, i0, i1, linv)
		nb, kb := vt.Rows, vt.Data
		va := blas64.General{Rows: nb, Cols: m, Stride: m, Data: sc.g[:nb*m]}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, vt, blas64.General{Rows: m, Cols: m, Stride: m, Data: ainv}, 0, va)
		for i := 0; i < nb; i++ {
			row, arow := kb[i*m:(i+1)*m], va.Data[i*m:(i+1)*m]
			xi := xnew.RawRowView(i0 + i)
			mean[i0+i] = linalg.Dot(row, s.w)
			fvar[i0+i] = math.Max(k.Eval(xi, xi)-linalg.Dot(row, row)+c*linalg.Dot(row, arow), 0)
		}
	})
	return mean, fvar, nil
}
