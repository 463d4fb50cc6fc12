# Writes the data of the shapes to data/ (seeded): Rscript data.R
set.seed(15)
dir.create("data", showWarnings = FALSE)
n <- 100; X <- matrix(rnorm(n * 5), n, 5)
y <- 1 + X %*% (1:5 / 4) + rnorm(n, 0, 0.5)
write.csv(data.frame(X, y = y), "data/linreg.csv", row.names = FALSE)
write.csv(data.frame(y = c(28, 8, -3, 7, -1, 1, 18, 12), sigma = c(15, 10, 16, 11, 9, 11, 10, 18)),
          "data/hier8.csv", row.names = FALSE)
z <- as.numeric(arima.sim(list(ar = c(0.3, -0.2, 0.1, 0.05, -0.1)), n = 200))
L <- sapply(1:5, function(k) z[(6 - k):(200 - k)])
write.csv(data.frame(L, y = z[6:200]), "data/ar5.csv", row.names = FALSE)
y <- ifelse(runif(1000) < 0.6, rnorm(1000, 2, 1), rnorm(1000, -2, 1))
write.csv(data.frame(y = y), "data/mix.csv", row.names = FALSE)
# GARCH(1,1): 200 returns, mu = 0.1, omega = 0.2, alpha = 0.3, beta = 0.5.
y <- numeric(200); s2 <- 1
for (t in 1:200) { y[t] <- 0.1 + sqrt(s2) * rnorm(1); s2 <- 0.2 + 0.3 * (y[t] - 0.1)^2 + 0.5 * s2 }
write.csv(data.frame(y = y), "data/garch.csv", row.names = FALSE)
set.seed(30)
# BKE, D = 1: 800 points from a two-normal mixture (0.3 N(-2, 0.5²) +
# 0.7 N(1, 1)) and 20 landmarks drawn apart from them from the same mixture.
mix1 <- function(n) ifelse(runif(n) < 0.3, rnorm(n, -2, 0.5), rnorm(n, 1, 1))
write.csv(data.frame(x = mix1(800)), "data/bke1.csv", row.names = FALSE)
write.csv(data.frame(z = mix1(20)), "data/bke1_z.csv", row.names = FALSE)
# BKE, D = 2: examples/two_sample_grid.kml's P, 100 unit Gaussians around
# each centre (10 (k mod 3), 10 floor(k / 3)), k = 0..8 (900 points), and 30
# landmarks drawn apart from them from the same mixture (random centres).
grid2 <- function(k) cbind(10 * (k %% 3) + rnorm(length(k)), 10 * (k %/% 3) + rnorm(length(k)))
x <- grid2(rep(0:8, each = 100))
write.csv(data.frame(x1 = x[, 1], x2 = x[, 2]), "data/bke2.csv", row.names = FALSE)
z <- grid2(sample(0:8, 30, replace = TRUE))
write.csv(data.frame(z1 = z[, 1], z2 = z[, 2]), "data/bke2_z.csv", row.names = FALSE)
