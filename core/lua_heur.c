/*
 * lua_heur.c: heuristic scripts (lua_heur.h).
 *
 * The script runs once at load (its table is checked and plan() kept by
 * reference) and once per plan() call, under the instruction budget,
 * with a fresh read-only view of the scenario. Its queries
 * (geoplan.layer_time, ...) read the cost tables of the call; outside a
 * call they refuse. What plan() returns goes through the scenario
 * file's own plan reader, so a bad field is named by its path. The
 * heuristic kit (geoplan.kit) is loaded before the script, in its own
 * environment over the same queries.
 */
#include "lua_heur.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua_int.h"
#include "lua_view.h"

struct gp_lua_heur {
	struct gp_lua *h;
	char path[512];
	char name[GP_NAME_MAX];
	char description[512];
	int plan_ref;
	/* During plan() only. */
	const struct gp_scenario *sc;
	const struct gp_costtab *ct;
	void (*log)(void *ud, const char *line);
	void *log_ud;
};

static const char *const top_keys[] = { "name", "description", "plan", NULL };

/* --- queries: geoplan.* inside plan() --------------------------------- */

static struct gp_lua_heur *self(lua_State *L)
{
	struct gp_lua_heur *h = lua_touserdata(L, lua_upvalueindex(1));
	if (!h->ct)
		luaL_error(L, "geoplan queries answer only inside plan()");
	return h;
}

/* A DC by 1-based index or name. */
static int arg_dc(lua_State *L, const struct gp_scenario *sc, int i)
{
	if (lua_type(L, i) == LUA_TNUMBER) {
		lua_Integer d = luaL_checkinteger(L, i);
		luaL_argcheck(L, d >= 1 && d <= sc->ndcs, i, "no DC of that index");
		return (int)d - 1;
	}
	int d = gp_find_dc(sc, luaL_checkstring(L, i));
	luaL_argcheck(L, d >= 0, i, "no DC of that name");
	return d;
}

/* A pool of DC d by 1-based index or GPU name. */
static int arg_pool(lua_State *L, const struct gp_scenario *sc, int d, int i)
{
	const struct gp_dc *dc = &sc->dcs[d];
	if (lua_type(L, i) == LUA_TNUMBER) {
		lua_Integer p = luaL_checkinteger(L, i);
		luaL_argcheck(L, p >= 1 && p <= dc->npools, i, "no pool of that index in the DC");
		return (int)p - 1;
	}
	const char *g = luaL_checkstring(L, i);
	for (int p = 0; p < dc->npools; p++)
		if (!strcmp(sc->gpus[dc->pools[p].gpu].name, g))
			return p;
	return luaL_argerror(L, i, "the DC has no pool of that GPU");
}

/* (dc, pool, tp [, recompute [, kind]]) -> the table entry, or NULL
 * with nil and a reason pushed. */
static const struct gp_layer_cost *arg_layer(lua_State *L, struct gp_lua_heur *h)
{
	static const char *const rcs[] = { "none", "selective", "full", NULL };
	static const char *const kinds[] = { "block", "logits", NULL };
	int d = arg_dc(L, h->sc, 1), p = arg_pool(L, h->sc, d, 2);
	lua_Integer tp = luaL_checkinteger(L, 3);
	enum gp_recompute job = h->sc->job.recompute == GP_RC_AUTO ? GP_RC_NONE
								   : h->sc->job.recompute;
	int rc = lua_isnoneornil(L, 4) ? (int)job : luaL_checkoption(L, 4, NULL, rcs);
	int kind = luaL_checkoption(L, 5, "block", kinds);
	const struct gp_layer_cost *c = NULL;
	if (tp >= 1 && tp <= 1 << 20)
		c = kind ? gp_costtab_logits(h->ct, d, p, (int)tp)
			 : gp_costtab_layer(h->ct, d, p, (int)tp, (enum gp_recompute)rc);
	if (!c) {
		lua_pushnil(L);
		lua_pushfstring(L, "tp %d does not divide the model's %d heads", (int)tp,
				(int)h->sc->model.heads);
	}
	return c;
}

/* layer_time(dc, pool, tp [, recompute [, kind]]) -> F, B, W seconds. */
static int q_layer_time(lua_State *L)
{
	const struct gp_layer_cost *c = arg_layer(L, self(L));
	if (!c)
		return 2;
	lua_pushnumber(L, c->t.f);
	lua_pushnumber(L, c->t.b);
	lua_pushnumber(L, c->t.w);
	return 3;
}

