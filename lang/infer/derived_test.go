package infer_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/runtime/hmc"
	"github.com/kml-lang/kml/runtime/linalg"
	_ "github.com/kml-lang/kml/stdlib" // the builtins the models call
)

// The shapes below are lang/model's (grad_bench_test.go and
// derivedprog_test.go), copied: a test package cannot import another's.

var all = model.Terms{Prior: true, Likelihood: true, Jacobian: true}

// gradShape is one model shape of issue 15's table: its source and its data,
// generated from a seeded stream.
type gradShape struct {
	name string
	src  string
	data func(r *rand.Rand) map[string]eval.Value
}

// derivedModels have derived quantities the program replays: GARCH's
// variance recursion, a hierarchical model's group means, and a vector
// computed through a derived matrix of parameters.
var derivedModels = []gradShape{
	garchShape(60),
	{"hier8-theta", `model m {
  mu ~ normal(0, 5)
  tau ~ half_cauchy(5)
  eta[8] ~ normal(0, 1)
  theta = mu + tau * eta
  shrink = tau / (tau + 10)
  y ~ normal(theta, sigma)
}`, func(*rand.Rand) map[string]eval.Value {
		return map[string]eval.Value{
			"y":     &eval.Vec{Data: []float64{28, 8, -3, 7, -1, 1, 18, 12}},
			"sigma": &eval.Vec{Data: []float64{15, 10, 16, 11, 9, 11, 10, 18}},
		}
	}},
	{"matrix", `model m {
  s ~ gamma(2, 2)
  r ~ uniform(-0.5, 0.5)
  b[2] ~ normal(0, 1)
  S = [[s, r * s], [r * s, s]]
  v = S @ b
  total = sum(v) + n
  y ~ normal(X @ v, 1)
}`, func(r *rand.Rand) map[string]eval.Value {
		x, y := regression(r, 30, 2)
		return map[string]eval.Value{"X": x, "y": y, "n": eval.Num(3)}
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

// sampleShape samples a shape's model (2 chains × (100 + 50)) on a thread
// of its own, returning the posterior and a Density to walk with.
func sampleShape(t *testing.T, s gradShape, seed uint64) (*infer.Posterior, *model.Density) {
	t.Helper()
	in := eval.New(eval.Options{})
	for k, v := range s.data(rand.New(rand.NewPCG(seed, 2))) {
		if err := in.Define(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := in.Eval("shape.kml", s.src); err != nil {
		t.Fatal(err)
	}
	m, _ := in.Lookup("m")
	c, err := model.CompileFor(in, m.(*eval.Model), nil, all)
	if err != nil {
		t.Fatal(err)
	}
	th := in.NewThread(context.Background())
	post, err := infer.Sample(th.Context(), th, c, hmc.Settings{Chains: 2, Warmup: 100, Draws: 50, Seed: seed, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return post, c.NewDensityFor(in)
}

// Derived quantities (and GARCH's constrained parameters, whose support
// moves) read from the replayed program are the walked ones to the bit, at
// every draw, and every draw was replayed.
func TestDerivedReplayedIsWalked(t *testing.T) {
	for k, s := range derivedModels {
		var replayed, walked atomic.Int64
		restore := infer.SetSampleClock(time.Now, func(r bool) {
			if r {
				replayed.Add(1)
			} else {
				walked.Add(1)
			}
		})
		post, w := sampleShape(t, s, uint64(40+k))
		restore()
		if replayed.Load() != 100 || walked.Load() != 0 {
			t.Errorf("%s: %d draws replayed, %d walked; want 100 and 0", s.name, replayed.Load(), walked.Load())
		}
		if len(post.Derived) == 0 {
			t.Fatalf("%s: no derived quantities recorded", s.name)
		}
		for c, ch := range post.Result.Chains {
			for i, q := range ch.Draws {
				vals, err := w.Derived(q)
				if err != nil {
					t.Fatal(err)
				}
				row := post.Values[c][i]
				if want := post.Comp.Constrain(nil, q); !linalg.SameBits(row[:len(want)], want) {
					t.Fatalf("%s chain %d draw %d: parameters %v, constrained %v", s.name, c, i, row[:len(want)], want)
				}
				for j, dc := range post.Derived {
					got := row[dc.Off : dc.Off+max(dc.Size, 1)]
					if vals[j].Name != dc.Name || !linalg.SameBits(got, vals[j].Values) {
						t.Fatalf("%s chain %d draw %d: %s = %v from the program, %v walked", s.name, c, i, dc.Name, got, vals[j].Values)
					}
				}
			}
		}
	}
}

// A fit's seconds cover its derived quantities: with a clock that reads
// the number of derived rows computed so far, the seconds are all of them.
func TestSecondsCoverDerived(t *testing.T) {
	var rows atomic.Int64
	restore := infer.SetSampleClock(func() time.Time { return time.Unix(rows.Load(), 0) },
		func(bool) { rows.Add(1) })
	defer restore()
	post, _ := sampleShape(t, garchShape(40), 7)
	if got := post.Summary.Seconds; got != 100 {
		t.Errorf("seconds = %v with one second per derived row; want 100 (2 chains × 50 draws)", got)
	}
}
