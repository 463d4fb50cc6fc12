package bke

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Variant selects which density LogDensity computes.
type Variant int

const (
	// Derived is the marginal pseudolikelihood as derived in the paper
	// (eq. 15 with appendix A.4) with the Jacobian ½ log det(JᵀJ) per
	// point. It is the default.
	Derived Variant = iota
	// Published is the density the authors' Stan program (appendix B)
	// actually computes; see LogDensity. It exists to reproduce the
	// paper's figures; in D > 1, where the program was not run, it is the
	// program written for D columns (see publishedJacobian).
	Published
)

// String returns "derived" or "published".
func (v Variant) String() string {
	switch v {
	case Derived:
		return "derived"
	case Published:
		return "published"
	}
	return fmt.Sprintf("Variant(%d)", int(v))
}

// Options configures a Model. The zero value is the derived
// pseudolikelihood with the normalised prior, using every CPU.
type Options struct {
	// Prior is the measure of the prior covariance; default Normalised.
	Prior Prior
	// Eta is the scale η of the Gaussian measure, required (positive)
	// when Prior is Gaussian and ignored otherwise.
	Eta float64
	// Variant is the density computed; default Derived.
	Variant Variant
	// Workers is the number of goroutines a log density evaluation
	// uses; 0 means runtime.GOMAXPROCS(0). Results do not depend on it:
	// rows are summed in fixed blocks combined in a fixed order.
	Workers int
}

// Hyper holds the hyperparameters at which the model is evaluated.
type Hyper struct {
	// Ell is the lengthscale: length 1 (isotropic) or D (ARD).
	Ell []float64
	// Amp is the amplitude σ² of the SE kernel σ² exp(−½ Σ_d (x_d − z_d)²/ℓ_d²);
	// zero means 1, a plain rbf.
	Amp float64
	// Tau2 is τ², the variance of the pseudo-observations φ_z(x_i) about
	// μ(z) (so μ̂(z) has variance τ²/n). It must be positive.
	Tau2 float64
}

// Grad receives the gradient of the log density with respect to each field
// of Hyper (Amp even when Hyper.Amp was left zero, meaning 1).
type Grad struct {
	Ell       []float64
	Amp, Tau2 float64
}

// Model is the Bayesian kernel embedding model of data x with landmarks z
// (Flaxman et al. 2016) for the SE kernel. Its methods are safe for
// concurrent use.
type Model struct {
	n, m, dim int
	x, z      []float64 // row-major copies of the data and landmarks
	xt        []float64 // for D ≤ 2, x column by column (D×n), the tile kernels' layout
	opt       Options
	workers   int
	diam2     float64 // the landmarks' squared diameter
	// scratch holds the pass's per-worker workspaces between
	// evaluations (*scratch, sized for D lengthscales): NUTS evaluates
	// the density thousands of times at one size.
	scratch sync.Pool
	// landmarkPool holds LogDensity's *landmarkBufs likewise.
	landmarkPool sync.Pool
}

// New returns the BKE model of the n×D data x with the m×D landmarks z.
// It returns an error when x or z is empty, their column counts differ, a
// value is NaN or infinite (naming the 1-based row), m < D (the Jacobian
// JᵀJ would be singular), or Eta is not positive for the Gaussian prior.
func New(x, z *mat.Dense, opt Options) (*Model, error) {
	if x == nil || z == nil || x.IsEmpty() || z.IsEmpty() {
		return nil, fmt.Errorf("bke: the data and the landmarks must both be non-empty")
	}
	n, dim := x.Dims()
	m, dz := z.Dims()
	if dz != dim {
		return nil, fmt.Errorf("bke: the data is %d×%d but the landmarks are %d×%d: they need the same number of columns", n, dim, m, dz)
	}
	if m < dim {
		return nil, fmt.Errorf("bke: %d landmarks in %d dimensions: the pseudolikelihood needs at least as many landmarks as dimensions", m, dim)
	}
	switch opt.Prior {
	case Normalised, Lebesgue:
	case Gaussian:
		if !(opt.Eta > 0) || math.IsInf(opt.Eta, 1) {
			return nil, fmt.Errorf("bke: eta = %g: the scale of the Gaussian prior measure must be positive and finite", opt.Eta)
		}
	default:
		return nil, fmt.Errorf("bke: unknown prior %d", int(opt.Prior))
	}
	switch opt.Variant {
	case Derived:
	case Published:
	default:
		return nil, fmt.Errorf("bke: unknown variant %d", int(opt.Variant))
	}
	if opt.Workers < 0 {
		return nil, fmt.Errorf("bke: workers = %d must not be negative", opt.Workers)
	}
	md := &Model{n: n, m: m, dim: dim, opt: opt}
	var err error
	if md.x, err = copyFinite(x, "data"); err != nil {
		return nil, err
	}
	if md.z, err = copyFinite(z, "landmark"); err != nil {
		return nil, err
	}
	if dim <= 2 {
		md.xt = make([]float64, n*dim)
		for i := 0; i < n; i++ {
			for d := 0; d < dim; d++ {
				md.xt[d*n+i] = md.x[i*dim+d]
			}
		}
	}
	for j := 0; j < m; j++ {
		for l := j + 1; l < m; l++ {
			var d2 float64
			for d := 0; d < dim; d++ {
				v := md.z[j*dim+d] - md.z[l*dim+d]
				d2 += v * v
			}
			md.diam2 = math.Max(md.diam2, d2)
		}
	}
	md.workers = opt.Workers
	if md.workers == 0 {
		md.workers = runtime.GOMAXPROCS(0)
	}
	return md, nil
}

