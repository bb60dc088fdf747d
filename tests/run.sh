#!/bin/sh
# Runs every test against each build directory given (the optimised build
# and the sanitizer build), counts TAP lines, and ends with
# "N passed, N failed".
set -u
pass=0
fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
count() {
	# $1: label; reads TAP on stdin
	while IFS= read -r line; do
		case "$line" in
		"not ok"*) fail=$((fail + 1)); echo "FAIL [$1] ${line#not ok }" ;;
		"ok"*) pass=$((pass + 1)) ;;
		"# ok"*) ;;
		"#"*) echo "     [$1] $line" ;;
		esac
	done
}
for b in "$@"; do
	for t in "$b"/tests/test_*; do
		[ -x "$t" ] || continue
		name=$(basename "$t")
		CMOCKA_MESSAGE_OUTPUT=TAP "$t" >"$log" 2>&1
		rc=$?
		count "$b $name" <"$log"
		if [ $rc -ne 0 ] && ! grep -q '^not ok' "$log"; then
			fail=$((fail + 1))
			echo "FAIL [$b $name] exited $rc without a test failure:"
			tail -20 "$log"
		fi
	done
	for t in tests/*.test.sh; do
		GEOPLAN="$b/geoplan" sh "$t" >"$log" 2>&1
		count "$b $(basename "$t")" <"$log"
	done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
