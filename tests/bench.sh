#!/bin/sh
# make bench: figures, not pass/fail. Fidelity against measured data,
# simulator speed, scenario load time.
set -u
B=${1:-build}
G=$B/geoplan
echo "== fidelity: measured iterations (tests/data/sets: vTrain, Korthikanti, NeMo) =="
"$B/tests/fidelity" --sets tests/data/sets
echo
echo "== fidelity: held-out published runs, never fitted (tests/data/heldout) =="
"$B/tests/fidelity" --sets tests/data/heldout
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
echo "== placement MILP on a seeded random family (30 cases, own plan vs best of all engines) =="
"$B/tests/randbench" 30 5
echo "== the same on its ring family: 3-8 DCs, pairs fast, slow or unlinked (RANDBENCH_RING=1) =="
RANDBENCH_RING=1 "$B/tests/randbench" 24 5
echo
echo "== planners as simulated: the MILP's own plan, polished, and the other engines =="
printf '%-8s %10s %10s %10s %10s %10s %10s %10s %9s\n' sample "milp own" "milp" megatron dp-across atlas search estimate "milp s"
for f in default p1 p2 p3 p4 p5 p6; do
	"$G" compare "samples/$f.lua" --json 2>/dev/null | python3 -c "
import json, sys
d = {e['engine']: e for e in json.load(sys.stdin)}
m = d['milp']
def t(k):
    return '%10.4g' % d[k]['iteration_time_s'] if k in d else '%10s' % '-'
print('%-8s %10.4g %s %s %s %s %s %10.4g %9.3f' % ('$f', m['solver']['own_plan_simulated_s'], t('milp'),
      t('megatron'), t('dp-across-dcs'), t('atlas'), t('search'), m['solver']['objective_s'],
      m['solver']['time_s']))"
done
echo
echo "== what a Lua cost model adds (scripts/default-model.lua: the same figures) =="
"$B/tests/luabench"
echo
echo "== calibration: six measured NeMo runs on H100, twelve held out (scripts/calibration) =="
sh scripts/calibration/walkthrough.sh "$G" |
	sed -n -e '/^== summary/,$p' -e '/^== summary/,$!{/^\(calibrate took\|fit \|leave-one-out\|== \)/p}'
echo
echo "== the terminal planner, headless =="
"$B/tests/tuibench"
echo
echo "== scenario load and validate (geoplan check, 20 runs) =="
for f in samples/default.lua samples/p6.lua; do
	start=$(date +%s%N)
	i=0
	while [ $i -lt 20 ]; do "$G" check "$f" >/dev/null; i=$((i + 1)); done
	end=$(date +%s%N)
	echo "$f: $(( (end - start) / 20000 )) us per check (whole process)"
done
