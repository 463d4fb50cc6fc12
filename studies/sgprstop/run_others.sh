#!/bin/sh
# studies/sgprstop/run_others.sh: others.kml's optimize() fits with the
# line search of optimize() (maxls 30 and the rounding stop) and with
# gonum's plain bisection (the same tree, runtime/inference's LineSearch
# with both stops off, built in a temporary copy), then the two side by
# side: the objective, its change, the evaluations and iterations, and the
# largest relative change of the printed values.
#
#   sh studies/sgprstop/run_others.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
go build -o "$tmp/kml-new" ./cmd/kml
mkdir "$tmp/src"
git ls-files -z | xargs -0 tar -cf - | tar -xf - -C "$tmp/src"
sed -i 's|ls := &LineSearch{Max: max(s.LineSearchMax, 0)}|ls := \&LineSearch{Tol: -1}|' "$tmp/src/runtime/inference/optimize.go"
grep -q 'ls := &LineSearch{Tol: -1}' "$tmp/src/runtime/inference/optimize.go"
(cd "$tmp/src" && go build -o "$tmp/kml-bisect" ./cmd/kml)
for b in new bisect; do
	"$tmp/kml-$b" run --json --allow examples/data "$here/others.kml" 2>/dev/null | grep '^{' > "$tmp/$b.json"
done
/usr/bin/python3 - "$tmp/bisect.json" "$tmp/new.json" <<'PY'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
print("| fit | logp (bisection) | change | evaluations | iterations | converged | largest relative change of the values |")
print("|---|---|---|---|---|---|---|")
for x, y in zip(a, b):
    dv = max(abs(u - v) / max(abs(u), 1e-300) for u, v in zip(x["values"], y["values"]))
    print(f"| {x['fit']} | {x['logp']:.17g} | {y['logp'] - x['logp']:.2g} | {x['evaluations']} → {y['evaluations']} | "
          f"{x['iterations']} → {y['iterations']} | {x['converged']} → {y['converged']} | {dv:.2g} |")
PY
