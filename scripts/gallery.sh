#!/usr/bin/env bash
# Regenerates the README gallery: runs every example that draws a picture
# (any example naming a .png in a string, in a scratch copy of examples/, so
# the repository stays clean) and copies
# the PNGs it writes into docs/gallery/.
#   bash scripts/gallery.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/gallery
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/kml" ./cmd/kml
cp -r examples "$tmp/examples"
mkdir -p "$out"
for f in "$tmp"/examples/*.kml; do
	if grep -q '"[^"]*\.png"' "$f"; then
		echo "running $(basename "$f")"
		(cd "$tmp/examples" && "$tmp/kml" run "$(basename "$f")" > /dev/null)
	fi
done
rm -f "$out"/*.png
cp "$tmp"/examples/*.png "$out"/
# Figure 2C's power curves with the five rules come from studies/fig2c (100
# replications, about 50 minutes of CPU), not from an example: the picture
# kept there (its run.sh, summarize.py and plot.kml make it).
cp studies/fig2c/power.png "$out"/fig2c_power.png
ls -l "$out"
