package kst

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
)

// The one-dimensional density of the paper's Figure 1 (features (x, x²)),
// normalised by quadrature, integrates to one under a second rule and
// matches a brute-force Monte Carlo computation of the model itself: draws
// of (μ, Σ) from the normal–inverse-Wishart prior, importance-weighted by
// the likelihood of the data, average N(φ(x); μ, Σ), restricted to the
// parabola and times √(1 + 4x²). The brute force knows nothing of Λ_N or
// of kernels, so it checks the posterior update and the Jacobian together.
func TestNormalised1DMatchesBruteForce(t *testing.T) {
	r := testStream(6, t.Name())
	xs := []float64{-1.1, -0.6, 1.4}
	h := Hyper{Sigma0: 1, Alpha: 3, Beta: 1} // α whole: Wishart by sums of outer products
	m, err := Fit(parabola{}, column(xs), h)
	if err != nil {
		t.Fatal(err)
	}
	const lo, hi, ng = -5.0, 5.0, 2001
	grid := make([]float64, ng)
	for i := range grid {
		grid[i] = lo + (hi-lo)*float64(i)/(ng-1)
	}
	lq := logpdf(t, m, column(grid))
	dens := make([]float64, ng)
	for i := range lq {
		dens[i] = math.Exp(lq[i] - lq[ng/2])
	}
	z := trapezoid(dens, (hi-lo)/(ng-1))
	for i := range dens {
		dens[i] /= z
	}
	// A second rule on the same function: Gauss–Legendre.
	f := func(x float64) float64 {
		v := logpdf(t, m, column([]float64{x}))[0]
		return math.Exp(v-lq[ng/2]) / z
	}
	if got := quad.Fixed(f, lo, hi, 400, quad.Legendre{}, 1); math.Abs(got-1) > 1e-6 {
		t.Errorf("normalised density integrates to %.9f under Gauss–Legendre", got)
	}

	// Brute force over a coarser grid.
	const draws = 200000
	coarse := make([]float64, 0, 101)
	for i := 0; i < ng; i += 20 {
		coarse = append(coarse, grid[i])
	}
	bf := make([]float64, len(coarse))
	for s := 0; s < draws; s++ {
		// Σ⁻¹ ~ Wishart((σ0² I)⁻¹, α), μ | Σ ~ N(0, Σ/β).
		var w [3]float64 // symmetric 2×2: w00, w01, w11
		for k := 0; k < int(h.Alpha); k++ {
			a, b := r.NormFloat64()/h.Sigma0, r.NormFloat64()/h.Sigma0
			w[0] += a * a
			w[1] += a * b
			w[2] += b * b
		}
		det := w[0]*w[2] - w[1]*w[1]
		cov := [3]float64{w[2] / det, -w[1] / det, w[0] / det}
		// μ = chol(Σ/β) ε.
		l00 := math.Sqrt(cov[0] / h.Beta)
		l10 := cov[1] / h.Beta / l00
		l11 := math.Sqrt(cov[2]/h.Beta - l10*l10)
		e0, e1 := r.NormFloat64(), r.NormFloat64()
		mu := [2]float64{l00 * e0, l10*e0 + l11*e1}
		logN := func(f []float64) float64 {
			d0, d1 := f[0]-mu[0], f[1]-mu[1]
			q := w[0]*d0*d0 + 2*w[1]*d0*d1 + w[2]*d1*d1
			return 0.5*math.Log(det) - math.Log(2*math.Pi) - q/2
		}
		lw := 0.0
		for _, x := range xs {
			lw += logN(phi(x))
		}
		wt := math.Exp(lw)
		for i, x := range coarse {
			bf[i] += wt * math.Exp(logN(phi(x))) * math.Sqrt(1+4*x*x)
		}
	}
	// Normalise the brute force on the coarse grid with the fine grid's
	// normaliser ratio: compare shapes where the density is not tiny.
	zb := trapezoid(bf, (hi-lo)/float64(len(coarse)-1))
	peak := 0.0
	for i := range bf {
		bf[i] /= zb
		peak = max(peak, bf[i])
	}
	paper := niwStudentT(t, [][]float64{phi(xs[0]), phi(xs[1]), phi(xs[2])}, h, true)
	paperDens := make([]float64, len(coarse))
	for i, x := range coarse {
		paperDens[i] = math.Exp(paper(phi(x))) * math.Sqrt(1+4*x*x)
	}
	zp := trapezoid(paperDens, (hi-lo)/float64(len(coarse)-1))
	worst, worstPaper := 0.0, 0.0
	for i := range coarse {
		if bf[i] < 0.05*peak {
			continue
		}
		ours := dens[20*i]
		worst = max(worst, math.Abs(ours-bf[i])/bf[i])
		worstPaper = max(worstPaper, math.Abs(paperDens[i]/zp-bf[i])/bf[i])
	}
	if worst > 0.05 {
		t.Errorf("kernel Student-t differs from the Monte Carlo brute force by %.1f%% (relative)", 100*worst)
	}
	if worstPaper < 2*worst {
		t.Errorf("the paper's Λ_N is as close to the brute force (%.1f%%) as the corrected one (%.1f%%)", 100*worstPaper, 100*worst)
	}
	t.Logf("max relative difference from brute force: corrected %.2f%%, paper's eq. (3) %.2f%%", 100*worst, 100*worstPaper)
}

func trapezoid(y []float64, dx float64) float64 {
	s := (y[0] + y[len(y)-1]) / 2
	for _, v := range y[1 : len(y)-1] {
		s += v
	}
	return s * dx
}
