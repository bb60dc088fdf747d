/*
 * lua_view.c: the descriptors a cost-model script sees and the
 * geoplan.default.* closures (lua_view.h).
 *
 * Descriptors are made afresh for every call: a script cannot keep state
 * in them from one call to the next, and a call costs a few
 * microseconds, which the cost tables pay a few hundred times per
 * scenario. The closures rebuild a query from the fields of the tables
 * they are given and run the default operation of cost.c on it.
 */
#include "lua_view.h"

#include <lauxlib.h>
#include <string.h>

#include "scenario.h"

static const char *const rc_names[] = { "none", "selective", "full" };
static const char *const lv_precision_names[] = { "bf16", "fp16", "fp8" };
static const char *const lv_attention_names[] = { "flash", "materialised" };
static const char *const lv_optimizer_names[] = { "adam", "adam-bf16" };
static const char *const lv_cross_entropy_names[] = { "fused", "unfused" };
static const char *const ch_names[] = { "nvlink", "nic", "wan" };

const char *lv_recompute_name(enum gp_recompute rc)
{
	return (int)rc >= 0 && (int)rc < 3 ? rc_names[rc] : "none";
}

const char *lv_channel_name(enum gp_channel k)
{
	return (int)k >= 0 && (int)k < 3 ? ch_names[k] : "wan";
}

/* --- read-only views -------------------------------------------------- */

static int ro_newindex(lua_State *L)
{
	return luaL_error(L, "%s is read-only (field '%s'); copy it to change it",
			  lua_tostring(L, lua_upvalueindex(1)), luaL_tolstring(L, 2, NULL));
}

static int ro_next(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 2);
	if (lua_next(L, 1))
		return 2;
	lua_pushnil(L);
	return 1;
}

/* pairs(view): next over the fields. */
static int ro_pairs(lua_State *L)
{
	lua_pushcfunction(L, ro_next);
	lua_getmetatable(L, 1);
	lua_getfield(L, -1, "__index");
	lua_remove(L, -2);
	lua_pushnil(L);
	return 3;
}

static int ro_len(lua_State *L)
{
	lua_getmetatable(L, 1);
	lua_getfield(L, -1, "__index");
	lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
	return 1;
}

void lv_readonly(lua_State *L, const char *what)
{
	int data = lua_gettop(L);
	lua_newtable(L);                 /* the view */
	lua_createtable(L, 0, 5);        /* its metatable */
	lua_pushvalue(L, data);
	lua_setfield(L, -2, "__index");
	lua_pushstring(L, what);
	lua_pushcclosure(L, ro_newindex, 1);
	lua_setfield(L, -2, "__newindex");
	lua_pushcfunction(L, ro_pairs);
	lua_setfield(L, -2, "__pairs");
	lua_pushcfunction(L, ro_len);
	lua_setfield(L, -2, "__len");
	lua_pushstring(L, "read-only");
	lua_setfield(L, -2, "__metatable");
	lua_setmetatable(L, -2);
	lua_replace(L, data);
}

/* --- descriptors ------------------------------------------------------ */

static void set_num(lua_State *L, const char *k, double v)
{
	lua_pushnumber(L, v);
	lua_setfield(L, -2, k);
}

/* Small counts as Lua integers, so "tp" .. ctx.tp reads "tp4"; sizes
 * stay floats, whose products cannot wrap around as integers do. */
static void set_int(lua_State *L, const char *k, long v)
{
	lua_pushinteger(L, v);
	lua_setfield(L, -2, k);
}

static void set_str(lua_State *L, const char *k, const char *v)
{
	lua_pushstring(L, v);
	lua_setfield(L, -2, k);
}

