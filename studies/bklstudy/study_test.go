// Package bklstudy is the study behind the default settings of BKL in the
// kernel tests (docs/language.md, "Choosing BKL's settings"): how the
// chosen lengthscale ℓ̂ depends on the landmark count m, the noise τ², the
// sample size n and the dimension D, and how far it moves between landmark
// draws. It runs only when asked:
//
//	KML_BKL_STUDY=1 go test -run Study -v -timeout 60m ./studies/bklstudy
//
// (KML_BKL_STUDY=quick for the m/τ² table alone).
package bklstudy

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/bke"
	"github.com/kml-lang/kml/runtime/causal"
	"github.com/kml-lang/kml/runtime/ktest"
)

type dataset struct {
	name string
	x    *mat.Dense
}

// grid is the pooled sample of the BKE paper's Figure 2: per points around
// each centre of a 3×3 grid with spacing 10, unit Gaussians for P, for Q
// covariance eigenvalues ε and 1 rotated by 45°.
func grid(eps float64, per int, seed uint64) *mat.Dense {
	r := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(18*per, 2, nil)
	for c := 0; c < 9; c++ {
		cx, cy := 10*float64(c%3), 10*float64(c/3)
		for k := 0; k < per; k++ {
			x.Set(c*per+k, 0, cx+r.NormFloat64())
			x.Set(c*per+k, 1, cy+r.NormFloat64())
			u, v := math.Sqrt(eps)*r.NormFloat64(), r.NormFloat64()
			x.Set(9*per+c*per+k, 0, cx+(u-v)/math.Sqrt2)
			x.Set(9*per+c*per+k, 1, cy+(u+v)/math.Sqrt2)
		}
	}
	return x
}

func readCSV(t *testing.T, path string, cols []string) *mat.Dense {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for j, h := range recs[0] {
		idx[h] = j
	}
	x := mat.NewDense(len(recs)-1, len(cols), nil)
	for i, rec := range recs[1:] {
		for j, c := range cols {
			v, err := strconv.ParseFloat(rec[idx[c]], 64)
			if err != nil {
				t.Fatal(err)
			}
			x.Set(i, j, v)
		}
	}
	return x
}

func column(x *mat.Dense, j int) *mat.Dense {
	n, _ := x.Dims()
	return mat.NewDense(n, 1, mat.Col(nil, j, x))
}

// ozone is the prewhitened, standardised ozone series (examples/ozone_pc.kml).
func ozone(t *testing.T) (upo3, sbtp *mat.Dense) {
	names := []string{"upo3", "vdht", "wdsp", "hmdt", "sbtp", "ibht", "dgpg", "ibtp", "vsty"}
	w, err := causal.Prewhiten(readCSV(t, "../../examples/data/ozone.csv", names), -1, 10)
	if err != nil {
		t.Fatal(err)
	}
	s, err := causal.Standardise(w.Resid)
	if err != nil {
		t.Fatal(err)
	}
	return column(s, 0), column(s, 4)
}

// digits is n rows (seeded) of the 8×8 digits' 64 pixels.
func digits(t *testing.T, n int) *mat.Dense {
	cols := make([]string, 64)
	for j := range cols {
		cols[j] = fmt.Sprintf("p%02d", j)
	}
	all := readCSV(t, "../../examples/data/digits.csv", cols)
	rows := rand.New(rand.NewPCG(7, 7)).Perm(all.RawMatrix().Rows)[:n]
	// The Jacobian det(JᵀJ) is 0 along a constant column: keep the pixels
	// that vary in the subsample.
	var keep []int
	for j := 0; j < 64; j++ {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range rows {
			lo, hi = math.Min(lo, all.At(r, j)), math.Max(hi, all.At(r, j))
		}
		if hi > lo {
			keep = append(keep, j)
		}
	}
	x := mat.NewDense(n, len(keep), nil)
	for i, r := range rows {
		for k, j := range keep {
			x.Set(i, k, all.At(r, j))
		}
	}
	return x
}

