package check

import (
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/grammar"
)

// TestForeignHabits checks that what Stan, PyMC, BUGS, R and Python users
// write out of habit gets a message saying what KML writes instead, at the
// foreign token, whether the parser, the lowering or the checker finds it.
func TestForeignHabits(t *testing.T) {
	cases := []struct {
		src, at string
		want    []string
	}{
		{"real<lower=0> sigma;", "1:1", []string{"Stan declaration", "`sigma ~ half_normal(1)`", "`sigma ~ normal(0, 1, lower: 0)`"}},
		{"model m {\n  real<lower=0> sigma;\n}", "2:3", []string{"`real<lower=0> sigma` is a Stan declaration", "lower: 0"}},
		{"real<lower=-1, upper=1> rho;", "1:1", []string{"`rho ~ uniform(-1, 1)`", "lower: -1, upper: 1"}},
		{"vector[N] y;", "1:1", []string{"`y[N] ~ normal(0, 1)`", "`let y = ...`"}},
		{"int<lower=1> K;", "1:1", []string{"no types", "`let K = ...`", "`model m(K, y)"}},
		{"simplex[K] theta;", "1:1", []string{"`theta[K] ~ dirichlet("}},
		{"for (i in 1:N) {\n  y[i] ~ normal(mu, 1)\n}", "1:1", []string{"no `for` loops", "`map(xs, f)`", "whole vectors"}},
		{"model m {\n  for (i in 1:N) { y[i] ~ normal(0, 1) }\n}", "2:3", []string{"no `for` loops"}},
		{"for i in range(n):\n  print(i)", "1:1", []string{"no `for` loops"}},
		{"while (x > 0) { x = x - 1 }", "1:1", []string{"no `while` loops"}},
		{"x <- 3", "1:3", []string{"`<-` is R's assignment", "`let x = ...`"}},
		{"let x = 1\nx <- 3", "2:3", []string{"`<-` is R's assignment"}},
		{"model m {\n  mu <- 3\n}", "2:6", []string{"`<-` is R's assignment", "`mu = ...`"}},
		{"data {\n  int N;\n}", "1:1", []string{"no `data { }` block", "`model m(x, y) { ... }`"}},
		{"parameters {\n  real mu;\n}", "1:1", []string{"no `parameters { }` block", "`mu ~ normal(0, 1)`"}},
		{"transformed parameters { real s = 1; }", "1:1", []string{"`NAME = EXPR` inside the model"}},
		{"model {\n  y ~ normal(0, 1)\n}", "1:1", []string{"`model m { ... }`"}},
		{"model m {\n  mu ~ normal(0, 1)\n  generated quantities {\n    z = mu\n  }\n}", "3:3", []string{"`generated { NAME = EXPR ... }`"}},
		{"let s = pm.Normal(\"s\", mu=0, sigma=1)", "1:9", []string{"PyMC's `pm.Normal(\"mu\", ...)`", "`mu ~ normal(...)`"}},
		{"model m {\n  s = pm.HalfNormal(\"s\", 1)\n}", "2:7", []string{"undefined: pm; PyMC's"}},
		{"let y = [1, 2]\nmodel m {\n  mu ~ normal(0, 1)\n  y ~ dnorm(mu, 1)\n}", "4:7", []string{"undefined: dnorm", "`normal(mu, sigma)`", "precision"}},
		{"library(rstan)", "1:1", []string{"undefined: library", "no packages"}},
		{"import numpy as np", "1:8", []string{"`import \"other.kml\"`"}},
		{"model m {\n  s ~ normal(0, 1) T[0,]\n}", "2:20", []string{"`normal(0, 1, lower: 0)`"}},
		{"def f(x):\n  return x", "1:1", []string{"`fn f(ARGS) = EXPR`"}},
	}
	for _, c := range cases {
		var msg string
		f, err := grammar.Parse("t.kml", c.src)
		if err == nil {
			ch := &Checker{Universe: universe}
			err = ch.File(f, NewScope(ch.Root()))
		}
		if err == nil {
			t.Errorf("%q: no error", c.src)
			continue
		}
		msg = err.Error()
		if !strings.HasPrefix(msg, "t.kml:"+c.at+": error: ") {
			t.Errorf("%q: error not at %s:\n%s", c.src, c.at, msg)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%q: message lacks %q:\n%s", c.src, w, msg)
			}
		}
	}
	// KML's own uses of the same tokens are untouched.
	for _, src := range []string{
		"let x = 3;",
		"model m {\n  mu ~ normal(0, 1); sigma ~ gamma(1, 1)\n}",
		"let x = 1\nprint(x < -3)",
		"fn real(x) = x\nprint(real(1))",
	} {
		f, err := grammar.Parse("t.kml", src)
		if err == nil {
			ch := &Checker{Universe: universe}
			err = ch.File(f, NewScope(ch.Root()))
		}
		if err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}
