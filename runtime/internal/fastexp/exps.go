package fastexp

import (
	"math"

	"github.com/kml-lang/kml/runtime/internal/cpufeat"
)

// Vectorised reports which vectorised kernel Exps uses: "avx512", "avx2"
// or "none" (cpufeat.Vector).
func Vectorised() string { return cpufeat.Vector.String() }

// MaxArg is the largest argument Exps evaluates; above it the result is
// +Inf (e^709 ≈ 8.2e307; the exponent field of 2^k would overflow beyond).
const MaxArg = 709

// Exps sets dst[i] = e^t with t = a·x[i] + b, for the kernel loops that
// exponentiate a whole row at once (a = −½ and b = ½ min q for a BKE row,
// a = −½ and b = 0 for an RBF Gram row). On amd64 with AVX2 and FMA (8
// lanes with AVX-512) the bulk runs in assembly; the rest, and other
// machines, use the same method in Go (ExpNeg's table and polynomial).
//
// For −708 ≤ t ≤ 709 the relative error is below 3e-16 (TestExps measures
// it against e^t to 200 bits); t < −708, including −Inf, gives exactly 0;
// t > 709 gives +Inf; NaN gives NaN. t itself is rounded once (fused
// multiply–add on the vectorised path): exact for a = ±1, ±½ and b = 0 or
// for a = ±½ and b a multiple of ulp(x); otherwise the rounding of t adds
// up to |t|·2⁻⁵³ relative error, as it would for math.Exp(a*x + b). That
// rounding is where a few ulp would not do: a caller that needs e^t with t
// a difference of large nearly equal numbers should form t itself.
//
// dst and x must have the same length; dst may be x.
func Exps(dst, x []float64, a, b float64) {
	if len(dst) != len(x) {
		panic("fastexp: Exps with slices of different lengths")
	}
	done := expsVec(dst, x, a, b)
	expsGo(dst[done:], x[done:], a, b)
}

// expsGo is Exps in Go, the fallback and the tail of the vectorised path.
func expsGo(dst, x []float64, a, b float64) {
	dst = dst[:len(x)]
	for i, v := range x {
		t := a*v + b
		switch {
		case t >= MinArg && t <= MaxArg:
			dst[i] = ExpNeg(t)
		case t < MinArg:
			dst[i] = 0
		case t > MaxArg:
			dst[i] = math.Inf(1)
		default:
			dst[i] = t // NaN
		}
	}
}
