#!/bin/sh
# The calibration walk-through (README.md here): calibrate the default
# model on the five NeMo runs of at most 128 GPUs that fit, predict the
# other thirteen, and print the held-out errors; then the same with the
# attention_scores parameter fixed at 1, to show what it is worth.
#
# usage: scripts/calibration/walkthrough.sh [GEOPLAN]   (from the repository)
set -eu
G=${1:-build/geoplan}
D=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fit="gpt3-175b-128 nemotron4-15b-16 nemotron4-15b-32 nemotron4-15b-64 nemotron4-15b-128"
runs=""
for r in $fit; do runs="$runs $D/$r.lua"; done

start=$(date +%s%N)
"$G" calibrate $runs -o "$tmp/h100.lua"
end=$(date +%s%N)
echo "calibrate took $(( (end - start) / 1000000 )) ms"

# sim_json MODEL FILE: sim's JSON for FILE under MODEL (-: the default);
# a plan that does not fit still has its figures (exit 4).
sim_json() {
	if [ "$1" = - ]; then "$G" sim "$2" --json; else "$G" sim "$2" --cost-model "$1" --json; fi 2>/dev/null || true
}
# held MODEL: every run's measured and predicted time under MODEL, the
# calibration runs marked, and the held-out MAPE.
held() {
	for f in "$D"/*.lua; do
		r=$(basename "$f" .lua)
		case " $fit " in *" $r "*) tag=fit ;; *) tag=held ;; esac
		sim_json "$1" "$f" | python3 -c "
import json, sys
d = json.load(sys.stdin)
print('$r', '$tag', d['measured']['iteration_time_s'], d['iteration_time_s'], 'yes' if d['fits'] else 'no')"
	done | python3 -c "
import sys
rows = [l.split() for l in sys.stdin]
print('%-22s %5s %9s %10s %8s  %s' % ('run', '', 'measured', 'predicted', 'error', 'fits'))
for r, tag, m, p, fits in rows:
    m, p = float(m), float(p)
    print('%-22s %5s %8.3fs %9.3fs %+7.1f%%  %s' % (r, tag, m, p, 100 * (p - m) / m, fits))
for name, pick in (('held out', lambda r: r[1] == 'held'),
                   ('held out, models seen', lambda r: r[1] == 'held' and '340b' not in r[0]),
                   ('held out, Nemotron-4 340B (never seen)', lambda r: '340b' in r[0])):
    e = [abs(float(r[3]) - float(r[2])) / float(r[2]) for r in rows if pick(r)]
    print('%s: MAPE %.2f %%, worst %.2f %% (%d runs)' % (name, 100 * sum(e) / len(e), 100 * max(e), len(e)))
"
}
echo
echo "== the calibrated model =="
held "$tmp/h100.lua"
echo
echo "== the default model, uncalibrated =="
held -
echo
echo "== calibrated with attention_scores fixed at 1 (the default's score work) =="
sed 's/^    attention_scores = {[^}]*}/    attention_scores = { 1, min = 1, max = 1 }/' "$tmp/h100.lua" >"$tmp/no-att.lua"
"$G" calibrate $runs --cost-model "$tmp/no-att.lua" -o "$tmp/h100-no-att.lua" | sed -n '/^fit /,/^leave/p'
held "$tmp/h100-no-att.lua"
