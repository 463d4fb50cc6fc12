package bke

import (
	"fmt"
	"math"

	"github.com/kml-lang/kml/runtime/internal/fastexp"
	"github.com/kml-lang/kml/runtime/linalg"
)

// The Jacobian term of the pseudolikelihood (eq. 13) is log γ(x) =
// ½ log det(JᵀJ) with J_ld = ∂k(x, z_l)/∂x_d = −k(x, z_l)(x_d − z_ld)/ℓ_d².
// Writing v_l = x − z_l and e_l = exp(−½ q_l),
//
//	JᵀJ = σ⁴ L⁻² G L⁻²,  G = Σ_l e_l² v_l v_lᵀ,  L = diag(ℓ),
//
// so log γ = D log σ² + ½ log det G − 2 Σ_d log ℓ_d. Since ∂e_l²/∂ℓ_d =
// e_l² · 2 s_ld/ℓ_d with s_ld = v_ld²/ℓ_d²,
//
//	∂ log γ/∂ℓ_d = (1/ℓ_d) Σ_l λ_l s_ld − 2/ℓ_d,  λ_l = e_l² v_lᵀ G⁻¹ v_l,
//
// and Σ_l λ_l s_ld = tr(G⁻¹ T_d) with T_d = Σ_l e_l² s_ld v_l v_lᵀ (for an
// isotropic ℓ, s_ld summed over d is q_l). The pass accumulates G̃ and T̃ with
// the weights u_l² = e_l²/max_l e_l², which keep the largest weight at 1 (G̃ =
// G/exp(−q_min)), so far from every landmark nothing underflows.
//
// closeJacobian finishes a row from G̃ and T̃ when that is accurate; when a
// diagonal entry of G̃ underflows or forming det G̃ would cancel (its
// Hadamard ratio det G̃/Π_d G̃_dd is below hadamardLimit, the v_l weighted by
// u_l being nearly linearly dependent, as when one landmark dominates), the
// row is recomputed by cauchyBinet.
// minNormal is the smallest normal float64.
const minNormal = 0x1p-1022

const (
	tinyDiag      = 1e-290
	hadamardLimit = 1e-4
	// maxSubsets bounds the Cauchy–Binet sum: C(m, D) subsets of landmarks.
	maxSubsets = 1_000_000
)

// closeJacobian returns ½ log det G̃ and, with grad, sets sc.dj[p] =
// tr(G̃⁻¹ T̃_p). ok is false when the row needs cauchyBinet. Only the lower
// triangles of sc.g and sc.t are filled.
func (ps *pass) closeJacobian(sc *scratch) (half float64, ok bool) {
	dim := ps.md.dim
	g := sc.g
	if dim <= 2 {
		a, c, r, ok := ps.closeSmall(sc)
		if !ok {
			return 0, false
		}
		if det := a * c * r; det > minNormal && det <= math.MaxFloat64 {
			return 0.5 * math.Log(det), true // one logarithm where the product is representable
		}
		return 0.5 * (math.Log(a) + math.Log(c) + math.Log(r)), true
	}

	// Cholesky G̃ = LLᵀ in sc.inv (lower triangle); the Hadamard ratio is
	// Π_d L_dd²/G̃_dd.
	for j := 0; j < dim; j++ {
		if !(g[j*dim+j] > tinyDiag) {
			return 0, false
		}
	}
	l := sc.inv
	if !linalg.Cholesky(l, g, dim) {
		return 0, false
	}
	var logDet, logHad float64
	for j := 0; j < dim; j++ {
		d := l[j*dim+j]
		logDet += 2 * math.Log(d)
		logHad += math.Log(d * d / g[j*dim+j])
	}
	if logHad < math.Log(hadamardLimit) {
		return 0, false
	}
	if ps.grad {
		// tr(G̃⁻¹T): solve L Lᵀ X = T column by column, sum diag X.
		col := sc.tmp
		for k := range sc.dj {
			t := sc.t[k*dim*dim : (k+1)*dim*dim]
			var tr float64
			for a := 0; a < dim; a++ {
				// Column a of the symmetric T from its lower triangle.
				for i := 0; i < dim; i++ {
					if i >= a {
						col[i] = t[i*dim+a]
					} else {
						col[i] = t[a*dim+i]
					}
				}
				for i := 0; i < dim; i++ { // L y = col
					s := col[i]
					for j := 0; j < i; j++ {
						s -= l[i*dim+j] * col[j]
					}
					col[i] = s / l[i*dim+i]
				}
				for i := dim - 1; i >= 0; i-- { // Lᵀ x = y
					s := col[i]
					for j := i + 1; j < dim; j++ {
						s -= l[j*dim+i] * col[j]
					}
					col[i] = s / l[i*dim+i]
				}
				tr += col[a]
			}
			sc.dj[k] = tr
		}
	}
	return 0.5 * logDet, true
}

