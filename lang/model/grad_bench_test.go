package model_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

// gradShape is one model shape of issue 15's table: its source and its data,
// generated from a seeded stream.
type gradShape struct {
	name string
	src  string
	data func(r *rand.Rand) map[string]eval.Value
}

var gradShapes = []gradShape{
	{"linreg100x5", `model m {
  alpha ~ normal(0, 5)
  beta[5] ~ normal(0, 2)
  sigma ~ half_normal(2)
  y ~ normal(alpha + X @ beta, sigma)
}`, func(r *rand.Rand) map[string]eval.Value {
		x, y := regression(r, 100, 5)
		return map[string]eval.Value{"X": x, "y": y}
	}},
	{"hier8", `model m {
  mu ~ normal(0, 5)
  tau ~ half_cauchy(5)
  eta[8] ~ normal(0, 1)
  y ~ normal(mu + tau * eta, sigma)
}`, func(*rand.Rand) map[string]eval.Value {
		return map[string]eval.Value{
			"y":     &eval.Vec{Data: []float64{28, 8, -3, 7, -1, 1, 18, 12}},
			"sigma": &eval.Vec{Data: []float64{15, 10, 16, 11, 9, 11, 10, 18}},
		}
	}},
	{"ar5x200", `model m {
  alpha ~ normal(0, 1)
  beta[5] ~ normal(0, 1)
  sigma ~ half_normal(1)
  y ~ normal(alpha + L @ beta, sigma)
}`, func(r *rand.Rand) map[string]eval.Value {
		const n, p = 200, 5
		z := make([]float64, n)
		for t := range z {
			z[t] = r.NormFloat64()
			for k := 1; k <= p && t-k >= 0; k++ {
				z[t] += 0.1 * z[t-k]
			}
		}
		l := mat.NewDense(n-p, p, nil)
		for t := p; t < n; t++ {
			for k := 1; k <= p; k++ {
				l.Set(t-p, k-1, z[t-k])
			}
		}
		return map[string]eval.Value{"L": eval.NewMat(l), "y": &eval.Vec{Data: z[p:]}}
	}},
	{"mix1000", `model m {
  w ~ beta(2, 2)
  mu[2] ~ ordered(normal(0, 5))
  s ~ half_normal(2)
  y ~ mixture([w, 1 - w], [normal(mu[1], s), normal(mu[2], s)])
}`, func(r *rand.Rand) map[string]eval.Value {
		y := make([]float64, 1000)
		for i := range y {
			y[i] = r.NormFloat64() - 2
			if r.Float64() < 0.6 {
				y[i] += 4
			}
		}
		return map[string]eval.Value{"y": &eval.Vec{Data: y}}
	}},
	garchShape(200),
	garchShape(400),
	// The kernel half (issue 24): a BKE lengthscale and amplitude on 200
	// one-dimensional points with 20 landmarks, and a latent GP regression
	// on 100 points in 2 dimensions.
	{"bke200", `model m {
  ell ~ gamma(2, 2)
  a ~ gamma(2, 2)
  X ~ bke(a * rbf(ell), noise: 1, landmarks: Z)
}`, func(r *rand.Rand) map[string]eval.Value {
		x := mat.NewDense(200, 1, nil)
		for i := range 200 {
			x.Set(i, 0, r.NormFloat64())
		}
		z := mat.NewDense(20, 1, nil)
		for i := range 20 {
			z.Set(i, 0, -2+4*float64(i)/19)
		}
		return map[string]eval.Value{"X": eval.NewMat(x), "Z": eval.NewMat(z)}
	}},
	{"gplatent100", `model m {
  ell ~ gamma(2, 2)
  s ~ gamma(2, 2)
  f ~ gp(X, rbf(ell))
  y ~ normal(f, s)
}`, func(r *rand.Rand) map[string]eval.Value {
		x, y := regression(r, 100, 2)
		return map[string]eval.Value{"X": x, "y": y}
	}},
}

// garchShape is GARCH(1,1) on T points, its variance recursion written with
// iterate: the cost per gradient grows linearly in T.
func garchShape(T int) gradShape {
	return gradShape{fmt.Sprintf("garch%d", T), fmt.Sprintf(`fn garch(s, t, p) = p.omega + p.alpha * (y[t] - p.mu)^2 + p.beta * s
model m {
  mu ~ normal(0, 2)
  omega ~ gamma(2, 2)
  alpha ~ uniform(0, 1)
  beta ~ uniform(0, 1 - alpha)
  s2 = iterate(garch, var(y), %d, with: {mu: mu, omega: omega, alpha: alpha, beta: beta})
  y[2:%d] ~ normal(mu, sqrt(s2))
}`, T-1, T), func(r *rand.Rand) map[string]eval.Value {
		y := make([]float64, T)
		s2 := 1.0
		for t := range y {
			y[t] = math.Sqrt(s2) * r.NormFloat64()
			s2 = 0.2 + 0.3*y[t]*y[t] + 0.5*s2
		}
		return map[string]eval.Value{"y": &eval.Vec{Data: y}}
	}}
}

// regression is n rows of p standard normal predictors and y = 1 + X b + ε.
func regression(r *rand.Rand, n, p int) (*eval.Mat, *eval.Vec) {
	x := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i := range y {
		y[i] = 1 + 0.5*r.NormFloat64()
		for j := 0; j < p; j++ {
			v := r.NormFloat64()
			x.Set(i, j, v)
			y[i] += float64(j+1) / 4 * v
		}
	}
	return eval.NewMat(x), &eval.Vec{Data: y}
}

// shapeDensity compiles a shape's model with its data; walk turns replay
// off.
func shapeDensity(tb testing.TB, s gradShape, walk bool) (*model.Density, int) {
	tb.Helper()
	in := eval.New(eval.Options{})
	for k, v := range s.data(rand.New(rand.NewPCG(15, 1))) {
		if err := in.Define(k, v); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := in.Eval("shape.kml", s.src); err != nil {
		tb.Fatal(err)
	}
	m, _ := in.Lookup("m")
	c, err := model.CompileFor(in, m.(*eval.Model), nil, all)
	if err != nil {
		tb.Fatal(err)
	}
	c.NoReplay = walk
	return c.NewDensityFor(in), c.Dim()
}

// BenchmarkModelGrad is the cost of one log-density gradient for the model
// shapes of issue 15 (µs per gradient = ns/op / 1000): replaying the
// recorded program (the default) and, for comparison, walking the model.
func BenchmarkModelGrad(b *testing.B) {
	for _, s := range gradShapes {
		for _, walk := range []bool{false, true} {
			name := s.name
			if walk {
				name += "-walk"
			}
			b.Run(name, func(b *testing.B) { benchGrad(b, s, walk) })
		}
	}
}

func benchGrad(b *testing.B, s gradShape, walk bool) {
	d, dim := shapeDensity(b, s, walk)
	q := make([]float64, dim)
	for i := range q {
		q[i] = 0.1 * float64(i%3)
	}
	grad := make([]float64, dim)
	b.ReportAllocs()
	for b.Loop() {
		lp, err := d.LogDensity(grad, q)
		if err != nil || math.IsNaN(lp) {
			b.Fatal(lp, err)
		}
	}
}
