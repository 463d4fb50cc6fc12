package kernels

import (
	"fmt"
	"math"
	"strconv"
)

// Linear is xᵀy + c with c ≥ 0.
type Linear struct{ C float64 }

// Poly is (xᵀy + c)^Degree with c ≥ 0 and a fixed whole Degree ≥ 1 (not a
// hyperparameter).
type Poly struct {
	Degree int
	C      float64
}

var (
	_ Kernel = (*Linear)(nil)
	_ Kernel = (*Poly)(nil)
)

func checkC(name string, c float64) error {
	if !(c >= 0) || math.IsInf(c, 0) {
		return fmt.Errorf("%s: c must be non-negative and finite, got %v", name, c)
	}
	return nil
}

// NewLinear checks c.
func NewLinear(c float64) (*Linear, error) {
	if err := checkC("linear", c); err != nil {
		return nil, err
	}
	return &Linear{C: c}, nil
}

// NewPoly checks the degree and c.
func NewPoly(degree int, c float64) (*Poly, error) {
	if degree < 1 {
		return nil, fmt.Errorf("poly: degree must be a whole number ≥ 1, got %d", degree)
	}
	if err := checkC("poly", c); err != nil {
		return nil, err
	}
	return &Poly{Degree: degree, C: c}, nil
}

func (k *Linear) NumHyper() int                 { return 1 }
func (k *Linear) Hyper(dst []float64) []float64 { return append(dst, k.C) }
func (k *Linear) HyperNames() []string          { return []string{"c"} }
func (k *Linear) Dim() int                      { return 0 }
func (k *Linear) String() string                { return "linear(" + fmtFloat(k.C) + ")" }
func (k *Linear) WithHyper(h []float64) (Kernel, error) {
	if len(h) != 1 {
		panic("kernels: linear takes 1 hyperparameter")
	}
	return NewLinear(h[0])
}
func (k *Linear) Eval(x, y []float64) float64 { return dot(x, y) + k.C }
func (k *Linear) GradHyper(dst, x, y []float64) float64 {
	dst[0] = 1
	return k.Eval(x, y)
}
func (k *Linear) GradX(dst, x, y []float64) float64 {
	copy(dst, y)
	return k.Eval(x, y)
}

func (k *Poly) NumHyper() int                 { return 1 }
func (k *Poly) Hyper(dst []float64) []float64 { return append(dst, k.C) }
func (k *Poly) HyperNames() []string          { return []string{"c"} }
func (k *Poly) Dim() int                      { return 0 }
func (k *Poly) String() string {
	return "poly(" + strconv.Itoa(k.Degree) + ", " + fmtFloat(k.C) + ")"
}
func (k *Poly) WithHyper(h []float64) (Kernel, error) {
	if len(h) != 1 {
		panic("kernels: poly takes 1 hyperparameter")
	}
	return NewPoly(k.Degree, h[0])
}
func (k *Poly) Eval(x, y []float64) float64 { return pow(dot(x, y)+k.C, k.Degree) }
func (k *Poly) GradHyper(dst, x, y []float64) float64 {
	b := dot(x, y) + k.C
	dst[0] = float64(k.Degree) * pow(b, k.Degree-1)
	return pow(b, k.Degree)
}
func (k *Poly) GradX(dst, x, y []float64) float64 {
	b := dot(x, y) + k.C
	c := float64(k.Degree) * pow(b, k.Degree-1)
	for i := range dst {
		dst[i] = c * y[i]
	}
	return pow(b, k.Degree)
}

func dot(x, y []float64) float64 {
	s := 0.0
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

func pow(b float64, n int) float64 {
	r := 1.0
	for ; n > 0; n-- {
		r *= b
	}
	return r
}

// White is white noise: 1 when x = y and 0 otherwise. In a symmetric Gram
// matrix it is the identity: noise belongs to each observation, so two
// observations at the same place still get independent noise.
type White struct{}

// Constant is the kernel 1.
type Constant struct{}

var (
	_ Kernel = White{}
	_ Kernel = Constant{}
)

func (White) NumHyper() int                 { return 0 }
func (White) Hyper(dst []float64) []float64 { return dst }
func (White) HyperNames() []string          { return nil }
func (White) Dim() int                      { return 0 }
func (White) String() string                { return "white()" }
func (w White) WithHyper([]float64) (Kernel, error) {
	return w, nil
}
func (White) Eval(x, y []float64) float64 {
	for i, v := range x {
		if v != y[i] {
			return 0
		}
	}
	return 1
}
func (w White) GradHyper(_, x, y []float64) float64 { return w.Eval(x, y) }
func (w White) GradX(dst, x, y []float64) float64 {
	clear(dst)
	return w.Eval(x, y)
}

func (Constant) NumHyper() int                 { return 0 }
func (Constant) Hyper(dst []float64) []float64 { return dst }
func (Constant) HyperNames() []string          { return nil }
func (Constant) Dim() int                      { return 0 }
func (Constant) String() string                { return "constant()" }
func (c Constant) WithHyper([]float64) (Kernel, error) {
	return c, nil
}
func (Constant) Eval(_, _ []float64) float64         { return 1 }
func (Constant) GradHyper(_, _, _ []float64) float64 { return 1 }
func (Constant) GradX(dst, _, _ []float64) float64 {
	clear(dst)
	return 1
}
