#!/bin/sh
# studies/fig2c/run.sh: Figure 2C of Flaxman et al. (2016) — rejection rates of
# MMD on the 3 × 3 Gaussian grid (900 + 900 points) for the median
# heuristic, BKL at its default, "bayes", "aggregate" and "opt" on the same
# data and seeds — at any number of replications, in chunks that can run side by side.
#
#   nice -n 10 sh studies/fig2c/run.sh [REPS [JOBS [PERMS [BLOCK]]]]
#
# REPS replications per ε (default 100, SE ≤ 0.05), JOBS one-core processes
# at a time (default 2), PERMS permutations per test (default 200), BLOCK
# replications per chunk (default 10). Chunks run block by block over all ε,
# so a run stopped early has (nearly) the same count at every ε (FIRST,
# below, changes that order). Finished chunks are skipped, so a stopped run
# restarts where it was (RUN=NAME names its directory). Each chunk
# writes studies/fig2c/out/RUN/eps*_r*.jsonl (one JSON line per replication)
# and its CPU time (.time); summarize.py makes the table with ± SE from
# whatever has finished:
#
#   python3 studies/fig2c/summarize.py studies/fig2c/out/RUN
#
# Replication r at ratio ε uses the seeds of examples/two_sample_grid.kml
# (100000·ε + 100·r), so its first replications are the example's.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
reps=${1:-100}
jobs=${2:-2}
perms=${3:-200}
block=${4:-10}
run=${RUN:-reps${reps}_perms${perms}}
out="$here/out/$run"
mkdir -p "$out"
kml="$out/kml"
# A restarted run keeps its first binary, so all its replications come
# from the same code (OUT/commit says which).
if [ ! -x "$kml" ]; then
	(cd "$root" && go build -o "$kml" ./cmd/kml)
	git -C "$root" rev-parse HEAD >"$out/commit"
fi
uptime >>"$out/uptime.start"
tasks="$out/tasks"
: >"$tasks"
# FIRST="2 0.5" runs every chunk of those ε before the others (the ratios
# where the rates are neither 0 nor 1 need the replications most).
for e in ${FIRST:-}; do
	from=1
	while [ "$from" -le "$reps" ]; do
		to=$((from + block - 1))
		[ "$to" -le "$reps" ] || to=$reps
		echo "$e $from $to" >>"$tasks"
		from=$((to + 1))
	done
done
from=1
while [ "$from" -le "$reps" ]; do
	to=$((from + block - 1))
	[ "$to" -le "$reps" ] || to=$reps
	for e in 0.5 1 2 4 6 8 10 15; do
		case " ${FIRST:-} " in *" $e "*) continue ;; esac
		echo "$e $from $to" >>"$tasks"
	done
	from=$((to + 1))
done
xargs -P "$jobs" -L 1 sh "$here/chunk.sh" "$out" "$perms" <"$tasks"
uptime >"$out/uptime.end"
/usr/bin/python3 "$here/summarize.py" "$out"
