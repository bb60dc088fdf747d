#!/bin/sh
# The example scripts of scripts/ on the samples. Each cost model runs
# with sim and plan --no-polish, and a figure it decides is checked
# against the same figure worked out here by hand (awk); each heuristic
# plans every sample it claims (a valid plan that fits, under its own
# name in compare, never faster than the MILP warm-started from it),
# keeps a budget, and one-dc-pipelines says why when it cannot place
# the model.
set -u
G=${GEOPLAN:-build/geoplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
# pass NAME STATUS [DETAIL]: one TAP line, ok when STATUS is 0.
pass() {
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1${3:+: $3}"
	fi
}
# run OUT CMD...: CMD's stdout to OUT, stderr to OUT.err; its exit code.
run() {
	out=$1
	shift
	timeout 120 "$@" >"$out" 2>"$out.err"
}
# field FILE PATTERN KEY: KEY's number on FILE's first line holding PATTERN.
field() {
	grep -F -- "$2" "$1" | head -1 | sed -n "s/.*\"$3\": \([^,}]*\).*/\1/p"
}
# near A B: A within 1e-6 of B, relatively.
near() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b
		exit !(a != "" && b != "" && d <= 1e-6 * m + 1e-15) }'
}
# fits NAME CMD...: CMD (a plan --json) succeeds with a plan that fits
# (exit 0, or 3: a plan the MILP did not prove optimal).
fits() {
	name=$1
	shift
	run "$T/fit" "$@"
	rc=$?
	grep -q '"fits": true' "$T/fit"
	pass "$name" $(( (rc != 0 && rc != 3) || $? )) "$(head -2 "$T/fit.err")"
}
# unchanged NAME SAMPLE SCRIPT: sim gives the same iteration time with the
# cost-model SCRIPT as without.
unchanged() {
	run "$T/u0" "$G" sim "$2" --json
	run "$T/u1" "$G" sim "$2" --json --cost-model "$3"
	a=$(field "$T/u0" '"iteration_time_s"' iteration_time_s)
	c=$(field "$T/u1" '"iteration_time_s"' iteration_time_s)
	[ -n "$a" ] && [ "$a" = "$c" ]
	pass "$1 ($c s, default $a s)" $?
}
# le A B: A <= B (1e-9 relative slack).
le() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && b != "" && a <= b * (1 + 1e-9)) }'
}

# --- profile-table.lua: Sailor's OPT-350M table ------------------------
# The sample's A100-40 stages run at TP 2, micro-batch 2: forward 2.624
# ms and backward 6.325 ms per block, 12 blocks a stage; its V100-16
# last stage at TP 4: 12 x 5.193 ms and the logits' 9.58 ms; each at the
# pace of the slowest of the 8 GPUs the plan uses of its pool,
# 1 + 0.0155 sqrt(2 ln 8) (geoplan(1), COST MODEL: a script's times too).
pace() { awk -v n="$1" 'BEGIN { printf "%.15g", 1 + 0.0155 * sqrt(2 * log(n)) }'; }
S=scripts/profile-table-sample.lua
run "$T/pt" "$G" sim "$S" --json
rc=$?
f=$(field "$T/pt" '"pipeline": 1, "stage": 1,' forward_s)
b=$(field "$T/pt" '"pipeline": 1, "stage": 1,' backward_s)
x=$(pace 8)
near "$f" "$(awk -v x="$x" 'BEGIN { print 12 * 2.624e-3 * x }')" &&
	near "$b" "$(awk -v x="$x" 'BEGIN { print 12 * 6.325e-3 * x }')"
pass "profile-table: A100-40 TP 2 block times read from the table (F $f, B $b)" $(( $? || rc ))
f=$(field "$T/pt" '"pipeline": 2, "stage": 2,' forward_s)
near "$f" "$(awk -v x="$x" 'BEGIN { print (12 * 5.193e-3 + 9.58e-3) * x }')"
pass "profile-table: V100-16 TP 4 blocks and logits from the table (F $f)" $?
# Memory of the A100 last stage: 12 blocks and the logits at Sailor's
# TP 2 bytes (192954368 and 423652352 for micro-batch 1) x micro-batch 2,
# one micro-batch in flight (1F1B, stage 2 of 2); weights and Adam state
# 12 x 12584960 + 50272 x 1024 parameters over TP 2, at 4 + 12/3 bytes
# each (ZeRO-1 over the 3 replicas holding layer 18); and the default
# model's reserve, which the script keeps: 2 GB and 5 % of the 40 GiB.
m=$(field "$T/pt" '"pipeline": 1, "stage": 2,' mem_peak_bytes)
want=$(awk 'BEGIN { act = 2 * (12 * 192954368 + 423652352)
	printf "%.0f", act + (12 * 12584960 + 50272 * 1024) / 2 * (4 + 12 / 3) + 2e9 + 0.05 * 40 * 1073741824 }')
