package bke

import (
	"fmt"
	"math"

	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/linalg"
)

// SumTerm is one component c·rbf(ℓ) of a sum of squared-exponential
// kernels k = Σ_t c_t exp(−½ Σ_d (x_d − y_d)²/ℓ_td²).
type SumTerm struct {
	// Amp is c_t; zero means 1.
	Amp float64
	// Ell is ℓ_t: length 1 (isotropic) or D (ARD).
	Ell []float64
}

// SumHyper holds the hyperparameters of SumLogDensity: the terms and τ².
type SumHyper struct {
	Terms []SumTerm
	Tau2  float64
}

// SumGrad receives SumLogDensity's gradient: per term, ∂/∂c_t in Amp and
// ∂/∂ℓ_t in Ell; and ∂/∂τ².
type SumGrad struct {
	Terms []SumTerm
	Tau2  float64
}

// crossFactor returns, for one dimension, the log of the factor of the
// cross term r_st(x, y) = ∫ k_s(x, u) k_t(u, y) ν(du) of two SE components
// with lengthscales a (of s) and b (of t) in that dimension, amplitudes
// left out, and its derivatives with respect to a and b.
//
// The integrand exp(−½ Q(u)), Q(u) = (x − u)²/a² + (u − y)²/b² + u²/η²
// (the last term for the Gaussian measure only), is Gaussian in u with
// precision P = 1/a² + 1/b² (+ 1/η²) and mean m = (x/a² + y/b²)/P, so
//
//	∫ exp(−½ Q(u)) du = √(2π/P) exp(−½ Q(m)),
//	Q(m) = (x − m)²/a² + (y − m)²/b² + m²/η²,
//
// a sum of squares (no cancellation). For the Lebesgue measure Q(m) =
// (x − y)²/(a² + b²) and √(2π/P) = √(2π a²b²/(a² + b²)); for a = b = ℓ these
// are PriorKernel's (x − y)²/(2ℓ²) and √π ℓ. Since ∂Q/∂a at fixed u is
// −2(x − u)²/a³ and Q's minimiser moves without first-order effect,
//
//	∂ log f/∂a = E[(x − u)²]/a³ = (1/P + (x − m)²)/a³,
//
// the expectation under the Gaussian in u; likewise for b with y.
//
// The normalised measure divides term (s, t) by n_s n_t with
// n_t = π^{D/4} Π_d √ℓ_td: the Lebesgue prior of Σ_t (c_t/n_t) k_t, so the
// sum over (s, t) stays positive semidefinite, and for s = t (a = b) it is
// PriorKernel's normalised form σ⁴ exp(−Σ(x − y)²/(4ℓ²)) exactly; per
// dimension that subtracts ½ log π + ½ log a + ½ log b.
func crossFactor(measure Prior, eta, a, b, x, y float64) (logf, da, db float64) {
	ia2, ib2 := 1/(a*a), 1/(b*b)
	var ie2 float64
	if measure == Gaussian {
		ie2 = 1 / (eta * eta)
	}
	p := ia2 + ib2 + ie2
	m := (x*ia2 + y*ib2) / p
	xm, ym := x-m, y-m
	q := xm*xm*ia2 + ym*ym*ib2 + m*m*ie2
	logf = 0.5*math.Log(2*math.Pi/p) - 0.5*q
	da = (1/p + xm*xm) * ia2 / a
	db = (1/p + ym*ym) * ib2 / b
	if measure == Normalised {
		logf -= 0.5*math.Log(math.Pi) + 0.5*math.Log(a) + 0.5*math.Log(b)
		da -= 0.5 / a
		db -= 0.5 / b
	}
	return logf, da, db
}

// sumParams are validated SumHyper terms.
type sumParams struct {
	amp  []float64   // c_t
	lamp []float64   // log c_t
	ell  [][]float64 // ℓ_t as given (length 1 or D)
	off  []int       // index of c_t in the flat parameter vector; ℓ_t follow
	np   int         // number of parameters (amplitudes and lengthscales)
	tau2 float64
}

func (sp *sumParams) l(t, d int) float64 {
	if len(sp.ell[t]) == 1 {
		return sp.ell[t][0]
	}
	return sp.ell[t][d]
}

// ellIndex is the flat index of ∂/∂ℓ_td (the one isotropic index for all d).
func (sp *sumParams) ellIndex(t, d int) int {
	if len(sp.ell[t]) == 1 {
		return sp.off[t] + 1
	}
	return sp.off[t] + 1 + d
}

