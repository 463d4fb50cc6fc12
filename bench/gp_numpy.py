"""The NumPy/SciPy and scikit-learn sides of bench/gp_numpy.sh: the three
end-to-end aims of issue 30 item 1, each beside the KML script in bench/gp/
that does the same, whose --json output is read from a file.

  gp_numpy.py data DIR          write the seeded synthetic data into DIR
  gp_numpy.py loglik DIR JSON   (a) GP log marginal likelihood, n = 2000, D = 10
  gp_numpy.py mlii DIR JSON     (b) ML-II on the diabetes data, 5 starts
  gp_numpy.py kbr DIR JSON      (c) KBR's exact build, n = 1000, 2000, 4000

(a) is log N(y | 0, K + σ²I) for K = amp·exp(−½‖(x − x')/ℓ‖²) (ARD):
the kernel matrix through one matrix product (‖a‖² + ‖b‖² − 2aᵀb), SciPy's
cho_factor and cho_solve, the log determinant from the factor's diagonal.
The two values must agree to 1e-8 relative, or the script exits with
status 1. (b) is scikit-learn's GaussianProcessRegressor with the kernel of
bench/gp/mlii.kml, C·RBF(ARD) + C·DotProduct(σ₀ = 0, held) +
WhiteKernel, alpha = 0.01² (KML's noise sd 0.01), n_restarts_optimizer = 4
(5 starts, as KML's starts: 5), scikit-learn's default bounds
(1e-5, 1e5) for every hyperparameter. It prints both optima and
scikit-learn's log marginal likelihood at KML's optimum (the two
objectives are the same function, so that number must equal KML's logp).
(c) is the exact kernel Bayes' rule build of runtime/kbr (Fukumizu et al.
2013): m = K(X, U)γ, μ = (G_X + nεI)⁻¹m by Cholesky, B = diag(μ)G_Y,
B² + δI factorised by LU; μ must agree with KML's to 1e-8 relative.

Times are wall clock (best of the repeats) and CPU seconds of the whole
process (all threads) per call. Needs /usr/bin/python3 with numpy and scipy
(Debian: python3-numpy, python3-scipy) and, for mlii, scikit-learn
(Debian: sudo apt-get install -y python3-sklearn).
"""
import json
import os
import sys
import time

import numpy as np
import scipy
from scipy.linalg import cho_factor, cho_solve, lu_factor

# The hyperparameters of bench/gp/loglik.kml.
LL_ELL = 2 + 0.1 * np.arange(10)
LL_AMP, LL_SIGMA = 1.5, 0.3
KBR_NS = (1000, 2000, 4000)
KBR_EPS, KBR_DELTA = 1e-3, 1e-6


def write(path, cols, names):
    np.savetxt(path, np.column_stack(cols), delimiter=",", fmt="%.17g",
               header=",".join(names), comments="")


def data(d):
    r = np.random.default_rng(30)  # the number: one stream per file
    X = r.standard_normal((2000, 10))
    y = np.sin(X[:, :3].sum(axis=1)) + 0.3 * r.standard_normal(2000)
    write(os.path.join(d, "loglik.csv"), [X, y], ["x%d" % i for i in range(1, 11)] + ["y"])
    r = np.random.default_rng(31)
    for n in KBR_NS:
        x = r.standard_normal((n, 2))
        y = x + 0.5 * r.standard_normal((n, 2))
        write(os.path.join(d, "kbr_%d.csv" % n), [x, y], ["x1", "x2", "y1", "y2"])
    u = 1.1 * r.standard_normal((2000, 2))
    write(os.path.join(d, "kbr_prior.csv"), [u], ["u1", "u2"])


def read(path):
    return np.loadtxt(path, delimiter=",", skiprows=1)


def kml_rows(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.startswith("{")]


def timed(f, reps):
    """Best wall time and mean CPU time (all threads) of reps calls."""
    best, cpu, out = float("inf"), 0.0, None
    for _ in range(reps):
        c0, t0 = time.process_time(), time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
        cpu += time.process_time() - c0
    return out, best, cpu / reps


def rbf_gram(A, B, ell):
    a, b = A / ell, B / ell
    d = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T
    np.maximum(d, 0, out=d)
    return np.exp(-0.5 * d)


def loglik(d, kml):
    D = read(os.path.join(d, "loglik.csv"))
    X, y = D[:, :10], D[:, 10]
    n = len(y)

    def ll():
        K = LL_AMP * rbf_gram(X, X, LL_ELL)
        K[np.diag_indices(n)] += LL_SIGMA ** 2
        c = cho_factor(K, lower=True, overwrite_a=True, check_finite=False)
        alpha = cho_solve(c, y, check_finite=False)
        return -0.5 * y @ alpha - np.log(np.diag(c[0])).sum() - 0.5 * n * np.log(2 * np.pi)

    val, best, cpu = timed(ll, 7)
    k = kml_rows(kml)[0]
    rel = abs(k["loglik"] - val) / abs(val)
    kbest = min(k["seconds"])
    print("(a) loglik n=2000 D=10 | KML %.16g | NumPy %.16g | relative difference %.1e"
          % (k["loglik"], val, rel))
    print("(a) loglik seconds (best of 7) | KML %.4f | NumPy %.4f (CPU %.4f) | ratio NumPy/KML %.2f"
          % (kbest, best, cpu, best / kbest))
    if not rel <= 1e-8:
        print("FAIL: the log likelihoods differ by more than 1e-8 relative")
        return 1
    return 0


