package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/kml-lang/kml/runtime/rng"
)

// LogProbGradSum agrees with the point-by-point LogProbGrad it replaces and
// with finite differences, for mixtures of normal and other components, a
// zero weight, far tails and no points at all.
func TestMixtureLogProbGradSum(t *testing.T) {
	r := rng.New(15, rng.Stream(0x73756d)) // "sum"
	nrm, _ := Lookup("normal")
	lap, _ := Lookup("laplace")
	stu, _ := Lookup("student_t")
	cases := []struct {
		comps []Family
		p     []float64
	}{
		{[]Family{nrm, nrm}, []float64{0.3, 0.7, -1, 0.8, 2, 1.5}},
		{[]Family{nrm, lap, stu}, []float64{0.2, 0.5, 0.3, 0, 1, 1, 2, 4, -1, 0.7}},
		{[]Family{nrm, nrm}, []float64{0, 1, -1, 0.8, 2, 1.5}},
		{[]Family{nrm}, []float64{1, 0.5, 2}},
	}
	for ci, c := range cases {
		m := NewMixture(c.comps).(*mixture)
		for _, n := range []int{0, 1, 7} {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = 3 * r.NormFloat64()
			}
			if n == 7 {
				xs[6] = 40 // every component's density underflows
			}
			dp, dx := make([]float64, len(c.p)), make([]float64, n)
			got := m.LogProbGradSum(dp, dx, xs, c.p)
			want, wdp, wdx := 0.0, make([]float64, len(c.p)), make([]float64, n)
			one := make([]float64, len(c.p))
			for i, x := range xs {
				lp, d := m.LogProbGrad(one, x, c.p)
				want += lp
				wdx[i] = d
				for j := range one {
					wdp[j] += one[j]
				}
			}
			close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-10*math.Max(1, math.Abs(b)) }
			if !close(got, want) {
				t.Errorf("case %d n=%d: sum %v, point by point %v", ci, n, got, want)
			}
			for j := range dp {
				if !close(dp[j], wdp[j]) {
					t.Errorf("case %d n=%d: ∂/∂p %v, point by point %v", ci, n, dp, wdp)
					break
				}
			}
			for i := range dx {
				if !close(dx[i], wdx[i]) {
					t.Errorf("case %d n=%d: ∂/∂x %v, point by point %v", ci, n, dx, wdx)
					break
				}
			}
			if n == 0 {
				continue
			}
			// Finite differences over the positive weights and the
			// components' parameters, with the weights left unnormalised
			// (the density is linear in each).
			fdp := fd.Gradient(nil, func(p []float64) float64 {
				return m.LogProbGradSum(make([]float64, len(p)), nil, xs, p)
			}, c.p, &fd.Settings{Formula: fd.Central, Step: 1e-6})
			for j := range dp {
				if j < len(c.comps) && c.p[j] == 0 {
					continue // one-sided at a zero weight
				}
				if math.Abs(dp[j]-fdp[j]) > 1e-5*math.Max(1, math.Abs(fdp[j])) {
					t.Errorf("case %d n=%d: ∂/∂p %v, finite differences %v", ci, n, dp, fdp)
					break
				}
			}
			fdx := fd.Gradient(nil, func(xs []float64) float64 {
				return m.LogProbGradSum(make([]float64, len(c.p)), nil, xs, c.p)
			}, xs, &fd.Settings{Formula: fd.Central, Step: 1e-6})
			for i := range dx {
				if math.Abs(dx[i]-fdx[i]) > 1e-5*math.Max(1, math.Abs(fdx[i])) {
					t.Errorf("case %d n=%d: ∂/∂x %v, finite differences %v", ci, n, dx, fdx)
					break
				}
			}
		}
	}
}
