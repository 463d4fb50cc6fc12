package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/kml-lang/kml/runtime/kernels"
)

// dlProblem is a weighted sum of two base kernels (an ARD rbf with fixed
// lengthscales and a linear kernel) on seeded data; an unweighted white
// kernel is added to both (joint MAP has no minimum without a floor).
func dlProblem(t testing.TB, n int, classify bool) ([]kernels.Kernel, *mat.Dense, []float64) {
	x, y := testData(n, 3, 31)
	if classify {
		for i := range y {
			y[i] = math.Copysign(1, y[i])
		}
	}
	rbf, _ := kernels.NewRBF([]float64{0.8, 1.2, 2})
	lin, _ := kernels.NewLinear(0.5)
	return []kernels.Kernel{rbf, lin}, x, y
}

// weighted is Σ_m θ_m k_m + white() as one kernel.
func weighted(base []kernels.Kernel, theta []float64) kernels.Kernel {
	var k kernels.Kernel
	for m, b := range base {
		s, _ := kernels.NewScaled(theta[m], b)
		if k == nil {
			k = s
			continue
		}
		k, _ = kernels.NewSum(k, s)
	}
	k, _ = kernels.NewSum(k, kernels.White{})
	return k
}

// lbfgsTheta is plain L-BFGS over log θ on the objective with the latent
// function optimised inside (Gaussian in closed form, otherwise the inner
// loop): the comparison for the double loop. It returns θ, the objective
// on the log scale, and the iterations and evaluations used.
// A penalty, when not nil, is subtracted from the objective as ½R(θ), as
// DoubleLoop adds R to ψ.
func lbfgsTheta(t testing.TB, s Settings, base []kernels.Kernel, x *mat.Dense, y []float64, l Lik, penalty ...func([]float64) (float64, []float64, []float64)) ([]float64, float64, int, int) {
	M := len(base)
	obj := func(q, grad []float64) float64 {
		theta := make([]float64, M)
		for m := range theta {
			theta[m] = math.Exp(q[m])
		}
		k := weighted(base, theta)
		s.Weights = Weights(k)
		full := make([]float64, k.NumHyper()+len(l.Params))
		var v float64
		var err error
		if l.Kind == Normal {
			v, err = Gaussian(s, k, x, y, l.Params[0]*l.Params[0], full)
		} else {
			v, err = NonGaussian(s, k, x, y, l, full)
		}
		if err != nil {
			return math.Inf(1)
		}
		if grad != nil {
			for m, i := range s.Weights {
				grad[m] = -full[i] * theta[m]
			}
		}
		for _, pen := range penalty {
			pv, pg, _ := pen(theta)
			v -= pv / 2
			if grad != nil {
				for m := range grad {
					grad[m] += pg[m] / 2 * theta[m]
				}
			}
		}
		return -v
	}
	r, err := optimize.Minimize(optimize.Problem{
		Func: func(q []float64) float64 { return obj(q, nil) },
		Grad: func(g, q []float64) { obj(q, g) },
	}, make([]float64, M), &optimize.Settings{GradientThreshold: 1e-8}, &optimize.LBFGS{})
	if err != nil && r == nil {
		t.Fatal(err)
	}
	theta := make([]float64, M)
	for m := range theta {
		theta[m] = math.Exp(r.X[m])
	}
	return theta, -r.F, r.MajorIterations, r.FuncEvaluations + r.GradEvaluations
}

// TestDoubleLoopMatchesLBFGS: Algorithm 1 and plain L-BFGS on the profiled
// objective reach the same θ and the same value (ψ = −2·objective − the
// constants), for joint MAP with Gaussian and logistic likelihoods and for
// MKL.
func TestDoubleLoopMatchesLBFGS(t *testing.T) {
	cases := []struct {
		name     string
		classify bool
		lik      Lik
		s        Settings
	}{
		{"MAP, Gaussian", false, Lik{Kind: Normal, Params: []float64{0.3}}, Settings{Kind: MAP}},
		{"MKL, Gaussian", false, Lik{Kind: Normal, Params: []float64{0.3}}, Settings{Kind: MKL, P: 1, Lambda: 2}},
		{"MAP, logistic", true, Lik{Kind: Logit}, Settings{Kind: MAP}},
	}
	for _, c := range cases {
		base, x, y := dlProblem(t, 40, c.classify)
		n := len(y)
		Ks := make([]*mat.SymDense, len(base))
		for m, b := range base {
			Ks[m], _ = kernels.Gram(b, x)
		}
		floor, _ := kernels.Gram(kernels.White{}, x)
		dl := &DoubleLoop{Ks: Ks, Fixed: floor, Y: y, Lik: c.lik, Kind: c.s.Kind, P: c.s.P, Lambda: c.s.Lambda}
		r, err := dl.Run([]float64{1, 1})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		theta, val, it, ev := lbfgsTheta(t, c.s, base, x, y, c.lik)
		// The log-scale objective's constants: n log 2π for MAP (the
		// prior's and, for Gaussian noise, the likelihood's normalisers
		// enter ψ through −2 log P), n log 2π for MKL's Gaussian noise.
		want := -2 * val
		switch {
		case c.s.Kind == MAP:
			want -= float64(n) * math.Log(2*math.Pi)
		case c.s.Kind == MKL && c.lik.Kind == Normal:
			// −½ψ includes −(n/2) log 2πσ², which ψ's −2 log P has too.
		}
		if math.Abs(r.Psi-want) > 1e-5*(1+math.Abs(want)) {
			t.Errorf("%s: double loop ψ = %.9g, L-BFGS %.9g", c.name, r.Psi, want)
		}
		for m := range theta {
			if math.Abs(r.Theta[m]-theta[m]) > 1e-3*(1+theta[m]) {
				t.Errorf("%s: θ = %v by the double loop, %v by L-BFGS", c.name, r.Theta, theta)
				break
			}
		}
		t.Logf("%s: double loop %d outer iterations, %d evaluations of ψ; L-BFGS %d iterations, %d evaluations; θ = %.4g", c.name, r.Outer, r.Evals, it, ev, r.Theta)
	}
}

