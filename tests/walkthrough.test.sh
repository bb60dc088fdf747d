#!/bin/sh
# scripts/calibration/walkthrough.sh, its figures held to what its
# README says: a model that does not know the stack (stack-2021.lua) is
# far off uncalibrated and, calibrated on the six runs of at most 128
# GPUs, predicts the twelve larger ones within 3 %, with the score work
# fitted away (flash attention); the default, fitted to all eighteen,
# stays within 2.5 % calibrated on the six and near its uncalibrated
# figure; every run fits in memory.
set -u
G=${GEOPLAN:-build/geoplan}
# Figures, not memory safety (calibrate.test.sh runs calibrate under the
# sanitizers): the optimised build only, as the sanitizer build would
# take 70 s more for the same numbers.
case $G in */san/*)
	echo "# walkthrough: figures checked with the optimised build only"
	exit 0 ;;
esac
n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# check NAME AWK-CONDITION: one TAP line, ok when the condition holds.
check() {
	n=$((n + 1))
	if awk "BEGIN { exit !($2) }"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi
}
sh scripts/calibration/walkthrough.sh "$G" >"$tmp/out" 2>"$tmp/err"
rc=$?
n=$((n + 1))
if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ]; then echo "ok $n - the walk-through runs"; else
	echo "not ok $n - the walk-through: exit $rc"; head -5 "$tmp/err" | sed 's/^/#   /'; fi
# mape NAME: the summary's held-out MAPE for NAME; worst NAME its worst.
mape() { sed -n "/^== summary/,\$ s/^held out $1: MAPE \([0-9.]*\) %.*, 12 runs$/\1/p" "$tmp/out"; }
worst() { sed -n "/^== summary/,\$ s/^held out $1: .*worst \([0-9.]*\) %.*/\1/p" "$tmp/out"; }
su=$(mape "stack-2021, uncalibrated") sc=$(mape "stack-2021, calibrated")
du=$(mape "default, uncalibrated") dc=$(mape "default, calibrated")
check "four held-out summaries of 12 runs ($su $sc $du $dc)" \
	"\"$su\" != \"\" && \"$sc\" != \"\" && \"$du\" != \"\" && \"$dc\" != \"\""
check "stack-2021 uncalibrated is far off ($su % > 20 %)" "$su + 0 > 20"
check "stack-2021 calibrated: held-out MAPE $sc % < 3 % and < a tenth of $su %" \
	"$sc + 0 < 3 && $sc * 10 < $su"
check "stack-2021 calibrated: worst held-out error $(worst "stack-2021, calibrated") % < 8 %" \
	"\"$(worst "stack-2021, calibrated")\" != \"\" && $(worst "stack-2021, calibrated") + 0 < 8"
# The score-work share the fit gives stack-2021: the runs use flash
# attention, so it must come out near 0.
a=$(awk '/^== stack-2021.lua, calibrated/ { on = 1 } on && $1 == "attention_scores" { print $2; exit }' "$tmp/out")
check "stack-2021 calibrated: attention_scores fitted to $a (< 0.1)" "\"$a\" != \"\" && $a + 0 < 0.1"
check "the default, fitted to these runs, is within 2 % uncalibrated ($du %)" "$du + 0 < 2"
check "the default calibrated on six: $dc % < 2.5 % and within 1 point of $du %" \
	"$dc + 0 < 2.5 && $dc - $du < 1 && $du - $dc < 1"
n=$((n + 1))
nf=$(grep -cE '^(gpt3|nemotron4)-.* no$' "$tmp/out")
if [ "$nf" -eq 0 ]; then echo "ok $n - every run fits in memory under every model"; else
	echo "not ok $n - $nf predictions say a run does not fit"; fi
