package ktest

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/internal/gdot"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// Estimator names an estimator of MMD² or HSIC. It is a string type so that
// a user's spelling reaches the function that uses it unchanged and is
// validated there, with that function's message; use the constants.
type Estimator string

// The estimators.
const (
	Unbiased Estimator = "unbiased"
	Biased   Estimator = "biased"
	Linear   Estimator = "linear" // MMD² only
)

// MMD2 estimates the squared maximum mean discrepancy between the
// distributions of the rows of x (m of them) and y (n) with kernel k
// (Gretton et al. 2012): "unbiased" is the U-statistic
// Σ_{i≠j} k(x_i,x_j)/(m(m−1)) + Σ_{i≠j} k(y_i,y_j)/(n(n−1)) − 2 mean k(x_i,y_j);
// "biased" the V-statistic mean K_xx + mean K_yy − 2 mean K_xy; "linear" the
// linear-time statistic averaging h = k(x₁,x₂) + k(y₁,y₂) − k(x₁,y₂) −
// k(x₂,y₁) over consecutive disjoint pairs, using the first min(m, n) rows of
// each sample.
func MMD2(k kernels.Kernel, x, y *mat.Dense, estimator Estimator) (float64, error) {
	z, m, err := pool(k, x, y, estimator)
	if err != nil {
		return 0, err
	}
	if estimator == Linear {
		return linearMMD(k, linalg.RowMajor(x), linalg.RowMajor(y), x.RawMatrix().Cols, identity(m), identity(z.RawMatrix().Rows-m)), nil
	}
	g, err := kernels.GramFull(k, z)
	if err != nil {
		return 0, err
	}
	return mmdFromGram(g, z.RawMatrix().Rows, identity(z.RawMatrix().Rows), m, estimator), nil
}