near "$m" "$want"
pass "profile-table: stored activations from the table ($m bytes, wanted $want)" $?
unchanged "profile-table: Llama-3-8B on H100 and A100-80 falls back to the default" \
	samples/default.lua scripts/profile-table.lua
fits "profile-table: plan --no-polish on its sample" "$G" plan "$S" --no-polish --json

# --- roofline.lua: max(FLOPs / peak, bytes / HBM) ----------------------
# p4's stage 2: 4 OPT-350M blocks on a V100-16 at TP 1, b 1, s 2048.
# FLOPs 24bsh^2 + 4bs^2h; bytes 2sbh(34 + 5as/h) + 2 x 12584960
# parameters: 82 FLOP/B, under the V100's ridge (125e12 / 900e9 = 139),
# so memory-bound. GPT-3-XL (h 2048) has 251 FLOP/B: compute-bound. The
# stage runs at the pace of the slowest of the 96 GPUs p4's plan uses of
# the pool.
roof() { # h a f params peak hbm -> seconds of one block's forward
	awk -v h="$1" -v a="$2" -v ff="$3" -v p="$4" -v pk="$5" -v bw="$6" 'BEGIN {
		b = 1; s = 2048
		fl = 2*b*s*h*(h + 2*h) + 2*b*s*h*h + 4*b*s*s*h + 2*b*s*h*ff*2
		by = 2*s*b*h*(34 + 5*a*s/h) + 2*p
		t1 = fl / pk; t2 = by / bw
		printf "%.12g", (t1 > t2 ? t1 : t2) }'
}
run "$T/r" "$G" sim samples/p4.lua --json --cost-model scripts/roofline.lua
rc=$?
f=$(field "$T/r" '"pipeline": 1, "stage": 2,' forward_s)
b=$(field "$T/r" '"pipeline": 1, "stage": 2,' backward_s)
want=$(awk -v t="$(roof 1024 16 4096 12584960 125e12 900e9)" -v x="$(pace 96)" 'BEGIN { print 4 * t * x }')
near "$f" "$want" && near "$b" "$(awk -v f="$want" 'BEGIN { print 2 * f }')"
pass "roofline: OPT-350M on V100-16, memory-bound (F $f, wanted $want; B = 2F)" $(( $? || rc ))
run "$T/r2" "$G" sim samples/p4.lua --json --cost-model scripts/roofline.lua \
	--set 'model="GPT-3-XL"'
f=$(field "$T/r2" '"pipeline": 1, "stage": 2,' forward_s)
p=$(awk 'BEGIN { h = 2048; print h*(h + 2*h) + h*h + 2*h*8192 + 2*h }')
want=$(awk -v t="$(roof 2048 16 8192 "$p" 125e12 900e9)" -v x="$(pace 96)" 'BEGIN { print 4 * t * x }')
near "$f" "$want"
pass "roofline: GPT-3-XL on V100-16, compute-bound (F $f, wanted $want)" $?
fits "roofline: plan --no-polish on p4" "$G" plan samples/p4.lua --no-polish --json \
	--cost-model scripts/roofline.lua

# --- congested-wan.lua: the WAN at 0.7 of its rate, small messages slower
# p1's link: 17.2 Gbit/s, 15.6 ms; 8 activations of 2bsh = 2^25 bytes
# each way. Bandwidth 0.7 x 17.2e9 / 8, then the curve at 2^25 bytes:
# n / (n + n_half), n_half = bandwidth x 2 x latency.
run "$T/w0" "$G" sim samples/p1.lua --json
run "$T/w1" "$G" sim samples/p1.lua --json --cost-model scripts/congested-wan.lua
rc=$?
busy=$(field "$T/w1" '"from": "dc-a", "to": "dc-b"' busy_s)
want=$(awk 'BEGIN { n = 2^25; bw = 0.7 * 17.2e9 / 8; h = bw * 2 * 0.0156
	printf "%.12g", 8 * n / (bw * n / (n + h)) }')
