package dist

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Truncated is a continuous family restricted to [lower, upper], Stan's
// T[L, U]: its parameters are the base family's followed by lower and upper
// (−∞ and +∞ when absent). On the support, the intersection of the base's
// support with [lower, upper], the log density is the base's minus
// log(F(upper) − F(lower)), so it is normalised whatever the bounds and
// parameters are. Truncating flat() gives the improper flat density on the
// bounds: log density 0, with no normalising term (there is no F).
type Truncated struct {
	Base Family
	cdf  CDF // nil for flat
	n    int // the number of base parameters
}

// NewTruncated truncates base, which must be continuous, with a CDF, or
// flat().
func NewTruncated(base Family) (*Truncated, error) {
	if base.Discrete() {
		return nil, fmt.Errorf("%s: lower: and upper: truncate continuous families, and %s is discrete", base.Name(), base.Name())
	}
	tr := &Truncated{Base: base, n: len(base.ParamNames())}
	if IsImproper(base) {
		return tr, nil
	}
	c, ok := base.(CDF)
	if !ok {
		return nil, fmt.Errorf("%s: it has no closed-form CDF, so it cannot be truncated with lower: and upper:", base.Name())
	}
	tr.cdf = c
	return tr, nil
}

func (t *Truncated) Name() string { return t.Base.Name() }
func (t *Truncated) ParamNames() []string {
	return append(append([]string(nil), t.Base.ParamNames()...), "lower", "upper")
}
func (t *Truncated) Discrete() bool { return false }
func (t *Truncated) Improper() bool { return t.cdf == nil }

// BoundParams says the support's ends are lower and upper, so a model may
// let them depend on other parameters.
func (t *Truncated) BoundParams() (lo, hi int) { return t.n, t.n + 1 }

// Format writes the distribution as KML does, from its parameters as
// strings: "normal(0, 1, lower: 0)".
func (t *Truncated) Format(params []string) string {
	parts := append([]string(nil), params[:t.n]...)
	if params[t.n] != "-Inf" {
		parts = append(parts, "lower: "+params[t.n])
	}
	if params[t.n+1] != "Inf" {
		parts = append(parts, "upper: "+params[t.n+1])
	}
	return t.Base.Name() + "(" + strings.Join(parts, ", ") + ")"
}

func (t *Truncated) Check(p []float64) error {
	if err := t.Base.Check(p[:t.n]); err != nil {
		return err
	}
	l, u := p[t.n], p[t.n+1]
	if math.IsNaN(l) || math.IsNaN(u) {
		return fmt.Errorf("%s: lower and upper must be numbers, got lower = %v and upper = %v", t.Name(), l, u)
	}
	if !(l < u) {
		return fmt.Errorf("%s: lower must be less than upper, got lower = %v and upper = %v", t.Name(), l, u)
	}
	lo, hi := t.Support(p)
	if !(lo < hi) {
		blo, bhi := t.Base.Support(p[:t.n])
		return fmt.Errorf("%s: the bounds [%v, %v] miss its support (%v, %v)", t.Name(), l, u, blo, bhi)
	}
	if t.cdf != nil && !(t.logMass(p) > math.Inf(-1)) {
		return fmt.Errorf("%s: no probability lies between lower = %v and upper = %v", t.Name(), l, u)
	}
	return nil
}

func (t *Truncated) Support(p []float64) (lo, hi float64) {
	lo, hi = t.Base.Support(p[:t.n])
	return math.Max(lo, p[t.n]), math.Min(hi, p[t.n+1])
}

// ends returns the truncation's ends lo < hi and whether each is a
// truncation bound inside the base's support (else it is the support's own
// end, where F is 0 or 1 and does not move).
func (t *Truncated) ends(p []float64) (lo, hi float64, inLo, inHi bool) {
	blo, bhi := t.Base.Support(p[:t.n])
	lo, hi = t.Support(p)
	return lo, hi, lo > blo, hi < bhi
}

