package ktest

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/progress"
)

// CIResult is the outcome of a conditional-independence test of x ⟂ y | z
// by KCI or RCIT: the statistic, its p-value under an approximation of
// the null (KCI: the gamma; RCIT: Approx), the null's mean and variance,
// and the settings the result depends on.
type CIResult struct {
	Statistic, PValue float64
	// NullMean and NullVar are the mean and variance of the statistic's
	// null.
	NullMean, NullVar float64
	// KCI: the kernels on ẍ = (x, z/2), y and z, and the ridge ε.
	KernelX, KernelY, KernelZ string
	Epsilon                   float64
	// RCIT: the random Fourier features of z and of x and y, the
	// median-heuristic lengthscales they were drawn at, and the null's
	// approximation (KCI's is the gamma).
	Features, FeaturesXY int
	Ell                  [3]float64
	Approx               ChiSqApprox
}

// KCIEpsilon is KCI's default ridge ε in R_z = ε(K̃_z + εI)⁻¹, as in
// causal-learn's KCI_CInd.
const KCIEpsilon = 1e-3

// KCITest is the kernel conditional-independence test of Zhang, Peters,
// Janzing and Schölkopf (2011) with its gamma approximation, for data the
// caller has standardised (causal.Standardise). With centred Gram matrices K̃ = HKH of ẍ = (x, z/2) (x augmented
// with z, as the paper and causal-learn do), of y and of z, and
// R_z = ε(K̃_z + εI)⁻¹, the residual kernels are K_ẍ|z = R_z K̃_ẍ R_z and
// K_y|z = R_z K̃_y R_z, and the statistic is T = tr(K_ẍ|z K_y|z). Under H0,
// T is approximately Σ λ_i μ_j χ²₁ over the products of the two matrices'
// eigenvalues; its mean Σ_t (K_ẍ|z)_tt (K_y|z)_tt and variance
// 2‖K_ẍ|z ∘ K_y|z‖²_F (causal-learn's trace of uuᵀ and of its square,
// computed without the eigendecompositions: uuᵀ = K_ẍ|z ∘ K_y|z) give the
// gamma approximation. kx, ky or kz nil: rbf at the median heuristic of
// ẍ, y or z. With z nil or empty, R_z = I and ẍ = x: the statistic is
// n²·HSIC_b with the same gamma approximation. Cost O(n³) (one Cholesky
// factorisation and the products R·K·R, computed in blocks of rows so
// that a cancelled ctx stops them; it then returns ctx.Err()).
func KCITest(ctx context.Context, x, y, z *mat.Dense, kx, ky, kz kernels.Kernel, eps float64, seed uint64) (CIResult, error) {
	n, dx := x.Dims()
	if r, _ := y.Dims(); r != n {
		return CIResult{}, fmt.Errorf("x has %d rows but y has %d", n, r)
	}
	if z != nil && z.IsEmpty() {
		z = nil
	}
	if eps <= 0 {
		eps = KCIEpsilon
	}
	xa := x
	if z != nil {
		if r, _ := z.Dims(); r != n {
			return CIResult{}, fmt.Errorf("x has %d rows but z has %d", n, r)
		}
		_, dz := z.Dims()
		xa = mat.NewDense(n, dx+dz, nil)
		for i := 0; i < n; i++ {
			row := xa.RawRowView(i)
			copy(row, x.RawRowView(i))
			for j, v := range z.RawRowView(i) {
				row[dx+j] = v / 2
			}
		}
	}
	var err error
	res := CIResult{Epsilon: eps}
	type side struct {
		k    *kernels.Kernel
		data *mat.Dense
		name *string
	}
	sides := []side{{&kx, xa, &res.KernelX}, {&ky, y, &res.KernelY}}
	if z != nil {
		sides = append(sides, side{&kz, z, &res.KernelZ})
	} else {
		res.Epsilon = 0
	}
	grams := make([][]float64, 3)
	for i, v := range sides {
		if *v.k == nil {
			c, err := Choose(ctx, ChoiceMedian, v.data, seed)
			if err != nil {
				return CIResult{}, err
			}
			*v.k = c.Kernel
		}
		*v.name = (*v.k).String()
		grams[i] = make([]float64, n*n)
		if err = kernels.GramFullInto(grams[i], *v.k, v.data); err != nil {
			return CIResult{}, err
		}
		centre(grams[i], n)
	}
	kxr, kyr := grams[0], grams[1]
	if z != nil {
		if kxr, kyr, err = kciResiduals(ctx, grams[0], grams[1], grams[2], n, eps); err != nil {
			return CIResult{}, err
		}
	}
	res.Statistic, res.NullMean, res.NullVar = kciMoments(kxr, kyr, n)
	res.PValue = gammaSurvival(res.Statistic, res.NullMean, res.NullVar)
	if math.IsNaN(res.PValue) {
		return CIResult{}, fmt.Errorf("the gamma approximation is not defined for these data (constant kernel matrices?)")
	}
	return res, nil
}

// kciResiduals returns R K̃x R and R K̃y R with R = ε(K̃z + εI)⁻¹ (all n×n
// row by row, the inputs centred). The four products run in blocks of
// kciBlock rows, the context checked between blocks.
func kciResiduals(ctx context.Context, kx, ky, kz []float64, n int, eps float64) ([]float64, []float64, error) {
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := (kz[i*n+j] + kz[j*n+i]) / 2
			if i == j {
				v += eps
			}
			a.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		return nil, nil, fmt.Errorf("K_z + εI is not positive definite")
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, nil, err
	}
	var r mat.Dense
	r.Scale(eps, &inv)
	task := progress.Start(ctx, "KCI products", 4*par.NumBlocks(n, kciBlock))
	defer task.Done()
	// prod sets dst = a·b (n×n) block of rows by block of rows.
	prod := func(dst, a, b *mat.Dense) error {
		for lo := 0; lo < n; lo += kciBlock {
			if err := ctx.Err(); err != nil {
				return err
			}
			hi := min(lo+kciBlock, n)
			dst.Slice(lo, hi, 0, n).(*mat.Dense).Mul(a.Slice(lo, hi, 0, n), b)
			task.Add(1)
		}
		return nil
	}
	out := func(k []float64) ([]float64, error) {
		t, u := mat.NewDense(n, n, nil), mat.NewDense(n, n, nil)
		if err := prod(t, &r, mat.NewDense(n, n, k)); err != nil {
			return nil, err
		}
		if err := prod(u, t, &r); err != nil {
			return nil, err
		}
		return u.RawMatrix().Data, nil
	}
	ox, err := out(kx)
	if err != nil {
		return nil, nil, err
	}
	oy, err := out(ky)
	if err != nil {
		return nil, nil, err
	}
	return ox, oy, nil
}

// kciBlock is how many rows of a KCI product are computed between checks
// of the context.
const kciBlock = 256

// kciMoments returns T = Σ_ts A_ts B_ts and the gamma approximation's
// mean Σ_t A_tt B_tt and variance 2 Σ_ts (A_ts B_ts)².
func kciMoments(a, b []float64, n int) (t, mean, variance float64) {
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			p := a[i*n+j] * b[i*n+j]
			t += p
			variance += p * p
		}
		mean += a[i*n+i] * b[i*n+i]
	}
	return t, mean, 2 * variance
}
