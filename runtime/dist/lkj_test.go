package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestLKJTwoByTwo: for K = 2 the correlation r = L₂₁ (L₂₂ = √(1 − r²)) has
// the density of 2·Beta(η, η) − 1, computed here with gonum's distuv.Beta.
func TestLKJTwoByTwo(t *testing.T) {
	for _, eta := range []float64{0.5, 1, 2, 7.3} {
		b := distuv.Beta{Alpha: eta, Beta: eta}
		for _, r := range []float64{-0.9, -0.3, 0, 0.4, 0.95} {
			want := b.LogProb((r+1)/2) - math.Ln2
			got, _ := LKJCholeskyLogPDF([]float64{1, math.Sqrt(1 - r*r)}, eta, nil)
			if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("eta %v, r %v: log density %v, scaled Beta %v", eta, r, got, want)
			}
		}
	}
}

// TestLKJNormalisingConstant: with η = 1 the density is uniform on the
// correlation matrices, so c_K(1) is their volume: π²/2 for K = 3 (the
// elliptope); the LKJ paper's own formula gives the constant for other η.
func TestLKJNormalisingConstant(t *testing.T) {
	c, _ := lkjLogNorm(3, 1)
	if want := math.Log(math.Pi * math.Pi / 2); math.Abs(c-want) > 1e-12 {
		t.Errorf("log c_3(1) = %v, want log(π²/2) = %v", c, want)
	}
	// Lewandowski, Kurowicka & Joe (2009), eq. 16:
	// c_K = 2^{Σₖ (2η − 2 + K − k)(K − k)} × Πₖ B(η + (K − k − 1)/2, η + (K − k − 1)/2)^{K − k}.
	for _, k := range []int{2, 3, 4, 6} {
		for _, eta := range []float64{0.7, 1, 2.5} {
			want := 0.0
			for j := 1; j < k; j++ {
				b := eta + float64(k-j-1)/2
				lb, _ := math.Lgamma(b)
				l2b, _ := math.Lgamma(2 * b)
				want += (2*eta-2+float64(k-j))*float64(k-j)*math.Ln2 + float64(k-j)*(2*lb-l2b)
			}
			got, dc := lkjLogNorm(k, eta)
			if math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
				t.Errorf("K %d, eta %v: log c = %v, LKJ's formula %v", k, eta, got, want)
			}
			fdc := fd.Derivative(func(e float64) float64 { c, _ := lkjLogNorm(k, e); return c }, eta, &fd.Settings{Formula: fd.Central, Step: 1e-6})
			if math.Abs(dc-fdc) > 1e-6*math.Max(1, math.Abs(fdc)) {
				t.Errorf("K %d, eta %v: d log c/d eta = %v, finite differences %v", k, eta, dc, fdc)
			}
		}
	}
}

// TestLKJGradient checks ∂/∂Lₖₖ and ∂/∂η by finite differences.
func TestLKJGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(62, 1))
	const k = 4
	for trial := 0; trial < 5; trial++ {
		eta := 0.5 + 3*r.Float64()
		l := LKJCholeskyRand(r, k, eta)
		diag := []float64{l[0], l[k+1], l[2*k+2], l[3*k+3]}
		dd := make([]float64, k)
		_, deta := LKJCholeskyLogPDF(diag, eta, dd)
		fdd := fd.Gradient(nil, func(d []float64) float64 { lp, _ := LKJCholeskyLogPDF(d, eta, nil); return lp }, diag, &fd.Settings{Formula: fd.Central, Step: 1e-7})
		for i := range dd {
			if math.Abs(dd[i]-fdd[i]) > 1e-5*math.Max(1, math.Abs(fdd[i])) {
				t.Errorf("d/dL%d%d = %v, finite differences %v", i+1, i+1, dd[i], fdd[i])
			}
		}
		fde := fd.Derivative(func(e float64) float64 { lp, _ := LKJCholeskyLogPDF(diag, e, nil); return lp }, eta, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		if math.Abs(deta-fde) > 1e-6*math.Max(1, math.Abs(fde)) {
			t.Errorf("d/deta = %v, finite differences %v", deta, fde)
		}
	}
}

// TestLKJDraws: every draw is lower triangular with unit-norm rows, and the
// correlations' sd matches the marginal of an LKJ(η) correlation, which is
// 2·Beta(η − 1 + K/2, η − 1 + K/2) − 1 with variance 1/(2η − 1 + K).
func TestLKJDraws(t *testing.T) {
	r := rand.New(rand.NewPCG(62, 2))
	const k, eta, n = 4, 1.5, 20000
	var r21, r43 []float64
	for d := 0; d < n; d++ {
		l := LKJCholeskyRand(r, k, eta)
		for i := 0; i < k; i++ {
			s := 0.0
			for j := 0; j < k; j++ {
				if j > i && l[i*k+j] != 0 {
					t.Fatalf("draw %d has L[%d,%d] = %v above the diagonal", d, i+1, j+1, l[i*k+j])
				}
				s += l[i*k+j] * l[i*k+j]
			}
			if math.Abs(s-1) > 1e-12 || !(l[i*k+i] > 0) {
				t.Fatalf("draw %d: row %d has squared norm %v, diagonal %v", d, i+1, s, l[i*k+i])
			}
		}
		r21 = append(r21, l[k])
		// Ω₄₃ = row 4 · row 3.
		o := 0.0
		for j := 0; j < k; j++ {
			o += l[3*k+j] * l[2*k+j]
		}
		r43 = append(r43, o)
	}
	want := math.Sqrt(1 / (2*eta - 1 + k))
	for i, xs := range [][]float64{r21, r43} {
		m, s := stat.MeanStdDev(xs, nil)
		if math.Abs(m) > 5*want/math.Sqrt(n) || math.Abs(s-want) > 0.03*want {
			t.Errorf("%s: mean %v, sd %v; want 0, %v", []string{"Omega21", "Omega43"}[i], m, s, want)
		}
	}
}
