package kernels

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// HSFeatures is the feature matrix F (n × Cols()) of a kernel's reduced-rank
// approximation k(x, x′) ≈ Σ_c F_c(x) F_c(x′) at fixed inputs: what hsgp
// multiplies by standard normal weights. A kernel is a sum of terms, each
// a base kernel times a product of scales c (Scaled):
//
//   - the stationary terms (rbf, laplacian, matern12/32/52) share the
//     Hilbert basis Φ (hilbert.go), with F = Φ·diag(√S), S = Σ c·S_term
//     their summed spectral densities: Size() columns, first;
//   - each periodic term, on one input column, brings 2J + 1 columns of
//     its cosine series (Solin and Särkkä 2014; Riutort-Mayol et al.
//     2023, §5): exp(−2 sin²(ω₀τ/2)/ℓ²) = Σ_j q_j² cos(jω₀τ), ω₀ = 2π/p,
//     q_0² = e^(−a)I_0(a), q_j² = 2e^(−a)I_j(a) for j ≥ 1, a = ℓ⁻², and
//     cos(jω₀(x − x′)) = cos(jω₀x)cos(jω₀x′) + sin(jω₀x)sin(jω₀x′), so its
//     columns are √c·q_0, then √c·q_j·cos(jω₀x) and √c·q_j·sin(jω₀x) for
//     j = 1..J, in the kernel's order. The truncation leaves out
//     c·Σ_(j>J) q_j² = c·(1 − Σ_(j≤J) q_j²) of the variance, the largest
//     error of the approximate covariance (at τ = 0); the basis depends on
//     the period, so its gradient goes through the columns themselves;
//   - a product periodic × stationary (either factor scaled), on one input
//     column, is stationary with the density c Σ_j q_j² ½(S_s(ω − jω₀) +
//     S_s(ω + jω₀)) (each harmonic shifts k_s's spectrum), weighted on the
//     Hilbert basis with the stationary terms (productDensity).
//
// The weights' gradient in ℓ uses I_j′ = (I_(j−1) + I_(j+1))/2.
type HSFeatures struct {
	h     *Hilbert   // the box and basis of the stationary terms (nil when none)
	phi   *mat.Dense // the Hilbert basis at the inputs
	x     []float64  // the inputs' one column, for the periodic terms
	J     int        // harmonics per periodic term
	n     int
	terms []hsTerm
	cols  int
	np    int // the kernel's hyperparameters
}

// hsTerm is one term of the kernel's sum: base times the scales at the
// hyperparameter indices scales; base's hyperparameters start at off.
type hsTerm struct {
	base   Kernel
	off    int
	scales []int
	col    int // a periodic term's first column
	// A product periodic × stationary (base the periodic factor): the
	// stationary factor and the index of its first hyperparameter.
	st    *Stationary
	stOff int
}

// periodicCols reports whether t has periodic columns of its own (a
// periodic term that is not a factor of a product).
func (t hsTerm) periodicCols() bool {
	_, ok := t.base.(*Periodic)
	return ok && t.st == nil
}

// onBox reports whether t is weighted on the Hilbert basis.
func (t hsTerm) onBox() bool { return !t.periodicCols() }

// CheckHilbert returns nil when NewHSFeatures accepts k on dim input
// columns, and otherwise an error saying why not and what to use.
func CheckHilbert(k Kernel, dim int) error {
	_, err := hsTerms(k, dim, 0, nil, nil)
	return err
}

// HilbertNeedsBox reports whether k (accepted by CheckHilbert) has a
// stationary term, whose features need the Hilbert box; periodic terms'
// columns do not depend on it.
func HilbertNeedsBox(k Kernel) bool {
	switch k := k.(type) {
	case *Scaled:
		return HilbertNeedsBox(k.K)
	case *Sum:
		return HilbertNeedsBox(k.A) || HilbertNeedsBox(k.B)
	case *Periodic:
		return false
	}
	return true // stationary kernels and products periodic × stationary
}