// closeSmall is closeJacobian for D ≤ 2: det G̃ = a·c·r (c = r = 1 for
// D = 1), with sc.dj set when grad; ok is false when the row needs
// cauchyBinet.
func (ps *pass) closeSmall(sc *scratch) (a, c, r float64, ok bool) {
	g := sc.g
	if ps.md.dim == 1 {
		if !(g[0] > tinyDiag) {
			return 0, 0, 0, false
		}
		if ps.grad {
			for k := range sc.dj {
				sc.dj[k] = sc.t[k] / g[0]
			}
		}
		return g[0], 1, 1, true
	}
	a, b, c := g[0], g[2], g[3]
	ba, r, ok := small2(a, b, c)
	if !ok {
		return 0, 0, 0, false
	}
	if ps.grad {
		for k := range sc.dj {
			t := sc.t[k*4 : k*4+4]
			sc.dj[k] = small2Grad(a, b, c, ba, r, t[0], t[2], t[3])
		}
	}
	return a, c, r, true
}

// small2 is closeSmall's test for D = 2, G̃ = [a b; b c]: det G̃ = a·c·r
// with r = 1 − b²/(ac) and ba = b/a, ok when a, c are above tinyDiag and
// r (the Hadamard ratio) is at least hadamardLimit.
func small2(a, b, c float64) (ba, r float64, ok bool) {
	if !(a > tinyDiag && c > tinyDiag) {
		return 0, 0, false
	}
	ba = b / a
	r = 1 - ba*(b/c)
	return ba, r, r >= hadamardLimit
}

// small2Grad is tr(G̃⁻¹T̃) for D = 2 from G̃ = [a b; b c], small2's ba and
// r, and the lower triangle t00, t10, t11 of T̃: (c·t00 − 2b·t10 + a·t11)
// / det G̃, one division where det G̃ = a·c·r is a normal number (six
// divisions per row were a tenth of the tile path at m = 30).
func small2Grad(a, b, c, ba, r, t00, t10, t11 float64) float64 {
	if det := a * c * r; det > minNormal && det <= math.MaxFloat64 {
		return (c*t00 - 2*b*t10 + a*t11) / det
	}
	return (t00/a - 2*ba*t10/c + t11/c) / r
}

// frexpNormal is math.Frexp for a positive normal x, small enough to
// inline: x = f·2^e with f in [½, 1).
func frexpNormal(x float64) (f float64, e int) {
	const mask, bias = 0x7ff << 52, 1022
	b := math.Float64bits(x)
	return math.Float64frombits(b&^mask | bias<<52), int(b>>52&0x7ff) - bias
}

