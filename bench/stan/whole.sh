#!/bin/bash
# The whole `kml run SHAPE.kml` as a user counts it (process start,
# parsing, checking, compiling, initialisation, sampling, the summary and
# saving the draws) against Stan's chains, alternated ROUNDS times:
#   bench/stan/whole.sh [KML-BINARY] [SHAPE] [ROUNDS]      (hier8, 5)
# Each round runs kml once (wall and CPU seconds of the process, to the
# microsecond) and then one Stan fit in R (whole.R: its chains' own CPU
# seconds summed; R's start-up and compilation excluded) and prints
#   ratio      = KML min-ESS per wall second of the whole process over
#                Stan's per (chain CPU / 2), issue 42's measure (aim >= 1.5),
#   cpu_ratio  = the same per CPU second on both sides.
# On a busy machine the wall ratio measures whether kml got both cores;
# quote the rounds with the load averages printed beside them.
# Run after run.sh (data/ written, Stan's model compiled and cached).
set -euo pipefail
cd "$(dirname "$0")"
kml=${1:-}
if [ -z "$kml" ]; then kml=$(mktemp -d)/kml; (cd ../.. && go build -o "$kml" ./cmd/kml); fi
shape=${2:-hier8}
rounds=${3:-5}
"$kml" version | grep '^isa:'
grep -m1 'model name' /proc/cpuinfo
mkdir -p out
printf "%-5s %-16s %8s %8s %8s %10s %8s %8s %7s %9s\n" round load kml_wall kml_cpu kml_ess stan_cpu stan_ess stan_s ratio cpu_ratio
for r in $(seq 1 "$rounds"); do
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  # Wall and CPU seconds of the process to the microsecond (/usr/bin/time
  # rounds both to 10 ms, an eighth of a 0.08 s run).
  read -r wall user sys < <(/usr/bin/python3 -c '
import resource, subprocess, sys, time
t = time.perf_counter()
subprocess.run(sys.argv[1:], stdout=open("out/whole_kml.json", "w"), check=True)
w = time.perf_counter() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.6f %.6f %.6f" % (w, r.ru_utime, r.ru_stime))' "$kml" run --json "$shape.kml")
  kess=$(/usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["params"]; print(min(v["ess_bulk"] for v in p.values()))' out/whole_kml.json)
  read -r scpu sess < <(Rscript whole.R "$shape" 2>/dev/null | tail -1)
  awk -v r="$r" -v load="$load" -v w="$wall" -v u="$user" -v s="$sys" -v ke="$kess" -v sc="$scpu" -v se="$sess" 'BEGIN {
    kc = u + s; st = sc / 2
    printf "%-5s %-16s %8.3f %8.3f %8.0f %10.3f %8.0f %8.3f %7.2f %9.2f\n", r, load, w, kc, ke, sc, se, st, (ke / w) / (se / st), (ke / kc) / (se / sc)
  }'
done