def mlii(d, kml, cpu_kml):
    import sklearn
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, DotProduct, WhiteKernel

    D = read(os.path.join(d, "diabetes.csv"))
    X, y = D[:, :10], D[:, 10]
    kernel = (ConstantKernel(1.0) * RBF(np.ones(10))
              + ConstantKernel(1.0) * DotProduct(sigma_0=0.0, sigma_0_bounds="fixed")
              + WhiteKernel(1.0))
    gpr = GaussianProcessRegressor(kernel=kernel, alpha=0.01 ** 2, n_restarts_optimizer=4,
                                   random_state=1)
    rows = kml_rows(kml)
    k = max(rows, key=lambda r: r["logp"])
    kbest = min(r["seconds"] for r in rows)
    fit, best, cpu = timed(lambda: gpr.fit(X, y), 2)
    kk = fit.kernel_
    # KML's optimum in scikit-learn's parameters (log scale, its order:
    # C₁, ℓ₁..ℓ₁₀, C₂, white noise).
    theta = np.log(np.concatenate([[k["t1"]], k["ell"], [k["t2"], k["t3"]]]))
    at_kml = fit.log_marginal_likelihood(theta)
    print("scikit-learn", sklearn.__version__, "scipy", scipy.__version__, "numpy", np.__version__)
    print("(b) ML-II diabetes | KML logp %.10g (best of %d runs, each 5 starts) | sklearn %.10g | sklearn's LML at KML's optimum %.10g (difference %.1e)"
          % (k["logp"], len(rows), fit.log_marginal_likelihood_value_, at_kml, at_kml - k["logp"]))
    print("(b) KML  t1 %.4g t2 %.4g t3 %.4g ell %s" % (k["t1"], k["t2"], k["t3"],
          " ".join("%.3g" % v for v in k["ell"])))
    print("(b) sklearn  t1 %.4g t2 %.4g t3 %.4g ell %s" % (
        kk.k1.k1.k1.constant_value, kk.k1.k2.k1.constant_value, kk.k2.noise_level,
        " ".join("%.3g" % v for v in kk.k1.k1.k2.length_scale)))
    print("(b) ML-II seconds | KML %.3f wall (best of %d), %.2f CPU per fit | sklearn %.3f wall (best of 2), %.2f CPU | ratio sklearn/KML wall %.2f, CPU %.2f"
          % (kbest, len(rows), cpu_kml / len(rows), best, cpu, best / kbest, cpu / (cpu_kml / len(rows))))
    if abs(at_kml - k["logp"]) > 1e-6 * abs(k["logp"]):
        print("FAIL: scikit-learn's log marginal likelihood at KML's optimum is not KML's logp")
        return 1
    return 0


def kbr(d, kml):
    U = read(os.path.join(d, "kbr_prior.csv"))
    gamma = np.full(len(U), 1 / len(U))
    status = 0
    for k in kml_rows(kml):
        n = k["n"]
        D = read(os.path.join(d, "kbr_%d.csv" % n))
        x, y = D[:, :2], D[:, 2:]

        def build():
            m = rbf_gram(x, U, 1.0) @ gamma
            G = rbf_gram(x, x, 1.0)
            G[np.diag_indices(n)] += n * KBR_EPS
            mu = cho_solve(cho_factor(G, lower=True, overwrite_a=True, check_finite=False), m,
                           check_finite=False)
            B = mu[:, None] * rbf_gram(y, y, 1.0)
            A = B @ B
            A[np.diag_indices(n)] += KBR_DELTA
            return mu, lu_factor(A, overwrite_a=True, check_finite=False)

        (mu, _), best, cpu = timed(build, 3)
        rel = np.max(np.abs(np.array(k["mu"]) - mu)) / np.max(np.abs(mu))
        print("(c) KBR exact build n=%d | KML %.3f s (best of 3) | NumPy %.3f s (CPU %.3f) | ratio NumPy/KML %.2f | μ relative difference %.1e"
              % (n, min(k["seconds"]), best, cpu, best / min(k["seconds"]), rel))
        if not rel <= 1e-8:
            print("FAIL: μ differs by more than 1e-8 relative")
            status = 1
    return status


def main():
    cmd, d = sys.argv[1], sys.argv[2]
    if cmd == "data":
        data(d)
        return 0
    if cmd == "loglik":
        return loglik(d, sys.argv[3])
    if cmd == "mlii":
        return mlii(d, sys.argv[3], float(sys.argv[4]))
    if cmd == "kbr":
        return kbr(d, sys.argv[3])
    raise SystemExit("unknown command " + cmd)


if __name__ == "__main__":
    sys.exit(main())
