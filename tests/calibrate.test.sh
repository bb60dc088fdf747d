#!/bin/sh
# geoplan calibrate from the command line: a fit on runs measured under a
# known model, OUT.lua reproducing the printed predictions under sim
# --cost-model, the same OUT.lua twice, a BASE's params, and every kind of
# bad input refused with its reason and exit code.
set -u
G=${GEOPLAN:-build/geoplan}
n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# t NAME WANT_RC PATTERN CMD...: run CMD, expect exit WANT_RC and PATTERN
# (grep -E) in its combined output.
t() {
	name=$1 want=$2 pat=$3
	shift 3
	n=$((n + 1))
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq "$want" ] && printf '%s\n' "$out" | grep -qE -- "$pat"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name: exit $rc (wanted $want)"
		printf '%s\n' "$out" | head -5 | sed 's/^/#   /'
	fi
}
# ok NAME CMD...: passes when CMD succeeds.
ok() {
	name=$1
	shift
	n=$((n + 1))
	if "$@" >"$tmp/ok.out" 2>&1; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		head -5 "$tmp/ok.out" | sed 's/^/#   /'
	fi
}

# Runs of a small model on A100s, "measured" under a known model: 25 %
# slower GEMMs and 1 ms more per layer pass than the default.
cat >"$tmp/truth.lua" <<'EOF'
return {
  efficiency = function(gpu) return 0.66 end,
  compute = function(layer, gpu, ctx)
    local f, b, w = geoplan.default.compute(layer, gpu, ctx)
    if layer.kind == "block" then return f + 1e-3, b + 1e-3, w + 1e-3 end
    return f, b, w
  end,
}
EOF
# run NAME TP SEQ MB STAGES [MEASURED]: a scenario file.
run() {
	name=$1 tp=$2 seq=$3 mb=$4 st=$5 meas=${6:-}
	per=$((8 / st)) stages="" i=0
	while [ $i -lt "$st" ]; do
		stages="$stages{ dc = 'dc', tp = $tp, layers = { $((i * per + 1)), $((i * per + per)) } }, "
		i=$((i + 1))
	done
	cat >"$tmp/$name.lua" <<EOF
return {
  name = "$name",
  dcs = { { name = "dc", pools = { { gpu = "A100-80", count = 16 } } } },
  model = { layers = 8, hidden = 2048, heads = 8, ffn = 8192, vocab = 32000 },
  job = { seq = $seq, global_batch = $((4 * mb)), micro_batch = $mb, recompute = "selective" },
  $meas
  plan = { pipelines = { { micro_batches = 4, stages = { $stages } } } },
}
EOF
}
time_of() { "$G" sim "$@" --json 2>/dev/null | python3 -c 'import json,sys; print(repr(json.load(sys.stdin)["iteration_time_s"]))'; }
for spec in "r1 1 1024 1 2" "r2 2 2048 2 2" "r3 4 4096 1 1" "r4 2 1024 4 4" "r5 1 2048 2 1"; do
	set -- $spec
	run "$@"
	tm=$(time_of "$tmp/$1.lua" --cost-model "$tmp/truth.lua")
	run "$@" "measured = { iteration_time = $tm },"
done
R="$tmp/r1.lua $tmp/r2.lua $tmp/r3.lua $tmp/r4.lua"

t "calibrate fits the runs" 0 "fitted +2 of 5 parameters" "$G" calibrate $R -o "$tmp/out.lua"
"$G" calibrate $R -o "$tmp/out.lua" >"$tmp/report.txt" 2>&1
t "the fit finds the truth's efficiency" 0 "^efficiency_A100_80 +0\.66 " cat "$tmp/report.txt"
# (1 ms to four digits: the fit stops within 1e-4 of it.)
t "... and its overhead per layer pass" 0 "^layer_overhead +(1 ms|1\\.000 ms|999\\.[89] us) " cat "$tmp/report.txt"
t "flash attention has no score work to fit" 0 "^attention_scores +1 .*default: moves no prediction of these runs" cat "$tmp/report.txt"
t "memory params stay, saying why" 0 "^reserve .*default: moves only peak memory, and no run measures peak_memory" cat "$tmp/report.txt"
t "the fit's figures" 0 "^fit +time MAPE 0\.00 %, Spearman 1\.000" cat "$tmp/report.txt"
t "leave-one-out" 0 "^leave-one-out +time MAPE 0\.0[0-9] % over 4 runs" cat "$tmp/report.txt"
# sim --cost-model OUT.lua predicts what calibrate printed, run by run.
n=$((n + 1))
bad=""
for r in r1 r2 r3 r4; do
	want=$(awk -v r="$r" '$1 == r { print $4, $5 }' "$tmp/report.txt")
	got=$(time_of "$tmp/$r.lua" --cost-model "$tmp/out.lua")
	python3 -c "
