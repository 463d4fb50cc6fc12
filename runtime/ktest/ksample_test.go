package ktest

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/internal/fulltest"
	"github.com/kml-lang/kml/runtime/kernels"
)

// TestKSampleAgainstDefinition: the statistic is Σ_c (n_c/n)‖μ̂_c − μ̂‖²
// with each squared norm expanded into kernel evaluations, and with two
// samples the test is MMDTest's with the biased estimator: statistic
// (n₁n₂/n²)·MMD²_b and the same p-value.
func TestKSampleAgainstDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 20))
	xs := []*mat.Dense{randMat(r, 5, 2), randMat(r, 8, 2), randMat(r, 6, 2)}
	k := rbfKernel(t, 1.1)
	var rows [][]float64
	for _, x := range xs {
		for i := 0; i < x.RawMatrix().Rows; i++ {
			rows = append(rows, x.RawRowView(i))
		}
	}
	n := float64(len(rows))
	all := 0.0
	for _, a := range rows {
		for _, b := range rows {
			all += k.Eval(a, b)
		}
	}
	want := 0.0
	for _, x := range xs {
		nc := float64(x.RawMatrix().Rows)
		var cc, ca float64
		for i := 0; i < x.RawMatrix().Rows; i++ {
			for j := 0; j < x.RawMatrix().Rows; j++ {
				cc += k.Eval(x.RawRowView(i), x.RawRowView(j))
			}
			for _, b := range rows {
				ca += k.Eval(x.RawRowView(i), b)
			}
		}
		want += nc / n * (cc/(nc*nc) - 2*ca/(nc*n) + all/(n*n))
	}
	res, err := KSampleTest(context.Background(), k, xs, Settings{Permutations: 10})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Statistic-want) > 1e-12*want {
		t.Errorf("statistic %.15g, definition %.15g", res.Statistic, want)
	}
	x, y := randMat(r, 30, 2), randMat(r, 25, 2)
	for i := 0; i < 25; i++ {
		y.Set(i, 0, y.At(i, 0)+0.4)
	}
	s := Settings{Permutations: 199, Seed: 4}
	two, err := KSampleTest(context.Background(), k, []*mat.Dense{x, y}, s)
	if err != nil {
		t.Fatal(err)
	}
	s.Estimator = Biased
	m, err := MMDTest(context.Background(), k, x, y, s)
	if err != nil {
		t.Fatal(err)
	}
	scaled := 30.0 * 25 / (55 * 55) * m.Statistic
	if math.Abs(two.Statistic-scaled) > 1e-12*scaled || two.PValue != m.PValue {
		t.Errorf("two samples: statistic %.15g p %g; MMD²_b·n₁n₂/n² %.15g p %g", two.Statistic, two.PValue, scaled, m.PValue)
	}
}

// TestKSampleLevel: three samples from one distribution (Student-t(3)
// in the first column), rejection rate at 0.05 within 3 binomial SE:
// 60 replications in the suite, KML_FULL=1 (CI, fulltest) 400.
func TestKSampleLevel(t *testing.T) {
	reps := 60
	if fulltest.Enabled() {
		reps = 400
	}
	se := math.Sqrt(0.05 * 0.95 / float64(reps))
	rej := ksampleRejections(t, reps, 0, 700)
	rate := float64(rej) / float64(reps)
	t.Logf("rejection rate %.3f over %d replications (SE %.4f)", rate, reps, se)
	if math.Abs(rate-0.05) > 3*se {
		t.Errorf("rejection rate %.3f is more than 3 SE from 0.05", rate)
	}
}

// TestKSamplePower: a shift of 1.2 (in the second column) of the third of three samples of 30.
func TestKSamplePower(t *testing.T) {
	if rej := ksampleRejections(t, 10, 1.2, 701); rej < 9 {
		t.Errorf("%d/10 rejections", rej)
	}
}

func ksampleRejections(t *testing.T, reps int, shift float64, seed uint64) int {
	t.Helper()
	rej := 0
	st := drawStudent(3)
	for rep := 0; rep < reps; rep++ {
		r := rand.New(rand.NewPCG(seed, uint64(rep)))
		xs := make([]*mat.Dense, 3)
		var pooled mat.Dense
		for c := range xs {
			xs[c] = randMat(r, 30, 2)
			for i := 0; i < 30; i++ {
				xs[c].Set(i, 0, st(r))
			}
		}
		for i := 0; i < 30; i++ {
			xs[2].Set(i, 1, xs[2].At(i, 1)+shift)
		}
		pooled.Stack(xs[0], xs[1])
		med, err := kernels.MedianHeuristic(&pooled, 1)
		if err != nil {
			t.Fatal(err)
		}
		res, err := KSampleTest(context.Background(), rbfKernel(t, med), xs, Settings{Permutations: 199, Seed: uint64(rep)})
		if err != nil {
			t.Fatal(err)
		}
		if res.PValue <= 0.05 {
			rej++
		}
	}
	return rej
}
