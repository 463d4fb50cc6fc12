#!/bin/bash
# KML against Stan (rstan) on four of issue 15's shapes:
#   bench/stan/run.sh [KML-BINARY] [SHAPE...]
# Builds kml from this tree unless given a binary, writes the data (seeded),
# runs each SHAPE.kml (4 chains × (1000 + 1000), draws saved in CmdStan
# format), then compare.R samples SHAPE.stan the same way and prints the
# table: min bulk-ESS over parameters per second of sampling (wall time on
# 2 cores; Stan's compilation excluded, the first run caches it).
set -euo pipefail
cd "$(dirname "$0")"
kml=${1:-}
if [ -z "$kml" ]; then kml=$(mktemp -d)/kml; (cd ../.. && go build -o "$kml" ./cmd/kml); fi
shift || true
shapes=${*:-linreg hier8 ar5 mix}
Rscript data.R
mkdir -p out
for s in $shapes; do
  rm -f out/${s}_kml_*.csv
  "$kml" run $s.kml > out/${s}_kml.seconds
done
Rscript compare.R $shapes
