#!/bin/bash
# scikit-learn's one-vs-rest Laplace GaussianProcessClassifier on the
# train/test split that examples/gp_digits_multiclass.kml writes, beside
# the KML example itself; quote both tables with the load average printed.
#   bench/gp_multiclass_sklearn.sh
# Needs /usr/bin/python3 with numpy, scipy and scikit-learn
# (Debian: sudo apt-get install -y python3-sklearn).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
echo "$(uptime)"
(cd "$root" && go run ./cmd/kml run examples/gp_digits_multiclass.kml)
echo "$(uptime)"
/usr/bin/python3 "$root/bench/gp_multiclass_sklearn.py"
echo "$(uptime)"
