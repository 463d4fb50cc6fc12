package kernels

import (
	"fmt"
	"math"
)

// Sum is a + b; its hyperparameters are a's then b's.
type Sum struct{ A, B Kernel }

// Product is a·b; its hyperparameters are a's then b's.
type Product struct{ A, B Kernel }

// Scaled is c·k with c ≥ 0; its hyperparameters are c then k's.
type Scaled struct {
	C float64
	K Kernel
}

var (
	_ Kernel = (*Sum)(nil)
	_ Kernel = (*Product)(nil)
	_ Kernel = (*Scaled)(nil)
)

// NewSum is a + b. Input dimensions must agree where both fix one.
func NewSum(a, b Kernel) (*Sum, error) {
	if err := sameDim(a, b); err != nil {
		return nil, err
	}
	return &Sum{A: a, B: b}, nil
}

// NewProduct is a·b.
func NewProduct(a, b Kernel) (*Product, error) {
	if err := sameDim(a, b); err != nil {
		return nil, err
	}
	return &Product{A: a, B: b}, nil
}

// NewScaled is c·k.
func NewScaled(c float64, k Kernel) (*Scaled, error) {
	if !(c >= 0) || math.IsInf(c, 0) {
		return nil, fmt.Errorf("the scale of a kernel must be non-negative and finite, got %v", c)
	}
	return &Scaled{C: c, K: k}, nil
}

// SplitScaled returns c and inner when k is c·inner (a *Scaled), and 1
// and k otherwise. It peels one level only, the one whose c is k's first
// hyperparameter: c₁·(c₂·k) gives c₁ and c₂·k.
func SplitScaled(k Kernel) (c float64, inner Kernel) {
	if s, ok := k.(*Scaled); ok {
		return s.C, s.K
	}
	return 1, k
}

// AsRBF reports whether k is rbf(ℓ) or c·rbf(ℓ), and returns c (1 when
// unscaled) and the rbf kernel: the kernels with closed forms that others
// lack (Gaussian integrals, spectral densities, log-space sums).
func AsRBF(k Kernel) (c float64, rbf *Stationary, ok bool) {
	c, inner := SplitScaled(k)
	st, ok := inner.(*Stationary)
	if !ok || !st.IsRBF() {
		return 0, nil, false
	}
	return c, st, true
}

func sameDim(a, b Kernel) error {
	if da, db := a.Dim(), b.Dim(); da != 0 && db != 0 && da != db {
		return fmt.Errorf("cannot combine %s (inputs of dimension %d) with %s (dimension %d)", a, da, b, db)
	}
	return nil
}

func combinedDim(a, b Kernel) int { return max(a.Dim(), b.Dim()) }

func (k *Sum) NumHyper() int                 { return k.A.NumHyper() + k.B.NumHyper() }
func (k *Sum) Hyper(dst []float64) []float64 { return k.B.Hyper(k.A.Hyper(dst)) }
func (k *Sum) HyperNames() []string          { return prefixed(k.A, k.B) }
func (k *Sum) Dim() int                      { return combinedDim(k.A, k.B) }
func (k *Sum) String() string                { return k.A.String() + " + " + k.B.String() }
func (k *Sum) WithHyper(h []float64) (Kernel, error) {
	a, b, err := split(k.A, k.B, h)
	if err != nil {
		return nil, err
	}
	return &Sum{A: a, B: b}, nil
}
func (k *Sum) Eval(x, y []float64) float64 { return k.A.Eval(x, y) + k.B.Eval(x, y) }
func (k *Sum) GradHyper(dst, x, y []float64) float64 {
	na := k.A.NumHyper()
	return k.A.GradHyper(dst[:na], x, y) + k.B.GradHyper(dst[na:], x, y)
}
func (k *Sum) GradX(dst, x, y []float64) float64 {
	tmp := make([]float64, len(dst))
	va := k.A.GradX(dst, x, y)
	vb := k.B.GradX(tmp, x, y)
	for i := range dst {
		dst[i] += tmp[i]
	}
	return va + vb
}

