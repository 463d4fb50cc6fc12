#!/bin/sh
# studies/tiltquad/run.sh: the table of studies/tiltquad/README.md, the
# error of candidate rules for EP's logistic tilted moments against an
# adaptive Gauss–Kronrod reference (runtime/gp/tiltstudy_test.go), about
# 10 CPU-seconds.
#
#   sh studies/tiltquad/run.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
KML_TILT_STUDY=1 go test ./runtime/gp -run '^TestTiltStudy$' -v -count 1 | grep '^|'
