#!/usr/bin/python3
"""RCIT's statistic and null (the R package RCIT's RCoT with its default
approx = "lpd4", and "hbe" and "gamma") computed by NumPy from fixed
features, the reference of TestRCITAgainstNumPy (runtime/ktest/lpb_test.go).

    /usr/bin/python3 runtime/ktest/testdata/rcit_numpy.py > runtime/ktest/testdata/rcit_numpy.json

The features are deterministic functions of the row index (features(), the
same formulas as rcitTestFeatures in the Go test), so no data file is
needed; the z features' covariance is well conditioned (condition number
about 760), so that the two computations agree to rounding (RCIT's real
features of a low-dimensional z make C_zz nearly singular, and the 1e-10
ridge then decides the digits beyond the sixth). The computation follows the package: each feature standardised
(sd with n - 1), C = cov (n - 1), the residuals of the x and y features on
the z features through (C_zz + 1e-10 I)^-1, T = n * sum(C_xy|z^2), the null's
weights the positive eigenvalues of (1/n) R'R for the products R of the
residuals; then momentchi2's sw (gamma), hbe and lpb4 (Lindsay, Pilla and
Basak 2000, written here from the paper's steps: moments from cumulants,
lambda-tilde by root finding on det Delta_N, support points as polynomial
roots, weights from the Vandermonde system).
"""
import json
from math import comb, factorial

import numpy as np
from scipy import optimize, stats


def features(n, b):
    i = np.arange(n, dtype=float)
    z1 = np.sin(0.1 * i)
    z2 = np.cos(0.37 * i + 0.5)
    x = np.sin(z1) + 0.5 * np.sin(2.3 * i)
    y = z1 * z2 / 2 + 0.5 * np.cos(1.7 * i) + b * x * x
    fx = np.stack([np.cos((0.5 + 0.3 * j) * x + 0.7 * j) for j in range(5)], 1)
    fy = np.stack([np.cos((0.4 + 0.25 * j) * y + 1.1 * j) for j in range(5)], 1)
    fz = np.stack([np.cos(3 * np.sin(1.3 * j + 0.2) * z1 + 3 * np.cos(2.1 * j) * z2 + 0.9 * j) for j in range(12)], 1)
    return fx, fy, fz


def normalize(m):
    m = m - m.mean(0)
    sd = m.std(0, ddof=1)
    return m / np.where(sd > 0, sd, 1)


def rcot(fx, fy, fz):
    n = fx.shape[0]
    fx, fy = normalize(fx), normalize(fy)
    if fz is None:
        rx, ry = fx, fy
        cxy = np.cov(fx.T, fy.T)[:5, 5:]
    else:
        fz = normalize(fz)
        k = fz.shape[1]
        cov = lambda a, b: a.T @ b / (n - 1)
        iczz = np.linalg.inv(cov(fz, fz) + 1e-10 * np.eye(k))
        cxz, czy = cov(fx, fz), cov(fz, fy)
        rx = fx - fz @ iczz @ cxz.T
        ry = fy - fz @ iczz @ czy
        cxy = cov(fx, fy) - cxz @ iczz @ czy
    sta = n * np.sum(cxy ** 2)
    res = np.stack([rx[:, a] * ry[:, b] for a in range(rx.shape[1]) for b in range(ry.shape[1])], 1)
    lam = np.linalg.eigvalsh(res.T @ res / n)
    return sta, lam[lam > 0]


def moments(lam, k):
    kap = [2 ** (r - 1) * factorial(r - 1) * np.sum(lam ** r) for r in range(1, k + 1)]
    m = [1.0]
    for q in range(1, k + 1):
        m.append(kap[q - 1] + sum(comb(q - 1, j - 1) * kap[j - 1] * m[q - j] for j in range(1, q)))
    return np.array(m)


def delta(x, m, N):
    c = np.array([0] + list(range(2 * N))) * x + 1
    d = m[: 2 * N + 1] / np.cumprod(c)
    return np.array([[d[i + j] for j in range(N + 1)] for i in range(N + 1)])


def lpb4(lam, t):
    p = 4
    m = moments(lam, 2 * p)
    lt = m[2] / m[1] ** 2 - 1
    for N in range(2, p + 1):
        lt = optimize.brentq(lambda v: np.linalg.det(delta(v, m, N)), 0, lt, xtol=1e-15, rtol=1e-15)
    M = delta(lt, m, p)
    coef = []
    for i in range(p + 1):
        A = M.copy()
        A[:, p] = np.eye(p + 1)[i]
        coef.append(np.linalg.det(A))
    mu = np.real(np.polynomial.polynomial.polyroots(coef))
    pi = np.linalg.solve(np.array([mu ** r for r in range(p)]), M[:p, 0])
    a = 1 / lt
    return float(sum(pi[j] * stats.gamma.sf(t, a, scale=mu[j] / a) for j in range(p)))


def hbe(lam, t):
    k1, k2, k3 = lam.sum(), 2 * (lam ** 2).sum(), 8 * (lam ** 3).sum()
    nu = 8 * k2 ** 3 / k3 ** 2
    return float(stats.chi2.sf(np.sqrt(2 * nu / k2) * (t - k1) + nu, nu))


def sw(lam, t):
    w = lam.sum()
    u = (lam ** 2).sum() / w ** 2
    return float(stats.gamma.sf(t, 0.5 / u, scale=2 * u * w))


def main():
    out = {}
    for b in (0.04, 0.12):
        fx, fy, fz = features(300, b)
        for name, z in (("rcit", fz), ("rit", None)):
            sta, lam = rcot(fx, fy, z)
            out["%s b=%g" % (name, b)] = {
                "b": b, "conditional": z is not None, "statistic": float(sta), "sum_lambda": float(lam.sum()),
                "sum_lambda2": float((lam ** 2).sum()), "lpb4": lpb4(lam, sta), "hbe": hbe(lam, sta), "gamma": sw(lam, sta)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
