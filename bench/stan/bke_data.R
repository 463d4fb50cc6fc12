# bkedata(shape) is the Stan data of bke1.stan or bke2.stan from data/
# (data.R): the points, the landmarks and tau2 = 1, as bke1.kml and
# bke2.kml read them.
bkedata <- function(shape) {
  x <- as.matrix(read.csv(file.path("data", paste0(shape, ".csv"))))
  z <- as.matrix(read.csv(file.path("data", paste0(shape, "_z.csv"))))
  if (ncol(x) == 1) {
    list(N = nrow(x), M = nrow(z), x = x[, 1], z = z[, 1], tau2 = 1)
  } else {
    list(N = nrow(x), M = nrow(z), x = x, z = z, tau2 = 1)
  }
}
