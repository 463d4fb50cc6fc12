# KML against Stan on the four shapes: bulk-ESS per second (the smallest
# over the parameters, both estimated by rstan's ess_bulk from the draws),
# 4 chains × (1000 warm-up + 1000 draws), 2 cores, compilation excluded.
# KML's seconds are its run's wall time (its chains share the 2 cores);
# Stan's are its own per-chain elapsed times summed and halved (stan_wall_s
# adds R's worker start-up). Run by run.sh, which runs the KML scripts first (out/SHAPE_kml_*.csv and
# out/SHAPE_kml.seconds).
suppressMessages(library(rstan))
rstan_options(auto_write = TRUE)
shapes <- commandArgs(trailingOnly = TRUE)
if (length(shapes) == 0) shapes <- c("linreg", "hier8", "ar5", "mix")
standata <- function(shape) {
  d <- read.csv(file.path("data", paste0(shape, ".csv")))
  switch(shape,
    linreg = list(N = nrow(d), K = 5, X = as.matrix(d[, 1:5]), y = d$y),
    ar5 = list(N = nrow(d), K = 5, L = as.matrix(d[, 1:5]), y = d$y),
    hier8 = list(J = nrow(d), y = d$y, sigma = d$sigma),
    mix = list(N = nrow(d), y = d$y))
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
  sm <- stan_model(paste0(shape, ".stan"), boost_lib = boost)
  secs <- system.time(fit <- sampling(sm, data = standata(shape), chains = 4, iter = 2000,
    warmup = 1000, cores = 2, seed = 15, refresh = 0))[["elapsed"]]
  # Stan's own timing, summed over the chains, over the 2 cores: the
  # sampling without R's worker start-up.
  stan_core <- sum(get_elapsed_time(fit)) / 2
  a <- as.array(fit)
  a <- a[, , dimnames(a)$parameters != "lp__", drop = FALSE]
  stan_ess <- minESS(a)
  files <- Sys.glob(file.path("out", paste0(shape, "_kml_*.csv")))
  kfit <- suppressWarnings(read_stan_csv(files))
  ka <- as.array(kfit)
  ka <- ka[, , dimnames(ka)$parameters != "lp__", drop = FALSE]
  kml_ess <- minESS(ka)
  kml_secs <- as.numeric(readLines(file.path("out", paste0(shape, "_kml.seconds"))))
  rows[[shape]] <- data.frame(shape = shape,
    kml_s = round(kml_secs, 2), kml_min_ess = round(kml_ess), kml_ess_per_s = round(kml_ess / kml_secs),
    stan_wall_s = round(secs, 2), stan_s = round(stan_core, 2), stan_min_ess = round(stan_ess),
    stan_ess_per_s = round(stan_ess / stan_core),
    ratio = round((kml_ess / kml_secs) / (stan_ess / stan_core), 2))
}
print(do.call(rbind, rows), row.names = FALSE)
