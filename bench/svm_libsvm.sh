#!/bin/bash
# SVM-loss MKL's inner solve (runtime/gp SVMDual, the hinge dual without
# intercept) against libsvm through scikit-learn's SVC on the same Gram
# matrix, n = 1000 and 2000 (issue 42 item 6: aim ≥ 1×). Both are one
# thread; the figures are processor seconds. Two rounds, alternated; quote
# one round with the load average it prints.
#   bench/svm_libsvm.sh            KML_CPU=avx2 bench/svm_libsvm.sh
# Needs /usr/bin/python3 with numpy and scikit-learn (libsvm uses no BLAS).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go test -c -o "$tmp/gp.test" ./runtime/gp)
grep -m1 'model name' /proc/cpuinfo
echo "isa cap: ${KML_CPU:-widest}"
for round in 1 2; do
  echo "round $round: $(uptime)"
  (cd "$root/runtime/gp" && KML_SVM_DUMP="$tmp" GOMAXPROCS=1 "$tmp/gp.test" -test.run XXX \
    -test.bench BenchmarkSVMDual -test.benchtime 5x | grep Benchmark | sed 's/^/kml /')
  /usr/bin/python3 "$root/bench/svm_libsvm.py" "$tmp"
done
