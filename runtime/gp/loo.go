package gp

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// LOO returns, for GP regression with kernel k on the rows of x and
// Gaussian noise variance noise, each observation's leave-one-out log
// predictive density log p(yᵢ | y₋ᵢ) in closed form (Rasmussen and Williams
// 2006, §5.4.2, eqs. 5.10–5.12): with C = K + σ²I, α = C⁻¹y,
//
//	μᵢ = yᵢ − αᵢ/[C⁻¹]ᵢᵢ,  σᵢ² = 1/[C⁻¹]ᵢᵢ,
//	log p(yᵢ | y₋ᵢ) = −½ log 2π + ½ log [C⁻¹]ᵢᵢ − αᵢ²/(2[C⁻¹]ᵢᵢ),
//
// one factorisation and one inverse for all n points instead of n refits.
// C is factored as Factor does (with its jitter schedule), so the densities
// are those of the C that the marginal likelihood uses.
func LOO(k kernels.Kernel, x *mat.Dense, y []float64, noise float64) ([]float64, error) {
	chol, _, _, err := Factor(k, x, []float64{noise})
	if err != nil {
		return nil, err
	}
	n := len(y)
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		return nil, err
	}
	alpha := mat.NewVecDense(n, nil)
	if err := chol.SolveVecTo(alpha, mat.NewVecDense(n, append([]float64(nil), y...))); err != nil {
		return nil, err
	}
	out := make([]float64, n)
	for i := range out {
		d, a := inv.At(i, i), alpha.AtVec(i)
		out[i] = -0.5*math.Log(2*math.Pi) + 0.5*math.Log(d) - a*a/(2*d)
	}
	return out, nil
}
