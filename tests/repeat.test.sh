#!/bin/sh
# Runs repeat: the default plan of P5 (where the MILP's probes and the
# polish's two searches decide the answer: the polish moves it from
# 2.63 s to about 2.3 s) gives the same JSON, every figure, stage and count
# but the solver's wall time, on an idle CPU and with two busy
# processes on it; a --work-limit that stops the polish repeats too and
# says so; a wall clock that stops a run first says the result may
# differ, with status feasible.
set -u
G=${GEOPLAN:-build/geoplan}
n=0
tmp=$(mktemp -d)
busy=""
stop_busy() {
	for p in $busy; do kill "$p" 2>/dev/null; done
	busy=""
}
trap 'stop_busy; rm -rf "$tmp"' EXIT
# check NAME CMD...: passes when CMD succeeds.
check() {
	name=$1
	shift
	n=$((n + 1))
	if "$@" >"$tmp/check.out" 2>&1; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		head -5 "$tmp/check.out" | sed 's/^/#   /'
	fi
}
# plan OUT ARGS...: the JSON of plan ARGS without the solver's wall time.
plan() {
	out=$1
	shift
	"$G" plan "$@" --json >"$tmp/raw.json" 2>"$tmp/err"
	sed 's/"time_s": [0-9.e+-]*,//' "$tmp/raw.json" >"$out"
}
load() {
	for i in 1 2; do
		sh -c 'while :; do :; done' &
		busy="$busy $!"
	done
}
# has FILE PATTERN: PATTERN in FILE's text, its lines joined (notes wrap).
has() {
	tr '\n' ' ' <"$1" | tr -s ' ' | grep -q -- "$2"
}
same() {
	cmp "$1" "$2" || diff "$1" "$2" | cut -c1-200 | head -6
}

plan "$tmp/idle.json" samples/p5.lua
load
plan "$tmp/busy.json" samples/p5.lua
"$G" plan samples/p5.lua >"$tmp/busy.txt" 2>&1
plan "$tmp/w1.json" samples/p5.lua --work-limit 0.5
"$G" plan samples/p5.lua --work-limit 0.5 >"$tmp/w.txt" 2>&1
stop_busy
plan "$tmp/w2.json" samples/p5.lua --work-limit 0.5
# (The polish's plan simulates faster than the MILP's own: so the
# search's work budget, not only the MILP's, decides the answer.)
faster() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1]));
sys.exit(0 if d['iteration_time_s'] < d['solver']['own_plan_simulated_s'] * 0.97 else 1)" "$1"
}
check "P5 default: the polish decides (its plan 3 % faster than the MILP's own)" \
	faster "$tmp/idle.json"
check "P5 default: the polish replaced the MILP's plan" grep -q '"polished": true' "$tmp/idle.json"
check "P5 default: the same JSON idle and with two busy processes" same "$tmp/idle.json" "$tmp/busy.json"
check "P5 default under load: no wall clock stopped it" \
	sh -c "! grep -q 'time limit' '$tmp/busy.txt'"
check "P5 --work-limit 0.5: the same JSON idle and under load" same "$tmp/w1.json" "$tmp/w2.json"
check "P5 --work-limit 0.5: the note says the work limit stopped the polish" \
	has "$tmp/w.txt" 'the polish stopped by the work limit'
check "P5 --work-limit 0.5: a different answer from the default's" \
	sh -c "! cmp -s '$tmp/idle.json' '$tmp/w1.json'"
"$G" plan samples/p5.lua --time-limit 0.02 --work-limit 100 >"$tmp/c.txt" 2>&1
check "P5 --time-limit 0.02: the wall clock stopped it, the note says so" \
	has "$tmp/c.txt" 'stopped by the time limit; results may differ run to run'
check "P5 --time-limit 0.02: status feasible" grep -q '^solver     milp feasible' "$tmp/c.txt"
echo "1..$n"
