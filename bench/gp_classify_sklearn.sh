#!/bin/bash
# GP classification ML-II with Laplace's approximation on
# examples/gp_classify.kml's data (n = 207, D = 64), timed from
# bench/gp/classify.kml and, after it, by bench/gp_classify_sklearn.py
# with scikit-learn's GaussianProcessClassifier on the same split and the
# same cores (issue 39 item 1: aim ≥ 1×, KML at least as fast). Two rounds;
# quote the ratio from one round, with the load average it prints.
#   bench/gp_classify_sklearn.sh
# Needs /usr/bin/python3 with numpy, scipy and scikit-learn
# (Debian: sudo apt-get install -y python3-sklearn), on OpenBLAS
# (libopenblas0-pthread, bench/openblas.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/kml" ./cmd/kml)
cp "$root/bench/gp/classify.kml" "$root/examples/data/digits.csv" "$tmp/"
# The same script cut after the model (setup.kml) and after the three
# fits (fits.kml), for KML's CPU seconds per fit.
sed '/^let r = timed(fit)/,$d' "$tmp/classify.kml" >"$tmp/setup.kml"
sed '/^let e = timed(ep/,$d' "$tmp/classify.kml" >"$tmp/fits.kml"
. "$root/bench/openblas.sh" # peer_py: /usr/bin/python3 on OpenBLAS
grep -m1 'model name' /proc/cpuinfo
nproc
for round in 1 2; do
  echo "round $round: $(uptime)"
  # The KML process's CPU seconds (user + system, all threads) over its
  # three fits and the EP evaluation.
  (cd "$tmp" && /usr/bin/time -f '%U %S' -o "$tmp/kml.cpu" ./kml run --json classify.kml >"$tmp/kml.json" 2>"$tmp/kml.err")
  echo "KML process CPU seconds (3 fits + 1 EP evaluation): $(awk '{print $1 + $2}' "$tmp/kml.cpu")"
  peer_py "$root/bench/gp_classify_sklearn.py" "$tmp" "$tmp/kml.json" | tee "$tmp/peer.out"
  # KML's CPU seconds per fit: the process with the data read and three
  # fits, less the process with the data read alone, over 3 (wall-clock
  # times mislead on a loaded machine; CPU seconds much less so).
  (cd "$tmp" && /usr/bin/time -f '%U %S' -o "$tmp/setup.cpu" ./kml run setup.kml >/dev/null 2>&1)
  (cd "$tmp" && /usr/bin/time -f '%U %S' -o "$tmp/fits.cpu" ./kml run fits.kml >/dev/null 2>&1)
  kcpu=$(awk 'NR == FNR { s = $1 + $2; next } { printf "%.3f", ($1 + $2 - s) / 3 }' "$tmp/setup.cpu" "$tmp/fits.cpu")
  scpu=$(awk -F': ' '/sklearn CPU seconds per fit/ { print $2 }' "$tmp/peer.out")
  echo "KML CPU seconds per fit: $kcpu; ratio of CPU per fit, sklearn / KML: $(awk -v s="$scpu" -v k="$kcpu" 'BEGIN { printf "%.2f", s / k }')"
done
echo "$(uptime)"
