#!/bin/sh
# The CLI's mutation driver (tests/fuzz/cli.c): first that it catches
# what it is for (a crash, an undocumented exit, a hang, a sanitizer
# report, a failure without a message), on stand-ins for geoplan; then a
# bounded pass of mutated samples through the build under test, from a
# fixed seed so a red run repeats (make fuzz takes a new seed each time).
set -u
G=${GEOPLAN:-build/geoplan}
D=$(dirname "$G")/tests/fuzz-cli
n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# fake NAME WANT-RC BODY: a stand-in geoplan running BODY; the driver
# must exit WANT-RC on it.
fake() {
	n=$((n + 1))
	printf '#!/bin/sh\n%s\n' "$3" >"$tmp/g"
	chmod +x "$tmp/g"
	"$D" "$tmp/g" --runs 3 --secs 1 --out "$tmp/out" samples/p1.lua >"$tmp/log" 2>&1
	rc=$?
	if [ "$rc" -eq "$2" ]; then
		echo "ok $n - driver on a stand-in that $1: exit $rc"
	else
		echo "not ok $n - driver on a stand-in that $1: exit $rc, wanted $2"
		sed 's/^/#   /' "$tmp/log" | head -5
	fi
}
fake "succeeds" 0 'exit 0'
fake "fails with a message" 0 'echo "geoplan: x.lua:3: bad" >&2; exit 1'
fake "fails without a message" 1 'exit 1'
fake "crashes" 1 'kill -SEGV $$'
fake "aborts" 1 'kill -ABRT $$'
fake "exits 134" 1 'exit 134'
fake "hangs" 1 'sleep 30'
fake "reports a sanitizer error" 1 'echo "x.c:3:5: runtime error: signed integer overflow" >&2'
n=$((n + 1))
if [ -n "$(ls "$tmp/out" 2>/dev/null)" ]; then
	echo "ok $n - failing inputs kept: $(ls "$tmp/out" | wc -l) files"
else
	echo "not ok $n - no failing input kept in $tmp/out"
fi
# The real thing: every run ends by itself with a documented exit code,
# a message when it fails, no sanitizer report, within 30 s (0.3 s of
# planning, the rest for load on a shared machine) and 2 GB.
"$D" "$G" --runs 60 --seed 20261201 --secs 30 --mem 2048 --out "$tmp/found" --tap \
	samples/*.lua tests/fuzz/corpus/*.lua
