package bke

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kml-lang/kml/runtime/internal/fastexp"
	"github.com/kml-lang/kml/runtime/kernels"
)

// Prior selects the measure ν of the Bayesian kernel embedding prior
// covariance r(x, y) = ∫ k(x, u) k(u, y) ν(du) (Flaxman et al. 2016, eq. 4);
// PriorKernel has the formulas.
type Prior int

const (
	// Normalised is the Lebesgue form without its constant factor,
	// r(x, y) = σ⁴ exp(−¼ Σ_d (x_d − y_d)²/ℓ_d²): the prior of the
	// authors' Stan program, and the default.
	Normalised Prior = iota
	// Lebesgue is ν = Lebesgue measure:
	// r(x, y) = σ⁴ π^{D/2} Π_d ℓ_d · exp(−¼ Σ_d (x_d − y_d)²/ℓ_d²).
	Lebesgue
	// Gaussian is the finite measure ν(du) = exp(−|u|²/(2η²)) du with
	// η = Options.Eta:
	// r(x, y) = σ⁴ Π_d ℓ_d η √(2π/(ℓ_d² + 2η²))
	// · exp(−(x_d − y_d)²/(4ℓ_d²) − s_d²/(ℓ_d² + 2η²)), s = (x + y)/2.
	Gaussian
)

// String returns the measure's name as KML spells it: "normalised",
// "lebesgue" or "gaussian".
func (m Prior) String() string {
	switch m {
	case Normalised:
		return "normalised"
	case Lebesgue:
		return "lebesgue"
	case Gaussian:
		return "gaussian"
	}
	return fmt.Sprintf("Prior(%d)", int(m))
}

// PriorKernel is the covariance r(x, y) = ∫ k(x, u) k(u, y) ν(du) of the
// Bayesian kernel embedding prior μ ~ GP(0, r) (Flaxman et al. 2016, eqs. 3–4
// and appendix A.3) for the squared exponential kernel
//
//	k(x, y) = σ² exp(−½ Σ_d (x_d − y_d)²/ℓ_d²),
//
// with amplitude σ² ("amp", 1 for a plain rbf) and an isotropic (one) or
// ARD (one per dimension) lengthscale ℓ.
//
// The integrand factorises over dimensions. Per dimension, with s = (x + y)/2,
// (x − u)² + (y − u)² = 2(u − s)² + ½(x − y)², so under Lebesgue measure
// ∫ exp(−(u − s)²/ℓ²) du = √π ℓ gives
//
//	r(x, y) = σ⁴ π^{D/2} Π_d ℓ_d · exp(−¼ Σ_d (x_d − y_d)²/ℓ_d²),
//
// which is π^{D/2} |Σ|^{1/2} with Σ = diag(ℓ²), an SE kernel of lengthscale
// ℓ√2; the σ⁴ is the square of the two amplitudes. The normalised form drops
// the constant π^{D/2} Π_d ℓ_d (but keeps σ⁴). Under the Gaussian measure
// ν(du) = exp(−|u|²/(2η²)) du the per-dimension exponent gains η⁻²u²;
// completing the square in u leaves the factor
// ℓ η √(2π/(ℓ² + 2η²)) exp(−(x − y)²/(4ℓ²) − s²/(ℓ² + 2η²)), which tends to
// the Lebesgue one as η → ∞. η is fixed, not a hyperparameter.
//
// The hyperparameters are amp then ell ("amp", "ell" or "ell.1", "ell.2",
// ...). A PriorKernel is immutable and safe for concurrent use.
type PriorKernel struct {
	amp     float64
	ell     []float64
	measure Prior
	eta     float64
}

var _ kernels.Kernel = (*PriorKernel)(nil)

