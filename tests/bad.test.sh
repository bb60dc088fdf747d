#!/bin/sh
# Every malformed scenario in tests/bad/ must be refused with exit 1 and
# the message written on its first line (after "-- expect: ").
set -u
G=${GEOPLAN:-build/geoplan}
n=0
for f in tests/bad/*.lua; do
	n=$((n + 1))
	want=$(sed -n '1s/^-- expect: //p' "$f")
	out=$("$G" check "$f" 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && printf '%s' "$out" | grep -qF -- "$want"; then
		echo "ok $n - $f"
	else
		echo "not ok $n - $f: exit $rc, got: $out"
		echo "#   wanted: $want"
	fi
done