// closeRotated is closeJacobian for D = 2 in coordinates along v* = v_l*,
// the landmark with the largest term u_l²|v_l|² of tr G̃: a row whose G̃
// is nearly rank one (one landmark dominating, as for points near a
// landmark at a lengthscale well below the landmarks' spacing) fails
// small2's Hadamard test in the data's coordinates, but in these the
// dominant term adds to G̃'s first diagonal entry only, and
//
//	det G̃ = a'c' − b'² = u*²|v*|² c' + (the other terms' own det ≥ 0)
//
// does not cancel. With e₁ = v*/|v*|, a landmark's coordinates are
// y₀ = v*·v_l/|v*| and y₁ = v* × v_l/|v*| = v* × (z* − z_l)/|v*| (as
// subsetDet forms it: exact for v_l ∥ v*). det G̃ and tr(G̃⁻¹T̃_p) do not
// depend on the frame. ok is false when small2 fails even so (two
// dominant landmarks nearly in line with the point): then cauchyBinet. On
// the bench/stan bke2 data at ℓ = 1.6, 67 of 900 rows failed small2, and
// cauchyBinet for them was half of the sampler's time.
func (ps *pass) closeRotated(sc *scratch) (half float64, ok bool) {
	md := ps.md
	m, np := md.m, ps.np
	v, u := sc.v[:2*m], sc.u[:m]
	top, best := 0, -1.0
	for l := 0; l < m; l++ {
		if t := u[l] * u[l] * (v[2*l]*v[2*l] + v[2*l+1]*v[2*l+1]); t > best {
			top, best = l, t
		}
	}
	v0, v1 := v[2*top], v[2*top+1]
	nv := math.Hypot(v0, v1)
	if !(nv > 0) || !(best > 0) {
		return 0, false
	}
	c0, c1 := v0/nv, v1/nv
	z := md.z[:2*m]
	zt0, zt1 := z[2*top], z[2*top+1]
	var a, b, c float64
	t := sc.t[:np*4]
	clear(t)
	q := sc.q[:m]
	for l, ul := range u {
		w := ul * ul
		if w == 0 {
			continue
		}
		y0 := c0*v[2*l] + c1*v[2*l+1]
		y1 := c0*(zt1-z[2*l+1]) - c1*(zt0-z[2*l]) // exactly 0 for l = top
		p00, p10, p11 := w*y0*y0, w*y0*y1, w*y1*y1
		a += p00
		b += p10
		c += p11
		switch {
		case !ps.grad:
		case np == 1:
			t[0] += p00 * q[l]
			t[2] += p10 * q[l]
			t[3] += p11 * q[l]
		default:
			for k := 0; k < np; k++ {
				wk := sc.s[2*l+k]
				t[4*k] += p00 * wk
				t[4*k+2] += p10 * wk
				t[4*k+3] += p11 * wk
			}
		}
	}
	ba, r, ok := small2(a, b, c)
	if !ok {
		return 0, false
	}
	if ps.grad {
		for k := 0; k < np; k++ {
			sc.dj[k] = small2Grad(a, b, c, ba, r, t[4*k], t[4*k+2], t[4*k+3])
		}
	}
	if det := a * c * r; det > minNormal && det <= math.MaxFloat64 {
		return 0.5 * math.Log(det), true
	}
	return 0.5 * (math.Log(a) + math.Log(c) + math.Log(r)), true
}

