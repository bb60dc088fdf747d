#!/bin/sh
# The terminal planner, headless (geoplan shot): every screen and the
# error paths against golden screens (tests/golden/*.txt; UPDATE_GOLDEN=1
# rewrites them), the SVG screenshot's determinism, and one run of the
# real program in tmux with real keys, a resize and q.
set -u
G=${GEOPLAN:-build/geoplan}
n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; tmux -L "gp$$" kill-server 2>/dev/null' EXIT
export LC_ALL=C.UTF-8 TZ=UTC NO_COLOR=
# golden NAME [shot args...]: the text screen against tests/golden/NAME.txt.
golden() {
	name=$1
	shift
	n=$((n + 1))
	case $name in *.*) f=$name ;; *) f=$name.txt ;; esac   # NAME.ans: in ANSI
	"$G" shot "$@" -o "$tmp/$f" >"$tmp/err" 2>&1
	rc=$?
	want=tests/golden/$f
	if [ -n "${UPDATE_GOLDEN:-}" ] && [ $rc -eq 0 ]; then
		cp "$tmp/$f" "$want"
	fi
	if [ $rc -eq 0 ] && cmp -s "$tmp/$f" "$want"; then
		echo "ok $n - screen $name"
	else
		echo "not ok $n - screen $name: exit $rc"
		[ -f "$want" ] && diff "$want" "$tmp/$f" 2>&1 | head -8 | sed 's/^/#   /'
		sed 's/^/#   /' "$tmp/err" | head -3
	fi
}
# has NAME PATTERN [shot args...]: the text screen holds PATTERN (a grep
# -E pattern), for screens that name temporary files.
has() {
	name=$1 pat=$2
	shift 2
	n=$((n + 1))
	if "$G" shot "$@" -o "$tmp/has.txt" >"$tmp/err" 2>&1 && grep -Eq -- "$pat" "$tmp/has.txt"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name: no \"$pat\" in"
		sed 's/^/#   /' "$tmp/has.txt" "$tmp/err" | tail -6
	fi
}
# ok_if NAME CONDITION...: a check of files the shots wrote.
ok_if() {
	name=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $name"; else echo "not ok $n - $name"; fi
}
golden scenario-100x30 samples/default.lua --size 100x30
golden scenario-80x24 samples/default.lua --size 80x24
golden plan-100x30 samples/default.lua --view plan --size 100x30
golden plan-80x24 samples/p3.lua --view plan --size 80x24
golden gantt-100x30 samples/default.lua --view gantt --size 100x30
golden gantt-zoom samples/p1.lua --view gantt --size 100x30 --keys 'jjl++++]]'
golden gantt-ascii samples/default.lua --view gantt --size 80x24 --ascii
# The inspector's status wraps at 80 columns ("critical (slack 0),
# started as its input came" on the second line), as a message does.
golden gantt-80-status samples/default.lua --view gantt --size 80x24 --keys 'c'
# The cursor over the 0.5s label: the label stays (drawn as the cursor).
golden gantt-cursor-label samples/default.lua --view gantt --size 80x24 --keys 'llllllllllllllllllll'
golden gantt-mono samples/default.lua --view gantt --size 100x30 --theme mono
golden help-100x30 samples/default.lua --view help --size 100x30
golden too-small samples/default.lua --size 40x10
golden too-small-20x5 samples/default.lua --size 20x5
# Names whole at every size; the link matrix scrolls across to the
# cursor at 80 columns (its DC column stays), and back; help scrolls to
# its end; long messages wrap; the tab row keeps [+] at 80 columns.
golden names-200x40 samples/p3.lua --size 200x40
golden names-model samples/p6.lua --size 100x30 --keys G
golden names-gantt samples/p3.lua --view gantt --size 80x24
golden matrix-scrolls samples/p3.lua --size 80x24 --keys '<Tab><Tab>llllllllll'
golden matrix-scrolls-back samples/p3.lua --size 80x24 --keys '<Tab><Tab>llllllllllhhhhhhhh'
golden plan-scrolls samples/p3.lua --view plan --size 60x20 --keys 'jjjjjjjjjjll'
golden help-end samples/default.lua --view help --size 80x24 --keys G
golden message-wraps samples/default.lua --set 'model="Llama-3.1-405B"' --set 'plan=nil' \
	--set 'dcs[ams].pools[1].count=8' --set 'dcs[fra].pools[1].count=8' --view plan --size 80x24
golden title-80-dirty samples/default.lua --size 80x24 --keys 'l<Enter><C-u>32<Enter>'
# Editing: a link's bandwidth typed with a unit changes the iteration;
# a bad value is refused with the reason and the old value kept; undo.
golden edit-bandwidth samples/default.lua --size 100x30 --keys '<Tab><Tab><Enter><C-u>10G<Enter>'
golden edit-refused samples/default.lua --size 100x30 --keys '<Tab><Tab><Right><Enter><C-u>10G<Enter>'
golden edit-undo samples/default.lua --size 100x30 --keys '<Tab><Tab><Enter><C-u>10G<Enter>u'
golden edit-count-bad samples/default.lua --size 100x30 --keys 'l<Enter><C-u>-4<Enter>'
golden edit-loader-refuses samples/default.lua --size 100x30 --keys 'll<Enter><C-u>3<Enter>'
golden edit-same-value samples/default.lua --size 100x30 --keys 'l<Enter><C-u>16<Enter>'
golden edit-plan-left-out samples/default.lua --size 100x30 --keys 'l<Enter><C-u>8<Enter>2'
golden quit-asks samples/default.lua --size 100x30 --keys 'l<Enter><C-u>32<Enter>q'
# p is an edit: [+], u goes back to the file's plan, q asks; S writes
# the new plan, asks before replacing a file; prompts offer their old
# text, which typing replaces.
golden plan-is-an-edit samples/default.lua --size 100x30 --keys 'p<Wait>'
golden plan-undone samples/default.lua --size 100x30 --keys 'p<Wait>u'
# u back to a plan that does not simulate says what it undid, then why.
golden undo-to-invalid samples/default.lua --size 100x30 \
	--keys ':set plan.pipelines[1].stages[1].tp=3<Enter><Wait>:set plan.pipelines[1].micro_batches=7<Enter><Wait>u'
golden plan-quit-asks samples/default.lua --size 100x30 --keys 'p<Wait>q'
# A plan-less file's plan on opening is no edit: no [+], q does not ask.
golden open-plan-clean samples/default.lua --set 'plan=nil' --size 100x30 --keys '<Wait>q'
# Opening warns as the batch commands do on loading: a latency in
# seconds that reads like milliseconds; a file's plan the scenario
# cannot run is left out, said with the plan made in its place.
sed 's/latency = ms(4)/latency = 35/' samples/default.lua >"$tmp/barelat.lua"
has "opening warns of a latency written as seconds" \
	"iteration 1121s; warning: links\[ams-fra\]\.latency: 35 s: milliseconds written as seconds" \
	"$tmp/barelat.lua" --size 140x30
