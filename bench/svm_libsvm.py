"""libsvm (scikit-learn's SVC, kernel="precomputed") on the Gram matrices
BenchmarkSVMDual writes (runtime/gp/svm_bench_test.go, KML_SVM_DUMP):
the peer of SVM-loss MKL's inner solve (issue 42 item 6).

libsvm's C = 1 is KML's C = 2 (KML's primal is twice libsvm's); libsvm
adds an intercept (an equality constraint KML's dual has not), so the two
solve neighbouring problems of the same size and conditioning. Times are
processor seconds (libsvm runs on one thread, as KML's solver does), the
median of five fits, at libsvm's default tolerance 1e-3 and at 1e-6.
Usage: svm_libsvm.py DIR (holding svm_1000.bin, svm_2000.bin)."""
import sys
import time

import numpy as np
from sklearn.svm import SVC


def load(path):
    a = np.fromfile(path, dtype="<f8")
    n = int(a[0])
    K = a[1:1 + n * n].reshape(n, n)
    y = a[1 + n * n:]
    return K, y


def main():
    d = sys.argv[1]
    for n in (1000, 2000):
        K, y = load(f"{d}/svm_{n}.bin")
        for tol in (1e-3, 1e-6):
            ts = []
            for _ in range(5):
                m = SVC(kernel="precomputed", C=1.0, tol=tol, shrinking=True, cache_size=2000)
                t0 = time.process_time()
                m.fit(K, y)
                ts.append(time.process_time() - t0)
            print(f"libsvm n={n} tol={tol:g}: {np.median(ts):.4f} cpu-s (min {min(ts):.4f}), {len(m.support_)} support vectors")


main()
