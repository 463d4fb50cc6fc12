data { int<lower=0> N; vector[N] y; }
parameters { real<lower=0, upper=1> w; ordered[2] mu; real<lower=0> s; }
model {
  w ~ beta(2, 2);
  mu ~ normal(0, 5);
  s ~ normal(0, 2);
  for (n in 1:N)
    target += log_mix(w, normal_lpdf(y[n] | mu[1], s), normal_lpdf(y[n] | mu[2], s));
}