// logCDFs are log F and log(1 − F) at the ends.
func (t *Truncated) logCDFs(p []float64) (fLo, sLo, fHi, sHi float64) {
	lo, hi, inLo, inHi := t.ends(p)
	fLo, sLo = math.Inf(-1), 0
	if inLo {
		fLo, sLo = t.cdf.LogCDF(lo, p[:t.n])
	}
	fHi, sHi = 0, math.Inf(-1)
	if inHi {
		fHi, sHi = t.cdf.LogCDF(hi, p[:t.n])
	}
	return
}

// logMass is log(F(hi) − F(lo)), taken as a difference of the lower tails
// when both ends are below the median and of the upper tails when both are
// above, so that it stays finite far in either tail.
func (t *Truncated) logMass(p []float64) float64 {
	fLo, sLo, fHi, sHi := t.logCDFs(p)
	switch {
	case fHi <= -math.Ln2:
		return logDiff(fHi, fLo)
	case sLo <= -math.Ln2:
		return logDiff(sLo, sHi)
	}
	return math.Log1p(-math.Exp(fLo) - math.Exp(sHi))
}

// logDiff is log(e^a − e^b) for a ≥ b.
func logDiff(a, b float64) float64 {
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(-math.Exp(b-a))
}

func (t *Truncated) LogProb(x float64, p []float64) float64 {
	lo, hi := t.Support(p)
	if !(x >= lo && x <= hi) {
		return math.Inf(-1)
	}
	lp := t.Base.LogProb(x, p[:t.n])
	if t.cdf == nil {
		return lp
	}
	return lp - t.logMass(p)
}

// logMassGrad returns log Z, Z = F(hi) − F(lo), and writes its gradient in
// every parameter into dz: ∂log Z/∂pⱼ = (rⱼ(hi) f(hi) − rⱼ(lo) f(lo))/Z with
// rⱼ from CDFGrad, ∂log Z/∂upper = f(upper)/Z and ∂log Z/∂lower =
// −f(lower)/Z, where the end is a truncation bound (a support's own end
// does not move). Each f/Z is taken in log space, so it stays finite where
// both underflow.
func (t *Truncated) logMassGrad(dz, p []float64) float64 {
	lo, hi, inLo, inHi := t.ends(p)
	clear(dz)
	logZ := t.logMass(p)
	r := make([]float64, t.n) // the ratios rⱼ
	if inHi {
		w := math.Exp(t.Base.LogProb(hi, p[:t.n]) - logZ) // f(hi)/Z
		t.cdf.CDFGrad(r, hi, p[:t.n])
		for j := range r {
			dz[j] += r[j] * w
		}
		dz[t.n+1] = w
	}
	if inLo {
		w := math.Exp(t.Base.LogProb(lo, p[:t.n]) - logZ)
		t.cdf.CDFGrad(r, lo, p[:t.n])
		for j := range r {
			dz[j] -= r[j] * w
		}
		dz[t.n] = -w
	}
	return logZ
}

// LogProbGrad differentiates log f(x) − log Z (logMassGrad).
func (t *Truncated) LogProbGrad(dp []float64, x float64, p []float64) (float64, float64) {
	lo, hi := t.Support(p)
	if !(x >= lo && x <= hi) {
		clear(dp)
		return math.Inf(-1), 0
	}
	if t.cdf == nil {
		lp, dx := t.Base.LogProbGrad(dp[:t.n], x, p[:t.n])
		dp[t.n], dp[t.n+1] = 0, 0
		return lp, dx
	}
	dz := make([]float64, len(p))
	logZ := t.logMassGrad(dz, p)
	lp, dx := t.Base.LogProbGrad(dp[:t.n], x, p[:t.n])
	dp[t.n], dp[t.n+1] = 0, 0
	for j := range dp {
		dp[j] -= dz[j]
	}
	return lp - logZ, dx
}

var _ SumGrader = (*Truncated)(nil)

