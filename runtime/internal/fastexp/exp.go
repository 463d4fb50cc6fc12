package fastexp

import (
	"math"
	"math/big"
)

// ExpNeg is e^x for −708 ≤ x ≤ 0, the values of exponential kernels. It
// exists because math.Exp is the pass's bottleneck: on amd64 it is a call
// into an assembly routine with a long serial Taylor chain, while this one
// is inlined. Callers that may go below −708 use ExpNegOrZero.
//
// Method: x = (128k + j) ln2/128 + r with j ∈ [0, 128) and −ln2/128 < r ≤ 0
// (n = 128k + j is x·128/ln2 truncated; Cody–Waite reduction with a 32-bit
// high part, so n·ln2Hi is exact), then e^x = t + t·p(r) with t = 2^k ·
// 2^(j/128) from a table of correctly rounded values and p(r) ≈ e^r − 1 the
// degree-5 Taylor polynomial (truncation error |r|⁶/6! < 3.6e-17) in Horner
// form; adding t last keeps p's rounding error relative to p, not to 1. The
// relative error is below 3e-16 (the roundings of t and of the final sum,
// 2⁻⁵³ each, the truncation, and p's rounding scaled by |p| < 0.0055);
// TestExpNeg measures it. The body is kept under the inlining budget.
func ExpNeg(x float64) float64 {
	n := int64(x * (128 / math.Ln2))
	fn := float64(n)
	r := (x - fn*ln2Hi) - fn*ln2Lo
	p := r * (1 + r*(0.5+r*((1.0/6)+r*(1.0/24+r*(1.0/120)))))
	t := math.Float64frombits(expTable[n&127] + uint64(n>>7)<<52)
	return t + t*p
}

// MinArg is the smallest argument ExpNeg accepts.
const MinArg = -708

// ExpNegOrZero is ExpNeg(x) for x ≥ −708 and 0 below, where e^x < 3.3e-308
// would change none of the pass's sums. Returning an exact 0, rather than a
// value whose products underflow, also keeps the pass off the processor's
// slow path for subnormal results (7 times slower on rows far from every
// landmark, BenchmarkBKEFarRows).
func ExpNegOrZero(x float64) float64 {
	if x < MinArg {
		return 0
	}
	return ExpNeg(x)
}

const (
	ln2Hi = 0x1.62e42fee00000p-8 // ln2/128 to 32 significant bits
	ln2Lo = math.Ln2/128 - ln2Hi // the rest, from Go's exact constant arithmetic
)

// expTable holds the bits of 2^(j/128), j = 0..127, correctly rounded: the
// seventh iterated square root of 2^j, each root taken in 256-bit
// arithmetic.
var expTable = func() (t [128]uint64) {
	for j := range t {
		v := new(big.Float).SetPrec(256).SetMantExp(big.NewFloat(1), j)
		for k := 0; k < 7; k++ {
			v.Sqrt(v)
		}
		f, _ := v.Float64()
		t[j] = math.Float64bits(f)
	}
	return t
}()