sed '/links = {/,/^  },/d' samples/default.lua >"$tmp/nolink.lua"
has "a file's plan refused on opening is said with the plan made" \
	"^planned by milp \([a-z ]+\), the file's plan left out \(plan\.pipelines\[1\]\.stages\[3\]\.dc: no link" \
	"$tmp/nolink.lua" --size 160x30 --keys '<Wait>'
# ... nor does u take it back, nor the plan screen call it one.
has "u leaves the opening's plan: it is no edit" \
	"^nothing to undo: the plan made on opening is no edit \(:set plan=nil drops it\)" \
	samples/default.lua --set 'plan=nil' --size 100x30 --keys '<Wait>u'
has "the plan screen does not call the opening's plan an edit" \
	"DP sync; made on opening, no edit \(s writes it into the file\)" \
	samples/default.lua --set 'plan=nil' --size 100x30 --keys '<Wait>2'
# A re-plan cancelled in milp's warm start: the engine line names the
# job's engine and whose report it last had, the bound is the solver's,
# and the plan row says its figures are an earlier job's.
golden solver-cancelled-warm samples/default.lua --size 100x30 \
	--keys 'p<Wait>4:set links[ams-fra].bandwidth=50G<Enter><Wait 5><Esc>'
has "p then S writes the new plan" "saved $tmp/d1.lua \(1 edit" samples/default.lua --keys "p<Wait>S$tmp/d1.lua<Enter>"
ok_if "the file S wrote holds p's plan" grep -q "micro_batches = 32, replicas = 2" "$tmp/d1.lua"
has "the file S wrote reopens with p's plan" "1\.402s/iter" "$tmp/d1.lua"
# A pool's count is an input of the cost tables (the straggler term):
# after :set the planner's iteration is the batch simulator's.
want=$("$G" sim samples/default.lua --set 'dcs[ams].pools[1].count=80' --json |
	sed -n 's/.*"iteration_time_s": *\([0-9.e+-]*\).*/\1/p' | awk '{ printf "%.4g", $1 }')
has ":set of a pool's count re-times the plan as sim does ($want s)" "iteration 1\.481s -> ${want}s" \
	samples/default.lua --size 120x40 --keys ':set dcs[ams].pools[1].count=80<Enter>'
has "S over another file asks" "d1.lua exists: y replaces it" samples/p1.lua --keys "S$tmp/d1.lua<Enter>"
has "S over another file, answered n, keeps it" "d1.lua kept" samples/p1.lua --keys "S$tmp/d1.lua<Enter>n"
ok_if "... and the file is as it was" grep -q "micro_batches = 32, replicas = 2" "$tmp/d1.lua"
has "a second S replaces the text of the first" "saved $tmp/d2.lua" samples/default.lua \
	--keys "S$tmp/no/such/dir/f.lua<Enter>S$tmp/d2.lua<Enter>"
# s over a file geoplan wrote itself names that file (the reload frees
# the run's own path: the message must not read it).
has "s over its own file names it" "saved $tmp/s1\.lua \(1 edit; undo starts afresh\)" samples/default.lua \
	--keys ":set job.global_batch=128<Enter><Wait>S<C-u>$tmp/s1.lua<Enter>:set job.global_batch=64<Enter><Wait>s"
# No budget is "none" in the field and in the editor (not "$0.00"), and
# typing none takes a budget away (budget=nil: the loader has no 0).
has "the budget editor keeps none" "budget\.usd_per_hour: none +=  ?none; Enter sets, Esc keeps none" \
	samples/default.lua --size 100x30 --keys 'G<Enter>'
has "none takes the budget away" "^budget = nil: iteration" \
	samples/default.lua --size 100x30 --keys 'G<Enter><C-u>$5<Enter><Enter><C-u>none<Enter>'
# Live re-planning: an edit leaves the plan stale (the live line, the
# title, the plan screen) and re-plans in the background; <Wait> lets
# the job run (a replay's time stands still between keys); the solver
# pane mid-solve (paused after its third report), cancelled, and done;
# a newer edit supersedes the job; undo takes back an edit with its
# re-plan, and a scenario left stale re-plans again.
E='<Tab><Tab><Enter><C-u>10G<Enter>'
golden live-stale-plan samples/default.lua --size 100x30 --keys "${E}2"
golden live-replanned samples/default.lua --size 100x30 --keys "$E<Wait>"
golden live-replanned-plan samples/default.lua --size 100x30 --keys "$E<Wait>2"
# Undo and redo bring a re-plan back with how it was found (not "the
# scenario file's plan"): the 10G re-plan's estimate, after a second
# edit and its re-plan are undone, and after both are and one redone.
for k in u uuU; do
	has "$k brings back a re-plan's report" "^ engine milp, [a-z ]+: estimate 1\.642s" \
		samples/default.lua --size 100x30 \
		--keys "$E<Wait>:set job.global_batch=128<Enter><Wait>${k}2"
done
golden solver-mid-solve samples/default.lua --size 100x30 --keys "${E}4<Wait 3>"
golden solver-cancelled samples/default.lua --size 100x30 --keys "${E}4<Wait 3><Esc>"
golden solver-done samples/default.lua --size 100x30 --keys "${E}4<Wait>"
# At 80 columns: the note takes the rows the log leaves, ends in an
# ellipsis where it is cut, and the empty log's line wraps.
golden solver-note-80 samples/default.lua --size 80x24 --keys 'p<Wait>4'
golden solver-mono samples/default.lua --size 100x30 --theme mono --ascii --keys "${E}4<Wait 3>"
golden live-superseded samples/default.lua --size 100x30 --keys "$E<Right><Enter><C-u>40ms<Enter><Wait>4"
golden live-undo-pair samples/default.lua --size 100x30 --keys "$E<Wait><Right><Enter><C-u>40ms<Enter><Wait>u"
golden live-undo-restarts samples/default.lua --size 100x30 --keys "$E<Right><Enter><C-u>40ms<Enter><Wait>u4"
# Compare: A is the plan before the last edit (or pinned, or another
# engine's), B the plan shown: every figure with its signed change, an
# arrow and better or worse; the two iterations on one time scale.
golden compare-nothing samples/default.lua --size 100x30 --keys '5'
golden compare-after-edit samples/default.lua --size 100x30 --keys "$E<Wait>5"
golden compare-pinned-mono samples/default.lua --size 100x30 --theme mono --keys "P$E<Wait>5"
golden compare-engine samples/default.lua --size 100x30 --keys '5E<Wait>'
# A and B of different jobs (seq 4096 and 2048): the iteration's time,
# cost and WAN bytes get no verdict; tokens/s still does.
has "compare: other jobs, no verdict on the iteration's figures" \
	"^ iteration +1\.481s +[0-9.]+m?s  the jobs differ: see tokens/s" \
	samples/default.lua --size 80x24 --keys 'P:set job.seq=2048<Enter>5'
