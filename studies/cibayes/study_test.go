// Package cibayes is the type-I study of ci_test's regression step
// (docs/language.md, ci_test's regression: "bayes"): ML-II against the
// regression integrated over the GP's hyperparameters, the point estimate
// at the best mode those draws start from, KCI and RCIT, on conditionally
// independent data whose regression is hard. It runs only when asked:
//
//	KML_CI_STUDY=1 go test -run Study -v -timeout 60m ./studies/cibayes
//
// (KML_CI_REPS=N for N replications per design instead of 200,
// KML_CI_CELLS=text for the designs whose name contains text).
package cibayes

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/causal"
	"github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/ktest"
)

// studyCell is one design of the type-I study: z ~ N(0, 1),
// x = f(z) + 0.3e₁, y = f(z) + 0.3e₂ with the same nonlinear f (sin 3z + z,
// or sin 6z when fast: a regression that n = 100 cannot pin down), so that
// a misfit of the regression leaves in both residuals the same function of
// z (the mechanism He et al., arXiv 2512.14000, name); e Gaussian or Student t₃
// (heavy), and dep = (a, b) not zero: e₂ = a·e₁ + b·e₂' (x and y
// dependent given z, correlation a when a² + b² = 1).
type studyCell struct {
	name        string
	n           int
	fast, heavy bool
	dep         [2]float64
}

func (c studyCell) draw(r *rand.Rand) (x, y, z *mat.Dense) {
	noise := func() float64 {
		if !c.heavy {
			return r.NormFloat64()
		}
		var g float64
		for k := 0; k < 3; k++ {
			e := r.NormFloat64()
			g += e * e
		}
		return r.NormFloat64() / math.Sqrt(g/3)
	}
	x, y, z = mat.NewDense(c.n, 1, nil), mat.NewDense(c.n, 1, nil), mat.NewDense(c.n, 1, nil)
	for i := 0; i < c.n; i++ {
		zv := r.NormFloat64()
		f := math.Sin(3*zv) + zv
		if c.fast {
			f = math.Sin(6 * zv)
		}
		e1, e2 := noise(), noise()
		if c.dep != [2]float64{} {
			e2 = c.dep[0]*e1 + c.dep[1]*e2
		}
		x.Set(i, 0, f+0.3*e1)
		y.Set(i, 0, f+0.3*e2)
		z.Set(i, 0, zv)
	}
	return x, y, z
}