w, u = '$want'.split(); w = float(w) * {'s': 1, 'ms': 1e-3, 'us': 1e-6}[u]
import sys; sys.exit(0 if abs($got - w) <= 5e-4 * w else 1)" || bad="$bad $r: printed $want, sim $got;"
done
if [ -z "$bad" ]; then echo "ok $n - sim --cost-model OUT.lua reproduces every printed prediction"; else echo "not ok $n -$bad"; fi
# A run it never saw, predicted within 1 %.
n=$((n + 1))
a=$(time_of "$tmp/r5.lua" --cost-model "$tmp/out.lua") b=$(time_of "$tmp/r5.lua" --cost-model "$tmp/truth.lua")
if python3 -c "import sys; sys.exit(0 if abs($a - $b) <= 0.01 * $b else 1)"; then echo "ok $n - a held-out run within 1 % ($a s, truth $b s)"; else echo "not ok $n - held out: $a s, truth $b s"; fi
"$G" calibrate $R -o "$tmp/again.lua" >/dev/null 2>&1
ok "same runs, same OUT.lua" cmp "$tmp/out.lua" "$tmp/again.lua"
"$G" calibrate $R -o - >"$tmp/stdout.lua" 2>"$tmp/stderr.txt"
ok "-o -: the model on standard output" cmp "$tmp/out.lua" "$tmp/stdout.lua"
t "-o -: the report on standard error" 0 "^fitted +2 of 5" cat "$tmp/stderr.txt"

# A BASE's own params, written over its text.
cat >"$tmp/base.lua" <<'EOF'
return {
  params = { slow = { 1, min = 0.5, max = 4 } },
  compute = function(layer, gpu, ctx)
    local f, b, w = geoplan.default.compute(layer, gpu, ctx)
    local s = ctx.params.slow
    return f * s, b * s, w * s
  end,
}
EOF
t "calibrate a BASE" 0 "fitted +1 of 1 parameters" "$G" calibrate "$tmp/r1.lua" "$tmp/r2.lua" --cost-model "$tmp/base.lua" -o "$tmp/based.lua"
t "OUT.lua wraps BASE" 0 "^model.params.slow = \{ [0-9.]+, min = 0.5, max = 4 \}" cat "$tmp/based.lua"
n=$((n + 1))
a=$("$G" calibrate "$tmp/r1.lua" "$tmp/r2.lua" --cost-model "$tmp/base.lua" -o "$tmp/based.lua" | awk '$1 == "r1" { print $4, $5 }')
b=$(time_of "$tmp/r1.lua" --cost-model "$tmp/based.lua")
if python3 -c "
w, u = '$a'.split(); w = float(w) * {'s': 1, 'ms': 1e-3}[u]
import sys; sys.exit(0 if abs($b - w) <= 5e-4 * w else 1)"; then echo "ok $n - the wrapped BASE reproduces its fit"; else echo "not ok $n - wrapped BASE: printed $a, sim $b"; fi