// TestDoubleLoopPenalty: with a penalty R(θ) (here a lognormal(0, 1)
// prior's −2 log p(θ) = Σ (log θ_m)² + 2 log θ_m, whose curvature −2 log θ/θ²
// turns negative above θ = 1) Algorithm 1 reaches the θ and value of L-BFGS on
// the objective minus ½R, and says it converged.
func TestDoubleLoopPenalty(t *testing.T) {
	pen := func(theta []float64) (float64, []float64, []float64) {
		var v float64
		g, h := make([]float64, len(theta)), make([]float64, len(theta))
		for m, th := range theta {
			l := math.Log(th)
			v += l*l + 2*l
			g[m] = (2*l + 2) / th
			h[m] = (2 - 2*l - 2) / (th * th)
		}
		return v, g, h
	}
	base, x, y := dlProblem(t, 30, false)
	Ks := make([]*mat.SymDense, len(base))
	for m, b := range base {
		Ks[m], _ = kernels.Gram(b, x)
	}
	floor, _ := kernels.Gram(kernels.White{}, x)
	lik := Lik{Kind: Normal, Params: []float64{0.3}}
	dl := &DoubleLoop{Ks: Ks, Fixed: floor, Y: y, Lik: lik, Kind: MAP, Penalty: pen}
	r, err := dl.Run([]float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	theta, val, _, _ := lbfgsTheta(t, Settings{Kind: MAP}, base, x, y, lik, pen)
	want := -2*val - float64(len(y))*math.Log(2*math.Pi)
	if !r.Converged || math.Abs(r.Psi-want) > 1e-6*(1+math.Abs(want)) {
		t.Errorf("double loop ψ = %.10g (converged %v), L-BFGS %.10g", r.Psi, r.Converged, want)
	}
	for m := range theta {
		if math.Abs(r.Theta[m]-theta[m]) > 1e-3*(1+theta[m]) {
			t.Errorf("θ = %v by the double loop, %v by L-BFGS", r.Theta, theta)
		}
	}
}

// BenchmarkDoubleLoopVsLBFGS times Algorithm 1 against plain L-BFGS over
// log θ (the latent function optimised inside every evaluation) on the same
// problems, n = 200, two weighted kernels and a white floor; the
// iterations and evaluations of each are reported as metrics.
func BenchmarkDoubleLoopVsLBFGS(b *testing.B) {
	cases := []struct {
		name     string
		classify bool
		lik      Lik
		s        Settings
	}{
		{"MAP-gaussian", false, Lik{Kind: Normal, Params: []float64{0.3}}, Settings{Kind: MAP}},
		{"MKL-gaussian", false, Lik{Kind: Normal, Params: []float64{0.3}}, Settings{Kind: MKL, P: 1, Lambda: 2}},
		{"MKL-logistic", true, Lik{Kind: Logit}, Settings{Kind: MKL, P: 1, Lambda: 2}},
	}
	for _, c := range cases {
		base, x, y := dlProblem(b, 200, c.classify)
		Ks := make([]*mat.SymDense, len(base))
		for m, k := range base {
			Ks[m], _ = kernels.Gram(k, x)
		}
		floor, _ := kernels.Gram(kernels.White{}, x)
		b.Run(c.name+"/double-loop", func(b *testing.B) {
			var r *DoubleLoopResult
			for range b.N {
				dl := &DoubleLoop{Ks: Ks, Fixed: floor, Y: y, Lik: c.lik, Kind: c.s.Kind, P: c.s.P, Lambda: c.s.Lambda}
				var err error
				if r, err = dl.Run([]float64{1, 1}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(r.Outer), "iterations")
			b.ReportMetric(float64(r.Evals), "evals")
			b.ReportMetric(r.Psi, "psi")
		})
		b.Run(c.name+"/lbfgs", func(b *testing.B) {
			var it, ev int
			var val float64
			for range b.N {
				_, val, it, ev = lbfgsTheta(b, c.s, base, x, y, c.lik)
			}
			b.ReportMetric(float64(it), "iterations")
			b.ReportMetric(float64(ev), "evals")
			b.ReportMetric(-2*val, "-2obj")
		})
	}
}