// cauchyBinet returns ½ log det G for row i, with G = Σ_l e_l² v_l v_lᵀ, by
// the Cauchy–Binet formula
//
//	det G = Σ_{S ⊂ {1..m}, |S| = D} Π_{l∈S} e_l² · det[v_l]_{l∈S}²,
//
// a sum of non-negative terms, so it does not cancel. Each determinant is
// taken as det[v_{l1}, z_{l1} − z_{l2}, ..., z_{l1} − z_{lD}] (subtracting
// the first column from the others), which stays accurate when x is far
// from landmarks that are close together. With grad it sets sc.dj[p] =
// Σ_S π_S Σ_{l∈S} s_lp, π_S the normalised terms, which equals
// Σ_l λ_l s_lp.
//
// The weights e_l² = exp(−q_l) are taken relative to the heaviest subset's,
// so that every term is at most its squared determinant, and landmarks are
// visited by decreasing weight, skipping the subsets whose terms are bounded
// below 2⁻⁶⁰ of the sum so far (at a small lengthscale most are). When even
// so the sum is too small to trust (the heaviest subsets nearly singular),
// it is taken again in log space over every subset (cbLog). The cost is
// O(C(m, D) D³) at most.
func (ps *pass) cauchyBinet(sc *scratch, i int) (float64, error) {
	md := ps.md
	m, dim := md.m, md.dim
	if subsets := binomial(m, dim); subsets > maxSubsets {
		return 0, fmt.Errorf("bke: data row %d is so far from the landmarks, relative to the lengthscale, that its Jacobian det(JᵀJ) cannot be computed accurately (it would take %.3g terms); use fewer landmarks or a larger lengthscale", i+1, subsets)
	}
	// Landmarks by increasing q, that is decreasing weight (insertion
	// sort: no allocation).
	order := sc.order
	for l := range order {
		order[l] = l
		for k := l; k > 0 && sc.q[order[k]] < sc.q[order[k-1]]; k-- {
			order[k], order[k-1] = order[k-1], order[k]
		}
	}
	// Log weights relative to qref, the mean q of the heaviest subset, whose
	// log weight is then 0 and every other subset's negative.
	var qref float64
	for _, l := range order[:dim] {
		qref += sc.q[l]
	}
	qref /= float64(dim)
	for l, q := range sc.q {
		sc.lw[l] = qref - q
	}
	// Every term is at most its weight times a bound on det² by the
	// product of its column norms (|v_l|² for the first, the landmarks'
	// squared diameter for the others), and there are C(m, D) of them.
	var maxV2 float64
	for l := 0; l < m; l++ {
		var v2 float64
		for _, v := range sc.v[l*dim : (l+1)*dim] {
			v2 += v * v
		}
		maxV2 = math.Max(maxV2, v2)
	}
	sc.cbBound = maxV2 * math.Pow(md.diam2, float64(dim-1)) * binomial(m, dim)
	sc.cbSum = 0
	clear(sc.dj)
	ps.cbLinear(sc, 0, 0, 0)
	// Terms skipped for underflow weigh below e^-708 > 2⁻¹⁰²²; accept the
	// sum when they are sure to be below 2⁻⁶⁰ of it.
	if sum := sc.cbSum; sum > 0x1p-960*sc.cbBound {
		for k := range sc.dj {
			sc.dj[k] /= sum
		}
		return 0.5 * (math.Log(sum) - float64(dim)*qref), nil
	}
	return ps.cbLog(sc, i)
}

// cbLinear adds to sc.cbSum (and sc.dj) the terms of the subsets that
// extend the first depth chosen landmarks (sc.idx[:depth], with log weight
// lw) by landmarks at positions ≥ from of sc.order. It stops at a depth when
// the heaviest subset it could still complete, times sc.cbBound, is below
// 2⁻⁶⁰ of the sum so far: later landmarks weigh no more.
func (ps *pass) cbLinear(sc *scratch, depth, from int, lw float64) {
	dim, np := ps.md.dim, ps.np
	order := sc.order
	for k := from; k <= len(order)-(dim-depth); k++ {
		l := order[k]
		pl := lw + sc.lw[l]
		// The heaviest completion takes the next landmarks in order.
		best := pl
		for j := k + 1; j < k+dim-depth; j++ {
			best += sc.lw[order[j]]
		}
		if best < fastexp.MinArg || fastexp.ExpNeg(best)*sc.cbBound < 0x1p-60*sc.cbSum {
			return
		}
		sc.idx[depth] = l
		if depth+1 < dim {
			ps.cbLinear(sc, depth+1, k+1, pl)
			continue
		}
		det := ps.subsetDet(sc, sc.idx)
		term := fastexp.ExpNeg(pl) * det * det
		if term == 0 {
			continue
		}
		sc.cbSum += term
		if ps.grad {
			for p := 0; p < np; p++ {
				sc.dj[p] += term * ps.subsetGrad(sc, p)
			}
		}
	}
}

// subsetGrad is Σ_{l∈S} s_lp for the subset S = sc.idx (q_l when isotropic).
func (ps *pass) subsetGrad(sc *scratch, p int) float64 {
	var g float64
	for _, l := range sc.idx {
		if ps.np == 1 {
			g += sc.q[l]
		} else {
			g += sc.s[l*ps.md.dim+p]
		}
	}
	return g
}

