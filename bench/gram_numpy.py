"""NumPy's RBF Gram matrix exp(-(|x|^2 + |y|^2 - 2 x.y)/2) at n = 5000,
D = 2 and 10, the reference of BenchmarkGramScript (bench/gram_numpy.sh).
Prints one line per shape: the median seconds per Gram matrix of 5 runs."""
import sys
import time

import numpy as np

n = 5000
for d in (2, 10):
    x = np.random.default_rng(1).standard_normal((n, d))
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        sq = np.einsum("ij,ij->i", x, x)
        g = x @ x.T
        g *= -2
        g += sq[:, None]
        g += sq[None, :]
        np.maximum(g, 0, out=g)
        g *= -0.5
        np.exp(g, out=g)
        times.append(time.perf_counter() - t0)
        del g
    times.sort()
    print(f"numpy n={n},D={d}\t{times[2]:.4f} s/op", flush=True)
sys.stdout.flush()
