"""DGEMM and Cholesky on NumPy/SciPy (OpenBLAS, Debian's python3-numpy and
python3-scipy), timed as runtime/internal/blas3's Go benchmarks time them:
DGEMM C = A·B at n = 256, 512, 1024, 2000 (2n³ flops) and the Cholesky
factorisation of an SPD matrix at n = 1000, 2000, 4000 (n³/3 flops) and the
inverse from the factor (dpotri, 2n³/3 flops) at n = 1000, 2000, 4000, and
the triangular solves with the upper factor U: dtrsm U·X = B and Uᵀ·X = B
for n right-hand sides (n³ flops) and for one (n², through
solve_triangular, as a user would call it), and cho_solve with n
right-hand sides (dpotrs, 2n³ flops), each the median of a few
repetitions; and scipy.linalg.cholesky(A, lower=True) on a C-ordered array
at n = 500, 2000 as a script calls it, beside stdlib/core's
BenchmarkCholBuiltin (KML's chol from a script) and BenchmarkCholBare. Arrays are in Fortran order so that SciPy copies nothing but
B (which it copies when not told to overwrite it, as the Go benchmarks
copy B back before every solve). Prints lines in the format of `go test
-bench`, with GFLOP/s (wall clock) and GFLOP/cpu-s (per second of processor
time, all threads), so bench/blas_numpy.sh can put them side by side.

    /usr/bin/python3 bench/blas_numpy.py
    /usr/bin/python3 bench/blas_numpy.py chol N...   (only CholBuiltin, at N)

bench/blas_numpy.sh and bench/chol_scipy.sh run it on OpenBLAS
(bench/openblas.sh); lines also give cpu-ms/op, processor time per
operation as KML's chol benchmarks report it.
"""
import sys
import time

import numpy as np
import scipy.linalg
import scipy.linalg.blas


def timed(f, reps):
    walls, cpus = [], []
    for _ in range(reps):
        w0, c0 = time.perf_counter(), time.process_time()
        f()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    walls.sort()
    cpus.sort()
    return walls[len(walls) // 2], cpus[len(cpus) // 2]


def line(name, reps, flops, wall, cpu):
    print(f"numpy/{name}\t{reps}\t{wall * 1e9:.0f} ns/op\t{cpu * 1e3:.2f} cpu-ms/op\t"
          f"{flops / cpu / 1e9:.2f} GFLOP/cpu-s\t{flops / wall / 1e9:.2f} GFLOP/s", flush=True)


def main():
    rng = np.random.default_rng(1)
    for n in (256, 512, 1024, 2000):
        a = rng.uniform(-1, 1, (n, n))
        b = rng.uniform(-1, 1, (n, n))
        c = np.empty((n, n))
        reps = 20 if n <= 512 else 5
        np.matmul(a, b, out=c)  # warm up
        wall, cpu = timed(lambda: np.matmul(a, b, out=c), reps)
        line(f"Dgemm/n={n}", reps, 2.0 * n ** 3, wall, cpu)
    for n in (1000, 2000, 4000):
        x = rng.uniform(-1, 1, (n, n))
        s = x @ x.T + n * np.eye(n)
        reps = 5 if n <= 2000 else 3
        scipy.linalg.cholesky(s, check_finite=False)  # warm up
        wall, cpu = timed(lambda: scipy.linalg.cholesky(s, check_finite=False), reps)
        line(f"Cholesky/n={n}", reps, n ** 3 / 3.0, wall, cpu)
        u = scipy.linalg.cholesky(s, check_finite=False)
        wall, cpu = timed(lambda: scipy.linalg.lapack.dpotri(u), reps)
        line(f"Inverse/n={n}", reps, 2 * n ** 3 / 3.0, wall, cpu)
        solves(rng, n, np.asfortranarray(u), reps)
    chol_builtin(rng, (500, 2000))


def chol_builtin(rng, sizes):
    """chol(A) from a script beside scipy.linalg.cholesky as a user calls it:
    a C-ordered array, the lower factor, finiteness checked (SciPy copies
    to Fortran order; KML checks symmetry and copies the lower triangle)."""
    for n in sizes:
        x = rng.uniform(-1, 1, (n, n))
        s = x @ x.T / n + np.eye(n)
        reps = 20 if n <= 500 else 5
        scipy.linalg.cholesky(s, lower=True)  # warm up
        wall, cpu = timed(lambda: scipy.linalg.cholesky(s, lower=True), reps)
        line(f"CholBuiltin/n={n}", reps, n ** 3 / 3.0, wall, cpu)


def solves(rng, n, u, reps):
    """Rows Trsm/n=N/rhs=n/{N,T}, Trsm/n=N/rhs=1/{N,T} and CholSolve/n=N."""
    dtrsm = scipy.linalg.blas.dtrsm
    bn = np.asfortranarray(rng.uniform(-1, 1, (n, n)))
    b1 = rng.uniform(-1, 1, n)
    for t, name in ((0, "N"), (1, "T")):
        dtrsm(1.0, u, bn, lower=0, trans_a=t)  # warm up
        wall, cpu = timed(lambda: dtrsm(1.0, u, bn, lower=0, trans_a=t), reps)
        line(f"Trsm/n={n}/rhs=n/{name}", reps, float(n) ** 3, wall, cpu)
    for t, name in ((0, "N"), (1, "T")):
        def one():
            scipy.linalg.solve_triangular(u, b1, trans=t, lower=False, check_finite=False)
        wall, cpu = timed(one, 50)
        line(f"Trsm/n={n}/rhs=1/{name}", 50, float(n) ** 2, wall, cpu)
    scipy.linalg.cho_solve((u, False), bn, check_finite=False)
    wall, cpu = timed(lambda: scipy.linalg.cho_solve((u, False), bn, check_finite=False), reps)
    line(f"CholSolve/n={n}", reps, 2.0 * float(n) ** 3, wall, cpu)


if __name__ == "__main__":
    if sys.argv[1:2] == ["chol"]:
        chol_builtin(np.random.default_rng(1), [int(a) for a in sys.argv[2:]] or [2000])
    else:
        main()
