#!/bin/sh
# make bench: figures, not pass/fail. Fidelity against measured data,
# simulator speed, scenario load time.
set -u
B=${1:-build}
G=$B/geoplan
echo "== fidelity: vTrain A100 measurements (tests/data) =="
"$B/tests/vtrain" tests/data/vtrain-a100-measured.csv
echo
echo "== simulator speed =="
"$B/tests/simbench"
echo
echo "== cross-DC schedules: the P1 and P2 grids =="
"$B/tests/schedbench" samples
echo
echo "== placement MILP (--engine milp): samples and a growth table =="
"$B/tests/placebench" 10
echo
echo "== scenario load and validate (geoplan check, 20 runs) =="
for f in samples/default.lua samples/p6.lua; do
	start=$(date +%s%N)
	i=0
	while [ $i -lt 20 ]; do "$G" check "$f" >/dev/null; i=$((i + 1)); done
	end=$(date +%s%N)
	echo "$f: $(( (end - start) / 20000 )) us per check (whole process)"
done
