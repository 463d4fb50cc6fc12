# One Stan fit of SHAPE (4 chains x (1000 + 1000), 2 cores, seed 15, as
# compare.R samples it) for whole.sh: prints "stan_cpu_s min_ess", the
# chains' own times summed (Stan 2.21 takes them with clock(), CPU time)
# and the smallest bulk ESS over the parameters.
suppressMessages(library(rstan))
rstan_options(auto_write = TRUE)
shape <- commandArgs(trailingOnly = TRUE)[1]
d <- read.csv(file.path("data", paste0(shape, ".csv")))
data <- switch(shape,
  linreg = list(N = nrow(d), K = 5, X = as.matrix(d[, 1:5]), y = d$y),
  ar5 = list(N = nrow(d), K = 5, L = as.matrix(d[, 1:5]), y = d$y),
  hier8 = list(J = nrow(d), y = d$y, sigma = d$sigma),
  mix = list(N = nrow(d), y = d$y),
  garch = list(T = nrow(d), y = d$y))
boost <- rstan_options("boost_lib")
if (!file.exists(boost)) boost <- "/usr/include"
sm <- stan_model(paste0(shape, ".stan"), boost_lib = boost)
fit <- sampling(sm, data = data, chains = 4, iter = 2000, warmup = 1000,
  cores = 2, seed = 15, refresh = 0)
a <- as.array(fit)
a <- a[, , dimnames(a)$parameters != "lp__", drop = FALSE]
ess <- min(sapply(seq_len(dim(a)[3]), function(j) rstan::ess_bulk(a[, , j])))
cat(sprintf("%.4f %.0f\n", sum(get_elapsed_time(fit)), ess))
