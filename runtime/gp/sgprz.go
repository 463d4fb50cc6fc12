package gp

import (
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// The gradient of SGPR's bound in its inducing points (SGPRLogMarginalZ)
// on the general path, one kernel derivative per pair: the two sums of
// ∂F/∂zⱼ, over the data rows (crossGradZ, block by block) and over the
// other inducing points (kzzGradZ).

// crossGradZ adds Σᵢ Gᵢⱼ ∂k(xᵢ, zⱼ)/∂zⱼ to gz's row j (gz m × d row-major)
// for the rows xb of a block and its G (rows(xb) × m). By k's symmetry
// the derivative is k.GradX at (zⱼ, xᵢ).
func crossGradZ(gz []float64, k kernels.Kernel, xb, z *mat.Dense, g *mat.Dense) {
	nb, d := xb.Dims()
	m, _ := z.Dims()
	xs, zs := linalg.RowMajor(xb), linalg.RowMajor(z)
	buf := make([]float64, d)
	for i := 0; i < nb; i++ {
		xi := xs[i*d : (i+1)*d]
		for j := 0; j < m; j++ {
			gij := g.At(i, j)
			if gij == 0 {
				continue
			}
			k.GradX(buf, zs[j*d:(j+1)*d], xi)
			row := gz[j*d : (j+1)*d]
			for q, v := range buf {
				row[q] += gij * v
			}
		}
	}
}

// kzzGradZ adds −Σₗ wⱼₗ ∂k(zⱼ, zₗ)/∂zⱼ to gz's row j: the derivative of
// −½Σⱼₗ wⱼₗ k(zⱼ, zₗ) (the bound's K_zz part, w symmetric) in zⱼ, which
// meets zⱼ in row j and in column j.
func kzzGradZ(gz []float64, k kernels.Kernel, z *mat.Dense, w *mat.SymDense) {
	m, d := z.Dims()
	zs := linalg.RowMajor(z)
	buf := make([]float64, d)
	for j := 0; j < m; j++ {
		zj := zs[j*d : (j+1)*d]
		row := gz[j*d : (j+1)*d]
		for l := 0; l < m; l++ {
			wjl := w.At(j, l)
			if wjl == 0 {
				continue
			}
			k.GradX(buf, zj, zs[l*d:(l+1)*d])
			for q, v := range buf {
				row[q] -= wjl * v
			}
		}
	}
}
