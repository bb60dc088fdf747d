/*
 * lua_cost.c: a cost-model script as a struct gp_cost_model
 * (lua_cost.h).
 *
 * Loading runs the script once in its own sandboxed state, checks the
 * table it returns (keys, types, params) and keeps a registry reference
 * per function. Each operation then either runs the C default (the key is
 * absent) or calls the script with fresh read-only descriptors
 * (lua_view.c) and checks what comes back. Failures are recorded, not
 * raised: the first one of a batch is what the cost table reports.
 */
#include "lua_cost.h"

#include <ctype.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua_cost_int.h"
#include "lua_view.h"

static const char *const top_keys[] = { "description", "params", "compute", "efficiency",
					"memory", "p2p", "allreduce", "optimizer", "reserve",
					NULL };

/* --- loading ---------------------------------------------------------- */

/* { default, min = lo, max = hi } (or default = ...), default within. */
static int read_param(struct lh_cv *c, int t, const char *name, struct gp_cost_param *p)
{
	static const char *const keys[] = { "default", "min", "max", NULL };
	char path[128];
	snprintf(path, sizeof path, "params.%s", name);
	if (!lua_istable(c->L, t))
		return lh_err(c, path, "expected { default, min = ..., max = ... }");
	if (lh_check_keys(c, t, path, keys, 1))
		return -1;
	snprintf(p->name, sizeof p->name, "%s", name);
	int has1 = lua_rawgeti(c->L, t, 1) != LUA_TNIL;
	lua_pop(c->L, 1);
	if (has1) {
		lua_rawgeti(c->L, t, 1);
		if (lh_take_number(c, path, 0, &p->def))
			return -1;
	} else if (lh_get_num(c, t, path, "default", LH_REQ, 0, &p->def)) {
		return -1;
	}
	if (lh_get_num(c, t, path, "min", LH_REQ, 0, &p->min) ||
	    lh_get_num(c, t, path, "max", LH_REQ, 0, &p->max))
		return -1;
	if (!(p->min <= p->def && p->def <= p->max))
		return lh_err(c, path, "expected min <= default <= max, got %g <= %g <= %g",
			      p->min, p->def, p->max);
	p->value = p->def;
	return 0;
}

/* A Lua identifier that fits a parameter's name. */
static bool ident(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= sizeof(struct gp_cost_param){ 0 }.name || isdigit((unsigned char)s[0]))
		return false;
	for (; *s; s++)
		if (*s != '_' && !isalnum((unsigned char)*s))
			return false;
	return true;
}

static int cmp_param(const void *a, const void *b)
{
	return strcmp(((const struct gp_cost_param *)a)->name,
		      ((const struct gp_cost_param *)b)->name);
}

