# Reference for runtime/inference's PSIS and GPDFit (psis_test.go): R's loo
# (Debian's r-cran-loo) on deterministic log ratios that Go recomputes:
#   lw_i = scale * -log(1 - p_i) + 0.3 * sin(7 i),  p_i = (i - 0.5) / S,
# i = 1..S (exp(lw) has a Pareto tail of shape near scale). Writes
# psis_loo.csv: case, scale, S, khat, then the smoothed log weights.
# Run: Rscript psis_loo.R   (loo 2.5.1 produced the stored file)
library(loo)
cases <- list(c(0.3, 1000), c(0.8, 1000), c(1.5, 1000), c(0.5, 4000))
out <- c()
for (j in seq_along(cases)) {
  scale <- cases[[j]][1]; S <- cases[[j]][2]
  i <- seq_len(S)
  lw <- scale * -log(1 - (i - 0.5) / S) + 0.3 * sin(7 * i)
  ps <- suppressWarnings(psis(lw, r_eff = 1))
  sm <- as.vector(weights(ps, log = TRUE, normalize = FALSE))
  out <- c(out, paste(c(j, scale, S, sprintf("%.17g", pareto_k_values(ps)), sprintf("%.17g", sm)), collapse = ","))
}
writeLines(out, "psis_loo.csv")
