/*
 * lua_config.c: a settings file through the Lua sandbox (lua_config.h).
 *
 * The file is a script as the scenario files are (the same sandbox and
 * budget, the prelude's helpers), so a theme may compute a colour; what
 * comes back is only data: the C side never holds a Lua value.
 */
#include "lua_config.h"

#include "lua_host.h"
#include "lua_int.h"

#include <lauxlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct flat {
	struct gp_conf *c;
	struct gp_err *e;
};

int gp_conf_errf(struct gp_conf *c, struct gp_err *e, const char *key, const char *fmt, ...)
{
	size_t l = strlen(e->msg);
	char *at = e->msg + l;
	size_t room = sizeof e->msg - l;
	if (c->nerr++ == GP_CONF_ERRS) {
		snprintf(at, room, "%s%s: more errors (the first %d said)", l ? "\n" : "", c->path,
			 GP_CONF_ERRS);
		return -1;
	}
	if (c->nerr > GP_CONF_ERRS)
		return -1;
	int line = gp_conf_line_of(c, key ? key : "");
	int k = line ? snprintf(at, room, "%s%s:%d: ", l ? "\n" : "", c->path, line)
		     : snprintf(at, room, "%s%s: ", l ? "\n" : "", c->path);
	if (k > 0 && (size_t)k < room) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(at + k, room - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int add(struct flat *f, const char *key, lua_State *L, int at)
{
	if (f->c->n == GP_CONF_MAX)
		return gp_conf_errf(f->c, f->e, NULL, "more than %d values", GP_CONF_MAX);
	struct gp_conf_item *it = &f->c->items[f->c->n];
	memset(it, 0, sizeof *it);
	snprintf(it->key, sizeof it->key, "%s", key);
	it->line = gp_conf_line_of(f->c, key);
	int t = lua_type(L, at);
	if (t == LUA_TBOOLEAN) {
		it->type = GP_CONF_BOOL;
		it->b = lua_toboolean(L, at);
	} else if (t == LUA_TNUMBER) {
		it->type = GP_CONF_NUMBER;
		it->num = lua_tonumber(L, at);
	} else {
		it->type = GP_CONF_STRING;
		snprintf(it->str, sizeof it->str, "%s", lua_tostring(L, at));
	}
	f->c->n++;
	return 0;
}

/* The table at index at, its keys under prefix: every value that is
 * wrong said (gp_conf_errf), -1 if any was. */
static int flatten(struct flat *f, lua_State *L, int at, const char *prefix, int depth)
{
	if (depth > GP_CONF_DEPTH)
		return gp_conf_errf(f->c, f->e, prefix, "%s: tables nested too deep", prefix);
	int rc = 0;
	lua_pushnil(L);
	while (lua_next(L, at)) {
		char key[GP_CONF_KEY];
		int kt = lua_type(L, -2), vt = lua_type(L, -1);
		if (kt == LUA_TNUMBER && lua_isinteger(L, -2))
			snprintf(key, sizeof key, "%s[%lld]", prefix, (long long)lua_tointeger(L, -2));
		else if (kt == LUA_TSTRING)
			snprintf(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "." : "",
				 lua_tostring(L, -2));
		else
			key[0] = 0;
		int r = !key[0] ? gp_conf_errf(f->c, f->e, prefix, "%s: a key that is not a name",
					       prefix[0] ? prefix : "the table")
			: vt == LUA_TTABLE ? flatten(f, L, lua_gettop(L), key, depth + 1)
			: vt == LUA_TSTRING || vt == LUA_TNUMBER || vt == LUA_TBOOLEAN ? add(f, key, L, -1)
			: gp_conf_errf(f->c, f->e, key, "%s: a %s, not a string, number or boolean", key,
				       lua_typename(L, vt));
		lua_pop(L, 1);
		rc |= r;
		if (f->c->n == GP_CONF_MAX && r) {   /* too many: nothing more to say */
			lua_pop(L, 1);
			return -1;
		}
	}
	return rc ? -1 : 0;
}

static int by_key(const void *x, const void *y)
{
	return strcmp(((const struct gp_conf_item *)x)->key, ((const struct gp_conf_item *)y)->key);
}

static int run(struct gp_lua *h, const char *path, const char *text, size_t len,
	       struct gp_conf *out, struct gp_err *e)
{
	lua_State *L = lh_state(h);
	if (lh_load_script(h, path, text, len, 1, 0, e))
		return -1;
	/* The table, then the environment. */
	int rc = 0;
	if (!lua_istable(L, -2)) {
		rc = gp_errf(e, "%s: a settings file must return a table ({ ... })", path);
	} else {
		struct flat f = { out, e };
		rc = flatten(&f, L, lua_gettop(L) - 1, "", 0);
	}
	lua_pop(L, 2);
	return rc;
}

int gp_conf_load(const char *path, struct gp_conf *out, struct gp_err *e)
{
	memset(out, 0, sizeof *out);
	size_t len;
	char *text = gp_read_file(path, &len, e);
	if (!text)
		return -1;
	e->msg[0] = 0;   /* what gp_conf_errf appends to */
	struct gp_lua *h = gp_lua_new(NULL, e);
	out->path = path;
	out->items = calloc(GP_CONF_MAX, sizeof *out->items);
	out->lines = calloc(GP_CONF_MAX, sizeof *out->lines);
	if (out->lines)
		gp_conf_lines(out, text, len);
	int rc = !h || !out->items || !out->lines ? (h ? gp_errf(e, "out of memory") : -1)
		 : run(h, path, text, len, out, e);
	gp_lua_free(h);
	free(text);
	if (rc) {
		gp_conf_free(out);
		return -1;
	}
	qsort(out->items, (size_t)out->n, sizeof *out->items, by_key);
	return 0;
}

void gp_conf_free(struct gp_conf *c)
{
	free(c->items);
	free(c->lines);
	memset(c, 0, sizeof *c);
}

const struct gp_conf_item *gp_conf_get(const struct gp_conf *c, const char *key)
{
	struct gp_conf_item k;
	snprintf(k.key, sizeof k.key, "%s", key);
	return c->n ? bsearch(&k, c->items, (size_t)c->n, sizeof k, by_key) : NULL;
}
