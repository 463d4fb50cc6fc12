# KML against Stan on the shapes: bulk-ESS per second (the smallest over
# the parameters, both estimated by rstan's ess_bulk from the draws),
# 4 chains × (1000 warm-up + 1000 draws), 2 cores, compilation excluded.
# KML's seconds are its fit's wall time (its chains share the 2 cores);
# Stan's are its own per-chain elapsed times summed and halved (stan_wall_s
# adds R's worker start-up). Stan 2.21, Debian's rstan, takes those times
# with clock(), which is CPU time: on a busy machine they are not wall time,
# so `ratio` then favours Stan. The CPU columns compare like with like:
# kml_cpu_s is the whole `kml run` (parsing, Pathfinder, the summary and
# saving the draws included), stan_cpu_s Stan's chain times summed;
# cpu_ratio is KML's min-ESS per CPU second over Stan's. grad_us is CPU
# time per gradient: KML's over its grad_evals (Pathfinder's included),
# Stan's over its leapfrog steps (warm-up included); grad_ratio Stan's over
# KML's. Run by run.sh, which runs the KML scripts first
# (out/SHAPE_kml_*.csv, out/SHAPE_kml.json, the summary under --json, and
# out/SHAPE_kml.cpu, the run's user and system CPU seconds).
suppressMessages(library(rstan))
rstan_options(auto_write = TRUE)
shapes <- commandArgs(trailingOnly = TRUE)
if (length(shapes) == 0) shapes <- c("linreg", "hier8", "ar5", "mix", "garch", "bke1", "bke2")
source("bke_data.R")
standata <- function(shape) {
  d <- read.csv(file.path("data", paste0(shape, ".csv")))
  switch(shape,
    linreg = list(N = nrow(d), K = 5, X = as.matrix(d[, 1:5]), y = d$y),
    ar5 = list(N = nrow(d), K = 5, L = as.matrix(d[, 1:5]), y = d$y),
    hier8 = list(J = nrow(d), y = d$y, sigma = d$sigma),
    mix = list(N = nrow(d), y = d$y),
    garch = list(T = nrow(d), y = d$y),
    bke1 = bkedata("bke1"),
    bke2 = bkedata("bke2"))
}
# minESS is the smallest bulk ESS over the parameters of an
# iterations × chains × parameters array.
minESS <- function(a) {
  min(sapply(seq_len(dim(a)[3]), function(j) rstan::ess_bulk(a[, , j])))
}
# Debian's r-cran-rstan finds Boost in BH's directory; without it, the
# system headers (libboost-dev).
boost <- rstan_options("boost_lib")
if (!file.exists(boost)) boost <- "/usr/include"
rows <- list()
for (shape in shapes) {
  files <- Sys.glob(file.path("out", paste0(shape, "_kml_*.csv")))
  kfit <- suppressWarnings(read_stan_csv(files))
  ka <- as.array(kfit)
  ka <- ka[, , dimnames(ka)$parameters != "lp__", drop = FALSE]
  # The BKE pseudolikelihood has lower local maxima at larger ell (bke1:
  # near ell = 3, against the global one near 0.2); from Stan's default
  # inits (ell in [0.14, 7.4]) some chains stay there (bke1: R-hat 1.53,
  # min ESS 7), which KML's Pathfinder start avoids. To time the sampling
  # alone, Stan's chains start at KML's posterior median of ell.
  init <- "random"
  if (startsWith(shape, "bke")) init <- rep(list(list(ell = median(ka[, , "ell"]))), 4)
  sm <- stan_model(paste0(shape, ".stan"), boost_lib = boost)
  secs <- system.time(fit <- sampling(sm, data = standata(shape), chains = 4, iter = 2000,
    warmup = 1000, cores = 2, seed = 15, refresh = 0, init = init))[["elapsed"]]
  # Stan 2.21 (Debian's rstan) times each chain with clock(): CPU time.
  stan_cpu <- sum(get_elapsed_time(fit))
  # Stan's own timing, summed over the chains, over the 2 cores: the
  # sampling without R's worker start-up.
  stan_core <- sum(get_elapsed_time(fit)) / 2
  a <- as.array(fit)
  a <- a[, , dimnames(a)$parameters != "lp__", drop = FALSE]
  stan_ess <- minESS(a)
  kml_ess <- minESS(ka)
  js <- paste(readLines(file.path("out", paste0(shape, "_kml.json"))), collapse = "")
  field <- function(name) as.numeric(sub(paste0('.*"', name, '":([-0-9.eE+]+).*'), "\\1", js))
  kml_secs <- field("seconds")
  kml_cpu <- sum(scan(file.path("out", paste0(shape, "_kml.cpu")), quiet = TRUE))
  kml_grad_us <- kml_cpu / field("grad_evals") * 1e6
  leapfrogs <- sum(sapply(get_sampler_params(fit, inc_warmup = TRUE), function(p) sum(p[, "n_leapfrog__"])))
  stan_grad_us <- stan_cpu / leapfrogs * 1e6
  rows[[shape]] <- data.frame(shape = shape,
    kml_s = round(kml_secs, 2), kml_min_ess = round(kml_ess), kml_ess_per_s = round(kml_ess / kml_secs),
    stan_wall_s = round(secs, 2), stan_s = round(stan_core, 2), stan_min_ess = round(stan_ess),
    stan_ess_per_s = round(stan_ess / stan_core),
    ratio = round((kml_ess / kml_secs) / (stan_ess / stan_core), 2),
    kml_grad_us = signif(kml_grad_us, 3), stan_grad_us = signif(stan_grad_us, 3),
    kml_cpu_s = round(kml_cpu, 2), stan_cpu_s = round(stan_cpu, 2),
    cpu_ratio = round((kml_ess / kml_cpu) / (stan_ess / stan_cpu), 2),
    grad_ratio = round(stan_grad_us / kml_grad_us, 2))
}
print(do.call(rbind, rows), row.names = FALSE)
