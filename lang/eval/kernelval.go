package eval

import (
	"fmt"

	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/kernels"
)

// KernelVal is a kernel as a value. Hyper holds, for each of the kernel's
// hyperparameters (in kernels' order), the value it was built from: a Num,
// or an *ADNum when it depends on model parameters, so a model can map a
// gradient with respect to the hyperparameters back onto the tape.
type KernelVal struct {
	K     kernels.Kernel
	Hyper []Value
}

var (
	_ HasBinary = (*KernelVal)(nil)
	_ ADHolder  = (*KernelVal)(nil)
)

func (k *KernelVal) Type() string   { return "kernel" }
func (k *KernelVal) String() string { return k.K.String() }

// HasAD reports whether a hyperparameter depends on model parameters.
func (k *KernelVal) HasAD() bool {
	for _, h := range k.Hyper {
		if IsAD(h) {
			return true
		}
	}
	return false
}

// Record returns value as a Num, or, when hyperparameters depend on model
// parameters, as a tape node whose partials are dHyper (the derivative of
// value with respect to each hyperparameter).
func (k *KernelVal) Record(value float64, dHyper []float64) Value {
	var t *ad.Tape
	var parents []ad.Var
	var partials []float64
	for i, h := range k.Hyper {
		if a, ok := h.(*ADNum); ok {
			t = a.T
			parents = append(parents, a.V)
			partials = append(partials, dHyper[i])
		}
	}
	if t == nil {
		return Num(value)
	}
	return &ADNum{T: t, V: t.Node(value, parents, partials)}
}

// Binary builds sum and product kernels and scales a kernel by a number.
func (k *KernelVal) Binary(op string, y Value, right bool) (Value, bool, error) {
	switch y := y.(type) {
	case *KernelVal:
		a, b := k, y
		if right {
			a, b = y, k
		}
		hyper := append(append([]Value{}, a.Hyper...), b.Hyper...)
		switch op {
		case "+":
			s, err := kernels.NewSum(a.K, b.K)
			if err != nil {
				return nil, true, err
			}
			return &KernelVal{K: s, Hyper: hyper}, true, nil
		case "*":
			p, err := kernels.NewProduct(a.K, b.K)
			if err != nil {
				return nil, true, err
			}
			return &KernelVal{K: p, Hyper: hyper}, true, nil
		}
		return nil, true, fmt.Errorf("kernels combine with + and *, not %s", op)
	case Num, *ADNum:
		c, _ := ToFloat(y)
		if op == "*" {
			s, err := kernels.NewScaled(c, k.K)
			if err != nil {
				return nil, true, err
			}
			return &KernelVal{K: s, Hyper: append([]Value{y}, k.Hyper...)}, true, nil
		}
		return nil, true, fmt.Errorf("a number and a kernel combine with *: %s a kernel is not defined (write c * constant() for a constant kernel)", op)
	}
	return nil, false, nil
}
