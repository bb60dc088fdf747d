# geoplan: build, run and test. `make run` and `make check` do all the
# set-up on a fresh Debian 12 machine (they install what is missing).

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-format-truncation -Wno-unknown-warning-option
LUA_CFLAGS := $(shell pkg-config --cflags lua5.4 2>/dev/null || echo -I/usr/include/lua5.4)
LUA_LIBS   := $(shell pkg-config --libs lua5.4 2>/dev/null || echo -llua5.4)
CURSES_LIBS := $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw)
LIBS    := $(LUA_LIBS) -lglpk $(CURSES_LIBS) -lm -pthread
B       ?= build

CORE_SRC := $(wildcard core/*.c)
TUI_SRC  := $(wildcard tui/*.c)
TEST_SRC := $(wildcard tests/test_*.c)

# Lua compiled into the program, so a scenario or heuristic needs no
# install: scripts/NAME.lua becomes the string gp_NAME_lua (- as _).
EMBED := prelude heuristic-kit
CORE_OBJ := $(CORE_SRC:%.c=$(B)/%.o) $(EMBED:%=$(B)/embed/%.o)
TUI_OBJ  := $(TUI_SRC:%.c=$(B)/%.o)
# The TUI's objects but main's: what its unit tests link.
TUI_LIB  := $(filter-out $(B)/tui/main.o,$(TUI_OBJ))
TOOL_SRC := tests/fidelity.c tests/simbench.c tests/schedbench.c tests/placebench.c tests/tuibench.c \
	    tests/luabench.c tests/randbench.c
TESTS    := $(TEST_SRC:tests/%.c=$(B)/tests/%) $(TOOL_SRC:tests/%.c=$(B)/tests/%)

# Debian packages the build and the tests need.
DEB_BUILD := gcc make pkg-config libncurses-dev liblua5.4-dev libglpk-dev
DEB_TEST  := libcmocka-dev mandoc lua5.4 clang coinor-cbc tmux python3

.PHONY: all run check test bench deps deps-test clean lint lint-man screens fuzz

all: $(B)/geoplan

$(B)/geoplan: $(CORE_OBJ) $(TUI_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/%.o: %.c $(wildcard core/*.h tui/*.h) | $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(LUA_CFLAGS) -Icore -c -o $@ $<

# ncurses' wide-character API needs X/Open 7 (with _POSIX_C_SOURCE alone
# curses.h hides cchar_t, setcchar and get_wch).
$(B)/tui/%.o: tui/%.c $(wildcard core/*.h tui/*.h) | $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -D_XOPEN_SOURCE=700 $(CFLAGS) $(LUA_CFLAGS) -Icore -Itui -c -o $@ $<

$(B)/embed/%.c: scripts/%.lua
	@mkdir -p $(dir $@)
	{ echo 'const char gp_$(subst -,_,$*)_lua[] ='; \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' $<; echo ';'; } > $@

$(B)/embed/%.o: $(B)/embed/%.c
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/tests/%: tests/%.c $(CORE_OBJ) $(TUI_LIB) $(wildcard tests/*.h) | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -D_XOPEN_SOURCE=700 $(CFLAGS) $(LUA_CFLAGS) -Icore -Itui -Itests -o $@ $< $(CORE_OBJ) $(TUI_LIB) $(LIBS) -lcmocka

$(TOOL_SRC:tests/%.c=$(B)/tests/%): $(B)/tests/%: tests/%.c $(CORE_OBJ) $(TUI_LIB) | $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -D_XOPEN_SOURCE=700 $(CFLAGS) $(LUA_CFLAGS) -Icore -Itui -o $@ $< $(CORE_OBJ) $(TUI_LIB) $(LIBS)

# Installs missing Debian packages (as root, or through sudo).
define install_missing
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -q >/dev/null && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $$missing >/dev/null || \
	  { echo "could not install:$$missing" >&2; exit 1; }; \
	fi
endef

$(B)/.deps:
	$(call install_missing,$(DEB_BUILD))
	@mkdir -p $(B) && touch $@

$(B)/.deps-test:
	$(call install_missing,$(DEB_BUILD) $(DEB_TEST))
	@mkdir -p $(B) && touch $@

deps: $(B)/.deps
deps-test: $(B)/.deps-test

# The terminal planner on the default scenario (without a terminal: its
# summary).
run: $(B)/geoplan
	./$(B)/geoplan samples/default.lua

# Every test, twice: an optimised build and an ASan+UBSan build.
check: $(B)/.deps-test
	@$(MAKE) --no-print-directory -s B=build CFLAGS="-O2 -g -Werror" build/geoplan tests-bin B=build
	@$(MAKE) --no-print-directory -s B=build/san CC=clang \
	  CFLAGS="-O1 -g -Werror -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  LDFLAGS="-fsanitize=address,undefined" build/san/geoplan tests-bin
	@sh tests/run.sh build build/san

tests-bin: $(TESTS) $(B)/tests/fuzz-cli

# The CLI's mutation driver (tests/fuzz/cli.c): no library of ours.
$(B)/tests/fuzz-cli: tests/fuzz/cli.c | $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $<

# Fuzzing, a separate step: libFuzzer on the loader (tests/fuzz/load.c,
# with ASan and UBSan) for FUZZ_SECS seconds from its corpus and the
# samples, then FUZZ_RUNS mutated scenarios through the sanitizer
# build's command line. New inputs go to build/fuzz/corpus; crashes to
# build/fuzz/. make check runs a short pass of the second half.
FUZZ_SECS ?= 60
FUZZ_RUNS ?= 2000
FUZZ_SEED ?= $(shell date +%s)
FUZZ_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
fuzz: $(B)/.deps-test
	@$(MAKE) --no-print-directory -s B=build/fuzz CC=clang \
	  CFLAGS="$(FUZZ_FLAGS) -fsanitize=fuzzer-no-link" build/fuzz/fuzz-load
	@$(MAKE) --no-print-directory -s B=build/san CC=clang CFLAGS="$(FUZZ_FLAGS)" \
	  LDFLAGS="-fsanitize=address,undefined" build/san/geoplan build/san/tests/fuzz-cli
	@mkdir -p build/fuzz/corpus build/fuzz/found
	cd build/fuzz && ./fuzz-load -max_total_time=$(FUZZ_SECS) -timeout=20 -rss_limit_mb=2048 \
	  -dict=../../tests/fuzz/lua.dict corpus ../../tests/fuzz/corpus ../../samples
	./build/san/tests/fuzz-cli build/san/geoplan --runs $(FUZZ_RUNS) --seed $(FUZZ_SEED) \
	  --out build/fuzz/found samples/*.lua tests/fuzz/corpus/*.lua

$(B)/fuzz-load: tests/fuzz/load.c $(CORE_OBJ)
	$(CC) $(WARN) $(CFLAGS) $(LUA_CFLAGS) -Icore -fsanitize=fuzzer -o $@ $^ $(LIBS)

bench: $(B)/geoplan $(TOOL_SRC:tests/%.c=$(B)/tests/%)
	@sh tests/bench.sh $(B)

# The house rules (also run by make check): one file per outside library,
# file and function sizes, no writable globals below main, mandoc -Tlint.
lint: $(B)/geoplan
	@GEOPLAN=$(B)/geoplan sh tests/lint.test.sh

lint-man:
	mandoc -Tlint -W warning man/*.[1-9]

# The README's screenshots, made by geoplan shot (deterministic SVG);
# <Wait> lets the re-plan after the edit finish before the shot.
SHOT = LC_ALL=C.UTF-8 ./$(B)/geoplan shot --size 110x30
screens: $(B)/geoplan
	@mkdir -p docs/screens
	$(SHOT) samples/default.lua -o docs/screens/scenario.svg
	$(SHOT) samples/default.lua --view plan -o docs/screens/plan.svg
	$(SHOT) samples/default.lua --view gantt -o docs/screens/gantt.svg
	$(SHOT) samples/default.lua --keys '<Tab><Tab><Enter><C-u>10G<Enter><Wait>3' \
	  -o docs/screens/gantt-10g.svg
	$(SHOT) samples/p3.lua --view plan -o docs/screens/plan-p3.svg
	$(SHOT) samples/p3.lua --view gantt -o docs/screens/gantt-p3.svg

clean:
	rm -rf build
