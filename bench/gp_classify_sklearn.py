"""scikit-learn's GaussianProcessClassifier on the training split of
examples/gp_classify.kml (3s against 8s of the UCI digits, n = 207,
D = 64), beside the ML-II fit of bench/gp/classify.kml: the same logistic
likelihood, Laplace's approximation, the kernel ConstantKernel * RBF (an
amplitude and an isotropic lengthscale, as the KML model's a * rbf(ell)),
L-BFGS started at a = ell = e (the KML fit starts from its seeded start,
seed 1: a = 0.47, ell = 5.46; both reach the same optimum). Prints seconds (wall and CPU) per fit, both optima and scikit-learn's
log marginal likelihood at KML's optimum, so that "same optimum" can be
checked, and the ratio of the best fit times (> 1: KML faster).

Run by bench/gp_classify_sklearn.sh:
  gp_classify_sklearn.py DIR KML.json
with DIR holding classify_train.csv (written by bench/gp/classify.kml) and
KML.json that script's --json output. Needs /usr/bin/python3 with numpy,
scipy and scikit-learn (Debian: sudo apt-get install -y python3-sklearn).
"""
import json
import os
import sys
import time

import numpy as np
import sklearn
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF, ConstantKernel


def main():
    d, kml_json = sys.argv[1], sys.argv[2]
    data = np.loadtxt(os.path.join(d, "classify_train.csv"), delimiter=",", skiprows=1)
    X, y = data[:, :64], data[:, 64].astype(int)
    rows = [json.loads(l) for l in open(kml_json) if l.strip()]
    fits = [r for r in rows if "seconds" in r]
    ep = [r for r in rows if "ep_seconds" in r]
    print("scikit-learn", sklearn.__version__, "n", X.shape[0], "D", X.shape[1])
    times, cpus = [], []
    for _ in range(3):
        kernel = ConstantKernel(np.e, (1e-3, 1e8)) * RBF(np.e, (1e-2, 1e3))
        gpc = GaussianProcessClassifier(kernel=kernel, n_restarts_optimizer=0, random_state=1)
        c0, t0 = time.process_time(), time.perf_counter()
        gpc.fit(X, y)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        times.append(wall)
        cpus.append(cpu)
        k = gpc.kernel_
        print("sklearn Laplace ML-II | a %.4g ell %.4g | LML %.6f | fit %.3f s (CPU %.3f s)"
              % (k.k1.constant_value, k.k2.length_scale, gpc.log_marginal_likelihood_value_, wall, cpu))
    for r in fits:
        print("KML Laplace ML-II     | a %.4g ell %.4g | LML %.6f | fit %.3f s | %d iterations"
              % (r["a"], r["ell"], r["logp"], r["seconds"], r["iterations"]))
    r = fits[0]
    at = np.log([r["a"], r["ell"]])
    print("sklearn's LML at KML's optimum: %.6f (KML: %.6f)" % (gpc.log_marginal_likelihood(at), r["logp"]))
    for e in ep:
        print("KML EP, one evaluation at that optimum: log Z %.6f in %.3f s" % (e["ep_logp"], e["ep_seconds"]))
    best = min(f["seconds"] for f in fits)
    print("ratio of best fit times, sklearn / KML: %.2f" % (min(times) / best))
    print("sklearn CPU seconds per fit (best of 3): %.3f" % min(cpus))


if __name__ == "__main__":
    main()
