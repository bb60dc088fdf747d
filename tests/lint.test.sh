#!/bin/sh
# The house rules, checked: one file per outside library, files well
# under 1,000 lines, functions that fit on a screen or two, no writable
# globals below main, the man pages clean under mandoc -Tlint.
set -u
G=${GEOPLAN:-build/geoplan}
B=$(dirname "$G")
n=0
# ok NAME OUTPUT: passes when OUTPUT (the offenders) is empty.
check() {
	n=$((n + 1))
	if [ -z "$2" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		printf '%s\n' "$2" | head -10 | sed 's/^/#   /'
	fi
}
src=$(ls core/*.[ch] tui/*.[ch])
inc() { grep -lE "^#include *[<\"]($1)\\.h[>\"]" $src 2>/dev/null; }
check "only the Lua host files (core/lua_*.c) include Lua" \
	"$(inc 'lua|lauxlib|lualib' | grep -v '^core/lua_[a-z_]*\.[ch]$')"
check "only core/glpk.c includes GLPK" "$(inc glpk | grep -v '^core/glpk\.c$')"
# The terminal's display files: the only ones that may talk to curses.
check "only the display files include curses" \
	"$(inc 'curses|ncurses|ncursesw/curses' | grep -v '^tui/display\.c$')"
check "core never prints to the terminal" \
	"$(grep -nE '\b(printf|puts|putchar)\(|\b(stdout|stderr)\b' core/*.c | grep -v '^core/report\.c\|^core/svg\.c\|^core/json\.c\|^core/lua_log\.c')"
check "source files under 1,000 lines" \
	"$(wc -l $src | awk '$2 != "total" && $1 >= 1000 { print $2 ": " $1 " lines" }')"
# K&R functions: a signature line, then '{' and '}' in column 0.
long=$(awk '
/^[A-Za-z_].*\(/ && !/;$/ { sig = $0; sl = FNR }
/^\{/ { if (sig != "") { start = sl; name = sig; infn = 1 } }
/^\}/ { if (infn) { len = FNR - start + 1
	if (len > 120) { match(name, /[A-Za-z_0-9]+\(/)
		printf "%s:%d %s: %d lines\n", FILENAME, start, substr(name, RSTART, RLENGTH - 1), len }
	infn = 0; sig = "" } }
' core/*.c tui/*.c)
check "functions of at most 120 lines" "$long"
# Writable data: objects in .data or .bss (not .data.rel.ro, which is
# read-only once relocated) in any object file but main's.
if command -v objdump >/dev/null && [ -d "$B/core" ]; then
	globals=$(for o in "$B"/core/*.o "$B"/tui/*.o; do
		[ "$(basename "$o")" = main.o ] && continue
		objdump -t "$o" 2>/dev/null | awk -v f="$o" '
			/ O / { for (i = 1; i <= NF; i++) if ($i ~ /^\.(data|bss)/ && $i !~ /rel\.ro/)
				if ($NF !~ /^(__|\.)/) print f ": " $NF }'
	done)
	check "no writable globals below main" "$globals"
fi
if command -v mandoc >/dev/null; then
	check "man pages: mandoc -Tlint" "$(mandoc -Tlint -W warning man/*.[1-9] 2>&1)"
fi