func (k *Product) NumHyper() int                 { return k.A.NumHyper() + k.B.NumHyper() }
func (k *Product) Hyper(dst []float64) []float64 { return k.B.Hyper(k.A.Hyper(dst)) }
func (k *Product) HyperNames() []string          { return prefixed(k.A, k.B) }
func (k *Product) Dim() int                      { return combinedDim(k.A, k.B) }
func (k *Product) String() string                { return paren(k.A) + " * " + paren(k.B) }
func (k *Product) WithHyper(h []float64) (Kernel, error) {
	a, b, err := split(k.A, k.B, h)
	if err != nil {
		return nil, err
	}
	return &Product{A: a, B: b}, nil
}
func (k *Product) Eval(x, y []float64) float64 { return k.A.Eval(x, y) * k.B.Eval(x, y) }
func (k *Product) GradHyper(dst, x, y []float64) float64 {
	na := k.A.NumHyper()
	va := k.A.GradHyper(dst[:na], x, y)
	vb := k.B.GradHyper(dst[na:], x, y)
	for i := range dst[:na] {
		dst[i] *= vb
	}
	for i := range dst[na:] {
		dst[na+i] *= va
	}
	return va * vb
}
func (k *Product) GradX(dst, x, y []float64) float64 {
	tmp := make([]float64, len(dst))
	va := k.A.GradX(dst, x, y)
	vb := k.B.GradX(tmp, x, y)
	for i := range dst {
		dst[i] = dst[i]*vb + va*tmp[i]
	}
	return va * vb
}

func (k *Scaled) NumHyper() int                 { return 1 + k.K.NumHyper() }
func (k *Scaled) Hyper(dst []float64) []float64 { return k.K.Hyper(append(dst, k.C)) }
func (k *Scaled) HyperNames() []string          { return append([]string{"scale"}, k.K.HyperNames()...) }
func (k *Scaled) Dim() int                      { return k.K.Dim() }
func (k *Scaled) String() string                { return fmtFloat(k.C) + " * " + paren(k.K) }
func (k *Scaled) WithHyper(h []float64) (Kernel, error) {
	inner, err := k.K.WithHyper(h[1:])
	if err != nil {
		return nil, err
	}
	return NewScaled(h[0], inner)
}
func (k *Scaled) Eval(x, y []float64) float64 { return k.C * k.K.Eval(x, y) }
func (k *Scaled) GradHyper(dst, x, y []float64) float64 {
	v := k.K.GradHyper(dst[1:], x, y)
	for i := range dst[1:] {
		dst[1+i] *= k.C
	}
	dst[0] = v
	return k.C * v
}
func (k *Scaled) GradX(dst, x, y []float64) float64 {
	v := k.K.GradX(dst, x, y)
	for i := range dst {
		dst[i] *= k.C
	}
	return k.C * v
}

func paren(k Kernel) string {
	if _, ok := k.(*Sum); ok {
		return "(" + k.String() + ")"
	}
	return k.String()
}

// prefixed names the hyperparameters of two parts, prefixing each with its
// part's position when the names would otherwise collide.
func prefixed(a, b Kernel) []string {
	na, nb := a.HyperNames(), b.HyperNames()
	seen := map[string]bool{}
	clash := false
	for _, n := range na {
		seen[n] = true
	}
	for _, n := range nb {
		if seen[n] {
			clash = true
		}
	}
	if !clash {
		return append(append([]string{}, na...), nb...)
	}
	var out []string
	for _, n := range na {
		out = append(out, "1."+n)
	}
	for _, n := range nb {
		out = append(out, "2."+n)
	}
	return out
}

func split(a, b Kernel, h []float64) (Kernel, Kernel, error) {
	na := a.NumHyper()
	if len(h) != na+b.NumHyper() {
		panic(fmt.Sprintf("kernels: %d hyperparameters for %s + %s", len(h), a, b))
	}
	ka, err := a.WithHyper(h[:na])
	if err != nil {
		return nil, nil, err
	}
	kb, err := b.WithHyper(h[na:])
	if err != nil {
		return nil, nil, err
	}
	return ka, kb, nil
}
