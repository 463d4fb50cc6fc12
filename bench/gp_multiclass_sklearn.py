"""scikit-learn's GaussianProcessClassifier on the split of
examples/gp_digits_multiclass.kml (examples/data/digits_mc_train.csv and
digits_mc_test.csv, which that example writes): one-vs-rest Laplace
(multi_class="one_vs_rest", the only multi-class mode of its Laplace
approximation), one binary logistic GP per digit, each with the kernel
ConstantKernel * RBF (an amplitude and an isotropic lengthscale, as the KML
model's a * rbf(ell)) fitted by ML-II on its own, so the ten binary models
have ten kernels where KML's softmax model shares one; the probabilities
are the ten binary ones normalised to sum to 1. Prints accuracy, log-loss
and seconds for fit and predict, and the CPU seconds, as the KML example
prints its own.

Run by bench/gp_multiclass_sklearn.sh. Needs /usr/bin/python3 with numpy,
scipy and scikit-learn (Debian: sudo apt-get install -y python3-sklearn).
"""
import os
import sys
import time

import numpy as np
import sklearn
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF, ConstantKernel


def load(path):
    d = np.loadtxt(path, delimiter=",", skiprows=1)
    return d[:, :64] / 16.0, d[:, 64].astype(int)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    data = os.path.join(here, "..", "examples", "data")
    X, y = load(os.path.join(data, "digits_mc_train.csv"))
    Xt, yt = load(os.path.join(data, "digits_mc_test.csv"))
    print("scikit-learn", sklearn.__version__, "training", X.shape[0], "held out", Xt.shape[0])
    restarts = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    # The KML example starts its L-BFGS at the prior medians e¹ of a and ell.
    kernel = ConstantKernel(np.e, (1e-3, 1e5)) * RBF(np.e, (1e-2, 1e3))
    gpc = GaussianProcessClassifier(kernel=kernel, multi_class="one_vs_rest",
                                    n_restarts_optimizer=restarts, random_state=1)
    c0, t0 = time.process_time(), time.perf_counter()
    gpc.fit(X, y)
    fit_s, fit_cpu = time.perf_counter() - t0, time.process_time() - c0
    c0, t0 = time.process_time(), time.perf_counter()
    p = gpc.predict_proba(Xt)
    pred_s, pred_cpu = time.perf_counter() - t0, time.process_time() - c0
    classes = list(gpc.classes_)
    idx = np.array([classes.index(c) for c in yt])
    acc = np.mean(np.array(classes)[p.argmax(axis=1)] == yt)
    logloss = -np.mean(np.log(np.maximum(p[np.arange(len(yt)), idx], 1e-300)))
    kernels = [e.kernel_ for e in gpc.base_estimator_.estimators_]
    amp = [k.k1.constant_value for k in kernels]
    ell = [k.k2.length_scale for k in kernels]
    print("per-class a: median %.3g (range %.3g-%.3g); ell: median %.3g (range %.3g-%.3g)"
          % (np.median(amp), min(amp), max(amp), np.median(ell), min(ell), max(ell)))
    print("sklearn one-vs-rest Laplace | accuracy %.4f | log-loss %.4f | fit %.1f s (CPU %.1f s) | predict %.1f s (CPU %.1f s)"
          % (acc, logloss, fit_s, fit_cpu, pred_s, pred_cpu))


if __name__ == "__main__":
    main()
