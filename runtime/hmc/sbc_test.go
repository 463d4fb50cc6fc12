package hmc

import (
	"context"
	"flag"
	"math"
	"math/rand/v2"
	"testing"
)

var long = flag.Bool("long", false, "run the long validations (SBC with more replications)")

// hier is a small hierarchical model on (μ, u = log τ, θ₁..θ_J):
// μ ~ normal(0, 1), τ ~ lognormal(0, 0.5), θ_j ~ normal(μ, τ),
// y_j ~ normal(θ_j, 1).
type hier struct{ y []float64 }

func (h hier) Dim() int { return 2 + len(h.y) }
func (h hier) LogDensity(grad, q []float64) (float64, error) {
	mu, u := q[0], q[1]
	tau := math.Exp(u)
	lp := -0.5*mu*mu - u*u/(2*0.25)
	grad[0] = -mu
	grad[1] = -u / 0.25
	for j, y := range h.y {
		th := q[2+j]
		d := th - mu
		lp += -0.5*d*d/(tau*tau) - u - 0.5*(y-th)*(y-th)
		grad[0] += d / (tau * tau)
		grad[1] += d*d/(tau*tau) - 1
		grad[2+j] = -d/(tau*tau) + (y - th)
	}
	return lp, nil
}

// TestSimulationBasedCalibration follows Talts et al. (2018): parameters
// drawn from the prior, data from them, and the rank of each true value
// among thinned posterior draws must be uniform (χ² test at the 1% level).
// The default run uses 200 replications; -long uses 1000.
func TestSimulationBasedCalibration(t *testing.T) {
	reps := 200
	if *long {
		reps = 1000
	}
	const (
		groups = 4
		thin   = 4
		kept   = 99 // ranks run 0..99
		bins   = 10
	)
	rng := rand.New(rand.NewPCG(101, 102))
	counts := [2][bins]int{}
	for r := 0; r < reps; r++ {
		mu := rng.NormFloat64()
		u := 0.5 * rng.NormFloat64()
		y := make([]float64, groups)
		for j := range y {
			th := mu + math.Exp(u)*rng.NormFloat64()
			y[j] = th + rng.NormFloat64()
		}
		res, err := Sample(context.Background(), factory(hier{y}), Settings{Chains: 1, Warmup: 200, Draws: kept * thin, Seed: uint64(r)})
		if err != nil {
			t.Fatal(err)
		}
		for k, truth := range []float64{mu, u} {
			rank := 0
			for i := thin - 1; i < kept*thin; i += thin {
				if res.Chains[0].Draws[i][k] < truth {
					rank++
				}
			}
			counts[k][rank*bins/(kept+1)]++
		}
	}
	crit := 21.666 // χ²₉ at 0.99
	for k, name := range []string{"mu", "log tau"} {
		want := float64(reps) / bins
		chi2 := 0.0
		for _, c := range counts[k] {
			chi2 += (float64(c) - want) * (float64(c) - want) / want
		}
		t.Logf("SBC %s over %d replications: rank histogram %v, χ² = %.1f (1%% critical value %.1f)", name, reps, counts[k], chi2, crit)
		if chi2 > crit {
			t.Errorf("SBC ranks of %s are not uniform: χ² = %.1f > %.1f", name, chi2, crit)
		}
	}
}
