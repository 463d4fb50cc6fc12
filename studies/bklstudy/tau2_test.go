package bklstudy

import (
	"math"
	"os"
	"testing"

	"github.com/kml-lang/kml/runtime/bke"
)

// TestStudyTau2Ridge is the evidence that τ² cannot be learned with ℓ
// (docs/language.md, "Why τ² is not learned"): on the pooled ε = 10 grid
// (1800 rows, D = 2; m = 50 landmarks held out, n = 1750 data rows) it
// maximises the log pseudolikelihood over τ² (a log grid of 301 values
// over 10⁻¹⁴…10³) at each ℓ, and fails unless that profile has no
// interior maximum on the ℓ grid and rises, between ℓ = 300 and 1000, at
// the asymptotic rate 2m(n − 1) − 2nD per unit of log ℓ within 5%.
//
//	KML_BKL_STUDY=1 go test -run Tau2Ridge -v ./studies/bklstudy
func TestStudyTau2Ridge(t *testing.T) {
	if os.Getenv("KML_BKL_STUDY") == "" {
		t.Skip("set KML_BKL_STUDY=1 to run the BKL settings study")
	}
	x := grid(10, 100, 7)
	rest, z := bke.Split(x, 50, 3)
	md, err := bke.New(rest, z, bke.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := rest.Dims()
	m, d := 50.0, 2.0
	ells := []float64{0.5, 1, 2, 5, 10, 30, 100, 300, 1000}
	best := make([]float64, len(ells))
	t.Logf("%8s %12s %14s %14s", "ell", "best tau2", "logp at it", "logp tau2=5")
	for i, ell := range ells {
		b, bt := math.Inf(-1), 0.0
		for k := 0; k <= 300; k++ {
			tau2 := math.Pow(10, -14+17*float64(k)/300)
			v, err := md.LogDensity(bke.Hyper{Ell: []float64{ell}, Tau2: tau2}, nil)
			if err == nil && v > b {
				b, bt = v, tau2
			}
		}
		fixed, err := md.LogDensity(bke.Hyper{Ell: []float64{ell}, Tau2: 5}, nil)
		if err != nil {
			t.Fatal(err)
		}
		best[i] = b
		t.Logf("%8g %12.3g %14.1f %14.1f", ell, bt, b, fixed)
	}
	for i := 2; i < len(ells)-1; i++ {
		if best[i] > best[i-1] && best[i] > best[i+1] {
			t.Errorf("the best-τ² profile has an interior maximum at ℓ = %g", ells[i])
		}
	}
	k := len(ells) - 1
	rate := (best[k] - best[k-1]) / math.Log(ells[k]/ells[k-1])
	want := 2*m*(float64(n)-1) - 2*float64(n)*d
	t.Logf("rise per unit of log ℓ from %g to %g: %.0f (asymptotic %.0f)", ells[k-1], ells[k], rate, want)
	if math.Abs(rate-want) > 0.05*want {
		t.Errorf("rise %.0f per unit of log ℓ, want %.0f ± 5%%", rate, want)
	}
}