# fra on a GPU type with no price: the cost row gives both figures and
# no verdict (B's cost leaves those GPUs out).
golden compare-unpriced samples/default.lua --size 80x24 \
	--keys '<Down><Enter><C-u>A100-40<Enter><Wait>5'
# (live=off: the edit is re-simulated, not re-planned, so the p3 figures
# never hang on how far a time-limited solve got on a slow machine)
golden compare-ascii samples/p3.lua --size 120x40 --ascii --keys ":set live=off<Enter>${E}5"
# A broken Lua cost model: an edit it fails on is refused, and the log
# pane has its error with the traceback.
golden log-lua-error samples/default.lua --cost-model tests/golden/fragile-model.lua --size 100x30 \
	--keys '<Tab>jl<Enter>40GB<Enter>4'
# A re-plan never answers an edit with a plan slower than the one shown:
# this heuristic's plan is the sample's own on short links and 4 GPUs of
# ams on long ones, so after the latency edit the plan shown stays.
cat >"$tmp/fickle.lua" <<'EOF'
return { name = "fickle", plan = function(sc)
  if sc.links[1].latency < 0.01 then
    return { schedule = "1f1b", pipelines = { { micro_batches = 32, replicas = 2, stages = {
      { dc = "ams", gpu = "H100", tp = 4, layers = { 1, 13 } },
      { dc = "ams", gpu = "H100", tp = 4, layers = { 14, 26 } },
      { dc = "fra", gpu = "A100-80", tp = 4, layers = { 27, 30 } },
      { dc = "fra", gpu = "A100-80", tp = 4, layers = { 31, 32 } } } } } }
  end
  return { schedule = "1f1b", pipelines = { { micro_batches = 64, replicas = 1, stages = {
    { dc = "ams", gpu = "H100", tp = 4, layers = { 1, 32 } } } } } }
end }
EOF
has "a slower re-plan is not taken" "^kept the plan shown \([0-9.]+m?s\): fickle's re-plan is slower \([0-9.]+m?s\); p takes it" \
	samples/default.lua --size 100x30 --heuristic "$tmp/fickle.lua" \
	--keys ':plan heuristic<Enter><Wait>:set links[ams-fra].latency=20ms<Enter><Wait>'
has "... and p takes it" "^planned by fickle \(feasible\); u undoes: iteration [0-9.]+m?s -> [0-9.]+m?s \(\+[0-9.]+ %\)" \
	samples/default.lua --size 100x30 --heuristic "$tmp/fickle.lua" \
	--keys ':plan heuristic<Enter><Wait>:set links[ams-fra].latency=20ms<Enter><Wait>p<Wait>'
# :plan takes limit= and gap= in the ranges --time-limit and --gap take.
has ":plan limit=0 is refused as --time-limit 0 is" "^limit: seconds in \[0\.001, 86400\], not '0'" \
	samples/default.lua --size 120x30 --keys ':plan megatron limit=0<Enter>'
has ":plan gap=2 is refused as --gap 2 is" "^gap: a fraction in \[0, 1\], not '2'" \
	samples/default.lua --size 120x30 --keys ':plan gap=2<Enter>'
# A re-plan's message that comes while a command line is open goes over
# it, not beside, where it would read as part of the command.
has "a message over an open command line, not in it" "^:set lin *$" \
	samples/default.lua --size 120x30 --keys ':set links[ams>fra].bandwidth=20G<Enter>:set lin<Wait>'
# A change of ten times or more is a factor, as on the compare screen.
has "a huge change reads as a factor, not a percentage" \
	"latency = 20s: iteration 1\.481s -> [0-9.]+s \([0-9]+x\)" \
	samples/default.lua --size 140x30 --keys ':set live=off<Enter>:set links[ams-fra].latency=20s<Enter>'
# The rule ranks by the job's objective and never keeps a plan over the
# budget: a cheaper (slower) plan is taken for objective=cost, and the
# file's $65.60/h plan gives way under a $10/h budget, said so.
has "objective=cost takes the cheaper, slower re-plan" \
	"^re-planned by milp \([a-z ]+\); u undoes: iteration 1\.481s -> [2-9][0-9.]*s" \
	samples/default.lua --size 140x30 --keys ':set objective=cost<Enter><Wait>'
has "a plan over the edited budget is replaced, said so" \
	"^re-planned by milp \([a-z ]+\), old plan at \\\$65\.60/h, over the budget of \\\$10\.00/h" \
	samples/default.lua --size 140x30 --keys ':set budget.usd_per_hour=10<Enter><Wait>'
has "the plan screen gives the budget against the plan's GPUs" \
	"budget +\\\$10\.00/h  the plan's GPUs \\\$65\.60/h: over the budget" \
	samples/default.lua --size 100x30 --view plan --set budget.usd_per_hour=10 --keys ':set live=off<Enter>'
# A pool switched to a GPU type without a price: said, and kept in the
# log past the re-plan's status line.
has "a GPU type without a price is said" "dcs\[ams\]\.pools\[1\]\.gpu = H200; H200 has no price_per_hour" \
	samples/default.lua --size 120x30 --keys ':set dcs[ams].pools[1].gpu=H200<Enter><Wait>4'
# A heuristic that fails leaves the MILP cold: its error is in the log
# as well as in the note.
printf 'return { name = "loop", plan = function() while true do end end }\n' >"$tmp/loop.lua"
has "a failed warm start's error is in the log" "^ (✖|E) .*loop\.lua:1: instruction budget" \
	samples/default.lua --heuristic "$tmp/loop.lua" --keys 'p<Wait>4'
# A script's figure the host warns of (5000 s a layer) is a warning
# (marked), logged once though the edit's check and the re-plan both
# load the script.
printf 'return { compute = function() return 5000 end }\n' >"$tmp/cm5.lua"
"$G" shot samples/default.lua --keys ":set cost_model=\"$tmp/cm5.lua\"<Enter><Wait>4" \
	-o "$tmp/cm5.txt" >/dev/null 2>&1