func (md *Model) prepareSum(h SumHyper) (*sumParams, error) {
	if len(h.Terms) == 0 {
		return nil, fmt.Errorf("bke: a sum kernel needs at least one term")
	}
	sp := &sumParams{tau2: h.Tau2}
	for t, term := range h.Terms {
		p, err := md.prepare(Hyper{Ell: term.Ell, Amp: term.Amp, Tau2: h.Tau2}, true)
		if err != nil {
			return nil, fmt.Errorf("term %d of the sum: %w", t+1, err)
		}
		sp.amp = append(sp.amp, p.amp)
		sp.lamp = append(sp.lamp, math.Log(p.amp))
		sp.ell = append(sp.ell, term.Ell)
		sp.off = append(sp.off, sp.np)
		sp.np += 1 + len(term.Ell)
	}
	return sp, nil
}

// sumForceCauchyBinet makes every row take sumCauchyBinet (tests only).
var sumForceCauchyBinet = false

// sumRowBlock is the number of data rows per block of SumLogDensity's row
// passes.
const sumRowBlock = 64

// SumLogDensity is LogDensity (the Derived variant) for a sum of SE kernels
// k = Σ_t c_t rbf(ℓ_t): the same formula with K_il = k(x_i, z_l), its
// Jacobian J_ld = ∂k(x_i, z_l)/∂x_d = −Σ_t c_t e_til (x_id − z_ld)/ℓ_td², and
// the prior covariance R = Σ_{s,t} c_s c_t r_st with the cross terms of
// crossFactor. When g is not nil it receives the gradient with respect to
// every c_t, ℓ_t and τ².
//
// It computes K row by row in Go (no tiles or vector kernels, which are
// for a single SE kernel): O(T²m²D + m³) for the landmarks and O(nmTD²)
// per pass for the data, two passes (one for μ̂, then the centred sums, the
// Jacobian and every derivative), in parallel row blocks combined in a
// fixed order. Each row's Jacobian is taken relative to its largest
// component weight c_t e_til, so far from every landmark nothing
// underflows; a row whose JᵀJ is still singular is an error naming it.
//
// A one-term sum computes the same density as LogDensity (to rounding).
// The Published variant is refused: the authors' program has one SE
// kernel.
func (md *Model) SumLogDensity(h SumHyper, g *SumGrad) (float64, error) {
	if md.opt.Variant != Derived {
		return 0, fmt.Errorf("bke: a sum of kernels takes the derived density; variant %q is the authors' program for one rbf kernel", md.opt.Variant)
	}
	sp, err := md.prepareSum(h)
	if err != nil {
		return 0, err
	}
	n, m, dim := md.n, md.m, md.dim
	nf, mf, t := float64(n), float64(m), sp.tau2
	grad := g != nil
	nt := len(sp.amp)

	// Pass 1: K (n×m) and μ̂.
	kmat := make([]float64, n*m)
	par.Each(n, sumRowBlock, md.workers, nil, func(_ struct{}, _, lo, hi int) {
		for i := lo; i < hi; i++ {
			x := md.xrow(i)
			for l := 0; l < m; l++ {
				z := md.zrow(l)
				var k float64
				for tt := 0; tt < nt; tt++ {
					var q float64
					for d := 0; d < dim; d++ {
						v := (x[d] - z[d]) / sp.l(tt, d)
						q += v * v
					}
					k += sp.amp[tt] * math.Exp(-0.5*q)
				}
				kmat[i*m+l] = k
			}
		}
	})
	mu := make([]float64, m)
	for i := 0; i < n; i++ {
		for l := 0; l < m; l++ {
			mu[l] += kmat[i*m+l]
		}
	}
	for l := range mu {
		mu[l] /= nf
	}

	// Landmarks: R, A = R + (τ²/n)I factorised, α = A⁻¹μ̂.
	ls := &landmarkSystem{m: m, r: make([]float64, m*m), u: make([]float64, m*m), inv: make([]float64, m*m)}
	md.sumGram(sp, ls.r, nil, nil)
	if err := ls.factor(t / nf); err != nil {
		return 0, err
	}
	alpha := append([]float64(nil), mu...)
	ls.solve(alpha)

	// Pass 2, per block: the centred sum of squares, the Jacobian terms,
	// and with grad Σ_il (K_il − μ̂_l) ∂K_il, n ∂μ̂ and Σ_i tr(G⁻¹Jᵀ∂J).
	nb := par.NumBlocks(n, sumRowBlock)
	width := 2
	if grad {
		width += 2 * sp.np
	}
	if grad {
		width += sp.np * m // Σ_i ∂K_il/∂p per landmark, for ∂μ̂
	}
	parts := make([]float64, nb*width)
	errs := make([]error, nb)
	par.Each(n, sumRowBlock, md.workers, func() *sumScratch { return newSumScratch(m, dim, sp.np) }, func(sc *sumScratch, b, lo, hi int) {
		errs[b] = md.sumBlock(sp, sc, kmat, mu, grad, parts[b*width:(b+1)*width], lo, hi)
	})
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	acc := make([]float64, width)
	for b := 0; b < nb; b++ {
		for j := range acc {
			acc[j] += parts[b*width+j]
		}
	}
	css, logJac := acc[0], acc[1]

	var quad float64
	for l := range mu {
		quad += mu[l] * alpha[l]
	}
	val := -0.5*(ls.logDet+quad+css/t+mf*math.Log(nf)+mf*(nf-1)*math.Log(t)+mf*nf*math.Log(2*math.Pi)) + logJac
	if !grad {
		return val, nil
	}

	ainv := ls.inverse()
	bm := make([]float64, m*m) // B = ααᵀ − A⁻¹
	var trB float64
	for j := 0; j < m; j++ {
		for k := 0; k < m; k++ {
			bm[j*m+k] = alpha[j]*alpha[k] - ainv[j*m+k]
		}
		trB += bm[j*m+j]
	}
	flat := make([]float64, sp.np)
	md.sumGram(sp, nil, bm, flat) // ½ tr(B ∂R/∂p)
	kdk, jdj, sumDK := acc[2:2+sp.np], acc[2+sp.np:2+2*sp.np], acc[2+2*sp.np:]
	for p := 0; p < sp.np; p++ {
		var adm float64 // αᵀ ∂μ̂/∂p
		for l := 0; l < m; l++ {
			adm += alpha[l] * sumDK[p*m+l] / nf
		}
		flat[p] += -adm - kdk[p]/t + jdj[p]
	}
	g.Tau2 = trB/(2*nf) + css/(2*t*t) - mf*(nf-1)/(2*t)
	g.Terms = g.Terms[:0]
	for tt := 0; tt < nt; tt++ {
		o := sp.off[tt]
		g.Terms = append(g.Terms, SumTerm{Amp: flat[o], Ell: append([]float64(nil), flat[o+1:o+1+len(sp.ell[tt])]...)})
	}
	return val, nil
}