/* params = { name = {...}, ... }, kept in name order. */
static int read_params(struct gp_lua_cost *lc, struct lh_cv *c, int top)
{
	lua_State *L = c->L;
	if (lh_get_table(c, top, "", "params", 0) <= 0)
		return c->failed ? -1 : 0;
	int t = lua_gettop(L);
	lua_pushnil(L);
	while (lua_next(L, t)) {
		if (lua_type(L, -2) != LUA_TSTRING || !ident(lua_tostring(L, -2))) {
			char d[64];
			lh_describe(L, -2, d, sizeof d);
			lua_settop(L, t - 1);
			return lh_err(c, "params", "%s is not a parameter name (a Lua identifier)", d);
		}
		if (lc->nparams == LC_MAX_PARAMS) {
			lua_settop(L, t - 1);
			return lh_err(c, "params", "more than %d parameters", LC_MAX_PARAMS);
		}
		if (read_param(c, lua_gettop(L), lua_tostring(L, -2), &lc->params[lc->nparams])) {
			lua_settop(L, t - 1);
			return -1;
		}
		lc->nparams++;
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	qsort(lc->params, (size_t)lc->nparams, sizeof lc->params[0], cmp_param);
	return 0;
}

/* The values table and its view, ctx.params. */
static void make_param_tables(struct gp_lua_cost *lc, lua_State *L)
{
	lua_createtable(L, 0, lc->nparams);
	for (int i = 0; i < lc->nparams; i++) {
		lua_pushnumber(L, lc->params[i].value);
		lua_setfield(L, -2, lc->params[i].name);
	}
	lua_pushvalue(L, -1);
	lc->values = luaL_ref(L, LUA_REGISTRYINDEX);
	lv_readonly(L, "ctx.params");
	lc->view = luaL_ref(L, LUA_REGISTRYINDEX);
}

static int read_functions(struct gp_lua_cost *lc, struct lh_cv *c, int top)
{
	lua_State *L = c->L;
	for (int k = 0; k < K_N; k++) {
		int ty = lh_rawfield(L, top, lc_key_names[k]);
		if (ty == LUA_TNIL) {
			lua_pop(L, 1);
			continue;
		}
		if (ty != LUA_TFUNCTION) {
			char d[64];
			lh_describe(L, -1, d, sizeof d);
			lua_pop(L, 1);
			return lh_err(c, lc_key_names[k], "expected a function, got %s", d);
		}
		lua_Debug ar;
		lua_pushvalue(L, -1);
		lc->line[k] = lua_getinfo(L, ">S", &ar) ? ar.linedefined : 0;
		lc->ref[k] = luaL_ref(L, LUA_REGISTRYINDEX);
	}
	return 0;
}

/* Checks the table the script returned (at the top) and keeps it. */
static int take_table(struct gp_lua_cost *lc, struct gp_err *e)
{
	lua_State *L = lh_state(lc->h);
	int top = lua_gettop(L);
	struct lh_cv c = { .L = L, .e = e, .file = lc->name };
	if (!lua_istable(L, top)) {
		char d[64];
		lh_describe(L, top, d, sizeof d);
		return gp_errf(e, "%s: a cost-model script returns a table of functions, not %s",
			       lc->name, d);
	}
	if (lh_check_keys(&c, top, "", top_keys, 0) ||
	    lh_get_str(&c, top, "", "description", 0, "", lc->description,
		       sizeof lc->description) ||
	    read_functions(lc, &c, top) || read_params(lc, &c, top))
		return -1;
	make_param_tables(lc, L);
	return 0;
}

struct gp_lua_cost *gp_lua_cost_from_text(const char *name, const char *text, size_t len,
					  struct gp_err *e)
{
	struct gp_lua_cost *lc = gp_xcalloc(1, sizeof *lc);
	if (!lc) {
		gp_errf(e, "out of memory");
		return NULL;
	}
	snprintf(lc->name, sizeof lc->name, "%s", name);
	for (int k = 0; k < K_N; k++)
		lc->ref[k] = LUA_NOREF;
	lc->values = lc->view = LUA_NOREF;
	lc->cm = (struct gp_cost_model){ &lc_ops, lc };
	lc->h = gp_lua_new(NULL, e);
	if (!lc->h) {
		free(lc);
		return NULL;
	}
	lua_State *L = lh_state(lc->h);
	lua_newtable(L);
	lv_push_defaults(L);
	lua_setfield(L, -2, "default");
	int extra = lua_gettop(L);
	if (lh_load_script(lc->h, name, text, len, 1, extra, e)) {
		gp_lua_cost_free(lc);
		return NULL;
	}
	/* Pure functions: no global written after the script's top level. */
	lh_freeze_env(L, -1, "cost-model functions must be pure; use local");
	lua_pop(L, 1);
	if (take_table(lc, e)) {
		gp_lua_cost_free(lc);
		return NULL;
	}
	lua_settop(L, 0);
	return lc;
}

struct gp_lua_cost *gp_lua_cost_load(const char *path, struct gp_err *e)
{
	size_t len;
	char *text = gp_read_file(path, &len, e);
	if (!text)
		return NULL;
	struct gp_lua_cost *lc = gp_lua_cost_from_text(path, text, len, e);
	free(text);
	return lc;
}

void gp_lua_cost_free(struct gp_lua_cost *lc)
{
	if (!lc)
		return;
	gp_lua_free(lc->h);
	free(lc);
}

const struct gp_cost_model *gp_lua_cost_model(struct gp_lua_cost *lc)
{
	return &lc->cm;
}

const char *gp_lua_cost_name(const struct gp_lua_cost *lc)
{
	return lc->name;
}

const char *gp_lua_cost_description(const struct gp_lua_cost *lc)
{
	return lc->description;
}

int gp_lua_cost_nparams(const struct gp_lua_cost *lc)
{
	return lc->nparams;
}

const struct gp_cost_param *gp_lua_cost_param(const struct gp_lua_cost *lc, int i)
{
	return i >= 0 && i < lc->nparams ? &lc->params[i] : NULL;
}

int gp_lua_cost_find_param(const struct gp_lua_cost *lc, const char *name)
{
	for (int i = 0; i < lc->nparams; i++)
		if (!strcmp(lc->params[i].name, name))
			return i;
	return -1;
}

int gp_lua_cost_set_param(struct gp_lua_cost *lc, int i, double v, struct gp_err *e)
{
	if (i < 0 || i >= lc->nparams)
		return gp_errf(e, "%s: no parameter %d", lc->name, i);
	struct gp_cost_param *p = &lc->params[i];
	if (!(v >= p->min && v <= p->max))
		return gp_errf(e, "%s: params.%s: %g is outside [%g, %g]", lc->name, p->name, v,
			       p->min, p->max);
	p->value = v;
	lua_State *L = lh_state(lc->h);
	lua_rawgeti(L, LUA_REGISTRYINDEX, lc->values);
	lua_pushnumber(L, v);
	lua_setfield(L, -2, p->name);
	lua_pop(L, 1);
	return 0;
}

void gp_lua_cost_set_log(struct gp_lua_cost *lc, void (*fn)(void *ud, const char *line),
			 void *ud)
{
	lc->log = fn;
	lc->log_ud = ud;
	if (fn)
		gp_lua_set_log(lc->h, fn, ud);   /* print and warn */
}

long gp_lua_cost_calls(const struct gp_lua_cost *lc)
{
	return lc->calls;
}

long gp_lua_cost_stray(const struct gp_lua_cost *lc)
{
	return lc->stray;
}
