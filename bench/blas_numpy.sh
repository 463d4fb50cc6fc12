#!/bin/bash
# KML's level-3 BLAS (runtime/internal/blas3: DGEMM, mat.Cholesky's
# Factorize, LAPACK's Dpotrf,
# mat.Cholesky.InverseTo and SolveTo, DTRSM with n and 1 right-hand
# sides; "gonum" is gonum's own BLAS) against
# NumPy/SciPy on OpenBLAS, alternately, three rounds, on all cores: quote
# ratios from one round only, with the load average it prints. GFLOP/s is
# wall clock; GFLOP/cpu-s per second of processor time (all threads), the
# steadier figure on a shared machine. Each KML benchmark runs on every
# vector path up to the one KML_CPU allows (sub-benchmarks /none, /avx2,
# /avx512), and the isa: line names that cap and the CPU model.
#   bench/blas_numpy.sh            KML_CPU=avx2 bench/blas_numpy.sh
#   ROUNDS=1 bench/blas_numpy.sh   (one round instead of three)
# Needs Debian's python3-numpy and python3-scipy (/usr/bin/python3) and
# libopenblas0-pthread (bench/openblas.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go test -c -o "$tmp/blas3.test" ./runtime/internal/blas3)
(cd "$root" && go test -c -o "$tmp/core.test" ./stdlib/core)
# NumPy and SciPy on OpenBLAS (bench/openblas.sh: installs it if need be,
# prints the libraries they load, refuses another BLAS).
. "$root/bench/openblas.sh"
grep -m1 'model name' /proc/cpuinfo
grep -m1 'cpu MHz' /proc/cpuinfo
# The path KML_CPU leaves (the isa: line), and the CPU model.
(cd "$root/runtime/internal/blas3" && "$tmp/blas3.test" -test.run XXX -test.bench XXX | grep '^isa:')
for i in $(seq 1 "${ROUNDS:-3}"); do
  echo "round $i: $(uptime)"
  (cd "$root/runtime/internal/blas3" && "$tmp/blas3.test" -test.run XXX \
    -test.bench '(Dgemm|Cholesky|Potrf|Inverse)/n=[0-9]+/(avx|gonum)|(Trsm|CholSolve)/n=' -test.benchtime 1s | grep -E '^(isa:|Benchmark)' | sed 's/^/kml /')
  # chol(A) from a script, and the bare factorisation it wraps (their
  # ratio is chol's own cost; issue 42 aims at <= 1.1).
  (cd "$root/stdlib/core" && "$tmp/core.test" -test.run XXX \
    -test.bench 'Chol(Builtin|Bare)/' -test.benchtime 1s | grep Benchmark | sed 's/^/kml /')
  peer_py "$root/bench/blas_numpy.py"
done
