package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// denseHeldOut is the marginal of f at the rows test under the GP prior on
// every row times Gaussian sites (tau, nu) on the rows train, by a dense
// inverse of the joint precision K⁻¹ + diag(τ on train).
func denseHeldOut(t *testing.T, K *mat.SymDense, tau, nu []float64, train, test []int) (mean, vr []float64) {
	n := K.SymmetricDim()
	var p mat.Dense
	if err := p.Inverse(K); err != nil {
		t.Fatal(err)
	}
	b := mat.NewVecDense(n, nil)
	for j, i := range train {
		p.Set(i, i, p.At(i, i)+tau[j])
		b.SetVec(i, nu[j])
	}
	var cov mat.Dense
	if err := cov.Inverse(&p); err != nil {
		t.Fatal(err)
	}
	var mu mat.VecDense
	mu.MulVec(&cov, b)
	for _, i := range test {
		mean = append(mean, mu.AtVec(i))
		vr = append(vr, cov.At(i, i))
	}
	return mean, vr
}

// TestHeldOut: the held-out predictive of a fold (rows 3, 7, 11, 15, 19 of
// 20 held out) against a dense computation of the same posterior: for
// normal observations, the Gaussian sites yᵢ with precision 1/σ² (so the
// predictive of y adds σ²), for each approximation its own sites fitted
// to the training rows (sitesOf), with the 1-D integral by Gauss–Legendre
// (refPredictive). To 1e-6, the Simpson rule's accuracy (see
// TestLatentLOOQuadrature); normal observations to 1e-9. With every row
// training, the in-sample predictive is checked the same way.
func TestHeldOut(t *testing.T) {
	var train, test []int
	for i := range 20 {
		if i%4 == 2 {
			test = append(test, i)
		} else {
			train = append(train, i)
		}
	}
	all := append(append([]int(nil), train...), test...)
	k, x, y := smallProblem(t, 20, Lik{Kind: StudentT})
	K, _ := kernels.Gram(k, x)
	const noise = 0.09
	for _, split := range [][2][]int{{train, test}, {all, test}} {
		got, err := HeldOutNormal(k, x, y, noise, split[0], split[1])
		if err != nil {
			t.Fatal(err)
		}
		tau, nu := make([]float64, len(split[0])), make([]float64, len(split[0]))
		for j, i := range split[0] {
			tau[j], nu[j] = 1/noise, y[i]/noise
		}
		m, v := denseHeldOut(t, K, tau, nu, split[0], split[1])
		for j, i := range split[1] {
			s2 := v[j] + noise
			want := -0.5*math.Log(2*math.Pi*s2) - 0.5*(y[i]-m[j])*(y[i]-m[j])/s2
			if math.Abs(got[j]-want) > 1e-9 {
				t.Errorf("normal, %d training rows, row %d: %.12f, dense %.12f", len(split[0]), i+1, got[j], want)
			}
		}
	}
	for _, lc := range laplaceLiks[:2] {
		k, x, y := smallProblem(t, 20, lc.lik)
		K, _ := kernels.Gram(k, x)
		for _, ac := range looApprox {
			for _, split := range [][2][]int{{train, test}, {all, test}} {
				got, err := HeldOutLatent(ac.inf, k, x, y, lc.lik, split[0], split[1])
				if err != nil {
					t.Fatalf("%s, %s: %v", ac.name, lc.name, err)
				}
				Kt, _ := kernels.Gram(k, rowsMat(x, split[0]))
				yt := make([]float64, len(split[0]))
				for j, i := range split[0] {
					yt[j] = y[i]
				}
				tau, nu := sitesOf(t, ac.inf, Kt, yt, lc.lik)
				m, v := denseHeldOut(t, K, tau, nu, split[0], split[1])
				for j, i := range split[1] {
					want := refPredictive(lc.lik, y[i], m[j], v[j])
					if math.Abs(got[j]-want) > 1e-6 {
						t.Errorf("%s, %s, %d training rows, row %d: %.10f, dense %.10f", ac.name, lc.name, len(split[0]), i+1, got[j], want)
					}
				}
			}
		}
	}
	// No training rows: the prior predictive.
	got, err := HeldOutNormal(k, x, y, noise, nil, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	kk := K.At(0, 0) + noise
	if want := -0.5*math.Log(2*math.Pi*kk) - 0.5*y[0]*y[0]/kk; math.Abs(got[0]-want) > 1e-12 {
		t.Errorf("no training rows: %.12f, prior %.12f", got[0], want)
	}
}

// rowsMat is the rows idx of x.
func rowsMat(x *mat.Dense, idx []int) *mat.Dense {
	_, d := x.Dims()
	out := mat.NewDense(len(idx), d, nil)
	for j, i := range idx {
		out.SetRow(j, x.RawRowView(i))
	}
	return out
}