// hsTerms flattens k (hyperparameters from off, under the scales at
// indices scales) into terms appended to dst.
func hsTerms(k Kernel, dim, off int, scales []int, dst []hsTerm) ([]hsTerm, error) {
	switch kk := k.(type) {
	case *Scaled:
		return hsTerms(kk.K, dim, off+1, append(append([]int(nil), scales...), off), dst)
	case *Sum:
		dst, err := hsTerms(kk.A, dim, off, scales, dst)
		if err != nil {
			return nil, err
		}
		return hsTerms(kk.B, dim, off+kk.A.NumHyper(), scales, dst)
	case *Periodic:
		if dim != 1 {
			return nil, fmt.Errorf("%s: hsgp approximates the periodic kernel on one input column by its cosine series, and x has %d columns; use the exact gp() for a periodic kernel in several inputs", k, dim)
		}
		return append(dst, hsTerm{base: k, off: off, scales: scales}), nil
	case *Stationary:
		if err := CheckSpectral(k, dim); err != nil {
			return nil, err
		}
		return append(dst, hsTerm{base: k, off: off, scales: scales}), nil
	case *Product:
		refuse := fmt.Errorf("%s: hsgp approximates a product of kernels only as periodic × a stationary kernel (rbf, laplacian, matern12/32/52) on one input column (the spectral density of another product is the convolution of the factors'); use the exact gp(), or a sum of approximated kernels", k)
		if dim != 1 {
			return nil, refuse
		}
		fa, oa, sa := hsFactor(kk.A, off, scales)
		fb, ob, sb := hsFactor(kk.B, off+kk.A.NumHyper(), sa)
		per, okp := fa.(*Periodic)
		st, oks := fb.(*Stationary)
		pOff, sOff := oa, ob
		if !okp {
			per, okp = fb.(*Periodic)
			st, oks = fa.(*Stationary)
			pOff, sOff = ob, oa
		}
		if !okp || !oks {
			return nil, refuse
		}
		if err := CheckSpectral(st, dim); err != nil {
			return nil, err
		}
		return append(dst, hsTerm{base: per, off: pOff, scales: sb, st: st, stOff: sOff}), nil
	}
	return nil, CheckSpectral(k, dim)
}

// hsFactor strips the scales off a product's factor k (hyperparameters
// from off), appending their indices to scales.
func hsFactor(k Kernel, off int, scales []int) (Kernel, int, []int) {
	scales = append([]int(nil), scales...)
	for {
		sc, ok := k.(*Scaled)
		if !ok {
			return k, off, scales
		}
		scales = append(scales, off)
		k, off = sc.K, off+1
	}
}

// NewHSFeatures prepares the features of kernel k at the rows of x: h is
// the Hilbert box for the stationary terms (it may be nil when k has
// none), J the harmonics of each periodic term. Any kernel with k's
// structure (k.WithHyper's) may then be given to Eval.
func NewHSFeatures(k Kernel, h *Hilbert, x *mat.Dense, J int) (*HSFeatures, error) {
	if err := CheckData(x, "x"); err != nil {
		return nil, err
	}
	n, dim := x.Dims()
	terms, err := hsTerms(k, dim, 0, nil, nil)
	if err != nil {
		return nil, err
	}
	f := &HSFeatures{J: J, n: n, terms: terms, np: k.NumHyper()}
	stationary := false
	for _, t := range terms {
		if t.onBox() {
			stationary = true
		}
	}
	if stationary {
		if h == nil {
			panic("kernels: NewHSFeatures needs a Hilbert box for a stationary kernel")
		}
		if f.phi, err = h.Basis(x); err != nil {
			return nil, err
		}
		f.h = h
		f.cols = h.Size()
	}
	for i := range f.terms {
		if f.terms[i].periodicCols() {
			if J < 0 {
				return nil, fmt.Errorf("the periodic kernel's cosine series needs at least 0 harmonics, got %d", J)
			}
			if f.x == nil {
				f.x = make([]float64, n)
				mat.Col(f.x, 0, x)
			}
			f.terms[i].col = f.cols
			f.cols += 2*J + 1
		}
	}
	return f, nil
}

// Cols is the number of features: Size() of the box for the stationary
// terms, and 2J + 1 for each periodic term.
func (f *HSFeatures) Cols() int { return f.cols }

