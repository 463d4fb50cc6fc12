# Reads KML's CmdStan CSV output with rstan's own reader (Debian: r-cran-rstan):
#   kml run SCRIPT.kml   # with save(post, to: "draws.csv", format: "cmdstan")
#   Rscript scripts/check_cmdstan.R draws_1.csv draws_2.csv ...
# It prints rstan's summary, the first sampler rows and the adaptation info.
suppressMessages(library(rstan))
files <- commandArgs(trailingOnly = TRUE)
if (length(files) == 0) stop("usage: Rscript scripts/check_cmdstan.R draws_1.csv ...")
fit <- read_stan_csv(files)
print(fit)
print(head(get_sampler_params(fit, inc_warmup = FALSE)[[1]], 3))
cat(get_adaptation_info(fit)[[1]], "\n")
