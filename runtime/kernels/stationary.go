package kernels

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kml-lang/kml/runtime/internal/fastexp"
)

// profile is a stationary kernel as a function of the scaled squared
// distance u = Σ_d (x_d − y_d)²/ℓ_d².
type profile int

const (
	profRBF      profile = iota // exp(−u/2)
	profMatern12                // exp(−r), r = √u (the laplacian)
	profMatern32                // (1 + √3 r) exp(−√3 r)
	profMatern52                // (1 + √5 r + 5r²/3) exp(−√5 r)
	profRQ                      // (1 + u/(2α))^(−α)
)

// Stationary is a kernel k(x, y) = f(u) of the scaled squared distance
// u = Σ_d (x_d − y_d)²/ℓ_d², with one lengthscale (isotropic) or one per
// input dimension (ARD). RBF, Laplacian, Matern12/32/52 and RQ are
// Stationary kernels; the Gram routines evaluate f directly in their loops.
type Stationary struct {
	kind  profile
	Ell   []float64
	Alpha float64 // RQ only
}

var _ Kernel = (*Stationary)(nil)

func checkEll(name string, ell []float64) error {
	if len(ell) == 0 {
		return fmt.Errorf("%s: needs a lengthscale", name)
	}
	for i, l := range ell {
		if !(l > 0) || math.IsInf(l, 0) {
			label := "ell"
			if len(ell) > 1 {
				label = fmt.Sprintf("ell[%d]", i+1)
			}
			return fmt.Errorf("%s: lengthscale %s must be positive and finite, got %v", name, label, l)
		}
	}
	return nil
}

func newStationary(kind profile, ell []float64, alpha float64) (*Stationary, error) {
	k := &Stationary{kind: kind, Ell: append([]float64(nil), ell...), Alpha: alpha}
	if err := checkEll(k.name(), ell); err != nil {
		return nil, err
	}
	if kind == profRQ && (!(alpha > 0) || math.IsInf(alpha, 0)) {
		return nil, fmt.Errorf("rq: alpha must be positive and finite, got %v", alpha)
	}
	return k, nil
}

// NewRBF is the squared-exponential kernel exp(−½ Σ_d (x_d − y_d)²/ℓ_d²):
// isotropic with one ell, ARD with one per dimension.
func NewRBF(ell []float64) (*Stationary, error) { return newStationary(profRBF, ell, 0) }

// NewLaplacian is exp(−r), r = ‖(x − y)/ℓ‖ (Euclidean); the same as
// Matérn-1/2.
func NewLaplacian(ell []float64) (*Stationary, error) { return newStationary(profMatern12, ell, 0) }

// NewMatern is the Matérn kernel of smoothness nu = 1/2, 3/2 or 5/2, given
// as twice nu (1, 3 or 5): exp(−r), (1 + √3 r)e^{−√3 r} or
// (1 + √5 r + 5r²/3)e^{−√5 r}.
func NewMatern(twiceNu int, ell []float64) (*Stationary, error) {
	switch twiceNu {
	case 1:
		return newStationary(profMatern12, ell, 0)
	case 3:
		return newStationary(profMatern32, ell, 0)
	case 5:
		return newStationary(profMatern52, ell, 0)
	}
	return nil, fmt.Errorf("matern: smoothness must be 1/2, 3/2 or 5/2")
}

// NewRQ is the rational quadratic kernel (1 + u/(2α))^(−α).
func NewRQ(ell []float64, alpha float64) (*Stationary, error) {
	return newStationary(profRQ, ell, alpha)
}

// IsRBF reports the squared-exponential kernel.
func (k *Stationary) IsRBF() bool { return k.kind == profRBF }

// Profile names f: "rbf", "laplacian", "matern32", "matern52" or "rq",
// for callers that evaluate f over whole blocks of u themselves.
func (k *Stationary) Profile() string { return k.name() }

func (k *Stationary) name() string {
	return [...]string{"rbf", "laplacian", "matern32", "matern52", "rq"}[k.kind]
}

func (k *Stationary) NumHyper() int {
	if k.kind == profRQ {
		return len(k.Ell) + 1
	}
	return len(k.Ell)
}

func (k *Stationary) Hyper(dst []float64) []float64 {
	dst = append(dst, k.Ell...)
	if k.kind == profRQ {
		dst = append(dst, k.Alpha)
	}
	return dst
}

func (k *Stationary) HyperNames() []string {
	var out []string
	if len(k.Ell) == 1 {
		out = []string{"ell"}
	} else {
		for i := range k.Ell {
			out = append(out, "ell."+strconv.Itoa(i+1))
		}
	}
	if k.kind == profRQ {
		out = append(out, "alpha")
	}
	return out
}