void lv_push_layer(lua_State *L, const struct gp_layer_q *q)
{
	const struct gp_model *m = &q->sc->model;
	double b = q->sc->job.micro_batch, s = q->sc->job.seq;
	lua_createtable(L, 0, 16);
	set_str(L, "kind", q->logits ? "logits" : "block");
	set_str(L, "model", m->name);
	set_int(L, "layers", m->layers);
	set_num(L, "hidden", m->hidden);
	set_num(L, "heads", m->heads);
	set_num(L, "kv_heads", m->kv_heads);
	set_num(L, "ffn", m->ffn);
	set_num(L, "vocab", m->vocab);
	lua_pushboolean(L, m->gated);
	lua_setfield(L, -2, "gated");
	set_num(L, "seq", s);
	set_num(L, "micro_batch", b);
	set_str(L, "precision", lv_precision_names[q->sc->job.precision]);
	set_str(L, "attention", lv_attention_names[q->sc->job.attention]);
	set_str(L, "optimizer", lv_optimizer_names[q->sc->job.optimizer]);
	set_str(L, "cross_entropy", lv_cross_entropy_names[q->sc->job.cross_entropy]);
	lua_pushboolean(L, q->sc->job.sequence_parallel);
	lua_setfield(L, -2, "sequence_parallel");
	lua_pushboolean(L, q->sc->job.tp_overlap);
	lua_setfield(L, -2, "tp_overlap");
	set_num(L, "flops", q->logits ? gp_logits_flops_fwd(m, b, s) : gp_layer_flops_fwd(m, b, s));
	set_num(L, "params", q->logits ? gp_embedding_params(m) : gp_layer_params(m));
	lv_readonly(L, "layer");
}

void lv_push_gpu(lua_State *L, const struct gp_gpu *g, double efficiency)
{
	lua_createtable(L, 0, 7);
	set_str(L, "name", g->name);
	set_num(L, "tflops", g->flops);
	set_num(L, "fp8_tflops", g->fp8_flops);
	set_num(L, "memory", g->memory);
	set_num(L, "hbm_bandwidth", g->hbm_bw);
	set_num(L, "nvlink", g->nvlink);
	set_num(L, "efficiency", efficiency);
	set_num(L, "price_per_hour", g->price_per_hour);
	lv_readonly(L, "gpu");
}

static void push_pool(lua_State *L, const struct gp_scenario *sc, const struct gp_pool *p)
{
	lua_createtable(L, 0, 6);
	set_str(L, "gpu", sc->gpus[p->gpu].name);
	set_int(L, "count", p->count);
	set_int(L, "per_node", p->per_node);
	set_num(L, "nvlink", p->nvlink);
	set_num(L, "network", p->network);
	set_num(L, "latency", p->latency);
	lv_readonly(L, "ctx.pool");
}

static void set_params(lua_State *L, int params)
{
	if (params)
		lua_pushvalue(L, params);
	else
		lua_newtable(L);
	lua_setfield(L, -2, "params");
}

void lv_push_ctx(lua_State *L, const struct gp_layer_q *q, int params)
{
	lua_createtable(L, 0, 6);
	set_int(L, "tp", q->tp);
	set_str(L, "recompute", lv_recompute_name(q->recompute));
	set_str(L, "dc", q->sc->dcs[q->dc].name);
	push_pool(L, q->sc, q->pool);
	lua_setfield(L, -2, "pool");
	set_params(L, params);
	lv_readonly(L, "ctx");
}

void lv_push_channel(lua_State *L, const struct gp_channel_q *q)
{
	const struct gp_scenario *sc = q->sc;
	char name[2 * GP_NAME_MAX + 2];
	lua_createtable(L, 0, 8);
	set_str(L, "kind", lv_channel_name(q->kind));
	set_num(L, "bandwidth", q->bandwidth);
	set_num(L, "latency", q->latency);
	if (q->kind == GP_CH_WAN) {
		const struct gp_link *l = q->link;
		snprintf(name, sizeof name, "%s>%s", sc->dcs[l->from].name, sc->dcs[l->to].name);
		set_str(L, "from", sc->dcs[l->from].name);
		set_str(L, "to", sc->dcs[l->to].name);
		set_int(L, "streams", l->streams);
	} else {
		const char *gpu = sc->gpus[q->pool->gpu].name;
		snprintf(name, sizeof name, "%s/%s", sc->dcs[q->dc].name, gpu);
		set_str(L, "dc", sc->dcs[q->dc].name);
		set_str(L, "gpu", gpu);
		set_int(L, "per_node", q->pool->per_node);
	}
	set_str(L, "name", name);
	lv_readonly(L, "channel");
}