// NewPriorKernel returns the BKE prior covariance of the SE kernel with
// amplitude amp (σ²) and lengthscales ell (length 1 for isotropic, D for
// ARD) under the given measure. eta is the scale η of the Gaussian measure
// and is ignored by the others. It returns an error naming the parameter
// when amp, an ell or eta is not positive and finite.
func NewPriorKernel(amp float64, ell []float64, measure Prior, eta float64) (*PriorKernel, error) {
	if len(ell) == 0 {
		return nil, fmt.Errorf("bkeprior: no lengthscale given")
	}
	switch measure {
	case Normalised, Lebesgue:
		eta = 0
	case Gaussian:
		if !(eta > 0) || math.IsInf(eta, 1) {
			return nil, fmt.Errorf("bkeprior: eta = %g: the scale of the Gaussian measure must be positive and finite", eta)
		}
	default:
		return nil, fmt.Errorf("bkeprior: unknown measure %d", int(measure))
	}
	p := &PriorKernel{measure: measure, eta: eta, ell: make([]float64, len(ell))}
	h := make([]float64, 1+len(ell))
	h[0] = amp
	copy(h[1:], ell)
	if err := p.set(h); err != nil {
		return nil, err
	}
	return p, nil
}

// set validates and stores the hyperparameters h = [amp, ell...].
func (p *PriorKernel) set(h []float64) error {
	for i, v := range h {
		if !(v > 0) || math.IsInf(v, 1) {
			what := "lengthscale"
			if i == 0 {
				what = "amplitude"
			}
			return fmt.Errorf("bkeprior: %s = %g: the %s must be positive and finite", p.HyperNames()[i], v, what)
		}
	}
	p.amp = h[0]
	copy(p.ell, h[1:])
	return nil
}

// Measure returns the measure ν.
func (p *PriorKernel) Measure() Prior { return p.measure }

// Eta returns the scale η of the Gaussian measure (0 for the others).
func (p *PriorKernel) Eta() float64 { return p.eta }

// NumHyper returns 1 + len(ell).
func (p *PriorKernel) NumHyper() int { return 1 + len(p.ell) }

// Hyper appends amp and the lengthscales to dst.
func (p *PriorKernel) Hyper(dst []float64) []float64 {
	dst = append(dst, p.amp)
	return append(dst, p.ell...)
}

// HyperNames returns "amp" then "ell" (isotropic) or "ell.1", ..., "ell.D".
func (p *PriorKernel) HyperNames() []string {
	names := []string{"amp"}
	if len(p.ell) == 1 {
		return append(names, "ell")
	}
	for d := range p.ell {
		names = append(names, "ell."+strconv.Itoa(d+1))
	}
	return names
}

// WithHyper returns the prior with hyperparameters h = [amp, ell...], the
// same measure and η.
func (p *PriorKernel) WithHyper(h []float64) (kernels.Kernel, error) {
	if len(h) != p.NumHyper() {
		panic(fmt.Sprintf("bke: PriorKernel.WithHyper: %d hyperparameters, want %d", len(h), p.NumHyper()))
	}
	q := &PriorKernel{measure: p.measure, eta: p.eta, ell: make([]float64, len(p.ell))}
	if err := q.set(h); err != nil {
		return nil, err
	}
	return q, nil
}

// Dim returns 0 for an isotropic lengthscale and len(ell) for ARD.
func (p *PriorKernel) Dim() int {
	if len(p.ell) == 1 {
		return 0
	}
	return len(p.ell)
}

func (p *PriorKernel) check(x, y []float64) {
	if len(x) != len(y) {
		panic(fmt.Sprintf("bke: PriorKernel: len(x) = %d, len(y) = %d", len(x), len(y)))
	}
	if len(p.ell) > 1 && len(x) != len(p.ell) {
		panic(fmt.Sprintf("bke: PriorKernel: len(x) = %d, ARD kernel has %d lengthscales", len(x), len(p.ell)))
	}
}

// lengthscale returns ℓ_d.
func (p *PriorKernel) lengthscale(d int) float64 {
	if len(p.ell) == 1 {
		return p.ell[0]
	}
	return p.ell[d]
}

