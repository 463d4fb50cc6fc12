#!/bin/bash
# The three end-to-end aims of issue 30 item 1, each timed from a KML
# script in bench/gp/ and, alternately, by bench/gp_numpy.py with
# NumPy/SciPy or scikit-learn on the same data and the same 2 cores:
#   (a) loglik of a GP model at n = 2000, D = 10 (aim: KML within 1.25× of
#       NumPy/SciPy; the two values must agree to 1e-8 relative),
#   (b) ML-II on the diabetes data, 5 starts (aim: ≥ 5× scikit-learn; both
#       optima printed, and scikit-learn's LML at KML's optimum),
#   (c) KBR's exact build at n = 1000, 2000, 4000 (aim: n = 2000 under 2 s).
# Two rounds; quote ratios from one round, with the load average it prints.
#   bench/gp_numpy.sh [a|b|c]...     (default: all three)
# Needs /usr/bin/python3 with numpy and scipy, and for (b) scikit-learn
# (Debian: sudo apt-get install -y python3-sklearn), on OpenBLAS
# (libopenblas0-pthread, bench/openblas.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/kml" ./cmd/kml)
cp "$root"/bench/gp/*.kml "$root/examples/data/diabetes.csv" "$tmp/"
. "$root/bench/openblas.sh" # peer_py: /usr/bin/python3 on OpenBLAS
peer_py "$root/bench/gp_numpy.py" data "$tmp"
grep -m1 'model name' /proc/cpuinfo
"$tmp/kml" version | grep '^isa:' # the vector path (KML_CPU=generic|avx2|avx512 caps it)
aims=${*:-a b c}
status=0
for round in 1 2; do
  for aim in $aims; do
    echo "round $round, aim $aim: $(uptime)"
    case $aim in
    a)
      "$tmp/kml" run --json "$tmp/loglik.kml" >"$tmp/a.json"
      peer_py "$root/bench/gp_numpy.py" loglik "$tmp" "$tmp/a.json" || status=1
      ;;
    b)
      # The process's CPU seconds (user + system, all threads) over the
      # script's three fits; reading the data is a few milliseconds.
      /usr/bin/time -f '%U %S' -o "$tmp/b.cpu" "$tmp/kml" run --json "$tmp/mlii.kml" >"$tmp/b.json" 2>"$tmp/b.err"
      cpu=$(awk '{print $1 + $2}' "$tmp/b.cpu")
      peer_py "$root/bench/gp_numpy.py" mlii "$tmp" "$tmp/b.json" "$cpu" || status=1
      ;;
    c)
      "$tmp/kml" run --json "$tmp/kbr.kml" >"$tmp/c.json"
      peer_py "$root/bench/gp_numpy.py" kbr "$tmp" "$tmp/c.json" || status=1
      ;;
    esac
  done
done
echo "$(uptime)"
exit $status
