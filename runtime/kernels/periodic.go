package kernels

import (
	"fmt"
	"math"
)

// Periodic is MacKay's periodic kernel exp(−2 sin²(π(x − y)/p)/ℓ²);
// hyperparameters ell, then period. In D dimensions the sines of the
// coordinates' differences are summed, exp(−2 Σ_d sin²(π(x_d − y_d)/p)/ℓ²),
// the product of one-dimensional periodic kernels: unlike the form with
// sin²(π‖x − y‖/p), it stays positive definite in every dimension.
type Periodic struct{ Ell, Period float64 }

var _ Kernel = (*Periodic)(nil)

// NewPeriodic checks ell and period.
func NewPeriodic(ell, period float64) (*Periodic, error) {
	if !(ell > 0) || math.IsInf(ell, 0) {
		return nil, fmt.Errorf("periodic: lengthscale ell must be positive and finite, got %v", ell)
	}
	if !(period > 0) || math.IsInf(period, 0) {
		return nil, fmt.Errorf("periodic: period must be positive and finite, got %v", period)
	}
	return &Periodic{Ell: ell, Period: period}, nil
}

func (k *Periodic) NumHyper() int                 { return 2 }
func (k *Periodic) Hyper(dst []float64) []float64 { return append(dst, k.Ell, k.Period) }
func (k *Periodic) HyperNames() []string          { return []string{"ell", "period"} }
func (k *Periodic) Dim() int                      { return 0 }
func (k *Periodic) String() string {
	return "periodic(" + fmtFloat(k.Ell) + ", " + fmtFloat(k.Period) + ")"
}

func (k *Periodic) WithHyper(h []float64) (Kernel, error) {
	if len(h) != 2 {
		panic("kernels: periodic takes 2 hyperparameters")
	}
	return NewPeriodic(h[0], h[1])
}

// sinSq returns S = Σ_d sin²(π(x_d − y_d)/p).
func (k *Periodic) sinSq(x, y []float64) float64 {
	s := 0.0
	for d, v := range x {
		t := math.Sin(math.Pi * (v - y[d]) / k.Period)
		s += t * t
	}
	return s
}

func (k *Periodic) Eval(x, y []float64) float64 {
	return math.Exp(-2 * k.sinSq(x, y) / (k.Ell * k.Ell))
}

func (k *Periodic) GradHyper(dst, x, y []float64) float64 {
	l2 := k.Ell * k.Ell
	s, sa := 0.0, 0.0
	for d, v := range x {
		a := math.Pi * (v - y[d]) / k.Period
		t := math.Sin(a)
		s += t * t
		sa += math.Sin(2*a) * a
	}
	v := math.Exp(-2 * s / l2)
	dst[0] = v * 4 * s / (l2 * k.Ell)
	dst[1] = v * 2 / (l2 * k.Period) * sa
	return v
}

func (k *Periodic) GradX(dst, x, y []float64) float64 {
	l2 := k.Ell * k.Ell
	v := math.Exp(-2 * k.sinSq(x, y) / l2)
	for d := range dst {
		a := math.Pi * (x[d] - y[d]) / k.Period
		dst[d] = -v * 2 / l2 * math.Sin(2*a) * math.Pi / k.Period
	}
	return v
}
