# Reference values from R's loo package for runtime/loo's tests.
# Rerun from runtime/loo/testdata:  Rscript reference.R > reference.txt
# The log-likelihood matrices are made by a deterministic recipe that
# loo_test.go repeats exactly (no random-number generator, so Go and R see
# the same numbers): draws of (mu, sigma) from Weyl sequences through the
# normal quantile function, and the normal log density of fixed data.
suppressMessages(library(loo))
options(digits = 17)

weyl <- function(S, a) { x <- (seq_len(S) * a) + 0.5; x - floor(x) }
draws <- function(S, mu0, sdmu, scale, sdlog) {
  list(mu = mu0 + sdmu * qnorm(weyl(S, 0.6180339887498949)),
       sigma = scale * exp(sdlog * qnorm(weyl(S, 0.41421356237309515))))
}
# S x N matrix: normal log density of y[i] at draw s.
llmat <- function(y, d) {
  S <- length(d$mu)
  m <- matrix(0, S, length(y))
  for (i in seq_along(y)) {
    z <- (y[i] - d$mu) / d$sigma
    m[, i] <- -0.5 * log(2 * pi) - log(d$sigma) - 0.5 * z * z
  }
  m
}
ygood <- ((seq_len(20) %% 7) - 3) / 2
yheavy <- ygood
yheavy[5] <- 9
yheavy[13] <- -7.5

out <- function(name, key, v) cat(name, key, sprintf("%.17g", v), "\n")
report <- function(name, ll) {
  l <- loo(ll, r_eff = rep(1, ncol(ll)))
  e <- l$estimates
  out(name, "dims", dim(ll))
  out(name, "elpd_loo", e["elpd_loo", ])
  out(name, "p_loo", e["p_loo", ])
  out(name, "looic", e["looic", ])
  out(name, "pareto_k", l$diagnostics$pareto_k)
  out(name, "elpd_loo_i", l$pointwise[, "elpd_loo"])
  w <- suppressWarnings(waic(ll))
  ew <- w$estimates
  out(name, "elpd_waic", ew["elpd_waic", ])
  out(name, "p_waic", ew["p_waic", ])
  out(name, "waic", ew["waic", ])
  out(name, "p_waic_i", w$pointwise[, "p_waic"])
  invisible(l)
}

cat("# loo", as.character(packageVersion("loo")), "\n")
report("good1000", llmat(ygood, draws(1000, mean(ygood), 1 / sqrt(20), 1, 0.15)))
report("good4000", llmat(ygood, draws(4000, mean(ygood), 1 / sqrt(20), 1, 0.15)))
report("heavy1000", llmat(yheavy, draws(1000, mean(yheavy), 0.4, 2, 0.2)))
report("heavy4000", llmat(yheavy, draws(4000, mean(yheavy), 0.4, 2, 0.2)))

# Three models of the heavy data compared: sigma fixed at 1, sigma free,
# and sigma free with a shifted mean.
d <- draws(1000, mean(yheavy), 0.4, 2, 0.2)
a <- report("cmpA", llmat(yheavy, list(mu = d$mu, sigma = rep(2, 1000))))
b <- report("cmpB", llmat(yheavy, d))
c <- report("cmpC", llmat(yheavy, list(mu = d$mu + 0.5, sigma = d$sigma)))
cmp <- loo_compare(list(A = a, B = b, C = c))
cat("cmp order", rownames(cmp), "\n")
out("cmp", "elpd_diff", cmp[, "elpd_diff"])
out("cmp", "se_diff", cmp[, "se_diff"])
