#!/bin/bash
# The MMD and HSIC permutation tests (D = 10, 500 permutations, rbf with
# lengthscale 4) from runtime/ktest's benchmarks beside the batched NumPy
# computation of bench/ktest_numpy.py on OpenBLAS, alternately, two rounds,
# on the same cores: quote ratios from one round, with the load average it
# prints. Both sides print wall time and CPU time (user + system, all
# threads: KML's cpu-s/op, NumPy's cpu-s), Gram matrices included; on a
# shared machine quote the CPU ratios.
#   bench/ktest_numpy.sh [n ...]        (default 2000; the benchmarks have 500, 2000, 5000)
#   KML_CPU=avx2 bench/ktest_numpy.sh   (the AVX2 path, and OpenBLAS's Haswell kernels)
# Needs Debian's python3-numpy (/usr/bin/python3) and libopenblas0-pthread
# (bench/openblas.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sizes=${*:-2000}
(cd "$root" && go test -c -o "$tmp/ktest.test" ./runtime/ktest)
. "$root/bench/openblas.sh" # peer_py: /usr/bin/python3 on OpenBLAS
pattern="PermutationTest/n=($(echo "$sizes" | tr ' ' '|'))\$"
for round in 1 2; do
  echo "round $round: $(uptime)"
  (cd "$root/runtime/ktest" && "$tmp/ktest.test" -test.run XXX -test.bench "$pattern" \
    -test.benchtime 1x | grep -E '^(isa:|Benchmark)' | sed 's/^/kml /')
  # shellcheck disable=SC2086 # one argument per size
  peer_py "$root/bench/ktest_numpy.py" $sizes | sed 's/^/numpy /'
done
echo "$(uptime)"