ok_if "a script's figure warning is marked, and logged once" \
	test "$(grep -Ec '^ (▲|!) .*cm5\.lua:1: warning: compute' "$tmp/cm5.txt")" = 1 -a \
	"$(grep -c 'cm5\.lua:1: warning' "$tmp/cm5.txt")" = 1
# Figures as the batch writes them, never an exponent: the editor's
# base-unit preview, dollars grouped on the plan screen, the SVG axis of
# a 1,025,267 s iteration; no $0 figures beside "no prices".
has "the editor previews a bandwidth in bytes/s, no exponent" "= 50Gb/s \(6\.25 GB/s\); Enter sets" \
	samples/default.lua --keys '<Tab><Tab><Enter><C-u>50G'
# (\$125,037 and \$125,036 of GPUs: 5,000 s a layer at the pace of the
# slowest GPU the plan uses, geoplan(1) COST MODEL; the sum rounds apart.)
has "the plan screen's dollars are grouped" 'cost per iteration +\$125,037  GPUs \$125,036' \
	samples/default.lua --cost-model "$tmp/cm5.lua" --view plan
has "no prices, no \$0 figures" "cost per iteration +no prices  none given \(gpus' price_per_hour" \
	samples/p5.lua --view plan
"$G" gantt samples/default.lua --cost-model "$tmp/cm5.lua" -o "$tmp/huge.svg" 2>/dev/null
ok_if "the SVG axis of a long iteration has no exponent" \
	sh -c "grep -q '>1,000,000<' '$tmp/huge.svg' && ! grep -Eq '>[0-9.]+e[+-]?[0-9]+<' '$tmp/huge.svg'"
# A 1,025,267 s iteration's axis reads plainly, not "from -0s  +200000s".
has "a very long iteration's Gantt axis is plain seconds" '^time +(▼|│)0 +│1000000s' \
	samples/default.lua --cost-model "$tmp/cm5.lua" --view gantt
# Too small, with an edit half typed: q asks before losing it, and a
# larger terminal finishes the edit.
has "too small, q with an edit open asks" "an edit is half typed: q again quits" \
	samples/default.lua --keys '<Tab><Tab><Enter><C-u>20G<Resize 40x12>q'
has "... and back at size the edit goes on" "bandwidth: 20G +=  ?20Gb/s \(2\.5 GB/s\); Enter sets" \
	samples/default.lua --keys '<Tab><Tab><Enter><C-u>20G<Resize 40x12>q<Resize 100x30>'
# One edit and the re-plan joined to it (u undoes both) are one edit.
cp samples/default.lua "$tmp/d3.lua"
has "an edit and its re-plan count as one unsaved edit" "^1 unsaved edit: q quits and loses it" \
	"$tmp/d3.lua" --keys ':set job.zero=0<Enter><Wait>4q'
# "optimal" says over what: the qualifier on the plan screen, the
# batch's proof line on the solver screen.
has "the plan screen's optimal is qualified" "engine milp, optimal in its space: estimate 645\.2ms" \
	samples/p1.lua --view plan --keys 'p<Wait>2'
has "the solver screen has the batch's proof line" "^ proof +optimal over 1F1B plans \(the schedule the model times\) of" \
	samples/p1.lua --keys 'p<Wait>2 4'
# The plan screen says what the batch does of GPUs left unused.
has "the plan screen counts N of M GPUs" "iteration +1\.23s  512 of 640 GPUs; fits" \
	samples/p3.lua --view plan --size 120x40
has "... and says why a DC is unused, as sim does" \
	"^ unused +us-west1-b: all 128 GPUs, no stage there: its links to the DCs in use reach 4\.80" \
	samples/p3.lua --view plan --size 120x40
# A wrapped line on a wide terminal is wrapped narrower where a cell's
# bytes run out, so no word is lost (once "its slower direction), against
# an" went missing at 200 columns).
has "a wide terminal's wrapped unused line keeps every word" \
	"^ +direction\), 7\.83x an iteration of 1\.64 s" \
	samples/default.lua --size 200x30 --keys "$E<Wait>2"
# :plan schedule= chunks= plans for them, and the plan screen says so.
has ":plan schedule=interleaved chunks=2 plans 2 chunks" "^ interleaved x2 chunks, hierarchical DP sync" \
	samples/default.lua --size 120x30 --keys ':plan schedule=interleaved chunks=2<Enter><Wait>2'
# Chunks no plan can hold (60 of Nemotron-4-340B's 96 layers: one stage,
# which no GPU holds): the plan runs one, and the status line says so.
has ":plan chunks= no plan holds: the status line says one chunk" \
	"^planned by milp \([a-z ]+\), one chunk: no plan holds the chunks asked for \(the solver's note says why\)" \
	samples/p6.lua --size 200x20 --keys ':plan schedule=interleaved chunks=60<Enter><Wait>'
# A refused :plan keeps none of its words: the next p plans as before.
has "a refused :plan sets nothing for the next" "^ 1f1b, hierarchical DP sync" \
	samples/default.lua --view plan --size 120x30 --keys ':plan schedule=gpipe chunks=4<Enter>:plan<Enter><Wait>2'
has ":plan chunks=0 is refused" "^chunks: 1 to 64, not '0'" samples/default.lua --keys ':plan chunks=0<Enter>'
has ":plan chunks=2 on a 1F1B plan says which schedules take chunks" \
	"^chunks: 1f1b runs one chunk; schedule=interleaved, xdc-greedy or xdc-milp takes them" \
	samples/default.lua --keys ':plan chunks=2<Enter>'
# A pair of DCs with no link: its "-" cell says how to add one, and
# Enter types the :set, the caret in the bandwidth's "()": 40, then 16
# keys right into the latency's, 9, Enter adds the link both ways.
par='dcs[3]={name="par",pools={{gpu="H100",count=8,per_node=8}}}'
has "a missing link's cell says how to add one" "^no link ams-par: Enter types the :set" \
	samples/default.lua --set "$par" --size 100x30 --keys '<Tab><Tab><Right><Right>'
R=$(printf '<Right>%.0s' $(seq 16))
has "... and Enter adds it from the matrix" "^ par +40Gb/s +9ms +- +\.$" \
	samples/default.lua --set "$par" --size 100x30 --keys "<Tab><Tab><Right><Right><Enter>40${R}9<Enter>"
# After a re-plan, B says what the plan it replaced takes in the edited
# scenario: A against that is what the edit alone did (50G: 1.567 s).
has "after a re-plan, B names the replaced plan's time" \
	"^ B now: milp's plan, re-planned after the edit \(the plan before it: 1\.567s in this scenario\)" \
	samples/default.lua --size 120x20 --keys '<Tab><Tab><Enter><C-u>50G<Enter><Wait>5'
