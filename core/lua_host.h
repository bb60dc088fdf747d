/*
 * lua_host.h: the one place geoplan talks to Lua.
 *
 * A gp_lua is a sandboxed Lua 5.4 state: only the base, table, string,
 * math and utf8 libraries (no io, os, load, loadfile, dofile, require,
 * collectgarbage, string.dump, no __gc), text chunks only, each in its
 * own environment, an instruction budget enforced by a count hook (work
 * inside library calls is charged to it too) and a memory cap enforced
 * by the allocator. The prelude (scripts/prelude.lua, compiled into the
 * program) runs first; every chunk sees a copy of what it defines.
 * print and warn write to a log (gp_lua_set_log).
 *
 * Nobody else includes lua.h: other modules get C data or error values;
 * the host files' own API (lh_*) is in lua_int.h.
 */
#ifndef GP_LUA_HOST_H
#define GP_LUA_HOST_H

#include <stddef.h>
#include "gp.h"

struct gp_lua_limits {
	long instructions; /* VM instructions per chunk run; <= 0: default */
	size_t memory;     /* bytes; 0: default */
	double seconds;    /* wall-clock backstop per run; <= 0: 200 ns per
			    * instruction of the budget, at least 5 s */
};

#define GP_LUA_DEFAULT_INSTRUCTIONS 50000000L
#define GP_LUA_DEFAULT_MEMORY (64u << 20)

struct gp_lua;

struct gp_lua *gp_lua_new(const struct gp_lua_limits *lim, struct gp_err *e);
void gp_lua_free(struct gp_lua *h);

/* Where print and warn go: one call per line, "[file.lua:LINE] text"
 * (the calling line), at most 20 lines per run and then one "N more
 * lines suppressed". fn NULL: the default, stderr. fn must not call
 * back into the state. */
void gp_lua_set_log(struct gp_lua *h, void (*fn)(void *ud, const char *line),
		    void *ud);

/* Runs a text chunk named `name` in the sandbox, in an environment of
 * its own, and discards its results. On error the message names the
 * chunk and line (Lua's own format). */
int gp_lua_run(struct gp_lua *h, const char *name, const char *text,
	       size_t len, struct gp_err *e);

/* Runs a text chunk and converts the table it returns into a scenario.
 * Used by gp_scenario_load() and by tests that have no file. */
struct gp_scenario;
struct gp_scenario *gp_lua_scenario(struct gp_lua *h, const char *name,
				    const char *text, size_t len,
				    struct gp_err *e);

/* The same, with overrides "PATH=VALUE" applied to the returned table
 * before conversion (geoplan --set): PATH walks fields and indices
 * (job.seq, dcs[2].pools[1].count, dcs[ams], links[ams-fra].bandwidth,
 * gpus[H100].efficiency); VALUE is a Lua expression in the sandbox, or a
 * plain string if it is not one (it does not compile, or it is words
 * and operators without calls, tables, indexing or quotes and fails or
 * gives nil: hierarchical, xdc-greedy, GPT-3-XL); an expression that
 * fails otherwise is an error. */
struct gp_scenario *gp_lua_scenario_set(struct gp_lua *h, const char *name,
					const char *text, size_t len,
					const char *const *sets, int nsets,
					struct gp_err *e);

#endif