void lv_push_bare_ctx(lua_State *L, int params)
{
	lua_createtable(L, 0, 1);
	set_params(L, params);
	lv_readonly(L, "ctx");
}

/* --- reading tables back (geoplan.default.*) -------------------------- */

/* t.key as a number; an error at the script's line otherwise. */
static double rd_num(lua_State *L, int t, const char *arg, const char *key)
{
	lua_getfield(L, t, key);
	if (lua_type(L, -1) != LUA_TNUMBER)
		luaL_error(L, "%s.%s: expected a number, got %s", arg, key, luaL_typename(L, -1));
	double v = lua_tonumber(L, -1);
	lua_pop(L, 1);
	return v;
}

static int rd_choice(lua_State *L, int t, const char *arg, const char *key,
		     const char *const *names, int n)
{
	lua_getfield(L, t, key);
	const char *s = lua_tostring(L, -1);
	for (int i = 0; s && i < n; i++)
		if (!strcmp(s, names[i])) {
			lua_pop(L, 1);
			return i;
		}
	return luaL_error(L, "%s.%s: expected one of %s, %s%s%s, got %s", arg, key, names[0],
			  names[1], n > 2 ? ", " : "", n > 2 ? names[2] : "",
			  s ? s : luaL_typename(L, -1));
}

/* What a layer query needs, rebuilt from (layer, gpu, ctx). */
struct rd_q {
	struct gp_scenario sc;
	struct gp_gpu gpu;
	struct gp_pool pool;
	struct gp_layer_q q;
};

static void rd_gpu(lua_State *L, int t, struct gp_gpu *g)
{
	luaL_checktype(L, t, LUA_TTABLE);
	g->flops = rd_num(L, t, "gpu", "tflops");
	g->fp8_flops = lua_getfield(L, t, "fp8_tflops") == LUA_TNIL ? 0
		       : rd_num(L, t, "gpu", "fp8_tflops");
	lua_pop(L, 1);
	g->hbm_bw = rd_num(L, t, "gpu", "hbm_bandwidth");
	g->efficiency = rd_num(L, t, "gpu", "efficiency");
	g->memory = rd_num(L, t, "gpu", "memory");
	g->nvlink = rd_num(L, t, "gpu", "nvlink");
}

/* The stack fields of a layer table; a table without them (made by a
 * script) gets the job defaults. */
static int rd_opt_choice(lua_State *L, const char *key, const char *const *names, int n)
{
	if (lua_getfield(L, 1, key) == LUA_TNIL) {
		lua_pop(L, 1);
		return 0;
	}
	lua_pop(L, 1);
	return rd_choice(L, 1, "layer", key, names, n);
}

static bool rd_opt_bool(lua_State *L, const char *key)
{
	bool v = lua_getfield(L, 1, key) == LUA_TNIL || lua_toboolean(L, -1);
	lua_pop(L, 1);
	return v;
}

static void rd_stack(lua_State *L, struct gp_job *j)
{
	j->precision = (enum gp_precision)rd_opt_choice(L, "precision", lv_precision_names, 3);
	j->attention = (enum gp_attention)rd_opt_choice(L, "attention", lv_attention_names, 2);
	j->optimizer = (enum gp_optimizer)rd_opt_choice(L, "optimizer", lv_optimizer_names, 2);
	j->cross_entropy = (enum gp_cross_entropy)rd_opt_choice(L, "cross_entropy",
								lv_cross_entropy_names, 2);
	j->sequence_parallel = rd_opt_bool(L, "sequence_parallel");
	j->tp_overlap = rd_opt_bool(L, "tp_overlap");
}

