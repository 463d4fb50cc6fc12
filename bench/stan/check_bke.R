# Checks that bke1.stan and bke2.stan compute KML's BKE log density: Stan's
# log_prob on the unconstrained scale u = log ell (Jacobian included)
# against KML's logp (bke_logp.kml, out/bke_logp.csv) plus log ell, at the
# lengthscales bke_logp.kml lists. The two may differ by a constant (none
# is dropped on either side here, so it should be 0); the check fails
# (exit status 1) when the differences, less their mean, exceed 1e-8 in
# absolute value. Run by run.sh after bke_logp.kml, or by hand:
#   Rscript data.R && kml run bke_logp.kml && Rscript check_bke.R
suppressMessages(library(rstan))
rstan_options(auto_write = TRUE)
boost <- rstan_options("boost_lib")
if (!file.exists(boost)) boost <- "/usr/include"
source("bke_data.R")
k <- read.csv(file.path("out", "bke_logp.csv"))
worst <- 0
shapes <- commandArgs(trailingOnly = TRUE)
if (length(shapes) == 0) shapes <- c("bke1", "bke2")
for (shape in shapes) {
  s <- as.integer(sub("bke", "", shape))
  sm <- stan_model(paste0(shape, ".stan"), boost_lib = boost)
  fit0 <- sampling(sm, data = bkedata(shape), chains = 0)
  ks <- k[k$shape == s, ]
  stan_lp <- sapply(ks$ell, function(e) log_prob(fit0, log(e), adjust_transform = TRUE))
  kml_lp <- ks$logp + log(ks$ell)
  d <- stan_lp - kml_lp
  dev <- d - mean(d)
  worst <- max(worst, abs(dev))
  print(data.frame(shape = shape, ell = ks$ell, stan = sprintf("%.10f", stan_lp),
    kml = sprintf("%.10f", kml_lp), difference = sprintf("%.3g", d)), row.names = FALSE)
  cat(sprintf("%s: constant %.3g, largest deviation from it %.3g (%.2g relative)\n",
    shape, mean(d), max(abs(dev)), max(abs(dev) / abs(kml_lp))))
}
if (worst > 1e-8) {
  cat("FAIL: the Stan programs and KML differ by more than 1e-8 beyond a constant\n")
  quit(status = 1)
}
cat("ok: Stan and KML agree to 1e-8 up to a constant\n")
