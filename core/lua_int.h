/*
 * lua_int.h: internal to the Lua host files (lua_host.c, lua_read.c,
 * lua_scenario.c, lua_plan.c, lua_set.c); nobody else includes it. These
 * files are the only ones that include lua.h: the rest of geoplan sees
 * lua_host.h, C data and error values.
 *
 * lua_host.c runs chunks in the sandbox; lua_read.c reads a table's
 * fields with raw access only (a scenario's metatables cannot run code
 * behind our back) and names the field path in every complaint;
 * lua_scenario.c and lua_plan.c turn the returned table into a scenario;
 * lua_set.c applies --set overrides to the table first.
 */
#ifndef GP_LUA_INT_H
#define GP_LUA_INT_H

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>

#include "lua_host.h"
#include "scenario.h"

/* --- lua_host.c: the sandboxed state -------------------------------- */

lua_State *lh_state(struct gp_lua *h);

/* lua_pcall under the instruction budget (msgh as for lua_pcall). */
int lh_pcall(struct gp_lua *h, int nargs, int nres, int msgh);

/* Loads and calls a text chunk with nres results left on the stack; on
 * error, sets e (the chunk, line and user frames of the traceback) and
 * leaves the stack as it was. */
int lh_run_chunk(struct gp_lua *h, const char *name, const char *text,
		 size_t len, int nres, struct gp_err *e);

/* --- lua_read.c: fields of a table, with path-named errors ----------- */

/* One conversion: the first error is kept in e and sets failed. */
struct lh_cv {
	lua_State *L;
	struct gp_err *e;
	const char *file;
	struct gp_scenario *s;
	int failed;
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
 * `name` and pops the table; NULL and e on error. */
struct gp_scenario *lh_scenario(lua_State *L, const char *name,
				struct gp_err *e);

/* Reads the optional `plan` of the top-level table at index top. */
int lh_conv_plan(struct lh_cv *c, int top);

#endif
