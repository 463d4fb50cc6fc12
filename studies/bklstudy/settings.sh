#!/bin/sh
# studies/bklstudy/settings.sh [REPS]: BKL under the settings the BKE
# paper's figures need — the table of docs/language.md ("Which settings
# each paper figure needs"). Runs examples/bkl_settings.kml with REPS
# replications (default 20) of Figure 2C's design at ε = 2 (the default,
# m = 200 with τ² = 1 and with τ² = 20, on the same data and seeds) and
# Figure 4's PC on the ozone data at the default and at m = 10, in one
# process, and writes its output to studies/bklstudy/out/settings_REPS.txt
# with the CPU time and the load (the .err file beside it keeps the
# warnings).
#
#   nice -n 10 sh studies/bklstudy/settings.sh [REPS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
reps=${1:-20}
out="$here/out"
mkdir -p "$out/settings_$reps/data"
dir="$out/settings_$reps"
(cd "$root" && go build -o "$dir/kml" ./cmd/kml)
cp "$root/examples/data/ozone.csv" "$dir/data/"
sed -e "s/^let reps = .*/let reps = $reps/" "$root/examples/bkl_settings.kml" >"$dir/bkl_settings.kml"
{
	echo "commit $(git -C "$root" rev-parse HEAD), start $(date -u +%H:%M:%S) UTC, $(uptime)"
	# The warnings (fragile BKL choices) go to settings_REPS.err.
	(cd "$dir" && GOMAXPROCS=1 /usr/bin/time -f "CPU %U s user, %S s system, %e s wall" -o time \
		./kml run bkl_settings.kml 2>"$out/settings_$reps.err")
	cat "$dir/time"
	echo "end $(date -u +%H:%M:%S) UTC, $(uptime)"
} >"$out/settings_$reps.txt" 2>&1
cat "$out/settings_$reps.txt"