static void rd_layer_q(lua_State *L, struct rd_q *r)
{
	static const char *const kinds[] = { "block", "logits" };
	memset(r, 0, sizeof *r);
	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_checktype(L, 3, LUA_TTABLE);
	struct gp_model *m = &r->sc.model;
	r->q.logits = rd_choice(L, 1, "layer", "kind", kinds, 2);
	m->hidden = rd_num(L, 1, "layer", "hidden");
	m->heads = rd_num(L, 1, "layer", "heads");
	m->kv_heads = rd_num(L, 1, "layer", "kv_heads");
	m->ffn = rd_num(L, 1, "layer", "ffn");
	m->vocab = rd_num(L, 1, "layer", "vocab");
	lua_getfield(L, 1, "gated");
	m->gated = lua_toboolean(L, -1);
	lua_pop(L, 1);
	r->sc.job.seq = rd_num(L, 1, "layer", "seq");
	r->sc.job.micro_batch = rd_num(L, 1, "layer", "micro_batch");
	rd_stack(L, &r->sc.job);
	rd_gpu(L, 2, &r->gpu);
	double tp = rd_num(L, 3, "ctx", "tp");
	if (!(tp >= 1 && tp <= 1e6) || tp != (int)tp)
		luaL_error(L, "ctx.tp: expected a positive integer, got %g", tp);
	r->q.tp = (int)tp;
	r->q.recompute = (enum gp_recompute)rd_choice(L, 3, "ctx", "recompute", rc_names, 3);
	if (lua_getfield(L, 3, "pool") != LUA_TTABLE)
		luaL_error(L, "ctx.pool: expected a table, got %s", luaL_typename(L, -1));
	int p = lua_gettop(L);
	r->pool.per_node = (int)rd_num(L, p, "ctx.pool", "per_node");
	r->pool.nvlink = rd_num(L, p, "ctx.pool", "nvlink");
	r->pool.network = rd_num(L, p, "ctx.pool", "network");
	r->pool.latency = rd_num(L, p, "ctx.pool", "latency");
	/* The pool's size (the default's straggler term); a ctx a script
	 * builds itself may leave it out: one GPU then. */
	r->pool.count = lua_getfield(L, p, "count") == LUA_TNUMBER ? (int)lua_tonumber(L, -1) : 1;
	lua_pop(L, 2);
	if (r->pool.per_node < 1)
		luaL_error(L, "ctx.pool.per_node: expected a positive integer");
	r->q.sc = &r->sc;
	r->q.gpu = &r->gpu;
	r->q.pool = &r->pool;
}

/* compute(layer, gpu, ctx) -> forward, input-gradient and weight-gradient
 * seconds. */
static int d_compute(lua_State *L)
{
	struct rd_q r;
	rd_layer_q(L, &r);
	struct gp_layer_time t;
	gp_default_cost.ops->layer_time(NULL, &r.q, &t);
	lua_pushnumber(L, t.f);
	lua_pushnumber(L, t.b);
	lua_pushnumber(L, t.w);
	return 3;
}

/* memory(layer, gpu, ctx) -> bytes kept from F to B, and of those what
 * W still needs. */
static int d_memory(lua_State *L)
{
	struct rd_q r;
	rd_layer_q(L, &r);
	struct gp_layer_mem m;
	gp_default_cost.ops->layer_memory(NULL, &r.q, &m);
	lua_pushnumber(L, m.act);
	lua_pushnumber(L, m.wact);
	return 2;
}

/* efficiency(gpu, layer, ctx) -> gpu.efficiency. */
static int d_efficiency(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_pushnumber(L, rd_num(L, 1, "gpu", "efficiency"));
	return 1;
}

static void rd_channel(lua_State *L, struct gp_channel_q *q)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	memset(q, 0, sizeof *q);
	q->kind = (enum gp_channel)rd_choice(L, 1, "channel", "kind", ch_names, 3);
	q->bandwidth = rd_num(L, 1, "channel", "bandwidth");
	q->latency = rd_num(L, 1, "channel", "latency");
}

