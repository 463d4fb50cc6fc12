data { int<lower=2> T; vector[T] y; }
transformed data { real s0 = variance(y); }
parameters {
  real mu;
  real<lower=0> omega;
  real<lower=0, upper=1> alpha;
  real<lower=0, upper=1 - alpha> beta;
}
transformed parameters {
  vector[T - 1] s2;
  s2[1] = omega + alpha * square(y[1] - mu) + beta * s0;
  for (t in 2:(T - 1)) s2[t] = omega + alpha * square(y[t] - mu) + beta * s2[t - 1];
}
model {
  mu ~ normal(0, 2);
  omega ~ gamma(2, 2);
  alpha ~ uniform(0, 1);
  beta ~ uniform(0, 1 - alpha);
  y[2:T] ~ normal(mu, sqrt(s2));
}
