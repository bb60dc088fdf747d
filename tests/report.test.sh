#!/bin/sh
# The batch reports as a design review reads them: goldens of sim, sweep,
# sensitivity and compare on DC names of cloud lengths
# (tests/golden-cli/long-names.lua, with a cost model of closed forms so
# the figures stay put; UPDATE_GOLDEN=1 rewrites them); on every sample,
# every table aligned (tests/golden-cli/aligned.py) and no number in
# exponent form or with more digits than it is good for; and each point
# of the review: idle time and exposed sync, no prices, unused DCs and
# why, --json failures, the Gantt chart's labels, legend and chunks, the
# messages that blame one field and name what was meant.
set -u
G=${GEOPLAN:-build/geoplan}
D=tests/golden-cli
L=$D/long-names.lua
n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() { n=$((n + 1)); echo "not ok $n - $1"; [ -s "$tmp/why" ] && sed 's/^/#   /' "$tmp/why" | head -8; }
# The reports wrap long lines under themselves: joined for matching.
unwrap() {
	awk 'NR > 1 && /^          / { sub(/^ +/, " "); printf "%s", $0; next }
	     NR > 1 { print "" } { printf "%s", $0 } END { if (NR) print "" }'
}
# has NAME WANT_RC PATTERN CMD...: exit WANT_RC, PATTERN in the unwrapped
# output (standard output and error).
has() {
	name=$1 want=$2 pat=$3
	shift 3
	{ "$@" >"$tmp/o" 2>&1; echo $? >"$tmp/rc"; }
	rc=$(cat "$tmp/rc")
	unwrap <"$tmp/o" >"$tmp/u"
	if [ "$rc" -eq "$want" ] && grep -qE -- "$pat" "$tmp/u"; then ok "$name"
	else head -5 "$tmp/o" >"$tmp/why"; echo "exit $rc (wanted $want)" >>"$tmp/why"; no "$name"; fi
}
# golden NAME RC CMD...: the output (plan times masked) is tests/golden-cli/NAME.txt.
golden() {
	name=$1 want=$2
	shift 2
	"$@" >"$tmp/g" 2>&1
	rc=$?
	sed -E 's/  +[0-9.]+ (s|ms|us|ns)$/  <time>/' "$tmp/g" >"$tmp/gm"
	if [ -n "${UPDATE_GOLDEN:-}" ] && [ "$rc" -eq "$want" ]; then cp "$tmp/gm" "$D/$name.txt"; fi
	if [ "$rc" -eq "$want" ] && diff -u "$D/$name.txt" "$tmp/gm" >"$tmp/why"; then ok "golden $name"
	else echo "exit $rc (wanted $want)" >>"$tmp/why"; no "golden $name"; fi
}
golden sim-long-names 0 "$G" sim "$L"
golden sweep-long-names 1 "$G" sweep "$L" --set 'links[us-central1-a-london-docklands].bandwidth=Gbps(10),Gbps(100)' \
	--set 'dcs[us-central1-a].pools[1].count=16,4'