/* p2p(channel, ctx), allreduce(channel, ctx) -> {latency=, bandwidth=}. */
static int channel_default(lua_State *L, bool p2p)
{
	struct gp_channel_q q;
	struct gp_comm c;
	rd_channel(L, &q);
	if (p2p)
		gp_default_cost.ops->p2p(NULL, &q, &c);
	else
		gp_default_cost.ops->allreduce(NULL, &q, &c);
	lua_createtable(L, 0, 2);
	set_num(L, "latency", c.lat);
	set_num(L, "bandwidth", c.bw);
	return 1;
}

static int d_p2p(lua_State *L)
{
	return channel_default(L, true);
}

static int d_allreduce(lua_State *L)
{
	return channel_default(L, false);
}

/* optimizer(gpu, n, ctx) -> seconds of one step over n parameters. */
static int d_optimizer(lua_State *L)
{
	struct gp_gpu g = { .flops = 0 };
	rd_gpu(L, 1, &g);
	double n = luaL_checknumber(L, 2);
	lua_pushnumber(L, gp_default_cost.ops->optimizer_time(NULL, &g, n));
	return 1;
}

/* reserve(gpu, ctx) -> bytes per GPU the job cannot use. */
static int d_reserve(lua_State *L)
{
	struct gp_gpu g = { .flops = 0 };
	rd_gpu(L, 1, &g);
	struct gp_layer_q q = { .gpu = &g, .tp = 1 };
	lua_pushnumber(L, gp_default_cost.ops->reserve(NULL, &q));
	return 1;
}

static void push_constants(lua_State *L)
{
	const struct gp_default_k *k = gp_default_constants();
	lua_createtable(L, 0, 24);
#define GP_K_SET(n) set_num(L, #n, k->n);
	GP_DEFAULT_K(GP_K_SET)
#undef GP_K_SET
	lv_readonly(L, "geoplan.default.constants");
}

void lv_push_defaults(lua_State *L)
{
	static const luaL_Reg fns[] = {
		{ "compute", d_compute }, { "memory", d_memory },
		{ "efficiency", d_efficiency }, { "p2p", d_p2p },
		{ "allreduce", d_allreduce }, { "optimizer", d_optimizer },
		{ "reserve", d_reserve }, { NULL, NULL },
	};
	luaL_newlib(L, fns);
	push_constants(L);
	lua_setfield(L, -2, "constants");
	lv_readonly(L, "geoplan.default");
}

/* --- the scenario, as a heuristic sees it ----------------------------- */

static void push_gpus(lua_State *L, const struct gp_scenario *sc)
{
	lua_createtable(L, 0, sc->ngpus);
	for (int i = 0; i < sc->ngpus; i++) {
		lv_push_gpu(L, &sc->gpus[i], sc->gpus[i].efficiency);
		lua_setfield(L, -2, sc->gpus[i].name);
	}
	lv_readonly(L, "scenario.gpus");
}

static void push_dcs(lua_State *L, const struct gp_scenario *sc)
{
	lua_createtable(L, sc->ndcs, 0);
	for (int d = 0; d < sc->ndcs; d++) {
		const struct gp_dc *dc = &sc->dcs[d];
		lua_createtable(L, 0, 2);
		set_str(L, "name", dc->name);
		lua_createtable(L, dc->npools, 0);
		for (int p = 0; p < dc->npools; p++) {
			push_pool(L, sc, &dc->pools[p]);
			lua_rawseti(L, -2, p + 1);
		}
		lv_readonly(L, "dc.pools");
		lua_setfield(L, -2, "pools");
		lv_readonly(L, "scenario.dcs[i]");
		lua_rawseti(L, -2, d + 1);
	}
	lv_readonly(L, "scenario.dcs");
}

static void push_links(lua_State *L, const struct gp_scenario *sc)
{
	lua_createtable(L, sc->nlinks, 0);
	for (int i = 0; i < sc->nlinks; i++) {
		const struct gp_link *l = &sc->links[i];
		lua_createtable(L, 0, 6);
		set_str(L, "from", sc->dcs[l->from].name);
		set_str(L, "to", sc->dcs[l->to].name);
		set_num(L, "bandwidth", l->bandwidth);
		set_num(L, "latency", l->latency);
		set_num(L, "price_per_gb", l->price_per_gb);
		set_int(L, "streams", l->streams);
		lv_readonly(L, "scenario.links[i]");
		lua_rawseti(L, -2, i + 1);
	}
	lv_readonly(L, "scenario.links");
}

