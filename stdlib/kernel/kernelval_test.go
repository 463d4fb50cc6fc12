package kernel

import (
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/kernels"
)

// NewKernelVal refuses a hyperparameter list that does not match the
// kernel's, and Fixed lists the kernel's own numbers in its order.
func TestNewKernelValChecksHyperparameters(t *testing.T) {
	k, err := kernels.NewRQ([]float64{0.5, 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("NewKernelVal accepted 2 values for a kernel with 3 hyperparameters")
			}
		}()
		NewKernelVal(k, []eval.Value{eval.Num(1), eval.Num(2)})
	}()
	f := Fixed(k)
	if len(f.Hyper) != 3 || f.Hyper[0] != eval.Num(0.5) || f.Hyper[1] != eval.Num(2) || f.Hyper[2] != eval.Num(3) {
		t.Errorf("Fixed(%s).Hyper = %v, want [0.5 2 3]", k, f.Hyper)
	}
}
