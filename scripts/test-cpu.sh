#!/usr/bin/env bash
# Measures the processor time each package's tests use, the number issue 37
# budgets: at load 40 on 2 cores a package gets about 1/10 to 1/20 of a
# core, so its whole test binary (with the programs it runs) must stay
# within about 20 CPU-seconds to finish inside five minutes.
#   scripts/test-cpu.sh [go test flags and packages]
# runs `go test -count=1 -p 1` (default ./...) with every test binary
# started under /usr/bin/time, and prints a table, heaviest first: the
# binary's user+system seconds (its waited-for children, such as the kml
# children of cmd/kml's tests, included), user, system and wall seconds,
# and the package directory. Compiling and linking are not counted. The
# processor time hardly depends on the load, the wall time does. With
# TEST_CPU_OUT=FILE the table is also written to FILE.
set -uo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/exec" <<'WRAP'
#!/usr/bin/env bash
# go test runs each test binary in its package's directory.
exec /usr/bin/time -a -o "$TEST_CPU_LOG" -f "%U %S %e .${PWD#"$TEST_CPU_ROOT"}" "$@"
WRAP
chmod +x "$tmp/exec"
export TEST_CPU_LOG="$tmp/log" TEST_CPU_ROOT="$PWD"
: >"$TEST_CPU_LOG"
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(./...)
go test -count=1 -p 1 -exec "$tmp/exec" "${args[@]}" 2>&1 | grep -E '^(ok|FAIL|---|panic)'
status=${PIPESTATUS[0]}
{
	printf "%8s %8s %8s %8s  %s\n" cpu user sys wall package
	# /usr/bin/time adds a line of its own when a binary fails.
	awk '/^[0-9.]+ [0-9.]+ [0-9.]+ / { printf "%8.1f %8.1f %8.1f %8.1f  %s\n", $1 + $2, $1, $2, $3, $4 }' "$TEST_CPU_LOG" | sort -rn
	awk '/^[0-9.]+ [0-9.]+ [0-9.]+ / { c += $1 + $2; w += $3 } END { printf "%8.1f %8s %8s %8.1f  total (%d packages)\n", c, "", "", w, NR }' "$TEST_CPU_LOG"
} | tee "${TEST_CPU_OUT:-/dev/null}"
exit "$status"
