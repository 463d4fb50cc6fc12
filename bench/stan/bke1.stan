// KML's `x ~ bke(rbf(ell), noise: tau2, landmarks: z)` for D = 1 with the
// normalised prior (docs/language.md "Bayesian kernel embedding"): the
// derived marginal pseudolikelihood with K_il = exp(-(x_i - z_l)^2 / (2 ell^2)),
// mu = K'1/N, A = R + (tau2/N) I, R_jl = exp(-(z_j - z_l)^2 / (4 ell^2)),
//   -1/2 [log|A| + mu'A^-1 mu + sum_il (K_il - mu_l)^2 / tau2
//         + M log N + M (N - 1) log tau2 + M N log 2 pi]
//   + sum_i 1/2 log(sum_l K_il^2 (x_i - z_l)^2 / ell^4),
// in O(N M + M^3) per evaluation, and ell ~ gamma(1, 1).
data {
  int<lower=1> N;
  int<lower=1> M;
  vector[N] x;
  vector[M] z;
  real<lower=0> tau2;
}
transformed data {
  matrix[N, M] d2;  // (x_i - z_l)^2
  matrix[M, M] r2;  // (z_j - z_l)^2
  real c = M * log(N) + M * (N - 1) * log(tau2) + M * N * log(2 * pi());
  for (l in 1:M) {
    d2[, l] = square(x - z[l]);
    r2[, l] = square(z - z[l]);
  }
}
parameters {
  real<lower=0> ell;
}
model {
  matrix[N, M] K = exp(d2 * (-0.5 / square(ell)));
  row_vector[M] mu = rep_row_vector(1.0 / N, N) * K;
  matrix[M, M] L = cholesky_decompose(exp(r2 * (-0.25 / square(ell))) + diag_matrix(rep_vector(tau2 / N, M)));
  real css = sum(square(K - rep_matrix(mu, N)));
  vector[N] g = (square(K) .* d2) * rep_vector(1, M);
  target += gamma_lpdf(ell | 1, 1);
  target += -0.5 * (2 * sum(log(diagonal(L))) + dot_self(mdivide_left_tri_low(L, mu'))
                    + css / tau2 + c);
  target += 0.5 * sum(log(g)) - 2 * N * log(ell);
}
