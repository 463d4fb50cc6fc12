#!/bin/bash
# Gram 5,000 × 5,000 (RBF, D = 2 and 10) from a KML script against NumPy,
# alternately, three rounds: quote ratios from one run only.
#   bench/gram_numpy.sh
# Needs Debian's python3-numpy (/usr/bin/python3) and libopenblas0-pthread
# (bench/openblas.sh: NumPy's matrix product runs on OpenBLAS).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go test -c -o "$tmp/kernel.test" ./stdlib/kernel)
. "$root/bench/openblas.sh" # peer_py: /usr/bin/python3 on OpenBLAS
for i in 1 2 3; do
  (cd "$root/stdlib/kernel" && "$tmp/kernel.test" -test.run XXX -test.bench GramScript -test.benchtime 5x -test.benchmem | grep Benchmark | sed 's/^/kml /')
  peer_py "$root/bench/gram_numpy.py"
done