// cbLog is the Cauchy–Binet sum over every subset in log space, with a
// running maximum, for rows whose terms underflow even after rescaling.
func (ps *pass) cbLog(sc *scratch, i int) (float64, error) {
	m, np := ps.md.m, ps.np
	idx := sc.idx
	for k := range idx {
		idx[k] = k
	}
	top := math.Inf(-1) // running maximum of the log terms
	var sum float64
	clear(sc.dj)
	for more := true; more; more = nextSubset(idx, m) {
		det := ps.subsetDet(sc, idx)
		lt := 2 * math.Log(math.Abs(det))
		for _, l := range idx {
			lt -= sc.q[l]
		}
		if !(lt > math.Inf(-1)) {
			continue // a zero determinant, or a term below even log range
		}
		w := 1.0
		if lt > top {
			scale := math.Exp(top - lt)
			sum *= scale
			for k := range sc.dj {
				sc.dj[k] *= scale
			}
			top = lt
		} else {
			w = math.Exp(lt - top)
		}
		sum += w
		if ps.grad {
			for p := 0; p < np; p++ {
				sc.dj[p] += w * ps.subsetGrad(sc, p)
			}
		}
	}
	if sum == 0 {
		return 0, fmt.Errorf("bke: the Jacobian of the landmark features is singular at data row %d (det(JᵀJ) = 0): the point and the landmarks lie in a lower-dimensional subspace", i+1)
	}
	for k := range sc.dj {
		sc.dj[k] /= sum
	}
	return 0.5 * (top + math.Log(sum)), nil
}

// subsetDet returns det[v_{l1}, z_{l1} − z_{l2}, ..., z_{l1} − z_{lD}] for
// the landmarks idx, which equals det[v_{l1}, ..., v_{lD}].
func (ps *pass) subsetDet(sc *scratch, idx []int) float64 {
	md := ps.md
	dim := md.dim
	l1 := idx[0]
	v := sc.v[l1*dim : (l1+1)*dim]
	z1 := md.zrow(l1)
	switch dim {
	case 1:
		return v[0]
	case 2:
		z2 := md.zrow(idx[1])
		return v[0]*(z1[1]-z2[1]) - v[1]*(z1[0]-z2[0])
	}
	if dim == 3 {
		// v · ((z1 − z2) × (z1 − z3)).
		z2, z3 := md.zrow(idx[1]), md.zrow(idx[2])
		b0, b1, b2 := z1[0]-z2[0], z1[1]-z2[1], z1[2]-z2[2]
		c0, c1, c2 := z1[0]-z3[0], z1[1]-z3[1], z1[2]-z3[2]
		return v[0]*(b1*c2-b2*c1) + v[1]*(b2*c0-b0*c2) + v[2]*(b0*c1-b1*c0)
	}
	a := sc.inv
	for r := 0; r < dim; r++ {
		a[r*dim] = v[r]
		for c := 1; c < dim; c++ {
			a[r*dim+c] = z1[r] - md.zrow(idx[c])[r]
		}
	}
	det := 1.0
	for c := 0; c < dim; c++ {
		p := c
		for r := c + 1; r < dim; r++ {
			if math.Abs(a[r*dim+c]) > math.Abs(a[p*dim+c]) {
				p = r
			}
		}
		if a[p*dim+c] == 0 {
			return 0
		}
		if p != c {
			for k := 0; k < dim; k++ {
				a[p*dim+k], a[c*dim+k] = a[c*dim+k], a[p*dim+k]
			}
			det = -det
		}
		piv := a[c*dim+c]
		det *= piv
		for r := c + 1; r < dim; r++ {
			f := a[r*dim+c] / piv
			for k := c + 1; k < dim; k++ {
				a[r*dim+k] -= f * a[c*dim+k]
			}
		}
	}
	return det
}

// nextSubset advances idx to the next D-subset of {0..m−1} in
// lexicographic order and reports whether there was one.
func nextSubset(idx []int, m int) bool {
	k := len(idx) - 1
	for k >= 0 && idx[k] == m-len(idx)+k {
		k--
	}
	if k < 0 {
		return false
	}
	idx[k]++
	for j := k + 1; j < len(idx); j++ {
		idx[j] = idx[j-1] + 1
	}
	return true
}

// binomial returns C(m, k) as a float64.
func binomial(m, k int) float64 {
	c := 1.0
	for j := 0; j < k; j++ {
		c = c * float64(m-j) / float64(j+1)
	}
	return c
}
