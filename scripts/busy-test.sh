#!/usr/bin/env bash
# Runs the whole test suite on a busy machine, as issues 25 and 37 ask of
# it: `go test ./...` must pass within go test's default timeout at a load
# of 40 on 2 cores, no package above 5 minutes.
#   scripts/busy-test.sh [N]
# starts N CPU-busy background loops (default 18; look at `uptime` first and
# choose N so that what already runs plus N makes the load wanted), runs
# `go test -count=1 ./...`, and prints each package's time, the slowest
# package, the total, the processor time go test and the test binaries
# used (which the load does not stretch), and the 1-minute load average
# sampled every 5 s during the run. The loops and the sampler are stopped by a trap on exit, however
# the script ends (Ctrl-C included), so nothing is left running.
# BUSY_PKGS replaces ./... (to try the script on one package).
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:-18}
if ! [[ "$n" =~ ^[0-9]+$ ]]; then
	echo "usage: scripts/busy-test.sh [N]   (N busy loops, default 18)" >&2
	exit 2
fi
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for ((i = 0; i < n; i++)); do
	# A shell loop that never sleeps: one runnable process, one unit of load.
	bash -c 'while :; do :; done' &
	pids+=($!)
done
(
	while :; do
		cut -d' ' -f1 /proc/loadavg >>"$tmp/load"
		sleep 5
	done
) &
pids+=($!)

echo "busy loops: $n; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
go test -count=1 ${BUSY_PKGS:-./...} 2>&1 | tee "$tmp/out" | grep -E '^(ok|FAIL|---|panic)'
status=${PIPESTATUS[0]}
total=$(($(date +%s) - start))
# The processor time of the children waited for so far: go test and what
# it ran (the loops and the sampler are waited for only on exit).
times >"$tmp/times" # in this shell: a subshell's children start at zero
cpu=$(tail -1 "$tmp/times")

echo
echo "per-package times (slowest first):"
awk '$1 == "ok" || $1 == "FAIL" { t = $3; sub(/s$/, "", t); if (t ~ /^[0-9.]+$/) printf "%8.1fs  %s %s\n", t, $1, $2 }' "$tmp/out" | sort -rn | head -20
awk '{ s += $1; if (NR == 1 || $1 < lo) lo = $1; if ($1 > hi) hi = $1 } END { if (NR) printf "load average (1 min) during the run: mean %.1f, min %.1f, max %.1f over %d samples\n", s / NR, lo, hi, NR }' "$tmp/load"
echo "processor time of go test and its tests (user, system): $cpu"
# What the load left the tests: their processor time over the wall time.
# At load 40 on 2 cores each runnable process gets about 0.05 of a core;
# where the kernel shares the processor between sessions first (cgroups),
# the loops compete only with this session, and the share can be far
# smaller than the load average suggests.
echo "$cpu $total" | awk '{ c = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); c += 60 * a[1] + a[2] } if ($3 > 0) printf "the tests got %.3f of a core on average (%.0f s of processor time in %d s)\n", c / $3, c, $3 }'
echo "go test exit status $status; total wall time ${total}s"
exit "$status"