# p's plan is an edit of its own: A is the plan it replaced.
has "after p, the compare screen's A is the plan p replaced" "^ A before the plan by milp$" \
	samples/default.lua --size 120x20 --keys 'p<Wait>5'
# A GPU type without a price is named beside the GPUs' dollars, as sim
# names it (16 H100 x $2.50/h x 1.481 s = $0.0165).
has "the plan screen names a GPU type without a price" \
	"cost per iteration +\\\$0\.102  GPUs \\\$0\.0165 \(no price for A100-80\), WAN egress" \
	samples/default.lua --set 'gpus["A100-80"].price_per_hour=nil' --view plan --size 120x30
# A GPU type whose efficiency is another's fit says so, as sim does.
has "the plan screen says whose efficiency a GPU type borrows" \
	"^ efficiency +V100-16 borrows A100-80's fit, 0\.893 of peak \(no measured V100-16 runs\)" \
	samples/p5.lua --view plan --size 100x30
# A column of times has one precision: "27.00ms" beside "12.94ms".
has "the stage table's times keep their trailing zeros" "ams H100 +4 +1-13 none +12\.94ms 27\.00ms" \
	samples/default.lua --view plan
# A refused :set speaks of what was typed, not of the batch's --set,
# and a script's traceback reads on one line in the status line.
has "a refused :set names the path as typed" \
	"^refused, old value kept: links\[ams-xyz\]\.bandwidth: nothing called \[ams-xyz\]" \
	samples/default.lua --keys ':set links[ams-xyz].bandwidth=10G<Enter>'
printf 'local function h(l) return l.hiden * 2 end\nreturn { compute = function(l) return h(l) end }\n' \
	>"$tmp/cm1.lua"
has "a script's error is one line in the status line" "\(field 'hiden'\) while evaluating compute" \
	samples/default.lua --size 200x30 --keys ":set cost_model=\"$tmp/cm1.lua\"<Enter>"
# Tab's list, when cut, says how many more fit; job.<Tab> has every
# job field the loader reads.
has "a cut completion list counts the rest" "\(57 more of 64: type more to narrow\)" \
	samples/p3.lua --keys ':set links[us-c<Tab>'
for f in precision sequence_parallel cross_entropy; do
	has "job.<Tab> lists $f" "job\.$f=" samples/default.lua --keys ':set job.<Tab>'
done
# A failed job says why on its line, cut at a word at 80 columns, and
# its one report is no "no reports yet".
has "a failed job's line gives the reason" \
	"^ job +planning with heuristic: failed: .*loop\.lua:1: (…|instruction)" \
	samples/default.lua --size 80x24 --heuristic "$tmp/loop.lua" --keys ':plan heuristic<Enter><Wait>4'
has "... and its report is counted, not \"no reports yet\"" \
	"^ history +nothing to draw: the reports had no incumbent or bound yet" \
	samples/default.lua --heuristic "$tmp/loop.lua" --keys ':plan heuristic<Enter><Wait>4'
# Compare's A never outlives the edit it was "before": after u, A is
# the plan the undo took back.
has "after an undo, A is the plan undone" "^ A before undoing job\.zero = 0$" \
	samples/default.lua --size 100x30 --keys ':set live=off<Enter>:set job.zero=0<Enter>u5'
# A re-plan after an edit that dropped the file's plan still says
# before -> after (the iteration before the edit); of a job that trains
# more tokens an iteration, tokens/s first (177 k: 64 x 4096 tokens in
# 1.481 s).
has "a re-plan after the file's plan was dropped says so, and before -> after" \
	"^re-planned by milp \((feasible|optimal in its space)\), old plan invalid; u undoes: tokens/s 177 k -> [0-9.]+ k \([+-][0-9.]+ %\); iteration 1\.481s -> [0-9.]+m?s, of another job" \
	samples/default.lua --size 160x30 --keys ':set job.global_batch=128<Enter><Wait>'
has "a live edit of the job says the iteration before it in tokens/s" \
	"^re-planned by milp \([a-z ]+\); u undoes: iteration [0-9.]+m?s -> [0-9.]+m?s \([+-][0-9.]+ %\); tokens/s 177 k before the edit" \
	samples/default.lua --size 160x30 --keys ':set job.seq=2048<Enter><Wait>'
# The Gantt's legend: only the kinds the chart has (p3 has no act or
# grad), and the column's time whole at 60 columns, or not at all.
has "the Gantt legend lists only the kinds drawn" "^(█|F) F (█|B) B (█|S|#) sync (█|O) opt .* mixed" \
	samples/p3.lua --view gantt
has "the Gantt legend's column time is whole at 60 columns" "mixed +43\.56ms/col$" \
	samples/default.lua --view gantt --size 60x16
# shot --no-cursor: a screenshot for a review, nothing drawn selected
# (the dark theme's selection is white on #2f5f8f).
"$G" shot samples/default.lua --view plan -o "$tmp/sel.ans" >/dev/null 2>&1
"$G" shot samples/default.lua --view plan --no-cursor -o "$tmp/nosel.ans" >/dev/null 2>&1
ok_if "shot --no-cursor draws no selection" \
	sh -c "grep -q '48;2;47;95;143m' '$tmp/sel.ans' && ! grep -q '48;2;47;95;143m' '$tmp/nosel.ans'"
# The solver note writes times as the screens do ("1.402s").
has "the solver note's times are unspaced" "^ +.*(1\.402s \(\+0\.00 %\)|MILP.s plan 1\.402s)" \
	samples/default.lua --keys 'p<Wait>4'
# Narrow screens cut text at words, never mid-figure: the scenario's
# hints at 80 columns, the plan's notes at 60, ring links that stay
# told apart.
has "the scenario's hints wrap at words at 80 columns" "sharded over the +[│▐]$" \
	samples/default.lua --size 80x24
has "the plan's notes wrap at words at 60 columns" "^ GPU idle +27\.8 %  of the iteration, +[│▐]$" \
	samples/default.lua --size 60x16 --view plan
has "a link row cut at 60 columns keeps each end's tail" "^(…|~)central1-a>(…|~)-central1-b" \
	samples/p3.lua --view gantt --size 60x16
golden search-again samples/default.lua --size 100x30 --keys '/fra<Enter>gg/fra<Enter>'
golden edit-typing-replaces samples/default.lua --size 100x30 --keys '<Enter>A100-80'
(cd "$tmp" && "$OLDPWD/$G" shot "$OLDPWD/samples/default.lua" --keys 'x<Enter>' -o x1.txt >/dev/null 2>&1 &&
	"$OLDPWD/$G" shot "$OLDPWD/samples/default.lua" --keys 'x' -o x2.txt >/dev/null 2>&1)
