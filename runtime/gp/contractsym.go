package gp

import (
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// contractFastPath turns ContractSym's matrix form on; tests turn it off
// to compare.
var contractFastPath = true

// contractSymFloats bounds a block of ContractSym's matrix form: a block
// of nb rows against all n columns keeps about (2T + 3)·nb·n floats per
// worker (T stationary terms), so nb·n ≤ contractSymFloats keeps that
// below (2T + 3)·0.5 MB whatever n.
var contractSymFloats = 1 << 16

// ContractSym is Contract (dst[h] = ½ Σᵢⱼ Wᵢⱼ ∂k(xᵢ, xⱼ)/∂h) in SGPR's
// matrix form (sgprfast.go) when k is a sum of scaled stationary kernels
// (rbf, laplacian, matern32, matern52; isotropic or ARD): each block of
// rows is evaluated whole against the rows from its first on (the upper
// triangle, pairs past the block counted twice) — squared distances by
// sqdist, exponentials by fastexp — and contracted with the block's rows
// of W, the lengthscales' derivatives through one DGEMM per block
// (−(2/ℓ_d) Σᵢⱼ Hᵢⱼ(x̃ᵢ_d − x̃ⱼ_d)² expanded), rather than one call of
// k.GradHyper per pair. The rows are cut into sgprLanes lanes whose sums
// are added in lane order, so the result does not depend on the number
// of cores. Other kernels take Contract.
func ContractSym(dst []float64, k kernels.Kernel, x *mat.Dense, w *mat.SymDense) {
	contractSymDist(dst, k, x, w, nil)
}

// contractSymDist is ContractSym with the isotropic terms' squared
// distances read from dist (Dists) when it is not nil.
func contractSymDist(dst []float64, k kernels.Kernel, x *mat.Dense, w *mat.SymDense, dist []float64) {
	var fk *fastKernel
	if contractFastPath {
		fk = newFastKernel(k, x, x)
	}
	if fk == nil {
		Contract(dst, k, x, w)
		return
	}
	fk.dist = dist
	nh := k.NumHyper()
	clear(dst[:nh])
	if nh == 0 {
		return
	}
	n := fk.n
	raw := w.RawSymmetric()
	sums := make([][]float64, sgprLanes)
	fk.symLanes(func(lane int, s *fastScratch, i0, i1 int) {
		if sums[lane] == nil {
			sums[lane] = make([]float64, nh)
		}
		// Only the columns from i0 on: the pairs of the block's own rows
		// both ways, with weight Wᵢⱼ, and those past it once, with weight
		// 2Wᵢⱼ for the pair (j, i) left out.
		fk.blockFrom(s, i0, i1, i0)
		m := n - i0
		g := s.g[:(i1-i0)*m]
		for i := i0; i < i1; i++ {
			gi := g[(i-i0)*m : (i-i0+1)*m]
			for j := i0; j < i; j++ {
				gi[j-i0] = raw.Data[j*raw.Stride+i]
			}
			copy(gi[i-i0:], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
			for j := i1 - i0; j < m; j++ {
				gi[j] *= 2
			}
		}
		fk.contractFrom(sums[lane], nil, s, i0, i1, i0)
	})
	for _, acc := range sums {
		for h, v := range acc {
			dst[h] += 0.5 * v
		}
	}
}

// gramDist writes k's matrix at the rows of x into K's upper triangle by
// fastKernel's blocks, the isotropic terms' squared distances read from
// dist (Dists), and reports false, writing nothing, when k is not a sum of
// scaled rbf/Matérn terms. The blocks and lanes are ContractSym's.
func gramDist(K *mat.SymDense, k kernels.Kernel, x *mat.Dense, dist []float64) bool {
	if !contractFastPath {
		return false
	}
	fk := newFastKernel(k, x, x)
	if fk == nil {
		return false
	}
	fk.dist = dist
	n := fk.n
	raw := K.RawSymmetric()
	fk.symLanes(func(_ int, s *fastScratch, i0, i1 int) {
		fk.blockFrom(s, i0, i1, i0)
		m := n - i0
		for i := i0; i < i1; i++ {
			copy(raw.Data[i*raw.Stride+i:i*raw.Stride+n], s.kb[(i-i0)*m+(i-i0):(i-i0+1)*m])
		}
	})
	return true
}

// symLanes runs body over the rows of an n × n symmetric matrix (z = x) in
// fastKernel.lanes' lanes, in blocks of at most contractSymFloats/n rows,
// whose columns run from the block's first row to n.
func (fk *fastKernel) symLanes(body func(lane int, s *fastScratch, i0, i1 int)) {
	per := (fk.n + sgprLanes - 1) / sgprLanes
	fk.lanesOf(min(per, max(1, contractSymFloats/fk.n)), body)
}
