package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// Kind is a kernel-learning objective of the paper's taxonomy (Table 2).
type Kind int

const (
	// MLM is the log marginal likelihood, eq. 6.
	MLM Kind = iota
	// MAP is joint MAP, eq. 4, with the latent function maximised.
	MAP
	// MKL is eq. 3: joint MAP with log|K| replaced by λ‖θ‖ₚᵖ.
	MKL
	// RR is eq. 9, MKL's ridge-regression form without the noise's
	// normaliser.
	RR
)

// Settings choose the objective and, for MKL and RR, the regulariser
// λ Σ_m θ_m^p over the kernel weights θ_m = h[Weights[m]] (θ ≥ 0), and for
// MLM with a non-Gaussian likelihood the approximation Approx (VB when
// nil). The objective and the approximation are separate axes: MAP and
// MKL maximise over the latent function and approximate nothing.
type Settings struct {
	Kind    Kind
	Approx  Inference
	P       float64
	Lambda  float64
	Weights []int
	// Dists, when not nil, keeps the inputs' squared distances between
	// the evaluations of one optimiser run (NonGaussian reads them).
	Dists *Dists
}

// MapJitter is the ε of K + εI in the joint MAP objective's log|K| (the
// paper's choice, section 3).
const MapJitter = 1e-8

// Gaussian returns the objective s.Kind, on the log scale (−½ times the
// paper's φ, with the normalising constants of a log density), of
// Gaussian-noise GP regression of y on the rows of x with kernel k and noise
// variance noise. With α = C⁻¹y, C = K + σ²I, and the latent function
// maximised where the objective says so (û = Kα):
//
//	MLM: −½ yᵀα − ½ log|C| − (n/2) log 2π
//	MAP: −½ yᵀα − ½ log|K + εI| − (n/2) log σ² − n log 2π
//	MKL: −½ yᵀα − ½ λ Σθₘᵖ − (n/2) log 2πσ²
//	RR:  −½ yᵀα − ½ λ Σθₘᵖ
//
// (min_u uᵀK⁻¹u + ‖y − u‖²/σ² = yᵀC⁻¹y). grad, when not nil, receives the
// derivatives with respect to k's hyperparameters then σ².
func Gaussian(s Settings, k kernels.Kernel, x *mat.Dense, y []float64, noise float64, grad []float64) (float64, error) {
	if s.Kind == MLM {
		return LogMarginal(k, x, y, noise, grad)
	}
	n, _ := x.Dims()
	if len(y) != n {
		return 0, fmt.Errorf("gp: %d observations for %d input rows", len(y), n)
	}
	ch, K, _, err := Factor(k, x, []float64{noise})
	if err != nil {
		return 0, err
	}
	alpha := mat.NewVecDense(n, nil)
	if err := linalg.IgnoreCondition(ch.SolveVecTo(alpha, mat.NewVecDense(n, y))); err != nil {
		return 0, err
	}
	a := alpha.RawVector().Data
	var quad, aa float64
	for i, v := range y {
		quad += v * a[i]
		aa += a[i] * a[i]
	}
	nf := float64(n)
	val := -0.5 * quad
	dnoise := 0.5 * aa
	var kinv *mat.SymDense
	h := k.Hyper(nil)
	switch s.Kind {
	case MAP:
		raw := K.RawSymmetric()
		for i := 0; i < n; i++ {
			raw.Data[i*raw.Stride+i] += MapJitter
		}
		var kc mat.Cholesky
		if _, ok := linalg.CholeskyJitter(&kc, K, false); !ok {
			return 0, ErrNotPD
		}
		val += -0.5*kc.LogDet() - 0.5*nf*math.Log(noise) - nf*math.Log(2*math.Pi)
		dnoise -= 0.5 * nf / noise
		if grad != nil {
			kinv = new(mat.SymDense)
			if err := linalg.IgnoreCondition(kc.InverseTo(kinv)); err != nil {
				return 0, err
			}
		}
	case MKL, RR:
		for _, i := range s.Weights {
			val -= 0.5 * s.Lambda * math.Pow(h[i], s.P)
		}
		if s.Kind == MKL {
			val -= 0.5 * nf * math.Log(2*math.Pi*noise)
			dnoise -= 0.5 * nf / noise
		}
	default:
		return 0, fmt.Errorf("gp: unknown objective %d", s.Kind)
	}
	if grad == nil {
		return val, nil
	}
	// W = ααᵀ (− K⁻¹ for MAP's log|K|).
	nh := k.NumHyper()
	Contract(grad[:nh], k, x, outerMinus(a, kinv))
	if s.Kind == MKL || s.Kind == RR {
		for _, i := range s.Weights {
			grad[i] -= 0.5 * s.Lambda * s.P * math.Pow(h[i], s.P-1)
		}
	}
	grad[nh] = dnoise
	return val, nil
}

// Weights returns the positions, in k's hyperparameter vector, of the
// weights θ_m of k = Σ_m θ_m k_m: the scale of every top-level term of a
// sum that is a scaled kernel (an unscaled term has θ = 1, not learnt).
func Weights(k kernels.Kernel) []int {
	var out []int
	var walk func(k kernels.Kernel, off int)
	walk = func(k kernels.Kernel, off int) {
		switch k := k.(type) {
		case *kernels.Sum:
			walk(k.A, off)
			walk(k.B, off+k.A.NumHyper())
		case *kernels.Scaled:
			out = append(out, off)
		}
	}
	walk(k, 0)
	return out
}