// Eval writes F (n × Cols(), row-major) for kernel k, which must have the
// structure of the kernel given to NewHSFeatures, into val, and when jac
// is not nil ∂F_ic/∂h_(pos[l]) into jac[(i·Cols() + c)·len(pos) + l], for
// the hyperparameters at the indices pos of k's. Where a weight is 0 its
// derivative in the scales and ℓ is written as 0.
func (f *HSFeatures) Eval(k Kernel, pos []int, val, jac []float64) error {
	hy := k.Hyper(nil)
	if len(hy) != f.np {
		panic("kernels: HSFeatures.Eval given a kernel of another structure")
	}
	P, q, cols := f.np, len(pos), f.cols
	// w[c] is column c's weight, dw[c·P + h] its derivative; the basis
	// itself depends on hyperparameters only in the periodic columns.
	w := make([]float64, cols)
	var dw []float64
	if jac != nil {
		dw = make([]float64, cols*P)
	}
	scale := func(t hsTerm) float64 {
		c := 1.0
		for _, i := range t.scales {
			c *= hy[i]
		}
		return c
	}
	// others is the product of t's scales but the one at index s.
	others := func(t hsTerm, s int) float64 {
		c := 1.0
		for _, i := range t.scales {
			if i != s {
				c *= hy[i]
			}
		}
		return c
	}
	if f.h != nil {
		size := f.h.Size()
		S := make([]float64, size)
		var dS, g []float64
		if jac != nil {
			dS = make([]float64, size*P)
			g = make([]float64, P)
		}
		for _, t := range f.terms {
			if t.st != nil {
				if err := f.productDensity(t, hy, S, dS); err != nil {
					return err
				}
				continue
			}
			st, ok := t.base.(*Stationary)
			if !ok {
				continue
			}
			var err error
			if st, err = f.rehyper(st, hy[t.off:t.off+st.NumHyper()]); err != nil {
				return err
			}
			c := scale(t)
			for j := range size {
				var gt []float64
				if jac != nil {
					gt = g[:st.NumHyper()]
				}
				s, err := st.spectral(f.h.Freq(j), gt)
				if err != nil {
					return err
				}
				S[j] += c * s
				if jac != nil {
					for i, v := range gt {
						dS[j*P+t.off+i] += c * v
					}
					for _, si := range t.scales {
						dS[j*P+si] += others(t, si) * s
					}
				}
			}
		}
		for j := range size {
			r := math.Sqrt(S[j])
			w[j] = r
			if jac != nil && r > 0 {
				for i := range P {
					dw[j*P+i] = dS[j*P+i] / (2 * r)
				}
			}
		}
	}
	// periods[c] is the index of the period that column c's basis depends
	// on (−1 for none), omega[c] its frequency jω₀.
	periods := make([]int, cols)
	omega := make([]float64, cols)
	for c := range periods {
		periods[c] = -1
	}
	ive := make([]float64, f.J+2)
	for _, t := range f.terms {
		if !t.periodicCols() {
			continue
		}
		ell, per := hy[t.off], hy[t.off+1]
		if !(ell > 0) || math.IsInf(ell, 0) || !(per > 0) || math.IsInf(per, 0) {
			return fmt.Errorf("periodic: ell and period must be positive and finite, got %v and %v", ell, per)
		}
		a := 1 / (ell * ell)
		besselIve(a, ive)
		c := scale(t)
		w0 := 2 * math.Pi / per
		for j := 0; j <= f.J; j++ {
			fj := 2.0
			if j == 0 {
				fj = 1
			}
			q2 := fj * ive[j]
			wj := math.Sqrt(c * q2)
			// ∂q_j²/∂a = f_j(I_(j−1) + I_(j+1))/2·e^(−a) − q_j², I_(−1) = I_1.
			lo := ive[1]
			if j > 0 {
				lo = ive[j-1]
			}
			dq2 := fj*(lo+ive[j+1])/2 - q2
			cs := []int{t.col}
			if j > 0 {
				cs = []int{t.col + 2*j - 1, t.col + 2*j}
			}
			for _, col := range cs {
				w[col] = wj
				if j > 0 {
					periods[col] = t.off + 1
					omega[col] = float64(j) * w0
				}
				if jac != nil && wj > 0 {
					// w = √(c q²): ∂w/∂ℓ = c ∂q²/∂a · (−2/ℓ³) / (2w).
					dw[col*P+t.off] = c * dq2 * (-2 * a / ell) / (2 * wj)
					for _, si := range t.scales {
						dw[col*P+si] = others(t, si) * q2 / (2 * wj)
					}
				}
			}
		}
	}
	// The rows: basis × weight, and the Jacobian's entries.
	var phiRaw []float64
	var phiStride, size int
	if f.h != nil {
		r := f.phi.RawMatrix()
		phiRaw, phiStride, size = r.Data, r.Stride, f.h.Size()
	}
	b := make([]float64, cols)  // the row's basis
	db := make([]float64, cols) // its derivative in the column's period
	for i := range f.n {
		copy(b[:size], phiRaw[i*phiStride:i*phiStride+size])
		for _, t := range f.terms {
			if !t.periodicCols() {
				continue
			}
			per := hy[t.off+1]
			x := f.x[i]
			b[t.col], db[t.col] = 1, 0
			// cos and sin of jθ by the angle-addition recurrence.
			s1, c1 := math.Sincos(2 * math.Pi * x / per)
			cj, sj := 1.0, 0.0
			for j := 1; j <= f.J; j++ {
				cj, sj = cj*c1-sj*s1, sj*c1+cj*s1
				col := t.col + 2*j - 1
				b[col], b[col+1] = cj, sj
				// θ_j = jω₀x, ∂θ_j/∂p = −jω₀x/p.
				dth := -omega[col] * x / per
				db[col], db[col+1] = -sj*dth, cj*dth
			}
		}
		row := val[i*cols : (i+1)*cols]
		for c, bc := range b {
			row[c] = bc * w[c]
		}
		if jac == nil {
			continue
		}
		for c, bc := range b {
			e := (i*cols + c) * q
			for l, hi := range pos {
				v := bc * dw[c*P+hi]
				if periods[c] == hi {
					v += db[c] * w[c]
				}
				jac[e+l] = v
			}
		}
	}
	return nil
}