func (k *Stationary) WithHyper(h []float64) (Kernel, error) {
	if len(h) != k.NumHyper() {
		panic(fmt.Sprintf("kernels: %s takes %d hyperparameters, got %d", k.name(), k.NumHyper(), len(h)))
	}
	alpha := k.Alpha
	if k.kind == profRQ {
		alpha = h[len(h)-1]
	}
	return newStationary(k.kind, h[:len(k.Ell)], alpha)
}

func (k *Stationary) Dim() int {
	if len(k.Ell) == 1 {
		return 0
	}
	return len(k.Ell)
}

func (k *Stationary) String() string {
	var ell string
	if len(k.Ell) == 1 {
		ell = fmtFloat(k.Ell[0])
	} else {
		parts := make([]string, len(k.Ell))
		for i, l := range k.Ell {
			parts[i] = fmtFloat(l)
		}
		ell = "[" + strings.Join(parts, ", ") + "]"
	}
	if k.kind == profRQ {
		return "rq(" + ell + ", " + fmtFloat(k.Alpha) + ")"
	}
	return k.name() + "(" + ell + ")"
}

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// scaledSq returns u = Σ (x_d − y_d)²/ℓ_d².
func (k *Stationary) scaledSq(x, y []float64) float64 {
	u := 0.0
	if len(k.Ell) == 1 {
		for d, xv := range x {
			t := xv - y[d]
			u += t * t
		}
		return u / (k.Ell[0] * k.Ell[0])
	}
	for d, xv := range x {
		t := (xv - y[d]) / k.Ell[d]
		u += t * t
	}
	return u
}

// f returns f(u) and f'(u) = df/du.
func (k *Stationary) f(u float64) (v, dv float64) {
	switch k.kind {
	case profRBF:
		v = expNeg(-0.5 * u)
		return v, -0.5 * v
	case profMatern12:
		r := math.Sqrt(u)
		v = expNeg(-r)
		if r == 0 {
			return v, 0 // the derivative in r is −1; in u it is unbounded at 0
		}
		return v, -v / (2 * r)
	case profMatern32:
		s := math.Sqrt(3 * u)
		e := expNeg(-s)
		return (1 + s) * e, -1.5 * e
	case profMatern52:
		s := math.Sqrt(5 * u)
		e := expNeg(-s)
		return (1 + s + 5*u/3) * e, -(5.0 / 6) * (1 + s) * e
	default: // profRQ
		b := 1 + u/(2*k.Alpha)
		v = math.Pow(b, -k.Alpha)
		return v, -0.5 * v / b
	}
}

// value is f(u) alone, for the Gram loops.
func (k *Stationary) value(u float64) float64 {
	switch k.kind {
	case profRBF:
		return expNeg(-0.5 * u)
	case profMatern12:
		return expNeg(-math.Sqrt(u))
	case profMatern32:
		s := math.Sqrt(3 * u)
		return (1 + s) * expNeg(-s)
	case profMatern52:
		s := math.Sqrt(5 * u)
		return (1 + s + 5*u/3) * expNeg(-s)
	default:
		return math.Pow(1+u/(2*k.Alpha), -k.Alpha)
	}
}

// expNeg is e^x for x ≤ 0, exactly 0 where it underflows.
func expNeg(x float64) float64 { return fastexp.ExpNegOrZero(x) }

func (k *Stationary) Eval(x, y []float64) float64 { return k.value(k.scaledSq(x, y)) }

func (k *Stationary) GradHyper(dst, x, y []float64) float64 {
	u := k.scaledSq(x, y)
	v, dv := k.f(u)
	if len(k.Ell) == 1 {
		// ∂u/∂ℓ = −2u/ℓ.
		dst[0] = dv * (-2 * u / k.Ell[0])
	} else {
		for d, l := range k.Ell {
			t := (x[d] - y[d]) / l
			dst[d] = dv * (-2 * t * t / l)
		}
	}
	if k.kind == profRQ {
		a := k.Alpha
		b := 1 + u/(2*a)
		dst[len(k.Ell)] = v * (-math.Log(b) + u/(2*a*b))
	}
	return v
}

func (k *Stationary) GradX(dst, x, y []float64) float64 {
	u := k.scaledSq(x, y)
	v, dv := k.f(u)
	for d := range x {
		l := k.Ell[0]
		if len(k.Ell) > 1 {
			l = k.Ell[d]
		}
		dst[d] = dv * 2 * (x[d] - y[d]) / (l * l)
	}
	return v
}

func logB(b float64) float64 { return math.Log(b) }