// sumGram fills r (m×m, when not nil) with R = Σ_{s,t} c_s c_t r_st(z_j, z_k)
// and, when b is not nil, adds ½ Σ_jk B_jk ∂R_jk/∂p to dst[p] for every
// parameter p.
func (md *Model) sumGram(sp *sumParams, r, b, dst []float64) {
	m, dim, nt := md.m, md.dim, len(sp.amp)
	da := make([]float64, dim)
	db := make([]float64, dim)
	for j := 0; j < m; j++ {
		zj := md.zrow(j)
		for k := 0; k < m; k++ {
			zk := md.zrow(k)
			var rjk float64
			for s := 0; s < nt; s++ {
				for tt := 0; tt < nt; tt++ {
					var lf float64
					for d := 0; d < dim; d++ {
						f, a1, b1 := crossFactor(md.opt.Prior, md.opt.Eta, sp.l(s, d), sp.l(tt, d), zj[d], zk[d])
						lf += f
						da[d], db[d] = a1, b1
					}
					v := sp.amp[s] * sp.amp[tt] * math.Exp(lf)
					rjk += v
					if b != nil {
						w := 0.5 * b[j*m+k] * v
						dst[sp.off[s]] += w / sp.amp[s]
						dst[sp.off[tt]] += w / sp.amp[tt]
						for d := 0; d < dim; d++ {
							dst[sp.ellIndex(s, d)] += w * da[d]
							dst[sp.ellIndex(tt, d)] += w * db[d]
						}
					}
				}
			}
			if r != nil {
				r[j*m+k] = rjk
			}
		}
	}
}

