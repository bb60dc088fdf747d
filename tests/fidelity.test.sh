#!/bin/sh
# Fidelity against the measured data sets in tests/data (tests/data/sets:
# vTrain and Korthikanti on A100, NeMo on H100): a guard that the default
# model does not drift. Each data set must meet its limits there and every
# configuration that ran must fit in memory; make bench prints the figures.
# The held-out runs (tests/data/heldout) have no limits but the last.
G=${GEOPLAN:-build/geoplan}
F=$(dirname "$G")/tests/fidelity
sets=$(mktemp)
trap 'rm -f "$sets" "$sets.out"' EXIT
n=0
"$F" --check --sets tests/data/sets --sets tests/data/heldout >"$sets.out" 2>&1
rc=$?
while IFS= read -r line; do
	case "$line" in
	"fidelity: all "*) ;;
	"fidelity: "*" misses "*) ;;
	"fidelity: "*)
		n=$((n + 1))
		name=$(echo "$line" | awk '{ print $2 }')
		if grep -q "fidelity: $name misses" "$sets.out"; then
			echo "not ok $n - $line"
		else
			echo "ok $n - $line"
		fi ;;
	esac
done <"$sets.out"
[ $rc -le 1 ] && [ $n -gt 0 ] || echo "not ok $((n + 1)) - fidelity failed: $(tail -3 "$sets.out")"
rm -f "$sets.out"
