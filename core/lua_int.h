/*
 * lua_int.h: internal to the Lua host files (core/lua_*.c); nobody else
 * includes it. These files are the only ones that include lua.h: the
 * rest of geoplan sees lua_host.h, C data and error values.
 *
 * lua_host.c creates the state and turns errors into messages;
 * lua_budget.c owns the instruction budget (the count hook, charges for
 * work inside library calls, a wall-clock backstop); lua_env.c gives
 * each chunk its own environment and freezes it; lua_log.c routes print
 * and warn to the log; lua_match.c is the pattern matcher behind
 * string.find, match, gmatch and gsub. lua_read.c reads a table's fields
 * with raw access only (a scenario's metatables cannot run code behind
 * our back) and names the field path in every complaint; lua_scenario.c
 * and lua_plan.c turn the returned table into a scenario; lua_set.c
 * applies --set overrides to the table first.
 */
#ifndef GP_LUA_INT_H
#define GP_LUA_INT_H

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>

#include "lua_host.h"
#include "scenario.h"

/* --- lua_host.c: the sandboxed state -------------------------------- */

/* The state and what the host files share about it. */
struct gp_lua {
	lua_State *L;
	size_t used, cap;     /* bytes allocated; the cap for Lua code */
	long budget;          /* default instructions per arm */
	double seconds;       /* the backstop per arm; <= 0: from the budget */
	struct lh_run {       /* the armed budget (lua_budget.c) */
		long armed;   /* instructions of this arm; 0: disarmed */
		long left;
		int exhausted;
		const char *why;      /* what used the last of it */
		int timed_out;        /* stopped by the wall clock */
		double seconds;       /* the wall-clock backstop of this arm */
		double deadline;      /* CLOCK_MONOTONIC seconds */
	} run;
	struct lh_log {       /* print and warn (lua_log.c) */
		void (*fn)(void *ud, const char *line);
		void *ud;
		int lines;    /* lines written in this arm */
		long dropped; /* lines suppressed in this arm */
		int warn_off; /* warn("@off") */
		size_t wlen;  /* pending pieces of a warning */
		char wbuf[1024];
	} log;
};

/* Room the host keeps above the cap for its own work (environments,
 * messages, the conversion), so that a chunk that fills the heap to the
 * cap cannot make the host fail outside a protected call. */
#define LH_HOST_SLACK ((size_t)4 << 20)

/* The prelude's chunk name: its frames are not the user's. */
#define LH_PRELUDE "=prelude"

lua_State *lh_state(struct gp_lua *h);

/* The host of a state made by gp_lua_new (its allocator's data). */
struct gp_lua *lh_host(lua_State *L);

/* lua_pcall under the instruction budget (msgh as for lua_pcall): arms
 * the default budget unless one is armed already, and disarms after. */
int lh_pcall(struct gp_lua *h, int nargs, int nres, int msgh);

/* Loads and calls a text chunk in a fresh environment (lh_load_script)
 * with nres results left on the stack, the environment dropped. */
int lh_run_chunk(struct gp_lua *h, const char *name, const char *text,
		 size_t len, int nres, struct gp_err *e);

/* Sets e from a failed lua_pcall's status and the error object on top
 * (popped): LUA_ERRMEM reads "name: memory limit of N MiB exceeded",
 * LUA_ERRERR says the handler failed, others go through lh_error.
 * Returns -1. */
int lh_pcall_error(struct gp_lua *h, int rc, const char *name,
		   struct gp_err *e);

/* The memory cap in bytes (what "memory limit of N MiB" reports). */
size_t lh_memory_cap(const struct gp_lua *h);

/* The message handler for lua_pcall: the error as a string (a table
 * through __tostring, else "(error object is a table value)"), with a
 * traceback of the user's frames only (no [C], no prelude frames) when
 * there is more than the frame the message already names. */
int lh_msgh(lua_State *L);

/* Sets e from an error message, keeping the traceback only if it names
 * a frame the user wrote. */
void lh_error(struct gp_err *e, const char *msg);

/* Does msg start with a position ("file:12: ")? */
int lh_has_position(const char *msg);

