#!/usr/bin/python3
"""The batched NumPy computation the kernel-test benchmarks are compared with
(runtime/ktest/bench_test.go): MMD and HSIC permutation tests at n rows per
sample, D = 10, 500 permutations, rbf kernel with lengthscale 4.

MMD: the statistic of a relabelling is a quadratic form in the 0/1
indicator e of the first sample, so all permutations come from one matrix
product E @ K.  HSIC: tr(Kc · L[p][:, p]) for each permutation p.

    /usr/bin/python3 bench/ktest_numpy.py [n ...]     (default 500 2000 5000)
    bench/ktest_numpy.sh [n ...]   (both sides, alternately, NumPy on OpenBLAS)

Prints the CPU model, then the wall time and the CPU time (user + system,
all threads: time.process_time) of each test, Gram matrices included, and
the peak resident memory of the process so far. The KML side,
`go test -run XXX -bench . ./runtime/ktest`, prints its vector path and the
CPU model on its isa: line (KML_CPU=generic|avx2|avx512 caps the path).
"""
import resource
import sys
import time

import numpy as np

D, B, ELL = 10, 500, 4.0


def gram(z):
    sq = (z * z).sum(1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2 * z @ z.T, 0)
    return np.exp(-d2 / (2 * ELL * ELL))


def mmd_test(x, y, rng):
    m, n = len(x), len(y)
    N = m + n
    K = gram(np.vstack([x, y]))
    rowsum, total, dg = K.sum(1), K.sum(), np.diag(K).copy()
    trace = dg.sum()
    E = np.zeros((B + 1, N))
    E[0, :m] = 1
    for b in range(1, B + 1):
        E[b, rng.permutation(N)[:m]] = 1
    sx = np.einsum("bi,bi->b", E @ K, E)
    rx, tx = E @ rowsum, E @ dg
    sy, sxy = total - 2 * rx + sx, rx - sx
    stat = (sx - tx) / (m * (m - 1)) + (sy - (trace - tx)) / (n * (n - 1)) - 2 * sxy / (m * n)
    return (1 + (stat[1:] >= stat[0]).sum()) / (B + 1)


def hsic_test(x, y, rng):
    n = len(x)
    K, L = gram(x), gram(y)
    H = np.eye(n) - 1.0 / n
    Kc = H @ K @ H
    obs = (Kc * L).sum() / n**2
    null = np.empty(B)
    for b in range(B):
        p = rng.permutation(n)
        null[b] = (Kc * L[np.ix_(p, p)]).sum() / n**2
    return (1 + (null >= obs).sum()) / (B + 1)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [500, 2000, 5000]
    print("numpy", np.__version__, "cpu:", cpu_model())
    rng = np.random.default_rng(1)
    for n in sizes:
        x, y = rng.standard_normal((n, D)), rng.standard_normal((n, D))
        t, c = time.perf_counter(), time.process_time()
        p = mmd_test(x, y, rng)
        tm, cm = time.perf_counter() - t, time.process_time() - c
        t, c = time.perf_counter(), time.process_time()
        q = hsic_test(x, y, rng)
        th, ch = time.perf_counter() - t, time.process_time() - c
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
        print(f"n={n}: MMD {tm:.3f} s wall {cm:.3f} cpu-s (p {p:.3f}), "
              f"HSIC {th:.3f} s wall {ch:.3f} cpu-s (p {q:.3f}), peak RSS so far {peak:.0f} MB")


if __name__ == "__main__":
    main()
