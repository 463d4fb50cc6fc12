#!/bin/sh
# studies/fig2c/chunk.sh OUT PERMS EPS FROM TO: one chunk of run.sh — the
# replications FROM..TO at ratio EPS, one process on one core; skipped if
# it has already finished (so a stopped run can be restarted).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$1 perms=$2 e=$3 from=$4 to=$5
name="eps${e}_r${from}-${to}"
[ -s "$out/$name.done" ] && exit 0
sed -e "s/__EPS__/$e/; s/__FROM__/$from/; s/__TO__/$to/; s/__PERMS__/$perms/" \
	"$here/fig2c.kml" >"$out/$name.kml"
GOMAXPROCS=1 /usr/bin/time -f "%U %S %e" -o "$out/$name.time" \
	"$out/kml" run --json "$out/$name.kml" >"$out/$name.jsonl" 2>"$out/$name.err"
echo "$(date -u +%H:%M:%S) $(uptime)" >"$out/$name.done"