// logTerm returns the log of dimension d's factor of r/σ⁴ and its
// derivatives with respect to ℓ_d and to x_d.
func (p *PriorKernel) logTerm(d int, xd, yd float64) (logf, dEll, dX float64) {
	l := p.lengthscale(d)
	diff := xd - yd
	l2 := l * l
	logf = -diff * diff / (4 * l2)
	dEll = diff * diff / (2 * l2 * l)
	dX = -diff / (2 * l2)
	switch p.measure {
	case Lebesgue:
		logf += 0.5*math.Log(math.Pi) + math.Log(l)
		dEll += 1 / l
	case Gaussian:
		e2 := 2 * p.eta * p.eta
		c := l2 + e2
		s := (xd + yd) / 2
		logf += math.Log(l*p.eta) + 0.5*math.Log(2*math.Pi/c) - s*s/c
		dEll += 1/l - l/c + 2*l*s*s/(c*c)
		dX -= s / c
	}
	return logf, dEll, dX
}

// Eval returns r(x, y).
func (p *PriorKernel) Eval(x, y []float64) float64 {
	p.check(x, y)
	var lr float64
	for d := range x {
		f, _, _ := p.logTerm(d, x[d], y[d])
		lr += f
	}
	return p.amp * p.amp * math.Exp(lr)
}

// GradHyper writes ∂r/∂amp = 2r/amp and ∂r/∂ℓ into dst and returns r(x, y).
func (p *PriorKernel) GradHyper(dst, x, y []float64) float64 {
	p.check(x, y)
	if len(dst) != p.NumHyper() {
		panic(fmt.Sprintf("bke: PriorKernel.GradHyper: len(dst) = %d, want %d", len(dst), p.NumHyper()))
	}
	for i := range dst {
		dst[i] = 0
	}
	var lr float64
	for d := range x {
		f, de, _ := p.logTerm(d, x[d], y[d])
		lr += f
		if len(p.ell) == 1 {
			dst[1] += de
		} else {
			dst[1+d] = de
		}
	}
	r := p.amp * p.amp * math.Exp(lr)
	dst[0] = 2 * r / p.amp
	for i := 1; i < len(dst); i++ {
		dst[i] *= r
	}
	return r
}

// GradX writes ∂r(x, y)/∂x into dst and returns r(x, y).
func (p *PriorKernel) GradX(dst, x, y []float64) float64 {
	p.check(x, y)
	if len(dst) != len(x) {
		panic(fmt.Sprintf("bke: PriorKernel.GradX: len(dst) = %d, want %d", len(dst), len(x)))
	}
	var lr float64
	for d := range x {
		f, _, dx := p.logTerm(d, x[d], y[d])
		lr += f
		dst[d] = dx
	}
	r := p.amp * p.amp * math.Exp(lr)
	for d := range dst {
		dst[d] *= r
	}
	return r
}

// String writes the prior as KML source, e.g. "bkeprior(rbf(0.5))" or
// `bkeprior(2 * rbf([1, 2]), prior: "gaussian", eta: 3)`.
func (p *PriorKernel) String() string {
	var b strings.Builder
	b.WriteString("bkeprior(")
	if p.amp != 1 {
		b.WriteString(bkeFormatFloat(p.amp))
		b.WriteString(" * ")
	}
	b.WriteString("rbf(")
	if len(p.ell) == 1 {
		b.WriteString(bkeFormatFloat(p.ell[0]))
	} else {
		b.WriteByte('[')
		for d, l := range p.ell {
			if d > 0 {
				b.WriteString(", ")
			}
			b.WriteString(bkeFormatFloat(l))
		}
		b.WriteByte(']')
	}
	b.WriteByte(')')
	if p.measure != Normalised {
		fmt.Fprintf(&b, ", prior: %q", p.measure.String())
	}
	if p.measure == Gaussian {
		b.WriteString(", eta: ")
		b.WriteString(bkeFormatFloat(p.eta))
	}
	b.WriteByte(')')
	return b.String()
}

func bkeFormatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// gram fills r (m×m, both triangles) with r(z_j, z_k) for the m landmarks
// z (m×D row-major) and, when dr is not nil, dr[p] with ∂r/∂ℓ_p: Eval and
// GradHyper over every pair, with the exponentials from one fastexp.Exps
// call (math.Exp per pair was half of building R and ∂R at m = 30).
// Exps's relative error is below 3e-16, and below e^-708 it gives 0 where
// math.Exp gives a subnormal.
//
// buf is a workspace of (1 + len(dr))·m(m+1)/2 numbers, or nil.
func (p *PriorKernel) gram(r []float64, dr [][]float64, z []float64, m int, buf []float64) {
	np := len(dr)
	// Pairs j ≤ k, row by row of the upper triangle.
	np2 := m * (m + 1) / 2
	if len(buf) < np2*(1+np) {
		buf = make([]float64, np2*(1+np))
	}
	e, de := buf[:np2], buf[np2:np2*(1+np)]
	clear(de)
	if p.measure != Gaussian {
		p.gramTerms(e, de, z, m)
	} else {
		p.gramTermsGeneral(e, de, z, m)
	}
	fastexp.Exps(e, e, 1, 0)
	a2 := p.amp * p.amp
	idx := 0
	for j := 0; j < m; j++ {
		for k := j; k < m; k++ {
			v := a2 * e[idx]
			r[j*m+k], r[k*m+j] = v, v
			for q := 0; q < np; q++ {
				g := de[q*np2+idx] * v
				dr[q][j*m+k], dr[q][k*m+j] = g, g
			}
			idx++
		}
	}
}

// gramTermsGeneral sets e to log(r/σ⁴) and adds to de its derivatives
// ∂/∂ℓ_p divided by r, for every pair j ≤ k of the m landmarks z, by
// logTerm; de holds len(de)/len(e) blocks of m(m+1)/2.
func (p *PriorKernel) gramTermsGeneral(e, de, z []float64, m int) {
	dim := len(z) / m
	np2 := len(e)
	np := len(de) / np2
	idx := 0
	for j := 0; j < m; j++ {
		zj := z[j*dim : (j+1)*dim]
		for k := j; k < m; k++ {
			zk := z[k*dim : (k+1)*dim]
			var l float64
			for d := range zj {
				f, dEll, _ := p.logTerm(d, zj[d], zk[d])
				l += f
				switch {
				case np == 1:
					de[idx] += dEll
				case np > 1:
					de[d*np2+idx] = dEll
				}
			}
			e[idx] = l
			idx++
		}
	}
}

// gramTerms is gramTermsGeneral for the normalised and Lebesgue measures:
// logTerm's arithmetic for them, operation for operation (so the same
// bits, TestGramTermsMatchGeneral), with ℓ_d's constants out of the pair
// loop and without the derivative in x that logTerm also divides out
// (logTerm per pair was a tenth of the landmark side at m = 20).
func (p *PriorKernel) gramTerms(e, de, z []float64, m int) {
	dim := len(z) / m
	np2 := len(e)
	np := len(de) / np2
	var c4, c2, cf, ce [8]float64 // 4ℓ², 2ℓ²·ℓ and the Lebesgue terms, per d
	if dim > len(c4) {
		p.gramTermsGeneral(e, de, z, m)
		return
	}
	leb := p.measure == Lebesgue
	for d := 0; d < dim; d++ {
		l := p.lengthscale(d)
		l2 := l * l
		c4[d], c2[d] = 4*l2, 2*l2*l
		if leb {
			cf[d], ce[d] = 0.5*math.Log(math.Pi)+math.Log(l), 1/l
		}
	}
	idx := 0
	for j := 0; j < m; j++ {
		zj := z[j*dim : (j+1)*dim]
		for k := j; k < m; k++ {
			zk := z[k*dim : (k+1)*dim]
			var l float64
			for d := range zj {
				diff := zj[d] - zk[d]
				logf := -diff * diff / c4[d]
				dEll := diff * diff / c2[d]
				if leb {
					logf += cf[d]
					dEll += ce[d]
				}
				l += logf
				switch {
				case np == 1:
					de[idx] += dEll
				case np > 1:
					de[d*np2+idx] = dEll
				}
			}
			e[idx] = l
			idx++
		}
	}
}