// independence is examples/independence.kml's pair: x ~ N(0, 1), y =
// sin(12 x) + N(0, 0.3²), n = 200.
func independence() (x, y *mat.Dense) {
	r := rand.New(rand.NewPCG(1000, 1))
	x, y = mat.NewDense(200, 1, nil), mat.NewDense(200, 1, nil)
	for i := 0; i < 200; i++ {
		v := r.NormFloat64()
		x.Set(i, 0, v)
		y.Set(i, 0, math.Sin(12*v)+0.3*r.NormFloat64())
	}
	return x, y
}

func datasets(t *testing.T) []dataset {
	o, s := ozone(t)
	ix, iy := independence()
	return []dataset{
		{"grid ε=10 (n=1800, D=2)", grid(10, 100, 1)},
		{"grid ε=2 (n=1800, D=2)", grid(2, 100, 1)},
		{"ozone upo3 (n=320, D=1, sd)", o},
		{"ozone sbtp (n=320, D=1, sd)", s},
		{"digits (n=600, D=61)", digits(t, 600)},
		{"indep. x (n=200, D=1)", ix},
		{"indep. y (n=200, D=1)", iy},
	}
}

// row runs BKL with draws landmark draws of m rows at τ² and formats ℓ̂ of
// the mean profile, the range of the single draws' ℓ̂, the top two maxima
// and the time.
func row(x *mat.Dense, m, draws int, tau2 float64) string {
	start := time.Now()
	r, err := bke.BKLDraws(context.Background(), x, m, draws, 1, bke.BKLSettings{Tau2: tau2})
	if err != nil {
		return "error: " + err.Error()
	}
	d := append([]float64(nil), r.DrawEll...)
	sort.Float64s(d)
	gap := math.Inf(1)
	second := math.NaN()
	if len(r.Maxima) > 1 {
		second = r.Maxima[1].Ell
		gap = r.Maxima[0].LogDensity - r.Maxima[1].LogDensity
	}
	return fmt.Sprintf("%8.3g  [%6.3g, %6.3g] ×%5.1f  2nd %8.3g gap %8.3g  %5.1fs",
		r.Ell, d[0], d[len(d)-1], d[len(d)-1]/d[0], second, gap, time.Since(start).Seconds())
}

// TestStudySensitivity is the m/τ² table: each data set at m = 10 … 200
// with τ² = 1, and at m = 50 with τ² = 0.1 and 10; five landmark draws each.
func TestStudySensitivity(t *testing.T) {
	if os.Getenv("KML_BKL_STUDY") == "" {
		t.Skip("set KML_BKL_STUDY=1 to run the BKL settings study")
	}
	for _, ds := range datasets(t) {
		n, _ := ds.x.Dims()
		for _, c := range []struct {
			m    int
			tau2 float64
		}{{10, 1}, {20, 1}, {50, 1}, {100, 1}, {200, 1}, {50, 0.1}, {50, 10}} {
			if c.m > n/2 {
				continue
			}
			t.Logf("%-28s m=%4d τ²=%4g: %s", ds.name, c.m, c.tau2, row(ds.x, c.m, 5, c.tau2))
		}
	}
}

// TestStudyTauRule tries τ² proportional to m (τ² = m/c), which keeps the
// pseudo-observations' weight per data row, Σ_j (K_ij − μ̂_j)²/τ², of the
// same order as the Jacobian's per-row term whatever m is.
func TestStudyTauRule(t *testing.T) {
	if os.Getenv("KML_BKL_STUDY") == "" {
		t.Skip("set KML_BKL_STUDY=1 to run the BKL settings study")
	}
	for _, ds := range datasets(t) {
		n, d := ds.x.Dims()
		for _, c := range []float64{5, 10} {
			for _, m := range []int{10, 20, 50, 100, 200} {
				if m > n/2 || m <= d {
					continue
				}
				t.Logf("%-28s m=%4d τ²=m/%g: %s", ds.name, m, c, row(ds.x, m, 5, float64(m)/c))
			}
		}
	}
}

var _ = ktest.ChoiceBKL