/* layer_memory(...) -> bytes kept from F to B, and of those for W. */
static int q_layer_memory(lua_State *L)
{
	const struct gp_layer_cost *c = arg_layer(L, self(L));
	if (!c)
		return 2;
	lua_pushnumber(L, c->m.act);
	lua_pushnumber(L, c->m.wact);
	return 2;
}

/* p2p_time(from, to, bytes [, pool_from [, pool_to]]) -> seconds: over
 * the NICs inside a DC, over the link between two; nil and why when
 * there is none. */
static int q_p2p_time(lua_State *L)
{
	struct gp_lua_heur *h = self(L);
	int a = arg_dc(L, h->sc, 1), b = arg_dc(L, h->sc, 2);
	double bytes = luaL_checknumber(L, 3);
	luaL_argcheck(L, bytes >= 0, 3, "bytes >= 0 expected");
	if (a == b) {
		int pa = lua_isnoneornil(L, 4) ? 0 : arg_pool(L, h->sc, a, 4);
		int pb = lua_isnoneornil(L, 5) ? 0 : arg_pool(L, h->sc, b, 5);
		lua_pushnumber(L, gp_costtab_intra_p2p(h->ct, h->sc, a, pa, 1, pb, 1, bytes));
		return 1;
	}
	const struct gp_link *l = gp_find_link(h->sc, a, b);
	if (!l) {
		lua_pushnil(L);
		lua_pushfstring(L, "no link %s>%s", h->sc->dcs[a].name, h->sc->dcs[b].name);
		return 2;
	}
	struct gp_comm c = gp_costtab_wan(h->ct, (int)(l - h->sc->links));
	lua_pushnumber(L, c.lat + bytes / c.bw);
	return 1;
}

/* optimizer_time(dc, pool, params) -> seconds of one GPU's step. */
static int q_optimizer_time(lua_State *L)
{
	struct gp_lua_heur *h = self(L);
	int d = arg_dc(L, h->sc, 1), p = arg_pool(L, h->sc, d, 2);
	lua_pushnumber(L, gp_costtab_optimizer(h->ct, d, p, luaL_checknumber(L, 3)));
	return 1;
}

/* state_bytes(replicas) -> model-state bytes per parameter per GPU. */
static int q_state_bytes(lua_State *L)
{
	struct gp_lua_heur *h = self(L);
	lua_Integer d = luaL_checkinteger(L, 1);
	luaL_argcheck(L, d >= 1, 1, "replicas >= 1 expected");
	lua_pushnumber(L, gp_costtab_state_bytes(h->ct, d > 1 << 30 ? 1 << 30 : (int)d));
	return 1;
}

/* reserve(dc, pool) -> bytes per GPU the job cannot use. */
static int q_reserve(lua_State *L)
{
	struct gp_lua_heur *h = self(L);
	int d = arg_dc(L, h->sc, 1), p = arg_pool(L, h->sc, d, 2);
	lua_pushnumber(L, gp_costtab_reserve(h->ct, d, p));
	return 1;
}

/* The model's sizes: a block's and the embedding's parameters, and a
 * stage boundary's activation bytes per micro-batch. */
static int q_sizes(lua_State *L)
{
	struct gp_lua_heur *h = self(L);
	lua_createtable(L, 0, 3);
	lua_pushnumber(L, gp_layer_params(&h->sc->model));
	lua_setfield(L, -2, "block_params");
	lua_pushnumber(L, gp_embedding_params(&h->sc->model));
	lua_setfield(L, -2, "embedding_params");
	lua_pushnumber(L, gp_boundary_bytes(h->sc));
	lua_setfield(L, -2, "boundary_bytes");
	return 1;
}

static void set_queries(lua_State *L, struct gp_lua_heur *h)
{
	static const luaL_Reg fns[] = {
		{ "layer_time", q_layer_time }, { "layer_memory", q_layer_memory },
		{ "p2p_time", q_p2p_time }, { "optimizer_time", q_optimizer_time },
		{ "state_bytes", q_state_bytes }, { "reserve", q_reserve },
		{ "sizes", q_sizes }, { NULL, NULL },
	};
	lua_newtable(L);
	lua_pushlightuserdata(L, h);
	luaL_setfuncs(L, fns, 1);
	lv_push_defaults(L);
	lua_setfield(L, -2, "default");
}

