#!/bin/sh
# Every example of geoplan-lua(7) runs: each block tagged
# `.\" example: NAME SAMPLE` (a cost model) or `.\" heuristic: NAME
# SAMPLE` is extracted, unescaped from roff and given to
# `geoplan sim samples/SAMPLE.lua --cost-model` or to
# `geoplan plan samples/SAMPLE.lua --engine heuristic --heuristic`; it
# must succeed, and a cost model must change the sample's result (an
# example that does nothing there is a wrong example or a wrong sample).
set -u
G=${GEOPLAN:-build/geoplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
awk -v dir="$T" '
/^\.\\" (example|heuristic): / { kind = $2; name = $3; sample = $4; ex = 1; next }
ex == 1 && /^\.Bd -literal/ { ex = 2; f = dir "/" name ".lua"; print sample " " kind > (dir "/" name ".sample"); next }
ex == 2 && /^\.Ed/ { ex = 0; close(f); next }
ex == 2 { gsub(/\\\(dq/, "\""); gsub(/\\e/, "\\"); gsub(/\\\(ha/, "^"); print > f }
' man/geoplan-lua.7
n=0
for f in "$T"/*.lua; do
	n=$((n + 1))
	name=$(basename "$f" .lua)
	read -r sample kind <"$T/$name.sample"
	if [ "$kind" = "heuristic:" ]; then
		out=$("$G" plan "samples/$sample.lua" --engine heuristic --heuristic "$f" 2>&1)
	else
		out=$("$G" sim "samples/$sample.lua" --cost-model "$f" --json 2>&1)
	fi
	rc=$?
	if [ $rc -eq 0 ] && [ "$kind" != "heuristic:" ] &&
	   [ "$(printf '%s' "$out" | grep -v cost_model)" = "$("$G" sim "samples/$sample.lua" --json)" ]; then
		echo "not ok $n - geoplan-lua(7) example $name changes nothing on $sample"
	elif [ $rc -eq 0 ]; then
		echo "ok $n - geoplan-lua(7) example $name on $sample"
	else
		echo "not ok $n - geoplan-lua(7) example $name on $sample: exit $rc: $out"
	fi
done
[ $n -ge 3 ] || echo "not ok $((n + 1)) - only $n examples found in geoplan-lua(7)"