// sumScratch is one worker's per-row workspace for sumBlock.
type sumScratch struct {
	logw []float64 // T×m: log c_t − ½ q_tl
	v    []float64 // m×D: x − z_l
	rho  []float64 // m: ρ_l = max_t log(c_t e_tl)
	j    []float64 // m×D: Ĵ, row l scaled by e^{−ρ_l}
	dj   []float64 // np×m×D: ∂Ĵ/∂p
	jt   []float64 // m×D: J̃ = e^{−smax} J
	djt  []float64 // np×m×D: ∂J̃/∂p
	dk   []float64 // np×m: ∂K_il/∂p
	g, l []float64 // D×D: G̃ and its Cholesky factor
	w    []float64 // m×D: J̃ G̃⁻¹
}

func newSumScratch(m, dim, np int) *sumScratch {
	return &sumScratch{v: make([]float64, m*dim), rho: make([]float64, m), j: make([]float64, m*dim),
		dj: make([]float64, np*m*dim), jt: make([]float64, m*dim), djt: make([]float64, np*m*dim), dk: make([]float64, np*m),
		g: make([]float64, dim*dim), l: make([]float64, dim*dim), w: make([]float64, m*dim)}
}

// sumBlock accumulates rows lo..hi into out: [css, Σ log γ, then with grad
// Σ_il (K_il − μ̂_l) ∂K_il/∂p per p, Σ_i tr(G̃⁻¹J̃ᵀ∂J̃/∂p) per p, and
// Σ_i ∂K_il/∂p per p and l].
func (md *Model) sumBlock(sp *sumParams, sc *sumScratch, kmat, mu []float64, grad bool, out []float64, lo, hi int) error {
	m, dim, nt, np := md.m, md.dim, len(sp.amp), sp.np
	if cap(sc.logw) < nt*m {
		sc.logw = make([]float64, nt*m)
	}
	logw := sc.logw[:nt*m]
	for i := lo; i < hi; i++ {
		x := md.xrow(i)
		for l := 0; l < m; l++ {
			c := kmat[i*m+l] - mu[l]
			out[0] += c * c
		}
		smax := math.Inf(-1)
		for l := 0; l < m; l++ {
			z := md.zrow(l)
			for d := 0; d < dim; d++ {
				sc.v[l*dim+d] = x[d] - z[d]
			}
			for tt := 0; tt < nt; tt++ {
				var q float64
				for d := 0; d < dim; d++ {
					u := sc.v[l*dim+d] / sp.l(tt, d)
					q += u * u
				}
				lw := sp.lamp[tt] - 0.5*q
				logw[tt*m+l] = lw
				smax = math.Max(smax, lw)
			}
		}
		// Per landmark, Ĵ_l = e^{−ρ_l} J_l with ρ_l = max_t log(c_t e_tl)
		// and, with grad, ∂Ĵ_l/∂p and ∂K_il/∂p.
		clear(sc.j)
		if grad {
			clear(sc.dj)
			clear(sc.dk)
		}
		for l := 0; l < m; l++ {
			rho := math.Inf(-1)
			for tt := 0; tt < nt; tt++ {
				rho = math.Max(rho, logw[tt*m+l])
			}
			sc.rho[l] = rho
			v := sc.v[l*dim : (l+1)*dim]
			for tt := 0; tt < nt; tt++ {
				w := math.Exp(logw[tt*m+l] - rho) // c_t e_tl e^{−ρ_l}
				for d := 0; d < dim; d++ {
					sc.j[l*dim+d] -= w * v[d] / (sp.l(tt, d) * sp.l(tt, d))
				}
				if !grad {
					continue
				}
				e := math.Exp(logw[tt*m+l] - sp.lamp[tt]) // e_tl
				pa := sp.off[tt]
				sc.dk[pa*m+l] += e
				for d := 0; d < dim; d++ {
					sc.dj[(pa*m+l)*dim+d] -= w / sp.amp[tt] * v[d] / (sp.l(tt, d) * sp.l(tt, d))
				}
				for d := 0; d < dim; d++ {
					// ∂/∂ℓ_td: e gains v_d²/ℓ_td³; the factor 1/ℓ_td² of
					// J's column d gives −2/ℓ_td.
					ld := sp.l(tt, d)
					de := v[d] * v[d] / (ld * ld * ld)
					p := sp.ellIndex(tt, d)
					sc.dk[p*m+l] += sp.amp[tt] * e * de
					for d2 := 0; d2 < dim; d2++ {
						l2 := sp.l(tt, d2)
						jd := -w * v[d2] / (l2 * l2)
						sc.dj[(p*m+l)*dim+d2] += jd * de
						if d2 == d {
							sc.dj[(p*m+l)*dim+d2] -= 2 * jd / ld
						}
					}
				}
			}
		}
		// J̃_l = e^{ρ_l − smax} Ĵ_l = e^{−smax} J_l (and ∂J̃ likewise) in
		// sc.jt, sc.djt.
		for l := 0; l < m; l++ {
			f := math.Exp(sc.rho[l] - smax)
			for d := 0; d < dim; d++ {
				sc.jt[l*dim+d] = f * sc.j[l*dim+d]
			}
			if grad {
				for p := 0; p < np; p++ {
					for d := 0; d < dim; d++ {
						sc.djt[(p*m+l)*dim+d] = f * sc.dj[(p*m+l)*dim+d]
					}
				}
			}
		}
		// G̃ = J̃ᵀJ̃, its Cholesky factor and log det; where that is
		// inaccurate (a diagonal entry underflows, or the Hadamard ratio
		// det G̃/Π G̃_aa is below hadamardLimit: one landmark dominating),
		// Cauchy–Binet in log space instead.
		ok := true
		for a := 0; a < dim; a++ {
			for b := 0; b <= a; b++ {
				var s float64
				for l := 0; l < m; l++ {
					s += sc.jt[l*dim+a] * sc.jt[l*dim+b]
				}
				sc.g[a*dim+b], sc.g[b*dim+a] = s, s
			}
			ok = ok && sc.g[a*dim+a] > tinyDiag
		}
		ok = ok && linalg.Cholesky(sc.l, sc.g, dim)
		var half, logHad float64
		for a := 0; ok && a < dim; a++ {
			half += math.Log(sc.l[a*dim+a])
			logHad += 2*math.Log(sc.l[a*dim+a]) - math.Log(sc.g[a*dim+a])
		}
		if !ok || logHad < math.Log(hadamardLimit) || sumForceCauchyBinet {
			var jdj []float64
			if grad {
				jdj = out[2+np : 2+2*np]
			}
			h, err := sumCauchyBinet(sc, m, dim, np, grad, jdj)
			if err != nil {
				return fmt.Errorf("bke: data row %d: %v", i+1, err)
			}
			out[1] += h
			if grad {
				md.sumKTerms(sc, kmat, mu, out, i, np)
			}
			continue
		}
		out[1] += half + float64(dim)*smax
		if !grad {
			continue
		}
		// W = J̃ G̃⁻¹, row by row: G̃ w = j_l.
		for l := 0; l < m; l++ {
			w := sc.w[l*dim : (l+1)*dim]
			copy(w, sc.jt[l*dim:(l+1)*dim])
			for a := 0; a < dim; a++ {
				s := w[a]
				for c := 0; c < a; c++ {
					s -= sc.l[a*dim+c] * w[c]
				}
				w[a] = s / sc.l[a*dim+a]
			}
			for a := dim - 1; a >= 0; a-- {
				s := w[a]
				for c := a + 1; c < dim; c++ {
					s -= sc.l[c*dim+a] * w[c]
				}
				w[a] = s / sc.l[a*dim+a]
			}
		}
		jdj := out[2+np : 2+2*np]
		for p := 0; p < np; p++ {
			var s2 float64
			for l := 0; l < m; l++ {
				for d := 0; d < dim; d++ {
					s2 += sc.w[l*dim+d] * sc.djt[(p*m+l)*dim+d]
				}
			}
			jdj[p] += s2
		}
		md.sumKTerms(sc, kmat, mu, out, i, np)
	}
	return nil
}

