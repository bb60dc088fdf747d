#!/bin/sh
# Hostile and broken cost-model scripts (tests/hostile/): each is refused
# or contained within seconds with its file, line and reason (the
# message on its first line after "-- expect: "), and nothing of theirs
# reaches standard output: empty when refused, sim's report alone when
# contained (print goes to standard error).
set -u
G=${GEOPLAN:-build/geoplan}
n=0
for f in tests/hostile/*.lua; do
	n=$((n + 1))
	want=$(sed -n '1s/^-- expect: //p' "$f")
	start=$(date +%s)
	out=$(timeout 20 "$G" sim samples/default.lua --cost-model "$f" 2>&1 >/tmp/hostile.$$)
	rc=$?
	secs=$(( $(date +%s) - start ))
	if [ $rc -eq 0 ]; then
		stdout=$(grep -F -- "$(echo "$want" | sed 's/^\[[^]]*\] //')" /tmp/hostile.$$)
	else
		stdout=$(head -3 /tmp/hostile.$$)
	fi
	if [ $rc -ne 124 ] && [ $secs -le 10 ] && printf '%s' "$out" | grep -qF -- "$want" &&
	   [ -z "$stdout" ]; then
		echo "ok $n - $f: exit $rc in ${secs} s"
	else
		echo "not ok $n - $f: exit $rc in ${secs} s, stdout [$stdout], got: $out"
		echo "#   wanted: $want"
	fi
done
rm -f /tmp/hostile.$$
# geoplan check evaluates a cost model twice: one that keeps state
# between calls (here in an upvalue) is refused; a pure one passes.
n=$((n + 1))
T=$(mktemp)
printf 'local n = 0\nreturn { compute = function(l, g, c) n = n + 1 return 1e-3 * n end }\n' >"$T"
out=$("$G" check samples/default.lua --cost-model "$T" 2>&1)
rc=$?
if [ $rc -eq 1 ] && printf '%s' "$out" | grep -qF "the cost model is not pure: evaluated twice"; then
	echo "ok $n - check refuses a cost model with state in an upvalue"
else
	echo "not ok $n - impure model: exit $rc: $out"
fi
n=$((n + 1))
out=$("$G" check samples/p3.lua --cost-model scripts/default-model.lua 2>&1)
if [ $? -eq 0 ] && printf '%s' "$out" | grep -qF "the same figures twice"; then
	echo "ok $n - check passes scripts/default-model.lua as pure"
else
	echo "not ok $n - pure model refused: $out"
fi
rm -f "$T"
