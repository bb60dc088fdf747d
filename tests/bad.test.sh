#!/bin/sh
# Every malformed scenario in tests/bad/ must be refused with exit 1 and
# the message written on its first line (after "-- expect: "), within
# 10 s and with nothing on stdout (print and warn go to the log, stderr).
# Optional next lines: "-- args: ARGS", more arguments for geoplan check,
# read by the shell ($(...) expands); "-- within: S", it must end in
# under S seconds.
set -u
G=${GEOPLAN:-build/geoplan}
n=0
err=$(mktemp)
trap 'rm -f "$err"' EXIT
for f in tests/bad/*.lua; do
	n=$((n + 1))
	want=$(sed -n '1s/^-- expect: //p' "$f")
	args=$(sed -n '2,3s/^-- args: //p' "$f")
	within=$(sed -n '2,3s/^-- within: //p' "$f")
	eval "set -- $args"
	t0=$(date +%s%N)
	out=$(timeout 10 "$G" check "$f" "$@" 2>"$err")
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	msg=$(cat "$err")
	if [ $rc -eq 124 ]; then
		echo "not ok $n - $f: still running after 10 s"
	elif [ $rc -ne 1 ] || ! printf '%s' "$msg" | grep -qF -- "$want"; then
		echo "not ok $n - $f: exit $rc, got: $msg"
		echo "#   wanted: $want"
	elif [ -n "$out" ]; then
		echo "not ok $n - $f: wrote to stdout: $out"
	elif [ -n "$within" ] && [ "$ms" -ge $((within * 1000)) ]; then
		echo "not ok $n - $f: took $ms ms (wanted under $within s)"
	else
		echo "ok $n - $f${within:+ ($ms ms)}"
	fi
done
