/*
 * lua_config.h: a Lua table file read as plain values, for the faces'
 * settings (the terminal planner's themes and config.lua). The file
 * runs in the sandbox like any script (no io, a budget) and returns a
 * table; its strings, numbers and booleans come back flattened under
 * dotted keys: { roles = { text = { fg = "#d0d0d0" } }, keys = { quit =
 * { "q", "<F10>" } } } gives "roles.text.fg" = "#d0d0d0", "keys.quit[1]"
 * = "q", "keys.quit[2]" = "<F10>". What the keys mean is the reader's.
 */
#ifndef GP_LUA_CONFIG_H
#define GP_LUA_CONFIG_H

#include <stdbool.h>
#include "gp.h"

#define GP_CONF_KEY 96
#define GP_CONF_STR 160
#define GP_CONF_MAX 512      /* values in a file, at most */
#define GP_CONF_DEPTH 4      /* tables inside tables */

enum gp_conf_type { GP_CONF_STRING, GP_CONF_NUMBER, GP_CONF_BOOL };

struct gp_conf_item {
	char key[GP_CONF_KEY];
	int line;                /* where the file writes it (0: not known) */
	enum gp_conf_type type;
	char str[GP_CONF_STR];   /* GP_CONF_STRING */
	double num;              /* GP_CONF_NUMBER */
	bool b;                  /* GP_CONF_BOOL */
};

#define GP_CONF_ERRS 10     /* errors said, at most */

struct gp_conf_line {
	char key[GP_CONF_KEY];
	int line;
};

struct gp_conf {
	struct gp_conf_item *items;   /* sorted by key */
	int n;
	const char *path;             /* as loaded (the caller's string) */
	struct gp_conf_line *lines;   /* each value's line, gp_conf_lines */
	int nlines;
	int line;                     /* the returned table's '{' (0: not known) */
	int nerr;                     /* errors so far (gp_conf_errf) */
};

/* Runs path and flattens the table it returns; -1 with e when it does
 * not load (Lua's FILE:LINE: message), does not return a table, or
 * holds values of another type (a function) or too many: each such
 * value said on a line of its own, "FILE:LINE: key: why", up to
 * GP_CONF_ERRS (gp_conf_errf). */
int gp_conf_load(const char *path, struct gp_conf *out, struct gp_err *e);
void gp_conf_free(struct gp_conf *c);
/* An error about key (NULL: the file as a whole) appended to e->msg on
 * a line of its own, "FILE:LINE: " and fmt, LINE the value's (else the
 * returned table's); after GP_CONF_ERRS of them one line says there are
 * more and the rest are counted, not said. Returns -1. */
int gp_conf_errf(struct gp_conf *c, struct gp_err *e, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* lua_config_lines.c: the line each value of text (len bytes) is
 * written at, into c->lines, read from the table constructor the file
 * returns; c->line that constructor's. */
void gp_conf_lines(struct gp_conf *c, const char *text, size_t len);
/* key's line, else the returned table's, else 0. */
int gp_conf_line_of(const struct gp_conf *c, const char *key);

/* The value at key, or NULL. */
const struct gp_conf_item *gp_conf_get(const struct gp_conf *c, const char *key);

#endif
