#!/bin/bash
# scikit-learn's one-vs-rest Laplace GaussianProcessClassifier on the
# train/test split that examples/gp_digits_multiclass.kml writes, beside
# the KML example itself; quote both tables with the load average printed.
#   bench/gp_multiclass_sklearn.sh
# Needs /usr/bin/python3 with numpy, scipy and scikit-learn
# (Debian: sudo apt-get install -y python3-sklearn), on OpenBLAS
# (libopenblas0-pthread, bench/openblas.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/openblas.sh" # peer_py: /usr/bin/python3 on OpenBLAS
echo "$(uptime)"
(cd "$root" && go run ./cmd/kml run examples/gp_digits_multiclass.kml)
echo "$(uptime)"
peer_py "$root/bench/gp_multiclass_sklearn.py"
echo "$(uptime)"