/* --- loading ---------------------------------------------------------- */

/* The heuristic kit, compiled in from scripts/heuristic-kit.lua. */
extern const char gp_heuristic_kit_lua[];

/* geoplan.kit: the kit run in its own environment over the queries at
 * index q, its table then added to them, so the script's environment
 * (a copy of the queries) has it too. */
static int load_kit(struct gp_lua_heur *hs, int q, struct gp_err *e)
{
	lua_State *L = lh_state(hs->h);
	if (lh_load_script(hs->h, "scripts/heuristic-kit.lua", gp_heuristic_kit_lua,
			   strlen(gp_heuristic_kit_lua), 1, q, e))
		return -1;
	lh_freeze_env(L, -1, "the kit keeps its state in locals");
	lua_pop(L, 1);
	lua_setfield(L, q, "kit");
	return 0;
}

static int take_table(struct gp_lua_heur *hs, struct gp_err *e)
{
	lua_State *L = lh_state(hs->h);
	int top = lua_gettop(L);
	struct lh_cv c = { .L = L, .e = e, .file = hs->path };
	const char *base = strrchr(hs->path, '/');
	char def[GP_NAME_MAX];
	snprintf(def, sizeof def, "%s", base ? base + 1 : hs->path);
	char *dot = strrchr(def, '.');
	if (dot && dot != def)
		*dot = 0;
	if (!lua_istable(L, top)) {
		char d[64];
		lh_describe(L, top, d, sizeof d);
		return gp_errf(e, "%s: a heuristic script returns { name =, plan = function(scenario, ctx) ... end }, not %s",
			       hs->path, d);
	}
	if (lh_check_keys(&c, top, "", top_keys, 0) ||
	    lh_get_str(&c, top, "", "name", 0, def, hs->name, sizeof hs->name) ||
	    lh_get_str(&c, top, "", "description", 0, "", hs->description,
		       sizeof hs->description))
		return -1;
	if (lh_rawfield(L, top, "plan") != LUA_TFUNCTION) {
		char d[64];
		lh_describe(L, -1, d, sizeof d);
		return gp_errf(e, "%s: plan: expected function(scenario, ctx) returning a plan, got %s",
			       hs->path, d);
	}
	hs->plan_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	return 0;
}

struct gp_lua_heur *gp_lua_heur_from_text(const char *name, const char *text, size_t len,
					  struct gp_err *e)
{
	struct gp_lua_heur *hs = gp_xcalloc(1, sizeof *hs);
	if (!hs) {
		gp_errf(e, "out of memory");
		return NULL;
	}
	snprintf(hs->path, sizeof hs->path, "%s", name);
	hs->plan_ref = LUA_NOREF;
	hs->h = gp_lua_new(NULL, e);
	if (!hs->h) {
		free(hs);
		return NULL;
	}
	lua_State *L = lh_state(hs->h);
	set_queries(L, hs);
	if (load_kit(hs, lua_gettop(L), e) ||
	    lh_load_script(hs->h, name, text, len, 1, lua_gettop(L), e)) {
		gp_lua_heur_free(hs);
		return NULL;
	}
	lh_freeze_env(L, -1, "a heuristic keeps its state in locals");
	lua_pop(L, 1);
	if (take_table(hs, e)) {
		gp_lua_heur_free(hs);
		return NULL;
	}
	lua_settop(L, 0);
	return hs;
}

struct gp_lua_heur *gp_lua_heur_load(const char *path, struct gp_err *e)
{
	size_t len;
	char *text = gp_read_file(path, &len, e);
	if (!text)
		return NULL;
	struct gp_lua_heur *hs = gp_lua_heur_from_text(path, text, len, e);
	free(text);
	return hs;
}

void gp_lua_heur_free(struct gp_lua_heur *h)
{
	if (!h)
		return;
	gp_lua_free(h->h);
	free(h);
}

const char *gp_lua_heur_name(const struct gp_lua_heur *h)
{
	return h->name;
}

const char *gp_lua_heur_description(const struct gp_lua_heur *h)
{
	return h->description;
}

