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
	enum gp_conf_type type;
	char str[GP_CONF_STR];   /* GP_CONF_STRING */
	double num;              /* GP_CONF_NUMBER */
	bool b;                  /* GP_CONF_BOOL */
};

struct gp_conf {
	struct gp_conf_item *items;   /* sorted by key */
	int n;
};

/* Runs path and flattens the table it returns; -1 with e (the file and
 * line) when it does not load, does not return a table, or holds a
 * value of another type (a function) or too many. */
int gp_conf_load(const char *path, struct gp_conf *out, struct gp_err *e);
void gp_conf_free(struct gp_conf *c);
/* The value at key, or NULL. */
const struct gp_conf_item *gp_conf_get(const struct gp_conf *c, const char *key);

#endif
