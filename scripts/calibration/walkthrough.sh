#!/bin/sh
# The calibration walk-through (README.md here). The rule, fixed before
# any fit: calibrate on the six NeMo runs of at most 128 GPUs, predict
# the other twelve. First stack-2021.lua, a model whose times know
# nothing of today's stack, uncalibrated and calibrated; then the
# default model, which was fitted to all eighteen runs, uncalibrated and
# calibrated the same way. Ends with one summary line per model.
#
# usage: scripts/calibration/walkthrough.sh [GEOPLAN]   (from the repository)
set -eu
G=${1:-build/geoplan}
D=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fit="gpt3-175b-128 nemotron4-15b-16 nemotron4-15b-32 nemotron4-15b-64 nemotron4-15b-128
     nemotron4-340b-128"
runs=""
for r in $fit; do runs="$runs $D/$r.lua"; done

# sim_json MODEL FILE: sim's JSON for FILE under MODEL (-: the default);
# a plan that does not fit still has its figures (exit 4).
sim_json() {
	if [ "$1" = - ]; then "$G" sim "$2" --json; else "$G" sim "$2" --cost-model "$1" --json; fi 2>/dev/null || true
}
# held NAME MODEL: every run's measured and predicted time under MODEL,
# the calibration runs marked; the held-out MAPE and worst error, over
# all twelve and per model; a line "held out NAME: ..." for the summary.
held() {
	for f in "$D"/gpt3-*.lua "$D"/nemotron4-*.lua; do
		r=$(basename "$f" .lua)
		case " $(echo $fit) " in *" $r "*) tag=fit ;; *) tag=held ;; esac
		sim_json "$2" "$f" | python3 -c "
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
def err(r): return (float(r[3]) - float(r[2])) / float(r[2])
for name, pick in (('GPT-3 175B', 'gpt3'), ('Nemotron-4 15B', '15b'), ('Nemotron-4 340B', '340b')):
    e = [err(r) for r in rows if r[1] == 'held' and pick in r[0]]
    print('  held out, %-16s MAPE %5.2f %%, from %+.1f to %+.1f %% (%d runs)'
          % (name + ':', 100 * sum(map(abs, e)) / len(e), 100 * min(e), 100 * max(e), len(e)))
e = [abs(err(r)) for r in rows if r[1] == 'held']
w = max((abs(err(r)), r[0]) for r in rows if r[1] == 'held')
print('held out $1: MAPE %.2f %%, worst %.2f %% (%s), %d runs'
      % (100 * sum(e) / len(e), 100 * w[0], w[1], len(e)))
" | tee "$tmp/held"
	grep '^held out' "$tmp/held" >>"$tmp/summary"
}
# calib NAME [BASE]: calibrate on the six runs (BASE, or the default's
# calibratable form), its report, the model to $tmp/NAME.lua.
calib() {
	start=$(date +%s%N)
	"$G" calibrate $runs ${2:+--cost-model "$2"} -o "$tmp/$1.lua" | grep -v '^wrote '
	end=$(date +%s%N)
	echo "calibrate took $(( (end - start) / 1000000 )) ms"
}
: >"$tmp/summary"
echo "== stack-2021.lua, uncalibrated: the 2021 stack's times =="
held "stack-2021, uncalibrated" "$D/stack-2021.lua"
echo
echo "== stack-2021.lua, calibrated on the six runs of at most 128 GPUs =="
calib stack-2021 "$D/stack-2021.lua"
held "stack-2021, calibrated" "$tmp/stack-2021.lua"
echo
echo "== the default model, uncalibrated (fitted to all eighteen runs) =="
held "default, uncalibrated" -
echo
echo "== the default model, calibrated on the same six runs =="
calib default
held "default, calibrated" "$tmp/default.lua"
echo
echo "== summary: the twelve runs of 256 to 2048 GPUs =="
cat "$tmp/summary"