/* --- lua_budget.c: the instruction budget ---------------------------- */

/* Arms the budget for a batch: instructions (<= 0: the state's default)
 * shared by every call until lh_disarm. Resets the log's rate limit. */
void lh_arm(struct gp_lua *h, long instructions);

/* Removes the hook; writes "N more lines suppressed" if lines were. */
void lh_disarm(struct gp_lua *h);

/* lua_pcall under an already armed budget. Exhaustion is sticky: once
 * out, every later instruction raises, pcall or not, until lh_arm. */
int lh_pcall_armed(struct gp_lua *h, int nargs, int nres, int msgh);

/* Charges n instructions' worth of work done inside a C function (what
 * names it, e.g. "string.find") and raises the budget error when that
 * exhausts it. h NULL or disarmed: free. */
void lh_charge(struct gp_lua *h, lua_State *L, long n, const char *what);

/* Work per instruction: bytes copied or scanned inside a library call
 * that count as one VM instruction. */
#define LH_BYTES_PER_STEP 16

/* Called by the allocator: charges growth while armed (it cannot raise;
 * the next instruction does). */
void lh_charge_alloc(struct gp_lua *h, size_t bytes);

/* Arms an exhausted budget (before lua_close: should a finalizer run,
 * its first instruction raises). */
void lh_exhaust(struct gp_lua *h, const char *why);

/* Installs the charged string.rep and the charging wrappers of
 * table.sort, insert, remove, move and unpack and of utf8.len,
 * utf8.codepoint and string.byte into the libraries (state creation). */
void lh_open_charged(lua_State *L, struct gp_lua *h);

/* Writes "file:line" of the innermost frame the user wrote (not C, not
 * the prelude) into buf; "" when there is none. */
void lh_where(lua_State *L, char *buf, size_t n);

/* --- lua_env.c: one environment per chunk ---------------------------- */

/* Builds the base every environment copies (state creation, after the
 * libraries are open) and runs the prelude; -1 and e on error. */
int lh_open_env(struct gp_lua *h, const char *prelude, size_t len,
		struct gp_err *e);

/* Loads and runs a text chunk in a fresh environment: the base library
 * (setmetatable refuses __gc), its own shallow copies of string, math,
 * table and utf8, the prelude's unit helpers and a copy of its catalog,
 * _G (the environment itself) and a table geoplan into which the fields
 * of the table at stack index extra (0: none) are copied. Runs under the
 * armed budget, or arms the default one for the run. On success leaves
 * the chunk's nres results (LUA_MULTRET: all) and then the environment
 * on top; on error sets e and leaves the stack as it was. */
int lh_load_script(struct gp_lua *h, const char *name, const char *text,
		   size_t len, int nres, int extra, struct gp_err *e);

/* After it, assigning a global in the environment at index env raises
 * "<file>:<line>: assignment to global 'x' (<why>)" and reading an
 * undefined one "<file>:<line>: undefined global 'x'"; its metatable is
 * protected. rawset still writes: this catches mistakes, not intent. */
void lh_freeze_env(lua_State *L, int env, const char *why);

/* lh_load_script, returning -2 instead of -1 when the text does not
 * compile (lua_set.c takes such a --set value as a string). */
int lh_script(struct gp_lua *h, const char *name, const char *text,
	      size_t len, int nres, int extra, struct gp_err *e);

/* Pushes the prelude's own environment (its pristine catalog). */
void lh_push_prelude(lua_State *L);

/* --- lua_log.c: print and warn --------------------------------------- */

/* Sets print and warn's sink on a new state (default: stderr). */
void lh_open_log(struct gp_lua *h);

/* The sandbox's print (a C function for the base table). */
int lh_print(lua_State *L);

/* Writes "N more lines suppressed" if lines were, and resets the count. */
void lh_log_flush(struct gp_lua *h);

/* --- lua_match.c: Lua patterns under the budget ----------------------- */

/* Sets find, match, gmatch and gsub, charged to h's budget (NULL: not
 * charged), into the table at the top of the stack. */
void lh_open_match(lua_State *L, struct gp_lua *h);

/* --- lua_read.c: fields of a table, with path-named errors ----------- */