ok_if "x writes geoplan-scenario.svg" test -s "$tmp/geoplan-scenario.svg"
ok_if "a second x offers a new name" grep -q "write the screen to: geoplan-scenario-2.svg" "$tmp/x2.txt"
# The Gantt tells the whole story: the critical path runs through the
# exposed DP sync to the optimizer at the iteration's end (p3: 765 ms of
# sync after a 160 ms last backward); sync has slack like any task;
# the plan screen's idle time matches; axis labels share a unit, count
# from a base deep in a zoom, and leave the cursor's mark alone; a
# transfer says when it arrives.
# Past its end the task stays inspected, the end said after it.
has "past the critical path's end the task stays inspected" \
	"^optimizer step on p1 s1 ams H100x4, 2 replicas: .*critical \(slack 0\); the critical path ends here" \
	samples/default.lua --view gantt --size 200x30 --keys "$(printf 'c%.0s' $(seq 110))"
has "the critical path ends with the optimizer at 1.230s" "^optimizer step on p1 s1 .*to 1\.230s .*critical" \
	samples/p3.lua --view gantt --size 100x30 --keys 'jjjjC'
has "the critical path runs through DP sync" "^DP gradient sync on p1 s1 .*, 128 replicas: .* to 1\.230s" \
	samples/p3.lua --view gantt --size 100x30 --keys 'jjjjCC'
has "... with no slack" "^critical \(slack 0\)" samples/p3.lua --view gantt --size 100x30 --keys 'jjjjCC'
has "a sync span off the path has its slack" "^DP gradient sync on us-central1-a>us-central1-b.*, slack [0-9.]+m?s" \
	samples/p3.lua --view gantt --size 160x30 --keys 'jjjj]'
golden plan-idle samples/p3.lua --view plan --size 100x30
golden gantt-p3 samples/p3.lua --view gantt --size 100x30
golden axis-deep-zoom samples/default.lua --view gantt --size 100x30 \
	--keys 'llllllllllllllllllllllllllllll++++++++++++++++++++++++++++++++++++++++++++++++++'
has "a transfer says when it arrives" "arrives 60\.44ms \(latency 15\.6ms\)" \
	samples/p1.lua --view gantt --size 200x30 --keys 'jjjjw'
# A bare number where people type a unit is asked about, never taken as
# seconds or bytes/s; messages say what is wrong.
golden bare-latency samples/default.lua --size 100x30 --keys '<Tab><Tab><Right><Enter>35<Enter>'
golden bare-bandwidth samples/default.lua --size 100x30 --keys '<Tab><Tab><Enter>1e11'
golden efficiency-zero samples/default.lua --size 100x30 --keys '<Tab>lll<Enter>0'
golden catalog-sorted samples/default.lua --size 100x30 --keys '/model<Enter><Enter>foo<Enter>'
golden batch-too-many samples/default.lua --size 100x30 --set job.global_batch=1e9
# A plan that does not fit; a scenario where nothing fits.
golden does-not-fit samples/default.lua --set 'plan.pipelines[1].stages[1].tp=1' \
	--set 'plan.pipelines[1].stages[1].layers={1,20}' --set 'plan.pipelines[1].stages[2].layers={21,26}' \
	--view plan --size 100x30
golden no-plan samples/default.lua --set 'model="Llama-3.1-405B"' --set 'plan=nil' \
	--set 'dcs[ams].pools[1].count=8' --set 'dcs[fra].pools[1].count=8' --view plan --size 100x24
# The command line: Tab completion, an edit by :set re-planned, a
# sweep's and sensitivity's tables, help, an unknown command, history.
golden cmd-complete samples/default.lua --size 100x30 --keys ':set links[ams<Tab>'
golden cmd-complete-one samples/default.lua --size 100x30 --keys ':set links[ams-fra].b<Tab>'
golden cmd-set samples/default.lua --size 100x30 --keys ':set links[ams-fra].bandwidth=Gbps(10)<Enter><Wait>'
golden cmd-set-units samples/default.lua --size 100x30 --keys ':set links[ams-fra].latency=20ms links[ams-fra].bandwidth=50G<Enter><Wait>2'
# A refusal names the path as written (links[ams-fra], not links[1]).
golden cmd-set-refused samples/default.lua --size 100x30 --keys ':set links[ams-fra].bandwidth=0<Enter>'
# A bare number where a unit belongs is refused as the editor refuses
# it (latency=35 is not 35 s), by :set and by :sweep; ms(35) is taken.
has ":set refuses a bare latency" "refused, old value kept: links\[ams-fra\]\.latency: 35 s\? write 35ms or 35s" \
	samples/default.lua --size 100x30 --keys ':set links[ams-fra].latency=35<Enter>'
has ":sweep refuses a bare latency" "sweep: refused: links\[ams-fra\]\.latency: 40 s\? write 40ms or 40s" \
	samples/default.lua --size 100x30 --keys ':sweep links[ams-fra].latency=35ms,40<Enter>'
has ":set takes ms(35)" "links\[ams-fra\]\.latency = ms\(35\): iteration 1\.481s" \
	samples/default.lua --size 100x30 --keys ':set links[ams-fra].latency=ms(35)<Enter>'
golden cmd-sweep samples/default.lua --size 100x30 --keys ':sweep links[ams-fra].bandwidth=Gbps(5),Gbps(20),Gbps(100)<Enter>'
# :sweep reads values as :set does (10G is Gbit/s), names a refused
# value's path as written, wraps the reason; no axis: its usage.
golden cmd-sweep-units samples/default.lua --size 80x24 --keys ':sweep links[ams-fra].bandwidth=10G,50G,100G<Enter>'
# A value its unit refuses (-1G) is refused before any point runs.
golden cmd-sweep-refused samples/default.lua --size 80x24 --keys ':sweep links[ams-fra].bandwidth=-1G,10G<Enter>'
# A size where a rate is wanted: never read as 40 GB/s, refused with
# what was likely meant, in the field's edit, by :set and by :sweep.
has "a rate field refuses a size" 'refused, 100Gb/s kept: "40GB" is a size, not a rate: did you mean 40Gbit/s or 40GB/s\?' \
	samples/default.lua --size 100x30 --keys '<Tab><Tab><Enter><C-u>40GB<Enter>'
has ":set refuses a size for a rate" 'refused, old value kept: links\[ams-fra\]\.bandwidth: "40GB" is a size, not a rate' \
	samples/default.lua --size 120x30 --keys ':set links[ams-fra].bandwidth=40GB<Enter>'
