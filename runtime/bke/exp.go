package bke

import (
	"math"
	"math/big"
)

// expNeg is e^x for the kernel values of the fused pass, where x ≤ 0. It
// exists because math.Exp is the pass's bottleneck: on amd64 it is an
// assembly routine with a long serial Taylor chain, about 1.6 times the
// time of this one (BenchmarkExp).
//
// Method: x = (32k + j) ln2/32 + r with j ∈ [0, 32), |r| ≤ ln2/64 (Cody–Waite
// reduction with a 32-bit high part, so n·ln2Hi is exact), then
// e^x = t + t·p(r) with t = 2^k · 2^(j/32) from a table of correctly rounded
// values and p(r) ≈ e^r − 1 the degree-6 Taylor polynomial (truncation error
// |r|⁷/7! < 4e-18) in Estrin form; adding 1 last keeps p's rounding error
// relative to p, not to 1. The relative error is below 3e-16 (the roundings
// of t and of the final sum, 2⁻⁵³ each, and p's, scaled by |p| < 0.011);
// TestExpNeg measures at most 2.4e-16 on [−708, 0]. Below −708, where
// e^x < 3.3e-308 is subnormal, and for NaN it returns 0: a kernel value
// that small changes none of the pass's sums.
func expNeg(x float64) float64 {
	if !(x >= -708) {
		return 0
	}
	n := int64(x*(32/math.Ln2) - 0.5) // round to nearest for x ≤ 0
	fn := float64(n)
	r := (x - fn*ln2Hi) - fn*ln2Lo
	r2 := r * r
	p := r + r2*((0.5+r*(1.0/6))+r2*((1.0/24+r*(1.0/120))+r2*(1.0/720))) // e^r − 1
	t := math.Float64frombits(expTable[n&31] + uint64(n>>5)<<52)
	return t + t*p
}

const (
	ln2Hi = 0x1.62e42fee00000p-6 // ln2/32 to 32 significant bits
	ln2Lo = math.Ln2/32 - ln2Hi  // the rest, from Go's exact constant arithmetic
)

// expTable holds the bits of 2^(j/32), j = 0..31, correctly rounded: the
// fifth square root of 2^j, each root taken in 256-bit arithmetic.
var expTable = func() (t [32]uint64) {
	for j := range t {
		v := new(big.Float).SetPrec(256).SetMantExp(big.NewFloat(1), j)
		for k := 0; k < 5; k++ {
			v.Sqrt(v)
		}
		f, _ := v.Float64()
		t[j] = math.Float64bits(f)
	}
	return t
}()