// pool validates the two samples and stacks them.
func pool(k kernels.Kernel, x, y *mat.Dense, estimator Estimator) (*mat.Dense, int, error) {
	switch estimator {
	case Unbiased, Biased, Linear:
	default:
		return nil, 0, fmt.Errorf("estimator must be %q, %q or %q, got %q", Unbiased, Biased, Linear, estimator)
	}
	if err := kernels.CheckData(x, "the first sample"); err != nil {
		return nil, 0, err
	}
	if err := kernels.CheckData(y, "the second sample"); err != nil {
		return nil, 0, err
	}
	m, dx := x.Dims()
	n, dy := y.Dims()
	if dx != dy {
		return nil, 0, fmt.Errorf("the samples have different numbers of columns: %d×%d and %d×%d", m, dx, n, dy)
	}
	if d := k.Dim(); d != 0 && d != dx {
		return nil, 0, fmt.Errorf("%s has %d lengthscales but the data has %d columns", k, d, dx)
	}
	switch {
	case estimator == Unbiased && (m < 2 || n < 2):
		return nil, 0, fmt.Errorf("the unbiased MMD needs at least 2 rows in each sample, got %d and %d", m, n)
	case estimator == Linear && (m < 2 || n < 2):
		return nil, 0, fmt.Errorf("the linear-time MMD needs at least 2 rows in each sample, got %d and %d", m, n)
	}
	z := mat.NewDense(m+n, dx, nil)
	z.Stack(x, y)
	return z, m, nil
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

// mmdFromGram computes MMD² from the pooled N×N Gram matrix g when the
// first m entries of perm index the first sample and the rest the second.
func mmdFromGram(g []float64, nTot int, perm []int, m int, estimator Estimator) float64 {
	n := nTot - m
	var sxx, syy, sxy, dx, dy float64
	for a := 0; a < nTot; a++ {
		row := g[perm[a]*nTot:]
		inX := a < m
		for b := a; b < nTot; b++ {
			v := row[perm[b]]
			inY := b >= m
			switch {
			case a == b:
				if inX {
					sxx += v
					dx += v
				} else {
					syy += v
					dy += v
				}
			case inX && !inY:
				sxx += 2 * v
			case !inX && inY:
				syy += 2 * v
			default:
				sxy += v
			}
		}
	}
	fm, fn := float64(m), float64(n)
	if estimator == Biased {
		return sxx/(fm*fm) + syy/(fn*fn) - 2*sxy/(fm*fn)
	}
	return (sxx-dx)/(fm*(fm-1)) + (syy-dy)/(fn*(fn-1)) - 2*sxy/(fm*fn)
}

// linearMMD averages h over consecutive pairs of the rows px of x and py of
// y (row-major data with d columns).
func linearMMD(k kernels.Kernel, xs, ys []float64, d int, px, py []int) float64 {
	pairs := min(len(px), len(py)) / 2
	row := func(data []float64, i int) []float64 { return data[i*d : (i+1)*d] }
	s := 0.0
	for p := 0; p < pairs; p++ {
		x1, x2 := row(xs, px[2*p]), row(xs, px[2*p+1])
		y1, y2 := row(ys, py[2*p]), row(ys, py[2*p+1])
		s += k.Eval(x1, x2) + k.Eval(y1, y2) - k.Eval(x1, y2) - k.Eval(x2, y1)
	}
	return s / float64(pairs)
}

// HSIC estimates the Hilbert–Schmidt independence criterion between paired
// rows of x and y with kernels kx and ky: "biased" is tr(KHLH)/n² (Gretton
// et al. 2005), "unbiased" the estimator of Song et al. (2012),
// [tr(K̃L̃) + 1ᵀK̃1·1ᵀL̃1/((n−1)(n−2)) − 2/(n−2)·1ᵀK̃L̃1]/(n(n−3)) with K̃, L̃
// the Gram matrices with zero diagonals (n ≥ 4).
func HSIC(kx, ky kernels.Kernel, x, y *mat.Dense, estimator Estimator) (float64, error) {
	kg, lg, err := hsicGrams(kx, ky, x, y, estimator)
	if err != nil {
		return 0, err
	}
	n, _ := x.Dims()
	h := newHSICState(kg, lg, n, estimator)
	return h.stat(identity(n)), nil
}

// checkPaired validates HSIC's paired samples.
func checkPaired(x, y *mat.Dense, estimator Estimator) error {
	if estimator != Biased && estimator != Unbiased {
		return fmt.Errorf("estimator must be %q or %q, got %q", Biased, Unbiased, estimator)
	}
	if err := kernels.CheckData(x, "x"); err != nil {
		return err
	}
	if err := kernels.CheckData(y, "y"); err != nil {
		return err
	}
	n, dx := x.Dims()
	ny, dy := y.Dims()
	if n != ny {
		return fmt.Errorf("HSIC needs paired samples: x is %d×%d but y is %d×%d", n, dx, ny, dy)
	}
	if estimator == Unbiased && n < 4 {
		return fmt.Errorf("the unbiased HSIC needs at least 4 pairs, got %d", n)
	}
	return nil
}

func hsicGrams(kx, ky kernels.Kernel, x, y *mat.Dense, estimator Estimator) ([]float64, []float64, error) {
	if err := checkPaired(x, y, estimator); err != nil {
		return nil, nil, err
	}
	kg, err := kernels.GramFull(kx, x)
	if err != nil {
		return nil, nil, fmt.Errorf("x: %w", err)
	}
	lg, err := kernels.GramFull(ky, y)
	if err != nil {
		return nil, nil, fmt.Errorf("y: %w", err)
	}
	return kg, lg, nil
}

// hsicState holds what a permutation of y leaves unchanged: the centred K
// (biased) or K̃ with its row sums (unbiased), and L (L̃). The sides are
// prepared in place from the Gram matrices (prepSide), so the state costs
// no n×n matrix beyond the two it is given.
type hsicState struct {
	n         int
	estimator Estimator
	k, l      []float64
	kRow      []float64 // unbiased: row sums of K̃
	lRow      []float64 // unbiased: row sums of L̃
	kSum      float64
	lSum      float64
}

// hsicSide is one variable's prepared Gram matrix.
type hsicSide struct {
	g   []float64
	row []float64
	sum float64
}

// prepSide prepares g in place: the biased estimator centres x's Gram
// matrix (tr(HKHL) = tr(HKH·L)) and leaves y's; the unbiased one zeroes
// the diagonal and keeps the row sums.
func prepSide(g []float64, n int, estimator Estimator, centred bool) hsicSide {
	if estimator == Biased {
		if centred {
			centre(g, n)
		}
		return hsicSide{g: g}
	}
	sd := hsicSide{g: g, row: make([]float64, n)}
	for i := 0; i < n; i++ {
		g[i*n+i] = 0
	}
	for i := 0; i < n; i++ {
		for _, v := range g[i*n : (i+1)*n] {
			sd.row[i] += v
		}
		sd.sum += sd.row[i]
	}
	return sd
}

func pairState(kx, ly hsicSide, n int, estimator Estimator) *hsicState {
	return &hsicState{n: n, estimator: estimator, k: kx.g, l: ly.g, kRow: kx.row, lRow: ly.row, kSum: kx.sum, lSum: ly.sum}
}

func newHSICState(kg, lg []float64, n int, estimator Estimator) *hsicState {
	return pairState(prepSide(kg, n, estimator, true), prepSide(lg, n, estimator, false), n, estimator)
}

// centre overwrites the symmetric n×n matrix k with HKH, H = I − 11ᵀ/n.
func centre(k []float64, n int) {
	row := make([]float64, n)
	total := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			row[i] += k[i*n+j]
		}
		total += row[i]
	}
	fn := float64(n)
	for i := 0; i < n; i++ {
		ki := k[i*n : (i+1)*n]
		ri := row[i]/fn - total/(fn*fn)
		for j := range ki {
			ki[j] -= ri + row[j]/fn
		}
	}
}

// stat is the statistic with y's rows permuted by perm. Both matrices are
// symmetric, so the trace Σ_ij K_ij L_{π(i)π(j)} visits each pair once:
// row i's part Σ_{j>i} K_ij L_{π(i)π(j)} is an inner product through the
// index π (gdot.Dot, gathers and FMA on AVX2 and AVX-512).
func (h *hsicState) stat(perm []int) float64 {
	n := h.n
	ix, err := gdot.NewIndex(perm, n)
	if err != nil {
		panic("ktest: HSIC permutation: " + err.Error())
	}
	tr := 0.0
	for i := 0; i < n; i++ {
		lr := h.l[perm[i]*n : (perm[i]+1)*n]
		s := gdot.Dot(h.k[i*n+i+1:(i+1)*n], lr, ix, i+1)
		tr += 2*s + h.k[i*n+i]*lr[perm[i]]
	}
	return h.finish(tr, perm)
}

// finish turns the trace tr = Σ_ij K_ij L_{π(i)π(j)} into the estimate.
func (h *hsicState) finish(tr float64, perm []int) float64 {
	n := h.n
	fn := float64(n)
	if h.estimator == Biased {
		return tr / (fn * fn)
	}
	cross := 0.0
	for i := 0; i < n; i++ {
		cross += h.kRow[i] * h.lRow[perm[i]]
	}
	return (tr + h.kSum*h.lSum/((fn-1)*(fn-2)) - 2/(fn-2)*cross) / (fn * (fn - 3))
}