has ":sweep refuses a size for a rate up front" 'sweep: refused: links\[ams-fra\]\.bandwidth: "40GB" is a size' \
	samples/default.lua --size 120x30 --keys ':sweep links[ams-fra].bandwidth=10G,40GB<Enter>'
# Two axes: the paths whole on a line of their own over "values", and a
# fits column (yes or no).
golden cmd-sweep-two-axes samples/default.lua --size 80x24 \
	--keys ':sweep links[ams-fra].bandwidth=10G,100G links[ams-fra].latency=4ms,40ms<Enter>'
golden cmd-sweep-usage samples/default.lua --size 80x24 --keys ':sweep job.seq=<Enter>'
golden cmd-sensitivity samples/default.lua --size 100x30 --keys ':sens<Enter>'
golden cmd-help samples/default.lua --size 100x30 --keys ':help<Enter>'
golden cmd-unknown samples/default.lua --size 100x30 --keys ':frobnicate<Enter>'
golden cmd-history samples/default.lua --size 100x30 --keys ':sim<Enter>:theme mono<Enter>:s<Up>'
golden cmd-compare samples/default.lua --size 100x30 --keys ':compare megatron<Enter><Wait>'
# At the smallest size the compare table keeps its better/worse column
# (B - A without its percentage) and the key bar drops the F.
golden compare-60x16 samples/default.lua --size 60x16 --keys ':set links[ams-fra].bandwidth=50G<Enter><Wait>5'
golden bar-60x16 samples/default.lua --size 60x16
golden cmd-plan samples/default.lua --size 100x30 --keys ':plan megatron<Enter><Wait>2'
# Planned for cost: the bound in dollars, as the CLI prints it.
golden plan-cost samples/default.lua --size 100x30 --view plan --keys ':plan objective=cost<Enter><Wait>2'
# The mouse: a click on a link cell, then Enter edits it; a click on a
# Gantt task; Shift+wheel moves in time, the wheel a row; the bar's F1;
# with mouse=off a click does nothing.
golden mouse-link samples/default.lua --size 100x30 --keys '<Click 29,11><Enter>'
golden mouse-gantt samples/default.lua --view gantt --size 100x30 --keys '<Click 40,4>'
golden mouse-wheel samples/default.lua --view gantt --size 100x30 \
	--keys '<Click 40,4><S-Wheel 40,4 down><S-Wheel 40,4 down><Wheel 40,4 down>'
golden mouse-bar samples/default.lua --size 100x30 --keys '<Click 1,29>'
golden mouse-off samples/default.lua --size 100x30 --keys ':set mouse=off<Enter><Click 1,29>'
# Every theme (themes/*.lua), in ANSI so the colours are compared: the
# compare screen after an edit has better and worse, the stale mark's
# roles are on the scenario screen mid-solve.
for t in dark light high-contrast colorblind mono; do
	golden "theme-$t.ans" samples/default.lua --size 100x30 --theme "$t" --keys "$E<Wait>5"
done
golden theme-list samples/default.lua --size 100x30 --keys ':theme<Enter>'
golden theme-switch.ans samples/default.lua --size 100x30 --keys ':theme high-contrast<Enter>2'
# :calibrate on four measured runs: the fit as a table, OUT.lua written
# and made the scenario's cost model (an edit, re-simulated).
C=scripts/calibration/nemotron4-15b
has ":calibrate fits, writes and uses OUT.lua" "time MAPE 0\.[0-9][0-9] %" samples/default.lua \
	--size 100x30 --keys ":calibrate $C-16.lua $C-128.lua $C-1024.lua $C-2048.lua -o $tmp/cal.lua<Enter>"
# (the figures are the fit's: the edit and a new simulation are the point)
ok_if "... and OUT.lua is the cost model" grep -qE "cost_model = \"$tmp/cal.lua\": iteration [0-9.]+m?s -> [0-9.]+m?s" "$tmp/has.txt"
# Every command of :help is in geoplan(1).
"$G" shot samples/default.lua --size 100x30 --keys ':help<Enter>' -o "$tmp/help.txt"
cmds=$(sed -n 's/^.*│ \([a-z][a-z]*\) .*$/\1/p' "$tmp/help.txt")
missing=
for c in $cmds; do
	grep -q "^\.It Ic :$c\b" man/geoplan.1 || grep -q "^\.It .*Ic :$c\b" man/geoplan.1 || missing="$missing $c"
done
ok_if "geoplan(1) documents every command ($(echo $cmds | wc -w) of them)${missing:+; not:$missing}" \
	test -z "$missing" -a -n "$cmds"
# A file with a syntax error: refused before any screen, with the line.
printf 'return { name = "x", dcs = {\n' >"$tmp/syntax.lua"
n=$((n + 1))
out=$("$G" shot "$tmp/syntax.lua" -o "$tmp/x.txt" 2>&1)
rc=$?
if [ $rc -eq 1 ] && printf '%s' "$out" | grep -q "syntax.lua:2:"; then
	echo "ok $n - a syntax error is refused with its line"
else
	echo "not ok $n - syntax error: exit $rc: $out"
fi
# The SVG screenshot: the same bytes twice, one rect per background run.
"$G" shot samples/default.lua --view gantt -o "$tmp/a.svg" && "$G" shot samples/default.lua --view gantt -o "$tmp/b.svg"
n=$((n + 1))
if cmp -s "$tmp/a.svg" "$tmp/b.svg" && grep -q '<svg' "$tmp/a.svg" && ! grep -qi 'http://fonts\|@import' "$tmp/a.svg"; then
	echo "ok $n - SVG shot: deterministic, no web fonts"
else
	echo "not ok $n - SVG shot differs between runs"
fi
for f in html ans; do
	n=$((n + 1))
	if "$G" shot samples/default.lua -o "$tmp/s.$f" && [ -s "$tmp/s.$f" ]; then echo "ok $n - shot .$f"; else echo "not ok $n - shot .$f"; fi
done
# The real program in tmux: keys, an edit and its re-plan, a resize, a
# link edited while a long solve runs, Esc cancelling it, q, exit 0, the
# terminal back.
n=$((n + 1))
if ! command -v tmux >/dev/null; then
	echo "ok $n # skip no tmux"
