// KML's `x ~ bke(rbf(ell), noise: tau2, landmarks: z)` for D = 2 with the
// normalised prior (docs/language.md "Bayesian kernel embedding"): as
// bke1.stan, with K_il = exp(-|x_i - z_l|^2 / (2 ell^2)),
// R_jl = exp(-|z_j - z_l|^2 / (4 ell^2)) and the Jacobian term
//   sum_i 1/2 log det G_i - 4 N log ell,  G_i = sum_l K_il^2 v_il v_il',
// v_il = x_i - z_l, in O(N M + M^3) per evaluation, and ell ~ gamma(1, 1).
// As in KML, each row's kernel values are taken relative to its largest,
// K_il = exp(-dmin_i / (2 ell^2)) U_il, so that G_i, from U, does not
// underflow for points far from every landmark; and G_i is formed in
// coordinates along and across the nearest landmark's v_il (a rotation,
// fixed by the data), so that its determinant does not cancel when that
// landmark dominates (G_i nearly of rank 1).
data {
  int<lower=1> N;
  int<lower=1> M;
  matrix[N, 2] x;
  matrix[M, 2] z;
  real<lower=0> tau2;
}
transformed data {
  matrix[N, M] d2s;  // |x_i - z_l|^2 - dmin_i
  vector[N] dmin;    // min_l |x_i - z_l|^2
  matrix[N, M] vpp;  // p_il^2, with (p, r) = v_il rotated to the nearest landmark's
  matrix[N, M] vpr;  // p_il r_il
  matrix[N, M] vrr;  // r_il^2
  matrix[M, M] r2;   // |z_j - z_l|^2
  real c = M * log(N) + M * (N - 1) * log(tau2) + M * N * log(2 * pi());
  for (l in 1:M)
    r2[, l] = square(z[, 1] - z[l, 1]) + square(z[, 2] - z[l, 2]);
  for (i in 1:N) {
    row_vector[M] a = x[i, 1] - z[, 1]';
    row_vector[M] b = x[i, 2] - z[, 2]';
    row_vector[M] d = square(a) + square(b);
    int ls = sort_indices_asc(d)[1];
    real h = sqrt(d[ls]);
    real e1 = h > 0 ? a[ls] / h : 1;
    real e2 = h > 0 ? b[ls] / h : 0;
    row_vector[M] p = e1 * a + e2 * b;
    row_vector[M] r = e1 * b - e2 * a;
    dmin[i] = d[ls];
    d2s[i] = d - dmin[i];
    vpp[i] = square(p);
    vpr[i] = p .* r;
    vrr[i] = square(r);
  }
}
parameters {
  real<lower=0> ell;
}
model {
  matrix[N, M] U = exp(d2s * (-0.5 / square(ell)));
  matrix[N, M] K = diag_pre_multiply(exp(dmin * (-0.5 / square(ell))), U);
  matrix[N, M] U2 = square(U);
  row_vector[M] mu = rep_row_vector(1.0 / N, N) * K;
  matrix[M, M] L = cholesky_decompose(exp(r2 * (-0.25 / square(ell))) + diag_matrix(rep_vector(tau2 / N, M)));
  real css = sum(square(K - rep_matrix(mu, N)));
  vector[N] g00 = (U2 .* vpp) * rep_vector(1, M);
  vector[N] g01 = (U2 .* vpr) * rep_vector(1, M);
  vector[N] g11 = (U2 .* vrr) * rep_vector(1, M);
  target += gamma_lpdf(ell | 1, 1);
  target += -0.5 * (2 * sum(log(diagonal(L))) + dot_self(mdivide_left_tri_low(L, mu'))
                    + css / tau2 + c);
  target += 0.5 * sum(log(g00 .* g11 - square(g01))) - sum(dmin) / square(ell) - 4 * N * log(ell);
}