# Bad input: each refused with its reason.
echo "-- not overwritten" >"$tmp/keep.lua"
run noplan 1 1024 1 2 "measured = { iteration_time = 1 },"
sed -i '/plan = /d' "$tmp/noplan.lua"
run nomeas 1 1024 1 2
t "-o missing" 2 "calibrate needs -o OUT.lua" "$G" calibrate $R
t "no runs" 2 "calibrate needs a scenario FILE" "$G" calibrate -o "$tmp/x.lua"
t "a run without a plan" 1 "noplan.lua: no plan = \{ \.\.\. \}" "$G" calibrate $R "$tmp/noplan.lua" -o "$tmp/keep.lua"
t "a run without measured figures" 1 "nomeas.lua: no measured = \{ iteration_time = seconds, peak_memory = bytes \}" "$G" calibrate $R "$tmp/nomeas.lua" -o "$tmp/keep.lua"
echo 'return { compute = function(l, g, c) return geoplan.default.compute(l, g, c) end }' >"$tmp/noparams.lua"
t "a BASE without params" 1 "noparams.lua: no params to fit" "$G" calibrate $R --cost-model "$tmp/noparams.lua" -o "$tmp/keep.lua"
echo 'return { params = { x = { 1, min = 1, max = 1 } } }' >"$tmp/fixed.lua"
t "a BASE with nothing free" 1 "nothing to fit" "$G" calibrate $R --cost-model "$tmp/fixed.lua" -o "$tmp/keep.lua"
t "a BASE that does not load" 1 "nope.lua: cannot open" "$G" calibrate $R --cost-model "$tmp/nope.lua" -o "$tmp/keep.lua"
run big 1 4096 1 1 "measured = { iteration_time = 1 },"
sed -i 's/layers = 8, hidden = 2048, heads = 8, ffn = 8192/layers = 80, hidden = 8192, heads = 64, ffn = 28672/; s/layers = { 1, 8 }/layers = { 1, 80 }/' "$tmp/big.lua"
t "a run that does not fit in memory" 1 "big.lua: the plan does not fit in memory under the model .*give its measured peak_memory" "$G" calibrate $R "$tmp/big.lua" -o "$tmp/keep.lua"
t "too few runs for the params" 1 "2 parameters move the measured iteration_time .* but 1 run measures it: .*Add 2 more runs" "$G" calibrate "$tmp/r1.lua" -o "$tmp/keep.lua"
t "a run that is not there" 1 "nope.lua: cannot open" "$G" calibrate $R "$tmp/nope.lua" -o "$tmp/keep.lua"
t "OUT.lua kept after every failure" 0 "^-- not overwritten$" cat "$tmp/keep.lua"
t "an unwritable OUT.lua" 1 "/nonexistent/out.lua" "$G" calibrate $R -o /nonexistent/out.lua
t "calibrate refuses --json" 2 "calibrate does not take --json" "$G" calibrate $R -o "$tmp/x.lua" --json
t "sim takes one FILE" 2 "unexpected argument" "$G" sim "$tmp/r1.lua" "$tmp/r2.lua"

# The option table, --help and geoplan(1)'s synopsis agree.
n=$((n + 1))
h=$("$G" calibrate --help | sed -n '1,/^$/p' | grep -oE '\[(-[a-z]|--[a-z-]+)' | tr -d '[' | sort -u | tr '\n' ' ')
m=$(awk '/^\.Sh SYNOPSIS/ { s = 1; next } /^\.Sh / { s = 0 }
	s && /^\.Nm/ { cur = "" } s && $1 == ".Cm" { cur = $2 }
	s && cur == "calibrate" { line = $0; while (match(line, /Fl \\?-?[a-z][a-z-]*/)) {
		f = substr(line, RSTART + 3, RLENGTH - 3); sub(/^\\/, "", f)
		print "-" f; line = substr(line, RSTART + RLENGTH) } }' man/geoplan.1 | sort -u | tr '\n' ' ')
if [ "$h" = "$m" ]; then echo "ok $n - calibrate --help and geoplan(1)'s synopsis agree ($h)"; else echo "not ok $n - help [$h] man [$m]"; fi
t "usage names FILE..." 0 "usage: geoplan calibrate FILE\.\.\. \[-o FILE\] \[--cost-model FILE\]" "$G" calibrate --help
n=$((n + 1))
w=$("$G" calibrate --help | awk 'length > 79')
if [ -z "$w" ]; then echo "ok $n - calibrate --help fits in 80 columns"; else echo "not ok $n - over 79: $w"; fi
