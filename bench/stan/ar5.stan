data { int<lower=0> N; int<lower=0> K; matrix[N, K] L; vector[N] y; }
parameters { real alpha; vector[K] beta; real<lower=0> sigma; }
model {
  alpha ~ normal(0, 1);
  beta ~ normal(0, 1);
  sigma ~ normal(0, 1);
  y ~ normal(alpha + L * beta, sigma);
}
