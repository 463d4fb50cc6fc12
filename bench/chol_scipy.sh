#!/bin/bash
# chol(A) from a script (stdlib/core's BenchmarkCholBuiltin: the builtin
# called on a bound n×n matrix, with its symmetry check and copy; and
# BenchmarkCholBuiltinMarked: the same matrix marked exactly symmetric, as
# gram(k, x) + eps * eye(n) is, which skips the check), the
# bare factorisation it wraps (BenchmarkCholBare: LAPACK's potrf, blas3's,
# on a copy made before the clock) and scipy.linalg.cholesky(A, lower=True)
# on a C-ordered array as a user calls it (bench/blas_numpy.py chol), on
# OpenBLAS. Three rounds, each running KML's AVX-512 and AVX2 paths
# (KML_CPU) and the peer with OpenBLAS's SkylakeX and Haswell kernels
# (OPENBLAS_CORETYPE) one after the other; a path the CPU lacks is capped
# at its widest (the isa: lines say which ran). Each line gives cpu-ms/op,
# processor time per factorisation on all threads, the figure to quote on
# a shared machine, and each round ends with the ratios per path:
# script/bare (issue 42 aims at <= 1.10; marked: the same for the marked
# matrix) and SciPy/script (aim >= 0.9).
#   bench/chol_scipy.sh [n]                              (default n = 2000)
#   GOMAXPROCS=1 OPENBLAS_NUM_THREADS=1 bench/chol_scipy.sh  (one thread each)
# Needs Debian's python3-numpy and python3-scipy (/usr/bin/python3) and
# libopenblas0-pthread (bench/openblas.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=${1:-2000}
(cd "$root" && go test -c -o "$tmp/core.test" ./stdlib/core)
. "$root/bench/openblas.sh" # peer_py: /usr/bin/python3 on OpenBLAS
grep -m1 'model name' /proc/cpuinfo
echo "threads: GOMAXPROCS=${GOMAXPROCS:-all} OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-all} of $(nproc)"
for round in 1 2 3; do
  echo "round $round: $(uptime)"
  for path in avx512 avx2; do
    (cd "$root/stdlib/core" && KML_CPU=$path "$tmp/core.test" -test.run XXX \
      -test.bench "Chol(Builtin|BuiltinMarked|Bare)/n=$n\$" -test.benchtime 10x) | grep -E '^(isa:|Benchmark)' >"$tmp/kml"
    OPENBLAS_CORETYPE=$(peer_coretype "$path") peer_py "$root/bench/blas_numpy.py" chol "$n" >"$tmp/py"
    sed "s/^/kml $path /" "$tmp/kml"
    sed "s/^/scipy $(peer_coretype "$path") /" "$tmp/py"
    cpu() { awk -v k="$1" '$1 ~ k { for (i = 2; i <= NF; i++) if ($i == "cpu-ms/op") print $(i - 1) }' "$2"; }
    awk -v s="$(cpu 'CholBuiltin/' "$tmp/kml")" -v m="$(cpu CholBuiltinMarked "$tmp/kml")" -v b="$(cpu CholBare "$tmp/kml")" \
      -v p="$(cpu CholBuiltin "$tmp/py")" -v path="$path" \
      'BEGIN { printf "ratio %s n=%s: script/bare %.3f, marked/bare %.3f, scipy/script %.2f (cpu)\n", path, '"$n"', s / b, m / b, p / s }'
  done
done
echo "$(uptime)"
