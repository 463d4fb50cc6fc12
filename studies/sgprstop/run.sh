#!/bin/sh
# studies/sgprstop/run.sh: strict SGPR ML-II fits (gradient threshold 1e-6,
# optimize()'s L-BFGS settings otherwise) of examples/gp_large.kml's design
# at n rows (default 10000), m = 512 k-means inducing points, on the data
# sets SEEDS (stream indices of BenchmarkSGPRMLII's sgprMLIIData, default
# 71,72,73), with every L-BFGS iteration traced; then the table of where
# candidate stopping rules would have ended each fit.
#
#   sh studies/sgprstop/run.sh [N [SEEDS]]
#
# About 190 evaluations of 0.56 CPU-s per data set at n = 10⁴ (AVX-512).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
n=${1:-10000}
seeds=${2:-71,72,73}
cd "$root"
KML_SGPR_N=$n KML_SGPR_SEEDS=$seeds KML_SGPR_TRACE=1 KML_SGPR_GTOL=1e-6 \
	go test ./runtime/gp -run '^$' -bench SGPRMLII -benchtime 1x -timeout 5h \
	> "$here/trace_n$n.txt"
/usr/bin/python3 "$here/summarize.py" "$here/trace_n$n.txt"
