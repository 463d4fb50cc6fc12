package fit_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestDerivedQuantitiesInOutput: a non-centred model's derived quantities
// are recorded per draw (after the parameters) and equal the expression at
// each draw; they appear in the summary, draws(), and the saved CSV, while a
// derived kernel (not a number) is left out.
func TestDerivedQuantitiesInOutput(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = [2.8, 0.8, -0.3, 0.7]
model m {
  mu ~ normal(0, 5)
  tau ~ half_normal(2)
  eta[4] ~ normal(0, 1)
  theta = mu + tau * eta
  twice = 2 * mu
  k = rbf(tau + 1)
  y ~ normal(theta, 1)
}
let post = sample(m, chains: 2, warmup: 200, draws: 100, seed: 5)
let th = draws(post, "theta")
let tw = post.twice
let mu = post.mu
let tau = post.tau
let eta = post.eta
let s = summary(post)
`)
	th := kmltest.Lookup[*eval.Mat](t, in, "th")
	tw := kmltest.Lookup[*eval.Vec](t, in, "tw").Data
	mu := kmltest.Lookup[*eval.Vec](t, in, "mu").Data
	tau := kmltest.Lookup[*eval.Vec](t, in, "tau").Data
	eta := kmltest.Lookup[*eval.Mat](t, in, "eta")
	if r, c := th.Dims(); r != 200 || c != 4 {
		t.Fatalf("theta draws are %d×%d, want 200×4", r, c)
	}
	for i := range mu {
		if math.Abs(tw[i]-2*mu[i]) > 1e-12 {
			t.Fatalf("draw %d: twice = %v, 2·mu = %v", i, tw[i], 2*mu[i])
		}
		for j := 0; j < 4; j++ {
			if want := mu[i] + tau[i]*eta.M.At(i, j); math.Abs(th.M.At(i, j)-want) > 1e-12 {
				t.Fatalf("draw %d: theta.%d = %v, mu + tau·eta = %v", i, j+1, th.M.At(i, j), want)
			}
		}
	}
	s := kmltest.Lookup[*infer.SummaryVal](t, in, "s")
	var names []string
	for _, p := range s.S.Params {
		names = append(names, p.Name)
	}
	want := "mu tau eta.1 eta.2 eta.3 eta.4 theta.1 theta.2 theta.3 theta.4 twice"
	if strings.Join(names, " ") != want {
		t.Errorf("summary rows %v, want %s", names, want)
	}
	post, _ := in.Lookup("post")
	var b bytes.Buffer
	if err := post.(*infer.Posterior).WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(b.String(), "\n")
	if !strings.HasPrefix(header, "chain,draw,mu,tau,eta.1,eta.2,eta.3,eta.4,theta.1,theta.2,theta.3,theta.4,twice,lp__") {
		t.Errorf("CSV header %s", header)
	}
}

// A derived quantity whose length changes between draws is NaN where it
// differs, with a warning.
func TestDerivedRaggedWarns(t *testing.T) {
	in, _ := kmltest.Run(t, `
model m {
  a ~ normal(0, 1)
  pos = which([a, a, -a] > 0)
}
let post = sample(m, chains: 1, warmup: 100, draws: 50, seed: 2)
let s = summary(post)
`)
	s := kmltest.Lookup[*infer.SummaryVal](t, in, "s")
	if !strings.Contains(strings.Join(s.S.Warnings, "\n"), "pos changes length") {
		t.Errorf("no warning about the ragged derived quantity: %v", s.S.Warnings)
	}
}
