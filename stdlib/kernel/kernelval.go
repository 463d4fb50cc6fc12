package kernel

import (
	"fmt"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/kernels"
)

// KernelVal is a kernel as a value. Hyper holds, for each of the kernel's
// hyperparameters (in kernels' order), the value it was built from: a eval.Num,
// or an *eval.ADNum when it depends on model parameters, so a model can map a
// gradient with respect to the hyperparameters back onto the tape.
type KernelVal struct {
	K     kernels.Kernel
	Hyper []eval.Value
}

// NewKernelVal is the value of kernel k with hyper, one value per
// hyperparameter in k's order (k.Hyper). A length that differs from
// k.NumHyper() is a bug in the library, and panics: the gradient would
// otherwise be scattered onto the wrong parameters.
func NewKernelVal(k kernels.Kernel, hyper []eval.Value) *KernelVal {
	if len(hyper) != k.NumHyper() {
		panic(fmt.Sprintf("kernel: %s has %d hyperparameters, given %d values", k, k.NumHyper(), len(hyper)))
	}
	return &KernelVal{K: k, Hyper: hyper}
}

// Fixed is kernel k as a value whose hyperparameters are the numbers it
// holds (a kernel a fit or a filter chose).
func Fixed(k kernels.Kernel) *KernelVal {
	var hyper []eval.Value
	for _, h := range k.Hyper(nil) {
		hyper = append(hyper, eval.Num(h))
	}
	return NewKernelVal(k, hyper)
}

var (
	_ eval.HasBinary = (*KernelVal)(nil)
	_ eval.ADHolder  = (*KernelVal)(nil)
)

func (k *KernelVal) Type() string   { return "kernel" }
func (k *KernelVal) String() string { return k.K.String() }

// HasAD reports whether a hyperparameter depends on model parameters.
func (k *KernelVal) HasAD() bool {
	for _, h := range k.Hyper {
		if eval.IsAD(h) {
			return true
		}
	}
	return false
}

// Binary builds sum and product kernels and scales a kernel by a number.
func (k *KernelVal) Binary(op string, y eval.Value, right bool) (eval.Value, bool, error) {
	switch y := y.(type) {
	case *KernelVal:
		a, b := k, y
		if right {
			a, b = y, k
		}
		hyper := append(append([]eval.Value{}, a.Hyper...), b.Hyper...)
		switch op {
		case "+":
			s, err := kernels.NewSum(a.K, b.K)
			if err != nil {
				return nil, true, err
			}
			return NewKernelVal(s, hyper), true, nil
		case "*":
			p, err := kernels.NewProduct(a.K, b.K)
			if err != nil {
				return nil, true, err
			}
			return NewKernelVal(p, hyper), true, nil
		}
		return nil, true, fmt.Errorf("kernels combine with + and *, not %s", op)
	case eval.Num, *eval.ADNum:
		c, _ := eval.PeekFloat(y) // the scale is a hyperparameter (Hyper[0])
		if op == "*" {
			s, err := kernels.NewScaled(c, k.K)
			if err != nil {
				return nil, true, err
			}
			return NewKernelVal(s, append([]eval.Value{y}, k.Hyper...)), true, nil
		}
		return nil, true, fmt.Errorf("a number and a kernel combine with *: %s a kernel is not defined (write c * constant() for a constant kernel)", op)
	}
	return nil, false, nil
}