static void push_model_job(lua_State *L, const struct gp_scenario *sc)
{
	const struct gp_model *m = &sc->model;
	lua_createtable(L, 0, 8);
	set_str(L, "name", m->name);
	set_int(L, "layers", m->layers);
	set_num(L, "hidden", m->hidden);
	set_num(L, "heads", m->heads);
	set_num(L, "kv_heads", m->kv_heads);
	set_num(L, "ffn", m->ffn);
	set_num(L, "vocab", m->vocab);
	lua_pushboolean(L, m->gated);
	lua_setfield(L, -2, "gated");
	lv_readonly(L, "scenario.model");
	lua_setfield(L, -2, "model");
	const struct gp_job *j = &sc->job;
	lua_createtable(L, 0, 8);
	set_num(L, "seq", j->seq);
	set_num(L, "global_batch", j->global_batch);
	set_num(L, "micro_batch", j->micro_batch);
	set_str(L, "recompute", gp_recompute_name(j->recompute));
	lua_pushboolean(L, j->zero);
	lua_setfield(L, -2, "zero");
	lua_createtable(L, 0, 3);
	set_str(L, "mode", gp_sync_name(j->sync_mode));
	set_int(L, "every", j->sync_every);
	lua_pushboolean(L, j->sync_overlap);
	lua_setfield(L, -2, "overlap");
	lv_readonly(L, "scenario.job.sync");
	lua_setfield(L, -2, "sync");
	lv_readonly(L, "scenario.job");
	lua_setfield(L, -2, "job");
}

void lv_push_scenario(lua_State *L, const struct gp_scenario *sc)
{
	static const char *const objectives[] = { "time", "cost", "wan_bytes" };
	lua_createtable(L, 0, 8);
	set_str(L, "name", sc->name);
	push_gpus(L, sc);
	lua_setfield(L, -2, "gpus");
	push_dcs(L, sc);
	lua_setfield(L, -2, "dcs");
	push_links(L, sc);
	lua_setfield(L, -2, "links");
	push_model_job(L, sc);
	set_str(L, "objective", objectives[sc->objective]);
	if (sc->budget_usd_per_hour > 0) {
		lua_createtable(L, 0, 1);
		set_num(L, "usd_per_hour", sc->budget_usd_per_hour);
		lv_readonly(L, "scenario.budget");
		lua_setfield(L, -2, "budget");
	}
	lv_readonly(L, "scenario");
}

/* --- errors ----------------------------------------------------------- */

static bool has(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; k && i + k <= n; i++)
		if (!memcmp(s + i, needle, k))
			return true;
	return false;
}

/* Keeps the lines of a traceback that name the script's own frames. */
static void user_frames(const char *tb, const char *script, char *out, size_t n)
{
	const char *base = strrchr(script, '/');
	base = base ? base + 1 : script;
	size_t len = 0;
	out[0] = 0;
	int kept = 0;
	for (const char *l = tb; *l && kept < 8;) {
		const char *nl = strchr(l, '\n');
		size_t ll = nl ? (size_t)(nl - l) : strlen(l);
		if (has(l, ll, base) && len + ll + 2 < n) {
			out[len++] = '\n';
			memcpy(out + len, l, ll);
			len += ll;
			out[len] = 0;
			kept++;
		}
		l += ll + (nl ? 1 : 0);
	}
}

int lv_trace(const char *msg, const char *script, char *frames, size_t n)
{
	if (!msg) {
		snprintf(frames, n, "%s", "");
		return 0;
	}
	const char *tb = strstr(msg, "\nstack traceback:");
	user_frames(tb ? tb + 1 : "", script, frames, n);
	return tb ? (int)(tb - msg) : (int)strlen(msg);
}
