#!/bin/bash
# KML against Stan (rstan) on issue 15's four shapes, GARCH(1,1) and the
# two BKE shapes of issue 30 (bke1, bke2):
#   bench/stan/run.sh [KML-BINARY] [SHAPE...]
# Builds kml from this tree unless given a binary, writes the data (seeded),
# runs each SHAPE.kml (4 chains × (1000 + 1000), draws saved in CmdStan
# format), then compare.R samples SHAPE.stan the same way and prints the
# table: min bulk-ESS over parameters per second of sampling (wall time on
# 2 cores; Stan's compilation excluded, the first run caches it) and the
# cost of one gradient on either side (its sampling's core time over its
# gradient evaluations), both also in CPU time, which a busy machine moves
# less than wall time. KML_CPU=avx2 bench/stan/run.sh measures the AVX2
# path on an AVX-512 machine; the isa: line names the path and CPU model.
set -euo pipefail
cd "$(dirname "$0")"
kml=${1:-}
if [ -z "$kml" ]; then kml=$(mktemp -d)/kml; (cd ../.. && go build -o "$kml" ./cmd/kml); fi
shift || true
shapes=${*:-linreg hier8 ar5 mix garch bke1 bke2}
uptime
"$kml" version | grep '^isa:' # the vector path (KML_CPU=generic|avx2|avx512 caps it)
Rscript data.R
mkdir -p out
for s in $shapes; do
  rm -f out/${s}_kml_*.csv
  /usr/bin/time -f "%U %S" -o out/${s}_kml.cpu "$kml" run --json $s.kml > out/${s}_kml.json
done
# The BKE Stan programs must compute KML's log density: check_bke.R sets
# Stan's log_prob against KML's logp at a few lengthscales first.
bke=$(for s in $shapes; do case $s in bke*) echo $s;; esac; done)
if [ -n "$bke" ]; then "$kml" run bke_logp.kml; Rscript check_bke.R $bke; fi
Rscript compare.R $shapes
uptime