// sumKTerms adds row i's Σ_l (K_il − μ̂_l) ∂K_il/∂p and ∂K_il/∂p to out.
func (md *Model) sumKTerms(sc *sumScratch, kmat, mu, out []float64, i, np int) {
	m := md.m
	kdk, sumDK := out[2:2+np], out[2+2*np:]
	for p := 0; p < np; p++ {
		var s1 float64
		for l := 0; l < m; l++ {
			dk := sc.dk[p*m+l]
			s1 += (kmat[i*m+l] - mu[l]) * dk
			sumDK[p*m+l] += dk
		}
		kdk[p] += s1
	}
}

// sumCauchyBinet returns ½ log det(JᵀJ) of the row in sc by the
// Cauchy–Binet formula det(JᵀJ) = Σ_S det(J_S)² over the D-subsets S of
// landmarks, with det(J_S) = e^{Σ_{l∈S} ρ_l} det(Ĵ_S), summed in log space;
// with grad it adds Σ_S π_S tr(Ĵ_S⁻¹ ∂Ĵ_S/∂p) to jdj[p] (π_S the subsets'
// shares of the sum), the derivative of ½ log det(JᵀJ). It fails when
// every det(Ĵ_S) is 0 or there are more than maxSubsets subsets.
func sumCauchyBinet(sc *sumScratch, m, dim, np int, grad bool, jdj []float64) (float64, error) {
	if c := binomial(m, dim); c > maxSubsets {
		return 0, fmt.Errorf("the Jacobian JᵀJ is numerically singular and the exact form would sum %g subsets of landmarks", c)
	}
	idx := make([]int, dim)
	for k := range idx {
		idx[k] = k
	}
	a := make([]float64, dim*dim)
	lu := make([]float64, dim*dim)
	piv := make([]int, dim)
	type subset struct {
		logw float64
		tr   []float64
	}
	var subs []subset
	best := math.Inf(-1)
	for {
		for r, l := range idx {
			copy(a[r*dim:(r+1)*dim], sc.j[l*dim:(l+1)*dim])
		}
		if logAbsDet, ok := luFactor(lu, a, piv, dim); ok {
			var lw float64
			for _, l := range idx {
				lw += 2 * sc.rho[l]
			}
			lw += 2 * logAbsDet
			s := subset{logw: lw}
			if grad {
				s.tr = make([]float64, np)
				for p := 0; p < np; p++ {
					// tr(Ĵ_S⁻¹ ∂Ĵ_S): solve Ĵ_S X = ∂Ĵ_S column by column.
					var tr float64
					col := make([]float64, dim)
					for c := 0; c < dim; c++ {
						for r, l := range idx {
							col[r] = sc.dj[(p*m+l)*dim+c]
						}
						luSolve(lu, piv, col, dim)
						tr += col[c]
					}
					s.tr[p] = tr
				}
			}
			subs = append(subs, s)
			best = math.Max(best, lw)
		}
		// Next subset in lexicographic order.
		k := dim - 1
		for k >= 0 && idx[k] == m-dim+k {
			k--
		}
		if k < 0 {
			break
		}
		idx[k]++
		for j := k + 1; j < dim; j++ {
			idx[j] = idx[j-1] + 1
		}
	}
	if len(subs) == 0 || math.IsInf(best, -1) {
		return 0, fmt.Errorf("the Jacobian of x ↦ (k(x, z_1), ..., k(x, z_m)) is singular there")
	}
	var sum float64
	for _, s := range subs {
		sum += math.Exp(s.logw - best)
	}
	if grad {
		for _, s := range subs {
			w := math.Exp(s.logw-best) / sum
			for p := range jdj {
				jdj[p] += w * s.tr[p]
			}
		}
	}
	return 0.5 * (best + math.Log(sum)), nil
}