golden sensitivity-long-names 0 "$G" sensitivity "$L"
golden compare-long-names 0 "$G" compare "$L"
# Every table aligned, on every sample; no exponents, no long digits
# (the engine's own note aside, and the plan pasted back).
for f in samples/*.lua "$L"; do
	b=$(basename "$f" .lua)
	bad=""
	"$G" sim "$f" >"$tmp/sim" 2>&1
	"$G" plan "$f" >"$tmp/plan" 2>&1
	"$G" compare "$f" >"$tmp/compare" 2>&1
	"$G" sensitivity "$f" >"$tmp/sensitivity" 2>&1
	"$G" sweep "$f" --set 'job.global_batch=16,32' >"$tmp/sweep" 2>&1
	for c in sim:'^(pipe|link) ' plan:'^(pipe|link) ' compare:'^engine ' sensitivity:'^what ' sweep:'^job\.global_batch '; do
		python3 $D/aligned.py "${c#*:}" <"$tmp/${c%%:*}" >"$tmp/why" 2>&1 || bad="$bad ${c%%:*}"
	done
	if [ -z "$bad" ]; then ok "$b: every table aligned"; else no "$b: not aligned:$bad"; fi
	cat "$tmp/sim" "$tmp/plan" "$tmp/compare" "$tmp/sensitivity" "$tmp/sweep" | unwrap |
		sed '/^-- the plan, to paste/,/^}/d' | grep -v '^note ' |
		python3 -c "
import re, sys
for i, line in enumerate(sys.stdin, 1):
    for num in re.findall(r'[0-9][0-9.]*(?:e[+-]?[0-9]+)?', line):
        digits = num.replace('.', '').lstrip('0')
        if 'e' in num or ('.' in num and len(digits) > 4):
            print('%d: %s (%s)' % (i, line.rstrip(), num))
" >"$tmp/why"
	if [ ! -s "$tmp/why" ]; then ok "$b: no exponents, no long digits"; else no "$b: numbers as they should not be"; fi
done
# Idle time: the GPUs' idle share is 1 - sum(busy x GPUs) / (T x GPUs),
# worked out here from the stages; P3 waits most of it after the last
# backward, on DP sync (two thirds of the iteration with today's cost
# model: the test asks only that it is there).
"$G" sim samples/p3.lua --json >"$tmp/p3.json" 2>"$tmp/why"
if python3 -c "
import json
d = json.load(open('$tmp/p3.json'))
T = d['iteration_time_s']
g = [s['replicas'] * s['tp'] for s in d['stages']]
idle = 1 - sum(s['busy_s'] * k for s, k in zip(d['stages'], g)) / (T * sum(g))
assert abs(d['idle_fraction'] - idle) < 1e-8, (d['idle_fraction'], idle)
assert 0 < d['idle_after_backward_fraction'] <= d['idle_fraction'] and d['sync_exposed_s'] == max(s['sync_exposed_s'] for s in d['stages'])
assert d['gpus_available'] == 640 and d['unused'][0]['dc'] == 'us-west1-b' and d['unused'][0]['idle_gpus'] == 128
assert d['prices_given'] == {'gpus': True, 'egress': True}
assert d['sync_ring'] == ['us-central1-a', 'us-central1-b', 'us-central1-c', 'us-central1-f'] and d['sync_ring_dcs'] == 4
" 2>"$tmp/why"; then ok "p3 json: idle time in closed form, exposed sync, its ring, unused DC"; else no "p3 json"; fi
has "p3 text: idle split" 0 "^GPU idle +[0-9]+\.[0-9] % of the iteration, [0-9]+\.[0-9] % after the last backward$" "$G" sim samples/p3.lua
has "p3 text: exposed DP sync, and the ring across the zones" 0 "^DP sync +hierarchical, every iteration; exposed [0-9.]+ m?s \(the worst stage\); ring us-central1-a > us-central1-b > us-central1-c > us-central1-f > us-central1-a$" "$G" sim samples/p3.lua
has "p3 text: the remote zone unused, and why" 0 "^unused +us-west1-b: all 128 GPUs, no stage there: its links to the DCs in use reach 4\.80 Gbit/s at best, against 20\.0 Gbit/s on the slowest link the plan uses" "$G" sim samples/p3.lua
# P1 and P2 hold one replica of every layer: nothing to sync, said so
# (not "exposed 0 s"), in the JSON too; P3's replicas sync.
has "p1 text: no DP sync to do" 0 "^DP sync +none: one replica of every layer, no gradients to sync$" "$G" sim samples/p1.lua
if "$G" sim samples/p1.lua --json | python3 -c "import json, sys; assert json.load(sys.stdin)['sync']['needed'] is False" &&
   "$G" sim samples/p3.lua --json | python3 -c "import json, sys; assert json.load(sys.stdin)['sync']['needed'] is True" 2>"$tmp/why"
then ok "sync.needed: false on p1, true on p3"; else no "sync.needed"; fi
has "no prices: said, not \$0" 0 "^cost +no prices given" "$G" sim samples/p5.lua
has "compare without prices: - and why" 0 '^[$]/iteration: - where no prices are given [(]gpus. price_per_hour,$' "$G" compare samples/p1.lua
if "$G" compare samples/default.lua | grep -q '^\$/iteration: -'; then no "compare with prices: no footnote on -"
else ok "compare with prices: no footnote on -"; fi
has "WAN per iteration, the JSON's word" 0 "^WAN +4\.29 GB per iteration: pipeline 4\.29 GB" "$G" sim samples/default.lua
if "$G" sim samples/default.lua | grep -q "per step"; then no "no 'per step' left"; else ok "no 'per step' left"; fi
has "GPUs used of those there are" 0 "^plan +1f1b, 4 pipeline shapes, 4 stages, 512 of 640 GPUs" "$G" sim samples/p3.lua
# A sweep: the file's plan does not fit every point (said under the
# table, with the way out), a - for $ explained; its JSON lines count
# points as its summary does, the summary after the table.
has "sweep: a point the file's plan does not fit, and --engine" 1 "^Each point simulates the file's plan as it is; --engine NAME plans each$" \
	"$G" sweep samples/p1.lua --set 'job.global_batch=16,8'
has "sweep: a - for \$ explained" 1 "^[$]/iteration: - where no prices are given" "$G" sweep samples/p1.lua --set 'job.global_batch=16,8'
if "$G" sweep samples/p1.lua --set 'job.global_batch=8,16' --engine milp 2>&1 | grep -q "file's plan"
then no "sweep --engine: no word on the file's plan"; else ok "sweep --engine: no word on the file's plan"; fi
"$G" sweep samples/p1.lua --set 'job.global_batch=8,16,32' --jsonl >"$tmp/jl" 2>"$tmp/msg"
if python3 -c "
import json, re
rows = [json.loads(l) for l in open('$tmp/jl')]
assert [r['point'] for r in rows] == [1, 2, 3], rows
first = min(r['point'] for r in rows if 'error' in r)
assert re.search(r'2 of 3 points failed \(the first: point %d\)' % first, open('$tmp/msg').read())
" 2>"$tmp/why"; then ok "sweep --jsonl: points counted as the summary counts them"; else no "sweep --jsonl points"; fi
"$G" sweep samples/p1.lua --set 'job.global_batch=8,16' >"$tmp/o" 2>&1
if tail -1 "$tmp/o" | grep -q "^geoplan: sweep: 1 of 2 points failed"; then ok "sweep: the summary after the table"
else tail -3 "$tmp/o" >"$tmp/why"; no "sweep: the summary after the table"; fi
# CSV as RFC 4180 reads it: a DC named with a comma and a quote is one
# field, read back as written, on every row.
sed 's/"ams"/"a,\\"ms"/g' samples/default.lua >"$tmp/q.lua"
"$G" sim "$tmp/q.lua" --csv >"$tmp/q.csv" 2>"$tmp/why"
if python3 -c "
import csv
rows = list(csv.reader(open('$tmp/q.csv', newline='')))
assert rows[0] == ['row', 'label', 'kind', 'micro_batch', 'chunk', 'start_s', 'end_s'], rows[0]
assert all(len(r) == 7 for r in rows), [r for r in rows if len(r) != 7][:2]
assert any(r[1] == 'p1 s1 a,\"ms H100x4' for r in rows)
" 2>>"$tmp/why"; then ok "csv: a name with a comma and a quote, quoted"; else no "csv quoting"; fi
# The CSV timeline runs to the iteration's end: with ZeRO (default.lua,
# zero = 1) each stage's last row is the parameters' all-gather share
# the step waits for, a sync row from its optimizer step's end (row 0:
# 1.48079644 s to 1.48114674 s, 0.350 ms), and the last row ends at the
# iteration time; before, the rows stopped at 1.48079644 s. Without
# ZeRO there is no such row and the step ends the iteration.
for z in 1 0; do
	"$G" sim samples/default.lua --set job.zero=$z --csv >"$tmp/t.csv" 2>"$tmp/why"
	"$G" sim samples/default.lua --set job.zero=$z --json >"$tmp/t.json" 2>>"$tmp/why"
	if python3 -c "
import csv, json
it = json.load(open('$tmp/t.json'))['iteration_time_s']
rows = list(csv.DictReader(open('$tmp/t.csv', newline='')))
end = max(float(r['end_s']) for r in rows)
assert abs(end - it) <= 1e-8 * it, (end, it)
opt = {r['row']: float(r['end_s']) for r in rows if r['kind'] == 'opt'}
assert len(opt) == 4, opt
for row, t in opt.items():
    after = [r for r in rows if r['row'] == row and float(r['start_s']) >= t]
    if $z:
        assert len(after) == 1 and after[0]['kind'] == 'sync', (row, after)
        assert float(after[0]['start_s']) == t, (row, after)
    else:
        assert not after, (row, after)
if $z:
    g = [r for r in rows if r['row'] == '0' and float(r['start_s']) >= opt['0']][0]
    d = float(g['end_s']) - float(g['start_s'])
    assert abs(d - 0.350e-3) < 0.001e-3, d
" 2>>"$tmp/why"; then ok "csv: the timeline runs to the iteration's end (zero = $z)"
	else no "csv: the timeline's end (zero = $z)"; fi
done
# --json failures are JSON, with the exit code.
"$G" sim "$tmp/nope.lua" --json >"$tmp/j" 2>/dev/null
rc=$?
if [ $rc -eq 1 ] && python3 -c "
import json; d = json.load(open('$tmp/j')); assert d['exit_code'] == 1 and 'cannot open' in d['error'], d" 2>"$tmp/why"
then ok "sim --json on a missing file: {\"error\"}, exit 1"; else no "sim --json error (exit $rc)"; fi
# ... a usage error too, wherever --json stands; without it, none.
for args in "--json --bogus" "--bogus --json" "--json --time-limit x" "--json --csv"; do
	# shellcheck disable=SC2086
	"$G" sim samples/p1.lua $args >"$tmp/j" 2>/dev/null
	rc=$?
	if [ $rc -eq 2 ] && python3 -c "
import json; d = json.load(open('$tmp/j')); assert d['exit_code'] == 2 and d['error'], d" 2>"$tmp/why"
	then ok "sim $args: {\"error\"}, exit 2"; else no "sim $args (exit $rc)"; fi
done
"$G" sim samples/p1.lua --bogus >"$tmp/j" 2>/dev/null
if [ $? -eq 2 ] && [ ! -s "$tmp/j" ]; then ok "a usage error without --json: nothing on standard output"
else no "a usage error without --json printed to standard output"; fi
cat >"$tmp/oom.lua" <<'LUA'
return { dcs = { { name = "ams", pools = { { gpu = "H100", count = 8 } } } },
  model = "Llama-3-70B", job = { seq = 4096, global_batch = 16 } }
LUA
"$G" plan "$tmp/oom.lua" --json >"$tmp/j" 2>/dev/null
rc=$?
if [ $rc -eq 4 ] && python3 -c "
import json; d = json.load(open('$tmp/j')); assert d['exit_code'] == 4 and 'does not fit' in d['error'], d" 2>"$tmp/why"
then ok "plan --json that does not fit: {\"error\"}, exit 4"; else no "plan --json error (exit $rc)"; fi
"$G" compare samples/p4.lua --json >"$tmp/j" 2>"$tmp/why"
if python3 -c "
import json
for r in json.load(open('$tmp/j')):
    assert r['plan']['pipelines'][0]['stages'], r['engine']
" 2>"$tmp/why"; then ok "compare --json carries each engine's plan"; else no "compare --json plans"; fi
# The out-of-memory report: the GPUs there are, a ratio above 1, more
# GPUs than there are for the state alone (test_oom.c works the count out).
has "out of memory: counted over the GPUs there are" 4 "one replica over all 8 GPUs \(1 stage at TP 8, the first on H100\), needs [0-9.]+ GiB per GPU .* available after a reserve of [0-9.]+ GiB \([1-9][0-9]*(\.[0-9])?x too much\); .* they take at least (9|[1-9][0-9]) GPUs" "$G" plan "$tmp/oom.lua"
# A ratio of ten or more is a whole number, never an exponent (one V100
# for Llama-3.1-405B: 494x, once "4.9e+02x").
printf '%s\n' "return { dcs = { { name = 'a', pools = { { gpu = 'V100-16', count = 1, per_node = 1 } } } }," \
	"  model = 'Llama-3.1-405B', job = { seq = 8192, global_batch = 8, micro_batch = 1 } }" >"$tmp/oom1.lua"
has "out of memory: a ratio over ten is whole" 4 "\([1-9][0-9][0-9]+x too much\)" "$G" plan "$tmp/oom1.lua"
# ... in one unit, and its figures agree: the state is more than the
# space, the space is 8 GPUs' capacity, the GPUs named hold the state.
"$G" plan "$tmp/oom.lua" 2>&1 | python3 -c "
import re, sys
m = re.search(r'([0-9.]+) GiB available .* alone, ([0-9]+) GiB, exceed all the GPUs. ([0-9]+) GiB: they take at least ([0-9]+) GPUs', sys.stdin.read())
assert m, 'no match'
have, state, space, k = float(m[1]), int(m[2]), int(m[3]), int(m[4])
assert state > space and abs(space - 8 * have) <= 1, m.groups()
assert (k - 1) * have < state <= k * have + 1, m.groups()
" >"$tmp/why" 2>&1 && ok "out of memory: one unit, figures that agree" || no "out of memory: one unit, figures that agree"
# Sensitivity: each figure alone, and what a negative saving means.
has "sensitivity: one figure at a time" 0 "^link ams <-> fra +latency / 1\.1 " "$G" sensitivity samples/default.lua
sens="'$G' sensitivity samples/p6.lua --schedule zb-h1"
has "sensitivity: a negative saving in the table" 0 "^[a-z].* x 1\.1 +[0-9.]+ m?s +-[0-9.]+ [mu]?s +-0\.[0-9]+ %$" sh -c "$sens"
has "sensitivity: a negative saving explained" 0 "A negative saving: the change made the iteration longer\. .* a transfer that arrives earlier can meet other traffic\." \
	sh -c "$sens | tr '\n' ' ' | sed 's/  */ /g'"
