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