// rehyper returns st with the hyperparameters h (its own, checked).
func (f *HSFeatures) rehyper(st *Stationary, h []float64) (*Stationary, error) {
	k, err := st.WithHyper(h)
	if err != nil {
		return nil, err
	}
	return k.(*Stationary), nil
}

// productDensity adds to S (and its derivatives to dS, when not nil) the
// spectral density of the term c·periodic(ℓ, p)·k_s at the box's
// frequencies: with the cosine series periodic(τ) = Σ_j q_j² cos(jω₀τ),
// each harmonic times k_s has the density ½(S_s(ω − jω₀) + S_s(ω + jω₀)),
// so S = c Σ_j q_j² ½(S_s(ω − jω₀) + S_s(ω + jω₀)) (for j = 0, q_0² S_s(ω)),
// summed to j = 10 + 9√a, beyond which q_j² < e^(−40)·q_0². The period's
// derivative goes through the shifts, jω₀, by S_s′(ω).
func (f *HSFeatures) productDensity(t hsTerm, hy, S, dS []float64) error {
	ell, per := hy[t.off], hy[t.off+1]
	if !(ell > 0) || math.IsInf(ell, 0) || !(per > 0) || math.IsInf(per, 0) {
		return fmt.Errorf("periodic: ell and period must be positive and finite, got %v and %v", ell, per)
	}
	st, err := f.rehyper(t.st, hy[t.stOff:t.stOff+t.st.NumHyper()])
	if err != nil {
		return err
	}
	a := 1 / (ell * ell)
	J := 10 + int(9*math.Sqrt(a))
	ive := make([]float64, J+2)
	besselIve(a, ive)
	c := 1.0
	for _, i := range t.scales {
		c *= hy[i]
	}
	w0 := 2 * math.Pi / per
	P := len(hy)
	ns := st.NumHyper()
	g := make([]float64, ns)
	var inner float64 // Σ_j q_j²·½(S_s(ω − jω₀) + S_s(ω + jω₀)) at one ω
	for k := range f.h.Size() {
		w := f.h.Freq(k)[0]
		inner = 0
		var dInner []float64 // its derivatives: stationary's, then ℓ, then p
		if dS != nil {
			dInner = make([]float64, ns+2)
		}
		for j := 0; j <= J; j++ {
			fj := 2.0
			if j == 0 {
				fj = 1
			}
			q2 := fj * ive[j]
			lo := ive[1]
			if j > 0 {
				lo = ive[j-1]
			}
			dq2 := (fj*(lo+ive[j+1])/2 - q2) * (-2 * a / ell) // ∂q_j²/∂ℓ
			shift := float64(j) * w0
			half := 0.5
			sides := []float64{w - shift, w + shift}
			if j == 0 {
				sides, half = sides[:1], 1
			}
			for side, ws := range sides {
				var gs []float64
				if dS != nil {
					gs = g
				}
				sv, dw, err := st.spectral1D(ws, gs)
				if err != nil {
					return err
				}
				inner += half * q2 * sv
				if dS != nil {
					for i, v := range gs {
						dInner[i] += half * q2 * v
					}
					dInner[ns] += half * dq2 * sv
					// ∂(ω ∓ jω₀)/∂p = ±jω₀/p.
					sign := 1.0
					if side == 1 {
						sign = -1
					}
					dInner[ns+1] += half * q2 * dw * sign * shift / per
				}
			}
		}
		S[k] += c * inner
		if dS != nil {
			for i := range ns {
				dS[k*P+t.stOff+i] += c * dInner[i]
			}
			dS[k*P+t.off] += c * dInner[ns]
			dS[k*P+t.off+1] += c * dInner[ns+1]
			for _, si := range t.scales {
				o := 1.0
				for _, i := range t.scales {
					if i != si {
						o *= hy[i]
					}
				}
				dS[k*P+si] += o * inner
			}
		}
	}
	return nil
}