if "$G" sensitivity samples/default.lua | grep -q "negative saving"; then no "sensitivity: no negative saving, no explanation"
else ok "sensitivity: no negative saving, no explanation"; fi
# A saving of 0 s is explained exactly when a row shows one.
for f in samples/p1.lua samples/p5.lua "$L"; do
	"$G" sensitivity "$f" >"$tmp/o" 2>&1
	z=$(grep -cE '^(link|pool) .*  0 s  -?0\.00 %$' "$tmp/o")
	e=$(grep -c "^A saving of 0 s: that figure is off the iteration's critical path" "$tmp/o")
	if [ "$e" -eq "$([ "$z" -gt 0 ] && echo 1 || echo 0)" ]; then ok "sensitivity $(basename "$f"): 0 s explained iff shown ($z rows)"
	else head -3 "$tmp/o" >"$tmp/why"; no "sensitivity $(basename "$f"): $z rows of 0 s, $e explanations"; fi
done
# The Gantt chart: no label clipped (7 px a character at least), the
# replicas said, a legend of what is drawn, V-shaped chunks apart.
"$G" gantt samples/p3.lua -o "$tmp/p3.svg" >/dev/null 2>&1
if python3 -c "
import json, re
s = open('$tmp/p3.svg').read()
labels = re.findall(r'<text x=\"([0-9.]+)\" y=\"[0-9.]+\" text-anchor=\"end\">([^<]*)</text>', s)
assert len(labels) == 8, labels
for x, t in labels:
    assert float(x) >= 7 * len(t), (x, t)