// LogProbGradSum sums the log density over xs sharing one parameter vector:
// the normalising term and its gradient are computed once, not per point.
func (t *Truncated) LogProbGradSum(dp, dx, xs, p []float64) float64 {
	lo, hi := t.Support(p)
	clear(dp)
	g := make([]float64, t.n)
	total := 0.0
	for i, x := range xs {
		if !(x >= lo && x <= hi) {
			return math.Inf(-1)
		}
		lp, d := t.Base.LogProbGrad(g, x, p[:t.n])
		total += lp
		for j, v := range g {
			dp[j] += v
		}
		if dx != nil {
			dx[i] = d
		}
	}
	if t.cdf == nil || len(xs) == 0 {
		return total
	}
	dz := make([]float64, len(p))
	logZ := t.logMassGrad(dz, p)
	n := float64(len(xs))
	for j := range dp {
		dp[j] -= n * dz[j]
	}
	return total - n*logZ
}

// Rand draws by rejection from the base when the bounds hold at least a
// quarter of its mass, and otherwise by inverting the CDF (bisection), in
// the tail the bounds lie in.
func (t *Truncated) Rand(r *rand.Rand, p []float64) float64 {
	if t.cdf == nil {
		return math.NaN()
	}
	lo, hi := t.Support(p)
	logZ := t.logMass(p)
	if logZ > math.Log(0.25) {
		for {
			if x := t.Base.Rand(r, p[:t.n]); x >= lo && x <= hi {
				return x
			}
		}
	}
	u := r.Float64()
	fLo, sLo, fHi, sHi := t.logCDFs(p)
	// g is increasing in x, with its root at the draw.
	var g func(x float64) float64
	switch {
	case fHi <= -math.Ln2:
		target := logAdd(fLo, math.Log(u)+logZ)
		g = func(x float64) float64 { f, _ := t.cdf.LogCDF(x, p[:t.n]); return f - target }
	case sLo <= -math.Ln2:
		target := logAdd(sHi, math.Log1p(-u)+logZ)
		g = func(x float64) float64 { _, s := t.cdf.LogCDF(x, p[:t.n]); return target - s }
	default:
		target := math.Exp(fLo) + u*math.Exp(logZ)
		g = func(x float64) float64 { f, _ := t.cdf.LogCDF(x, p[:t.n]); return math.Exp(f) - target }
	}
	a, b := lo, hi
	if math.IsInf(a, -1) {
		a = math.Min(b, 0) - 1
		for step := 1.0; g(a) > 0; step *= 2 {
			a -= step
		}
	}
	if math.IsInf(b, 1) {
		b = math.Max(a, 0) + 1
		for step := 1.0; g(b) < 0; step *= 2 {
			b += step
		}
	}
	for range 200 {
		m := a + (b-a)/2
		if m <= a || m >= b {
			break
		}
		if g(m) < 0 {
			a = m
		} else {
			b = m
		}
	}
	return a + (b-a)/2
}

// logAdd is log(e^a + e^b).
func logAdd(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// HasMoments reports whether Mean and StdDev are computed: for a truncated
// normal, in closed form.
func (t *Truncated) HasMoments() bool { return t.Base.Name() == "normal" }

// normalMoments are the truncated normal's mean and sd with α, β the
// standardised ends: mean = μ + σ(φ(α) − φ(β))/Z and variance
// σ²(1 + (αφ(α) − βφ(β))/Z − ((φ(α) − φ(β))/Z)²).
func (t *Truncated) normalMoments(p []float64) (mean, sd float64) {
	mu, s := p[0], p[1]
	lo, hi := t.Support(p)
	logZ := t.logMass(p)
	// phiZ returns φ(a)/Z and aφ(a)/Z, 0 at an infinite end.
	phiZ := func(x float64) (float64, float64) {
		if math.IsInf(x, 0) {
			return 0, 0
		}
		a := (x - mu) / s
		w := math.Exp(-0.5*a*a - logSqrt2Pi - logZ)
		return w, a * w
	}
	pa, apa := phiZ(lo)
	pb, bpb := phiZ(hi)
	d := pa - pb
	return mu + s*d, s * math.Sqrt(math.Max(0, 1+apa-bpb-d*d))
}

func (t *Truncated) Mean(p []float64) float64 {
	if !t.HasMoments() {
		return math.NaN()
	}
	m, _ := t.normalMoments(p)
	return m
}

func (t *Truncated) StdDev(p []float64) float64 {
	if !t.HasMoments() {
		return math.NaN()
	}
	_, s := t.normalMoments(p)
	return s
}