void gp_lua_heur_set_log(struct gp_lua_heur *h, void (*fn)(void *ud, const char *line),
			 void *ud)
{
	h->log = fn;
	h->log_ud = ud;
	if (fn)
		gp_lua_set_log(h->h, fn, ud);    /* print and warn */
}

static void drop_line(void *ud, const char *line)
{
	(void)ud, (void)line;
}

void gp_lua_heur_mute(struct gp_lua_heur *h, bool mute)
{
	gp_lua_set_log(h->h, mute ? drop_line : h->log, mute ? NULL : h->log_ud);
}

/* --- plan() ----------------------------------------------------------- */

/* Converts {plan = <the result>} (at index 2) into c->s's plan. */
static int conv(lua_State *L)
{
	struct lh_cv *c = lua_touserdata(L, 1);
	lh_conv_plan(c, 2);
	return 0;
}

/* The result at the top of the stack as a plan of s. */
static int read_result(struct gp_lua_heur *hs, const struct gp_scenario *s,
		       struct gp_plan *out, struct gp_err *e)
{
	lua_State *L = lh_state(hs->h);
	char who[600];
	snprintf(who, sizeof who, "%s: plan()", hs->path);
	if (!lua_istable(L, -1)) {
		char d[64];
		lh_describe(L, -1, d, sizeof d);
		return gp_errf(e, "%s returned %s; expected a plan { schedule =, pipelines = {...} }",
			       who, d);
	}
	struct gp_scenario *tmp = gp_scenario_dup(s, 0);
	if (!tmp)
		return gp_errf(e, "out of memory");
	gp_plan_free(&tmp->plan);
	tmp->has_plan = false;
	struct lh_cv c = { .L = L, .e = e, .file = who, .s = tmp };
	int res = lua_gettop(L);
	lua_pushcfunction(L, conv);
	lua_pushlightuserdata(L, &c);
	lua_createtable(L, 0, 1);
	lua_pushvalue(L, res);
	lua_setfield(L, -2, "plan");
	int rc = lh_pcall(hs->h, 2, 0, 0);
	if (rc != LUA_OK) {
		gp_errf(e, "%s: %s", who, rc == LUA_ERRMEM ? "memory limit exceeded"
			: lua_tostring(L, -1));
		c.failed = 1;
	}
	if (!c.failed && gp_plan_validate(tmp, &tmp->plan, e)) {
		gp_err_prefix(e, who);
		c.failed = 1;
	}
	if (!c.failed) {
		*out = tmp->plan;
		tmp->plan = (struct gp_plan){ 0 };
	}
	gp_scenario_free(tmp);
	return c.failed ? -1 : 0;
}

int gp_lua_heur_plan(struct gp_lua_heur *hs, const struct gp_scenario *s,
		     const struct gp_costtab *ct, const struct gp_plan_opts *o,
		     struct gp_plan *out, struct gp_err *e)
{
	lua_State *L = lh_state(hs->h);
	int base = lua_gettop(L);
	memset(out, 0, sizeof *out);
	lua_pushcfunction(L, lh_msgh);
	lua_rawgeti(L, LUA_REGISTRYINDEX, hs->plan_ref);
	lv_push_scenario(L, s);
	lua_createtable(L, 0, 3);
	lua_pushnumber(L, o && o->time_limit > 0 ? o->time_limit : 0);
	lua_setfield(L, -2, "time_limit");
	lua_pushinteger(L, o ? o->seed : 1);
	lua_setfield(L, -2, "seed");
	lua_pushstring(L, gp_sched_name(o ? o->schedule : GP_SCHED_1F1B));
	lua_setfield(L, -2, "schedule");
	lv_readonly(L, "ctx");
	hs->sc = s;
	hs->ct = ct;
	int rc = lh_pcall(hs->h, 2, 1, base + 1);
	int r = -1;
	if (rc != LUA_OK) {
		char frames[600];
		const char *m = lua_tostring(L, -1);
		int head = lv_trace(m, hs->path, frames, sizeof frames);
		if (rc == LUA_ERRMEM)
			gp_errf(e, "%s: plan(): the script's memory limit was exceeded", hs->path);
		else
			gp_errf(e, "%.*s\n  while running plan()%s", head, m ? m : "?", frames);
	} else {
		r = read_result(hs, s, out, e);
	}
	hs->sc = NULL;
	hs->ct = NULL;
	lua_settop(L, base);
	return r;
}