// TestCIRegressionStudy is the type-I study of ci_test's regression step:
// the rejection rate at α = 0.05 (± its binomial SE) of the GP-residual
// HSIC test (median-heuristic kernels, 500 permutations) with ML-II, with
// regression "bayes" (64 draws), and with the point residuals at the
// highest posterior mode that "bayes" found from its four starts (to tell
// the integration from the extra starts), of KCI and of RCIT, over
// KML_CI_REPS (default 200) seeded replications of each studyCell. It
// prints the table that docs/language.md's ci_test section quotes.
func TestCIRegressionStudy(t *testing.T) {
	if os.Getenv("KML_CI_STUDY") == "" {
		t.Skip("KML_CI_STUDY=1 runs the ci_test regression study: 200 replications × 9 designs, about 450 CPU-s")
	}
	reps := 200
	if v := fulltestReps(); v > 0 {
		reps = v
	}
	cells := []studyCell{
		{"sin 3z + z, Gaussian, n = 100", 100, false, false, [2]float64{}},
		{"sin 3z + z, Student t₃, n = 100", 100, false, true, [2]float64{}},
		{"sin 6z, Gaussian, n = 100", 100, true, false, [2]float64{}},
		{"sin 6z, Gaussian, n = 200", 200, true, false, [2]float64{}},
		{"sin 6z, Student t₃, n = 100", 100, true, true, [2]float64{}},
		{"power: sin 3z + z, e₂ = 0.6e₁ + 0.8e₂', n = 100", 100, false, false, [2]float64{0.6, 0.8}},
		{"power: sin 6z, e₂ = 0.6e₁ + 0.8e₂', n = 100", 100, true, false, [2]float64{0.6, 0.8}},
		{"power: sin 3z + z, correlation 0.25, n = 100", 100, false, false, [2]float64{0.25, math.Sqrt(1 - 0.25*0.25)}},
		{"power: sin 6z, correlation 0.25, n = 100", 100, true, false, [2]float64{0.25, math.Sqrt(1 - 0.25*0.25)}},
	}
	// KML_CI_CELLS=text runs only the designs whose name contains it.
	only := os.Getenv("KML_CI_CELLS")
	spec := causal.KernelSpec{Choice: ktest.ChoiceMedian}
	hs := ktest.Settings{Permutations: 500, Estimator: ktest.Biased, Approx: ktest.Exact, Workers: 1}
	// Each run returns p-values for one or more columns.
	tests := []struct {
		names []string
		run   func(x, y, z *mat.Dense, seed uint64) ([]float64, error)
	}{
		{[]string{"gp_hsic ML-II"}, func(x, y, z *mat.Dense, seed uint64) ([]float64, error) {
			r, err := causal.KernelTest{KX: spec, KY: spec, Method: ktest.Permutation, Settings: hs}.Test(context.Background(), x, y, z, seed)
			return []float64{r.HSIC.PValue}, err
		}},
		{[]string{"gp_hsic bayes", "gp_hsic at the best mode"}, func(x, y, z *mat.Dense, seed uint64) ([]float64, error) {
			r, err := causal.KernelTest{KX: spec, KY: spec, Method: ktest.Permutation, Settings: hs, Bayes: &causal.RegressionBayes{}}.Test(context.Background(), x, y, z, seed)
			if err != nil {
				return nil, err
			}
			// The same test on the point residuals at the highest mode
			// RegressBayes found: multi-start without the integration.
			rx, err := residualAt(z, x, r.RegX[0])
			if err != nil {
				return nil, err
			}
			ry, err := residualAt(z, y, r.RegY[0])
			if err != nil {
				return nil, err
			}
			m, err := causal.KernelTest{KX: spec, KY: spec, Method: ktest.Permutation, Settings: hs}.Test(context.Background(), rx, ry, nil, seed)
			return []float64{r.HSIC.PValue, m.HSIC.PValue}, err
		}},
		{[]string{"kci"}, func(x, y, z *mat.Dense, seed uint64) ([]float64, error) {
			r, err := ktest.KCITest(context.Background(), std(x), std(y), std(z), nil, nil, nil, 0, seed)
			return []float64{r.PValue}, err
		}},
		{[]string{"rcit"}, func(x, y, z *mat.Dense, seed uint64) ([]float64, error) {
			r, err := ktest.RCITTest(context.Background(), std(x), std(y), std(z), 100, 0, ktest.LPB4, seed)
			return []float64{r.PValue}, err
		}},
	}
	var cols []string
	for _, tt := range tests {
		cols = append(cols, tt.names...)
	}
	const alpha = 0.05
	var b strings.Builder
	fmt.Fprintf(&b, "\n| design (%d replications, α = %.2f) |", reps, alpha)
	for _, c := range cols {
		fmt.Fprintf(&b, " %s |", c)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(cols)) + "\n")
	for ci, c := range cells {
		if !strings.Contains(c.name, only) {
			continue
		}
		rej := make([][]bool, len(cols))
		for k := range rej {
			rej[k] = make([]bool, reps)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var first error
		next := make(chan int)
		for w := 0; w < 2; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for rep := range next {
					x, y, z := c.draw(rand.New(rand.NewPCG(uint64(ci)<<32|uint64(rep), 0x63697374)))
					col := 0
					for _, tt := range tests {
						ps, err := tt.run(x, y, z, uint64(rep))
						if err != nil {
							mu.Lock()
							first = fmt.Errorf("%s, %s, replication %d: %w", c.name, tt.names[0], rep, err)
							mu.Unlock()
							col += len(tt.names)
							continue
						}
						for _, p := range ps {
							rej[col][rep] = p <= alpha
							col++
						}
					}
				}
			}()
		}
		for rep := 0; rep < reps; rep++ {
			next <- rep
		}
		close(next)
		wg.Wait()
		if first != nil {
			t.Fatal(first)
		}
		var row strings.Builder
		fmt.Fprintf(&row, "| %s |", c.name)
		for k := range cols {
			cnt := 0
			for _, v := range rej[k] {
				if v {
					cnt++
				}
			}
			p := float64(cnt) / float64(reps)
			fmt.Fprintf(&row, " %.3f ± %.3f |", p, math.Sqrt(p*(1-p)/float64(reps)))
		}
		t.Log(row.String())
		b.WriteString(row.String() + "\n")
	}
	t.Log(b.String())
}

// residualAt returns the residuals of each column of x on z at reg's
// kernel and noise, as causal.Regress computes them: sd(x)·σ²C⁻¹x_s on
// z and x standardised.
func residualAt(z, x *mat.Dense, reg causal.Regression) (*mat.Dense, error) {
	n, d := x.Dims()
	zs, err := causal.Standardise(z)
	if err != nil {
		return nil, err
	}
	xs, err := causal.Standardise(x)
	if err != nil {
		return nil, err
	}
	ch, _, _, err := gp.Factor(reg.Kernel, zs, []float64{reg.Noise})
	if err != nil {
		return nil, err
	}
	out := mat.NewDense(n, d, nil)
	for j := 0; j < d; j++ {
		col := mat.Col(nil, j, x)
		var m, v float64
		for _, c := range col {
			m += c
		}
		m /= float64(n)
		for _, c := range col {
			v += (c - m) * (c - m)
		}
		sd := math.Sqrt(v / float64(n))
		var a mat.VecDense
		if err := ch.SolveVecTo(&a, mat.NewVecDense(n, mat.Col(nil, j, xs))); err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			out.Set(i, j, sd*reg.Noise*a.AtVec(i))
		}
	}
	return out, nil
}

// std standardises m's columns (KCI and RCIT take standardised data, as
// ci_test gives them).
func std(m *mat.Dense) *mat.Dense {
	s, err := causal.Standardise(m)
	if err != nil {
		panic(err)
	}
	return s
}

// fulltestReps reads KML_CI_REPS, the study's replications (0: default).
func fulltestReps() int {
	var n int
	fmt.Sscan(os.Getenv("KML_CI_REPS"), &n)
	return n
}