// luFactor writes the LU factorisation with partial pivoting of the d×d
// matrix a into lu and piv, and returns log|det a|; ok is false when a
// pivot is 0.
func luFactor(lu, a []float64, piv []int, d int) (logAbsDet float64, ok bool) {
	copy(lu, a[:d*d])
	for k := 0; k < d; k++ {
		p := k
		for r := k + 1; r < d; r++ {
			if math.Abs(lu[r*d+k]) > math.Abs(lu[p*d+k]) {
				p = r
			}
		}
		piv[k] = p
		if lu[p*d+k] == 0 {
			return 0, false
		}
		if p != k {
			for c := 0; c < d; c++ {
				lu[k*d+c], lu[p*d+c] = lu[p*d+c], lu[k*d+c]
			}
		}
		logAbsDet += math.Log(math.Abs(lu[k*d+k]))
		for r := k + 1; r < d; r++ {
			f := lu[r*d+k] / lu[k*d+k]
			lu[r*d+k] = f
			for c := k + 1; c < d; c++ {
				lu[r*d+c] -= f * lu[k*d+c]
			}
		}
	}
	return logAbsDet, true
}

// luSolve overwrites b with a⁻¹b from luFactor's lu and piv.
func luSolve(lu []float64, piv []int, b []float64, d int) {
	for k := 0; k < d; k++ {
		if p := piv[k]; p != k {
			b[k], b[p] = b[p], b[k]
		}
	}
	for r := 0; r < d; r++ {
		for c := 0; c < r; c++ {
			b[r] -= lu[r*d+c] * b[c]
		}
	}
	for r := d - 1; r >= 0; r-- {
		for c := r + 1; c < d; c++ {
			b[r] -= lu[r*d+c] * b[c]
		}
		b[r] /= lu[r*d+r]
	}
}
