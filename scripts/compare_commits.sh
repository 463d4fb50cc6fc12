#!/bin/bash
# Compares the BKE and NUTS benchmarks of two commits in one session:
#   scripts/compare_commits.sh OLD [NEW]   (NEW defaults to the working tree)
# Test binaries of both are built, then run alternately, three pairs each,
# and in both orders for the end-to-end BKE benchmark (running second is
# slower on this machine). Quote ratios from one run only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
old=$1; new=${2:-}
tmp=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$tmp/old" 2>/dev/null; [ -f "$tmp/new/.git" ] && git -C "$root" worktree remove --force "$tmp/new"; git -C "$root" worktree prune' EXIT
git -C "$root" worktree add -q --detach "$tmp/old" "$old"
if [ -n "$new" ]; then git -C "$root" worktree add -q --detach "$tmp/new" "$new"; else ln -s "$root" "$tmp/new"; fi
# BenchmarkBKEESSPerSecond is in stdlib/bke since issue 35, in stdlib before.
bkepkg() { if [ -e "$tmp/$1/stdlib/bke/bke_bench_test.go" ]; then echo stdlib/bke; else echo stdlib; fi; }
for v in old new; do
  for p in $(bkepkg $v) runtime/hmc runtime/bke; do
    (cd "$tmp/$v" && go test -c -o "$tmp/${v}_${p//\//_}.test" ./$p)
  done
done
run() { # version package bench benchtime
  (cd "$tmp/$1/$2" && "$tmp/$1_${2//\//_}.test" -test.run XXX -test.bench "$3" -test.benchtime "$4" | grep Benchmark | sed "s/^/$1 /")
}
for order in "old new" "new old"; do
  for i in 1 2 3; do for v in $order; do run $v "$(bkepkg $v)" BKEESSPerSecond 2x; done; done
done
for i in 1 2 3; do for v in old new; do run $v runtime/hmc NUTSNormal100 3x; done; done
for i in 1 2 3; do for v in old new; do run $v runtime/bke 'BKEStanShapes|BKELogDensityGrad' 1s; done; done