else
	T="tmux -L gp$$ -f /dev/null"
	mkdir -p "$tmp/cfg/geoplan"
	printf 'return { theme = "light", keys = { ["view-gantt"] = { "3", "<C-g>", "<F4>" } } }\n' \
		>"$tmp/cfg/geoplan/config.lua"
	$T new-session -d -x 100 -y 30 "XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/cfg $G samples/default.lua; echo EXIT=\$? >$tmp/exit; sleep 60"
	wait_for() {
		i=0
		while [ $i -lt 100 ]; do
			$T capture-pane -p >"$tmp/pane" 2>/dev/null
			grep -q -- "$1" "$tmp/pane" && return 0
			sleep 0.1
			i=$((i + 1))
		done
		return 1
	}
	ok=1
	wait_for "for help" || ok=0
	# An edit re-plans in the background: the new plan and its deltas.
	$T send-keys Tab Tab Enter C-u 1 0 G Enter
	wait_for "re-planned by milp (feasible); u undoes: iteration 2.280s -> 1.642s" || ok=0
	$T send-keys C-g   # bound in config.lua
	wait_for "p1 s1 " || ok=0
	# ... and the help screen lists it beside the built-in key.
	$T send-keys ?
	wait_for "3 <C-g> <F4> *view-gantt" || ok=0
	wait_for "F43 view-gantt" || ok=0   # the F-key bar says what F4 now does
	$T send-keys 3
	wait_for "p1 s1 " || ok=0
	$T send-keys : t h e m e Enter
	wait_for "theme light; themes: colorblind, dark, high-contrast, light, mono" || ok=0
	$T resize-window -x 70 -y 20
	wait_for "7Fit" || ok=0   # F7Fit, or 7Fit where the bar drops the F
	$T resize-window -x 30 -y 8
	wait_for "needs 60x16" || ok=0
	$T resize-window -x 100 -y 30
	wait_for "3 Gantt" || ok=0
	# A real click through the terminal (X10 mouse bytes, as tmux's
	# terminal type declares them): on the Gantt tab, from the scenario.
	$T send-keys 1
	wait_for "Datacenters and pools" || ok=0
	click() {   # click X Y: press and release at column X, row Y (0-based)
		for b in 32 35; do
			$T send-keys -l "$(printf '\033[M%b%b%b' "\\0$(printf %o $b)" \
				"\\0$(printf %o $((33 + $1)))" "\\0$(printf %o $((33 + $2)))")"
		done
	}
	x=$(awk 'NR == 1 { print index($0, "3 Gantt") }' "$tmp/pane")
	click "$x" 0
	wait_for "p1 s1 " || ok=0
	# :set mouse=off gives the mouse back: the same click does nothing.
	$T send-keys 1 : s e t Space m o u s e = o f f Enter
	wait_for "Datacenters and pools" || ok=0
	click "$x" 0
	sleep 0.5
	$T capture-pane -p >"$tmp/pane"
	grep -q "Datacenters and pools" "$tmp/pane" || ok=0
	$T send-keys q
	wait_for "unsaved edit" || ok=0
	$T send-keys Escape
	sleep 0.3   # Esc alone, longer than ESCDELAY, or it reads as Alt
	# A long solve (a batch of 100,000: seconds of MILP) starts on the
	# edit; keys work meanwhile; a link edited during it supersedes it;
	# Esc cancels, and the plan shown stays, marked stale.
	$T send-keys 1 / g l o b a l Enter Enter C-u 1 0 0 0 0 0 Enter
	wait_for "plan stale, re-planning with milp" || ok=0
	$T send-keys g Tab Tab Enter C-u 5 0 G Enter
	wait_for "links\[ams>fra\].bandwidth = 50G" || ok=0
	wait_for "plan stale, re-planning with milp" || ok=0
	$T send-keys 4
	wait_for "re-planning: running; Esc cancels" || ok=0
	$T send-keys Escape
	wait_for "re-planning cancelled" || ok=0
	wait_for "plan stale: made before the last 2 edits" || ok=0
	sleep 0.3
	# The command line: a command, its table, the history recalled.
	$T send-keys : h e l p Enter
	wait_for "commands: any key closes" || ok=0
	$T send-keys Escape
	sleep 0.3
	$T send-keys : Up
	wait_for "^:help" || ok=0
	$T send-keys C-u
	$T send-keys Escape
	sleep 0.3
	$T send-keys q
	wait_for "unsaved edit" || ok=0
	$T send-keys q
	i=0
	while [ ! -s "$tmp/exit" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	grep -q "EXIT=0" "$tmp/exit" 2>/dev/null || ok=0
	grep -qx "help" "$tmp/state/geoplan/history" 2>/dev/null || ok=0
	if [ $ok -eq 1 ]; then
		echo "ok $n - tmux: the real program edits, re-plans, cancels, takes clicks, resizes and quits with exit 0"
	else
		echo "not ok $n - tmux run"
		sed 's/^/#   /' "$tmp/pane" | head -30
	fi
fi

# A config.lua with errors is refused whole, and the first screen says
# so (the log says why), not only the log.
n=$((n + 1))
if ! command -v tmux >/dev/null; then
	echo "ok $n # skip no tmux"
else
	T="tmux -L gpc$$ -f /dev/null"
	mkdir -p "$tmp/badcfg/geoplan"
	printf 'return { theme = "light", mouse = "yes" }\n' >"$tmp/badcfg/geoplan/config.lua"
	$T new-session -d -x 120 -y 30 "XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/badcfg $G samples/default.lua; sleep 30"
	i=0
	while [ $i -lt 100 ]; do
		$T capture-pane -p >"$tmp/cpane" 2>/dev/null
		grep -q "config.lua refused, its defaults used (4 shows why)" "$tmp/cpane" && break
		sleep 0.1
		i=$((i + 1))
	done
	$T kill-server 2>/dev/null
	if grep -q "config.lua refused, its defaults used (4 shows why)" "$tmp/cpane"; then
		echo "ok $n - a refused config.lua is said on the first screen"
	else
		echo "not ok $n - a refused config.lua is said on the first screen"
		sed 's/^/#   /' "$tmp/cpane" | tail -4
	fi
fi

# A terminal that cannot move the cursor (TERM=dumb) is refused, exit 1,
# instead of a screen smeared onto one line.
n=$((n + 1))
if ! command -v tmux >/dev/null; then
	echo "ok $n # skip no tmux"
else
	T="tmux -L gpd$$ -f /dev/null"
	$T new-session -d -x 100 -y 30 "TERM=dumb $G samples/default.lua 2>$tmp/dumb.err; echo EXIT=\$? >$tmp/dumb; sleep 30"
	i=0
	while [ ! -s "$tmp/dumb" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	$T kill-server 2>/dev/null
	if grep -q "EXIT=1" "$tmp/dumb" 2>/dev/null &&
	   grep -q "cannot move the cursor" "$tmp/dumb.err"; then
		echo "ok $n - TERM=dumb is refused with exit 1 and why"
	else
		echo "not ok $n - TERM=dumb: $(cat "$tmp/dumb" "$tmp/dumb.err" 2>/dev/null)"
	fi
fi
