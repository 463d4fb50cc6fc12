#!/bin/bash
# Gram 5,000 × 5,000 (RBF, D = 2 and 10) from a KML script against NumPy,
# alternately, three rounds: quote ratios from one run only.
#   bench/gram_numpy.sh
# Needs Debian's python3-numpy (/usr/bin/python3).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go test -c -o "$tmp/kernel.test" ./stdlib/kernel)
/usr/bin/python3 -c 'import numpy; print("numpy", numpy.__version__)'
for i in 1 2 3; do
  (cd "$root/stdlib/kernel" && "$tmp/kernel.test" -test.run XXX -test.bench GramScript -test.benchtime 5x -test.benchmem | grep Benchmark | sed 's/^/kml /')
  /usr/bin/python3 "$root/bench/gram_numpy.py"
done