assert sum('128 replicas' in t for x, t in labels) == 4
assert 'weight gradient' not in s and 'chunk 2' not in s
idle = json.load(open('$tmp/p3.json'))['idle_fraction']
assert re.search(r'bubble [0-9.]+ %%, GPU idle %.1f %%</text>' % (100 * idle), s), 'title'
" 2>"$tmp/why"; then ok "gantt p3: labels fit, replicas said, no W or chunk in the legend, idle in the title"; else no "gantt p3"; fi
"$G" gantt samples/p1.lua --schedule xdc-greedy --chunks 2 -o "$tmp/v.svg" >/dev/null 2>&1
if python3 -c "
s = open('$tmp/v.svg').read()
assert s.count('fill=\"url(#chunk2)\"') > 20 and '>chunk 2</text>' in s
assert 'DP gradient sync' not in s   # P1 syncs nothing: not in the legend
" 2>"$tmp/why"; then ok "gantt V-shaped: chunk 2 hatched and in the legend"; else no "gantt V-shaped"; fi
# Messages that blame the right field and name what was meant.
has "a bare link bandwidth: the helper, not the latency" 1 "link ams -> fra: bandwidth 40 B/s is less than 1 kB/s \(a bare number is bytes/s\): write Gbps\(40\) for 40 Gbit/s$" "$G" check samples/default.lua --set 'links[ams-fra].bandwidth=40'
has "a latency of hours: ms()" 1 "link ams -> fra: latency 4000 s is more than an hour .*: write ms\(4000\) for 4000 ms" "$G" check samples/default.lua --set 'links[ams-fra].latency=4000'
has "model name, another case" 1 "unknown model \"llama-2-7b\" \(did you mean \"Llama-2-7B\"\? catalog: [^)]*Llama-2-7B, [^)]*OPT-350M" "$G" check samples/default.lua --set model=llama-2-7b
has "model name, a prefix of three" 1 "unknown model \"llama-3\" \(did you mean \"Llama-3-70B\", \"Llama-3-8B\" or \"Llama-3\.1-405B\"\? catalog:" "$G" check samples/default.lua --set model=llama-3
has "GPU name, another case" 1 "unknown GPU \"h100\" \(did you mean \"H100\"\?" "$G" check samples/default.lua --set 'dcs[1].pools[1].gpu="h100"'
has "DC name in a plan" 1 "stages\[1\]\.dc: unknown DC \"AMS\" \(did you mean \"ams\"\? DCs: ams, fra\)" "$G" check samples/default.lua --set 'plan.pipelines[1].stages[1].dc="AMS"'
has "DC name in --set" 1 "nothing called \[Ams\] here \(did you mean \"ams\"\? names: ams, fra\)" "$G" check samples/default.lua --set 'dcs[Ams].pools[1].count=8'
has "a link direction in --set" 1 "nothing called \[fra>Ams\] here \(did you mean \"fra>ams\"\?" "$G" check samples/default.lua --set 'links[fra>Ams].bandwidth=Gbps(5)'
has "a new GPU named like a known one" 1 "gpus\[\"h100\"\]: not a known GPU \(did you mean \"H100\"\?" "$G" check samples/default.lua --set 'gpus[h100].memory=GB(24)'
