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