near "$busy" "$want"
pass "congested-wan: p1's link busy $busy s (wanted $want)" $(( $? || rc ))
a=$(field "$T/w0" '"iteration_time_s"' iteration_time_s)
c=$(field "$T/w1" '"iteration_time_s"' iteration_time_s)
awk -v a="$a" -v c="$c" 'BEGIN { exit !(a != "" && c > a * 1.1) }'
pass "congested-wan: p1 is WAN-bound, slower than the default ($c s against $a s)" $?
unchanged "congested-wan: NVLink and NICs as the default (p4, no WAN)" \
	samples/p4.lua scripts/congested-wan.lua
fits "congested-wan: plan --no-polish on p1" "$G" plan samples/p1.lua --no-polish --json \
	--cost-model scripts/congested-wan.lua

# --- heuristics ---------------------------------------------------------
# heur NAME SAMPLE [ARGS...]: plan with the heuristic alone, then the MILP
# warm-started from it; compare lists it.
heur() {
	h=$1 s=$2
	shift 2
	fits "$h: a valid plan that fits on $s $*" \
		"$G" plan "$s" --engine heuristic --heuristic "scripts/$h.lua" --json "$@"
	cp "$T/fit" "$T/h"
	grep -q "\"solver\": {\"engine\": \"$h\"" "$T/h"
	pass "$h: its plan comes under its name on $s" $?
	run "$T/m" "$G" plan "$s" --heuristic "scripts/$h.lua" --json "$@"
	a=$(field "$T/h" '"iteration_time_s"' iteration_time_s)
	c=$(field "$T/m" '"iteration_time_s"' iteration_time_s)
	le "$c" "$a"
	pass "$h: the MILP warm-started from it is no slower on $s ($c s against $a s)" $?
}
for s in samples/*.lua; do
	heur fastest-first "$s"
	ndc=$("$G" check "$s" | sed -n 's/.*ok: \([0-9]*\) DCs.*/\1/p')
	[ "${ndc:-0}" -ge 2 ] && heur one-dc-pipelines "$s"
done
for h in fastest-first one-dc-pipelines; do
	run "$T/c" "$G" compare samples/default.lua --heuristic "scripts/$h.lua"
	grep -q "^$h  *[0-9.]* m\?s " "$T/c"
	pass "$h: listed by compare under its name" $? "$(head -3 "$T/c.err")"
	# default.lua's GPUs: H100 $2.50 and A100-80 $1.60 an hour.
	heur "$h" samples/default.lua --set budget.usd_per_hour=20
	usd=$(field "$T/h" '"usd_gpu_per_iteration"' usd_gpu_per_iteration)
	it=$(field "$T/h" '"iteration_time_s"' iteration_time_s)
	awk -v u="$usd" -v t="$it" 'BEGIN {
		exit !(u != "" && t > 0 && u / t * 3600 <= 20 * (1 + 1e-7)) }'   # 9 digits in JSON
	pass "$h: keeps a budget of \$20/h (\$$usd per iteration of $it s)" $?
done
# p2 with 4 H100 per DC: no DC holds the 70B model even with ZeRO-1 over
# two, so one-dc-pipelines refuses; fastest-first crosses the DCs.
small="--set dcs[1].pools[1].count=4 --set dcs[2].pools[1].count=4"
small="$small --set dcs[3].pools[1].count=4 --set dcs[4].pools[1].count=4"
# shellcheck disable=SC2086
run "$T/e" "$G" plan samples/p2.lua --engine heuristic \
	--heuristic scripts/one-dc-pipelines.lua $small
rc=$?
[ "$rc" -eq 1 ] && [ ! -s "$T/e" ] &&
	grep -q "one-dc-pipelines.lua:[0-9]*: one-dc-pipelines: no DC holds a pipeline of 70B" "$T/e.err"
pass "one-dc-pipelines: a clear error where no DC holds the model" $? \
	"exit $rc: $(head -2 "$T/e.err")"
# shellcheck disable=SC2086
heur fastest-first samples/p2.lua $small