// copyFinite returns the rows of a concatenated, or an error naming the
// first row holding a NaN or an infinity.
func copyFinite(a *mat.Dense, what string) ([]float64, error) {
	r, c := a.Dims()
	out := make([]float64, 0, r*c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			v := a.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("bke: %s row %d, column %d is %v: values must be finite", what, i+1, j+1, v)
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// Dims returns the number of data points n, of landmarks m and the
// dimension D.
func (md *Model) Dims() (n, m, dim int) { return md.n, md.m, md.dim }

// params are validated hyperparameters in the form the passes use.
type params struct {
	ell  []float64 // len 1 (isotropic) or D (ARD)
	inv2 []float64 // 1/ℓ_d² per dimension
	amp  float64
	tau2 float64
}

// prepare validates h. needTau2 is false for queries that do not use τ².
func (md *Model) prepare(h Hyper, needTau2 bool) (*params, error) {
	p := new(params)
	if err := md.prepareIn(h, needTau2, p); err != nil {
		return nil, err
	}
	return p, nil
}

// prepareIn is prepare into p, reusing p.inv2.
func (md *Model) prepareIn(h Hyper, needTau2 bool, p *params) error {
	if len(h.Ell) != 1 && len(h.Ell) != md.dim {
		return fmt.Errorf("bke: %d lengthscales for %d-dimensional data: give one (isotropic) or %d (ARD)", len(h.Ell), md.dim, md.dim)
	}
	*p = params{ell: h.Ell, amp: h.Amp, tau2: h.Tau2, inv2: grow(&p.inv2, md.dim)}
	for i, l := range h.Ell {
		if !(l > 0) || math.IsInf(l, 1) {
			name := "ell"
			if len(h.Ell) > 1 {
				name = fmt.Sprintf("ell.%d", i+1)
			}
			return fmt.Errorf("bke: %s = %g: the lengthscale must be positive and finite", name, l)
		}
	}
	for d := range p.inv2 {
		p.inv2[d] = 1 / (p.lengthscale(d) * p.lengthscale(d))
	}
	if p.amp == 0 {
		p.amp = 1
	}
	if !(p.amp > 0) || math.IsInf(p.amp, 1) {
		return fmt.Errorf("bke: amp = %g: the amplitude must be positive and finite", h.Amp)
	}
	if needTau2 && (!(p.tau2 > 0) || math.IsInf(p.tau2, 1)) {
		return fmt.Errorf("bke: tau2 = %g: the noise variance must be positive and finite", h.Tau2)
	}
	return nil
}

func (p *params) lengthscale(d int) float64 {
	if len(p.ell) == 1 {
		return p.ell[0]
	}
	return p.ell[d]
}

// prior returns the prior covariance kernel r at these hyperparameters.
func (md *Model) prior(p *params) *PriorKernel {
	r, err := NewPriorKernel(p.amp, p.ell, md.opt.Prior, md.opt.Eta)
	if err != nil {
		// prepare and New validated every argument.
		panic("bke: " + err.Error())
	}
	return r
}

func (md *Model) xrow(i int) []float64 { return md.x[i*md.dim : (i+1)*md.dim] }
func (md *Model) zrow(l int) []float64 { return md.z[l*md.dim : (l+1)*md.dim] }
