package kernels

import "testing"

func TestSplitScaledAndAsRBF(t *testing.T) {
	rbf, _ := NewRBF([]float64{0.5, 2})
	lap, _ := NewLaplacian([]float64{1})
	scaledRBF, _ := NewScaled(3, rbf)
	scaledLap, _ := NewScaled(2, lap)
	twice, _ := NewScaled(5, scaledRBF)
	sum, _ := NewSum(rbf, White{})
	for _, c := range []struct {
		k     Kernel
		c     float64
		inner Kernel
		rbfC  float64
		rbf   *Stationary
		ok    bool
	}{
		{rbf, 1, rbf, 1, rbf, true},
		{scaledRBF, 3, rbf, 3, rbf, true},
		{lap, 1, lap, 0, nil, false},
		{scaledLap, 2, lap, 0, nil, false},
		{twice, 5, scaledRBF, 0, nil, false}, // one level only
		{sum, 1, sum, 0, nil, false},
		{White{}, 1, White{}, 0, nil, false},
	} {
		gc, inner := SplitScaled(c.k)
		if gc != c.c || inner != c.inner {
			t.Errorf("SplitScaled(%s) = %v, %s; want %v, %s", c.k, gc, inner, c.c, c.inner)
		}
		rc, st, ok := AsRBF(c.k)
		if rc != c.rbfC || st != c.rbf || ok != c.ok {
			t.Errorf("AsRBF(%s) = %v, %v, %v; want %v, %v, %v", c.k, rc, st, ok, c.rbfC, c.rbf, c.ok)
		}
	}
}
