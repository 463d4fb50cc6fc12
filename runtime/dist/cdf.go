package dist

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// CDF is a continuous family whose cumulative distribution function F is
// known in closed form (or through a regularised incomplete function), so
// that it can be truncated.
type CDF interface {
	Family
	// LogCDF returns log F(x) and log(1 − F(x)), each computed so that it
	// stays accurate (and finite) where it is small, far in its tail.
	LogCDF(x float64, p []float64) (lower, upper float64)
	// CDFGrad writes rⱼ = (∂F(x)/∂pⱼ) / f(x) into dp for every parameter
	// with CDFGradIn(j), and NaN for the others. Dividing by the density f
	// keeps the gradient of log(F(U) − F(L)) finite in a far tail, where
	// both the derivative and the mass underflow. x is inside the support.
	CDFGrad(dp []float64, x float64, p []float64)
	// CDFGradIn reports whether ∂F/∂pⱼ is closed form: it is not for the
	// shape parameters of gamma, inv_gamma and beta, nor for student_t's ν.
	CDFGradIn(j int) bool
}

// logPhi is log Φ(z) for the standard normal CDF Φ, finite for every finite
// z. Beyond z = −37, where erfc nears underflow, it uses the asymptotic
// series Φ(z) = φ(z)/(−z)·(1 − 1/z² + 3/z⁴ − 15/z⁶ + 105/z⁸ − ...), whose
// next term is below 10⁻¹³ there.
func logPhi(z float64) float64 {
	switch {
	case z > 0:
		return math.Log1p(-0.5 * math.Erfc(z/math.Sqrt2))
	case z > -37:
		return math.Log(0.5 * math.Erfc(-z/math.Sqrt2))
	}
	w := 1 / (z * z)
	s := 1 + w*(-1+w*(3+w*(-15+w*105)))
	return -0.5*z*z - logSqrt2Pi - math.Log(-z) + math.Log(s)
}

// logTails returns log F and log(1 − F) from the smaller of the two tail
// masses: tail = F when lowerTail, else 1 − F.
func logTails(tail float64, lowerTail bool) (lower, upper float64) {
	lt, lo := math.Log(tail), math.Log1p(-tail)
	if lowerTail {
		return lt, lo
	}
	return lo, lt
}

// Location–scale families: F(x) = G(z), z = (x − μ)/σ, f(x) = g(z)/σ, so
// ∂F/∂μ = −f and ∂F/∂σ = −z f.

func (normal) LogCDF(x float64, p []float64) (float64, float64) {
	z := (x - p[0]) / p[1]
	return logPhi(z), logPhi(-z)
}
func (normal) CDFGrad(dp []float64, x float64, p []float64) {
	dp[0], dp[1] = -1, -(x-p[0])/p[1]
}
func (normal) CDFGradIn(int) bool { return true }

// cauchy: F = ½ + atan(z)/π = atan2(1, −z)/π, which keeps the lower tail's
// small values accurate; 1 − F = atan2(1, z)/π.
func (cauchy) LogCDF(x float64, p []float64) (float64, float64) {
	z := (x - p[0]) / p[1]
	return math.Log(math.Atan2(1, -z) / math.Pi), math.Log(math.Atan2(1, z) / math.Pi)
}
func (cauchy) CDFGrad(dp []float64, x float64, p []float64) {
	dp[0], dp[1] = -1, -(x-p[0])/p[1]
}
func (cauchy) CDFGradIn(int) bool { return true }

// laplace: F = ½e^z for z < 0 and 1 − ½e^−z above.
func (laplace) LogCDF(x float64, p []float64) (float64, float64) {
	z := (x - p[0]) / p[1]
	if z < 0 {
		return z - math.Ln2, math.Log1p(-0.5 * math.Exp(z))
	}
	return math.Log1p(-0.5 * math.Exp(-z)), -z - math.Ln2
}
func (laplace) CDFGrad(dp []float64, x float64, p []float64) {
	dp[0], dp[1] = -1, -(x-p[0])/p[1]
}
func (laplace) CDFGradIn(int) bool { return true }

// student_t: the tail mass beyond |t| is ½ I_{ν/(ν+t²)}(ν/2, ½).
func (studentT) LogCDF(x float64, p []float64) (float64, float64) {
	nu := p[0]
	z := (x - p[1]) / p[2]
	tail := 0.5 * mathext.RegIncBeta(nu/2, 0.5, nu/(nu+z*z))
	return logTails(tail, z < 0)
}
func (studentT) CDFGrad(dp []float64, x float64, p []float64) {
	dp[0], dp[1], dp[2] = math.NaN(), -1, -(x-p[1])/p[2]
}
func (studentT) CDFGradIn(j int) bool { return j != 0 }