/* One conversion: the first error is kept in e and sets failed. */
struct lh_cv {
	lua_State *L;
	struct gp_err *e;
	const char *file;
	struct gp_scenario *s;
	int failed;
	int env;        /* index of the environment with the catalog */
};

/* What a number field must be. */
enum {
	LH_REQ = 1,     /* required */
	LH_POS = 2,     /* > 0 */
	LH_NONNEG = 4,  /* >= 0 */
	LH_INT = 8,     /* integral */
	LH_UNIT = 16,   /* in (0, 1] */
};

/* Sets "file: path: message" and returns -1. */
__attribute__((format(printf, 3, 4)))
int lh_err(struct lh_cv *c, const char *path, const char *fmt, ...);

/* A short description of the value at idx, for "got ..." */
void lh_describe(lua_State *L, int idx, char *buf, size_t n);

/* path.key, and path[i] */
void lh_join(char *out, size_t n, const char *path, const char *key);
void lh_joini(char *out, size_t n, const char *path, long i);
/* The candidate a mistyped name most likely means (case folded, a few
 * edits), or -1. */
int lh_nearest(const char *name, const char *const *cands, int n);
/* For an unknown name: "did you mean \"H100\"? GPUs: A100-40, H100"
 * (the question only when one is near; `what` heads the sorted list). */
void lh_suggest(const char *name, const char *const *cands, int n, const char *what,
		char *buf, size_t len);
/* The same over the scenario's DCs (lua_scenario.c). */
void lh_suggest_dc(const struct gp_scenario *s, const char *name, char *buf, size_t n);

/* Every key of the table at t is in allowed[] (NULL-terminated) or an
 * integer in 1..npos; an unknown name suggests the nearest. */
int lh_check_keys(struct lh_cv *c, int t, const char *path,
		  const char *const *allowed, int npos);

/* The table at t is a list of at most max entries: returns n or -1. */
long lh_check_array(struct lh_cv *c, int t, const char *path, long max);

/* Pushes t[key] (raw) and returns its type. */
int lh_rawfield(lua_State *L, int t, const char *key);

/* Validates and pops the number at the top of the stack. */
int lh_take_number(struct lh_cv *c, const char *path, int flags, double *out);

/* Field readers: an absent field gives def unless LH_REQ. */
int lh_get_num(struct lh_cv *c, int t, const char *path, const char *key,
	       int flags, double def, double *out);
int lh_get_int(struct lh_cv *c, int t, const char *path, const char *key,
	       int flags, int def, int *out);
int lh_get_str(struct lh_cv *c, int t, const char *path, const char *key,
	       int flags, const char *def, char *buf, size_t n);
int lh_get_bool(struct lh_cv *c, int t, const char *path, const char *key,
		bool def, bool *out);
/* A string that must be one of names[] (NULL-terminated); index out. */
int lh_get_enum(struct lh_cv *c, int t, const char *path, const char *key,
		const char *const *names, int def, int *out);
/* Pushes t[key], a table, and returns 1; absent and !req: pushes nothing
 * and returns 0; else -1. */
int lh_get_table(struct lh_cv *c, int t, const char *path, const char *key,
		 int req);
/* Pushes t[i], which must be a table. */
int lh_get_elem_table(struct lh_cv *c, int t, const char *elpath, long i);

/* --- lua_scenario.c, lua_plan.c: the scenario table ------------------ */

/* Recomputation names, in enum gp_recompute order (job and stages). */
extern const char *const lh_recomputes[];

/* Converts the table at the top of L's stack into a new scenario named
 * `name` and pops the table; NULL and e on error. The catalog is the
 * prelude's. */
struct gp_scenario *lh_scenario(lua_State *L, const char *name,
				struct gp_err *e);

/* The same with the catalog of the environment at index env (the one
 * the scenario's chunk ran in, which may have changed its copy). */
struct gp_scenario *lh_scenario_in(lua_State *L, int env, const char *name,
				   struct gp_err *e);

/* Reads the optional `plan` of the top-level table at index top. */
int lh_conv_plan(struct lh_cv *c, int top);

#endif