// lognormal: F = Φ(z), z = (log x − μ)/σ, f = φ(z)/(σx): ∂F/∂μ = −x f and
// ∂F/∂σ = −z x f.
func (lognormal) LogCDF(x float64, p []float64) (float64, float64) {
	if x <= 0 {
		return math.Inf(-1), 0
	}
	z := (math.Log(x) - p[0]) / p[1]
	return logPhi(z), logPhi(-z)
}
func (lognormal) CDFGrad(dp []float64, x float64, p []float64) {
	dp[0], dp[1] = -x, -x*(math.Log(x)-p[0])/p[1]
}
func (lognormal) CDFGradIn(int) bool { return true }

// exponential: F = 1 − e^−βx, f = βe^−βx, ∂F/∂β = x e^−βx = (x/β) f.
func (exponential) LogCDF(x float64, p []float64) (float64, float64) {
	if x <= 0 {
		return math.Inf(-1), 0
	}
	return math.Log(-math.Expm1(-p[0] * x)), -p[0] * x
}
func (exponential) CDFGrad(dp []float64, x float64, p []float64) { dp[0] = x / p[0] }
func (exponential) CDFGradIn(int) bool                           { return true }

// half_normal: F = erf(z/√2), 1 − F = 2Φ(−z), z = x/σ; ∂F/∂σ = −z f.
func (halfNormal) LogCDF(x float64, p []float64) (float64, float64) {
	if x <= 0 {
		return math.Inf(-1), 0
	}
	z := x / p[0]
	upper := math.Ln2 + logPhi(-z)
	if z < 1 {
		return math.Log(math.Erf(z / math.Sqrt2)), upper
	}
	return math.Log1p(-math.Erfc(z / math.Sqrt2)), upper
}
func (halfNormal) CDFGrad(dp []float64, x float64, p []float64) { dp[0] = -x / p[0] }
func (halfNormal) CDFGradIn(int) bool                           { return true }

// half_cauchy: F = (2/π) atan z, 1 − F = (2/π) atan2(1, z), z = x/σ.
func (halfCauchy) LogCDF(x float64, p []float64) (float64, float64) {
	if x <= 0 {
		return math.Inf(-1), 0
	}
	z := x / p[0]
	return math.Log(2 / math.Pi * math.Atan(z)), math.Log(2 / math.Pi * math.Atan2(1, z))
}
func (halfCauchy) CDFGrad(dp []float64, x float64, p []float64) { dp[0] = -x / p[0] }
func (halfCauchy) CDFGradIn(int) bool                           { return true }

// gamma(α, β): F = P(α, βx), the regularised lower incomplete gamma
// function; ∂F/∂β = (x/β) f. Its derivative in α has no closed form.
func (gamma) LogCDF(x float64, p []float64) (float64, float64) {
	if x <= 0 {
		return math.Inf(-1), 0
	}
	y := p[1] * x
	return math.Log(mathext.GammaIncReg(p[0], y)), math.Log(mathext.GammaIncRegComp(p[0], y))
}
func (gamma) CDFGrad(dp []float64, x float64, p []float64) { dp[0], dp[1] = math.NaN(), x/p[1] }
func (gamma) CDFGradIn(j int) bool                         { return j != 0 }

// inv_gamma(α, β): F = Q(α, β/x), the upper regularised incomplete gamma
// function; ∂F/∂β = −(x/β) f.
func (invGamma) LogCDF(x float64, p []float64) (float64, float64) {
	if x <= 0 {
		return math.Inf(-1), 0
	}
	y := p[1] / x
	return math.Log(mathext.GammaIncRegComp(p[0], y)), math.Log(mathext.GammaIncReg(p[0], y))
}
func (invGamma) CDFGrad(dp []float64, x float64, p []float64) { dp[0], dp[1] = math.NaN(), -x/p[1] }
func (invGamma) CDFGradIn(j int) bool                         { return j != 0 }

// beta(a, b): F = I_x(a, b) and 1 − F = I_{1−x}(b, a); neither shape has a
// closed-form derivative.
func (beta) LogCDF(x float64, p []float64) (float64, float64) {
	switch {
	case x <= 0:
		return math.Inf(-1), 0
	case x >= 1:
		return 0, math.Inf(-1)
	}
	return math.Log(mathext.RegIncBeta(p[0], p[1], x)), math.Log(mathext.RegIncBeta(p[1], p[0], 1-x))
}
func (beta) CDFGrad(dp []float64, _ float64, _ []float64) { dp[0], dp[1] = math.NaN(), math.NaN() }
func (beta) CDFGradIn(int) bool                           { return false }
