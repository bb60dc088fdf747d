/*
 * lua_scenario.c: turns the table a scenario file returns into a
 * struct gp_scenario (scenario.h): the GPU catalog and the file's own
 * GPUs, the model (a catalog name or a table), DCs and their pools,
 * links (symmetric unless both directions are given), the job, the
 * objective and budget; the plan is lua_plan.c's. Unknown fields are
 * errors, so a typo is never silently ignored.
 */
#include "lua_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- GPUs ---------------------------------------------------------- */

static const char *const gpu_keys[] = { "tflops", "fp8_tflops", "memory", "hbm_bandwidth",
	"nvlink", "efficiency", "efficiency_data", "efficiency_borrows", "price_per_hour", NULL };

static int find_gpu(const struct gp_scenario *s, const char *name)
{
	for (int i = 0; i < s->ngpus; i++)
		if (!strcmp(s->gpus[i].name, name))
			return i;
	return -1;
}

/* Where g's efficiency comes from (enum gp_eff_src): what the table says
 * (efficiency_data: the measured runs it is fitted to; efficiency_borrows:
 * the type whose fit it takes), else the scenario's when it gives a new
 * type one or a known type another than the catalog's (the same figure,
 * as geoplan's own scenario writer repeats it, keeps the catalog's
 * source), else the built-in default for a new type. */
static int conv_eff_src(struct lh_cv *c, int t, const char *path, struct gp_gpu *g, int known,
			double before)
{
	char data[GP_EFF_REF_MAX], from[GP_NAME_MAX];
	if (lh_get_str(c, t, path, "efficiency_data", 0, "", data, sizeof data) ||
	    lh_get_str(c, t, path, "efficiency_borrows", 0, "", from, sizeof from))
		return -1;
	if (data[0] && from[0])
		return lh_err(c, path, "efficiency_data and efficiency_borrows: give one (measured, or borrowed)");
	bool given = lh_rawfield(c->L, t, "efficiency") != LUA_TNIL;
	lua_pop(c->L, 1);
	if (data[0] || from[0]) {
		g->eff_src = data[0] ? GP_EFF_MEASURED : GP_EFF_BORROWED;
		snprintf(g->eff_ref, sizeof g->eff_ref, "%s", data[0] ? data : from);
	} else if (given && (!known || g->efficiency != before)) {
		g->eff_src = GP_EFF_SCENARIO;
		g->eff_ref[0] = 0;
	} else if (!known) {
		g->eff_src = GP_EFF_DEFAULT;
		g->eff_ref[0] = 0;
	}
	return 0;
}

/* Reads the gpu table at t into g; fields are required only for a GPU
 * the catalog does not know. */
static int conv_gpu(struct lh_cv *c, int t, const char *path, struct gp_gpu *g,
		    int known)
{
	int req = known ? 0 : LH_REQ;
	double before = g->efficiency;
	if (lh_check_keys(c, t, path, gpu_keys, 0) ||
	    lh_get_num(c, t, path, "tflops", req | LH_POS, g->flops, &g->flops) ||
	    lh_get_num(c, t, path, "fp8_tflops", LH_NONNEG, g->fp8_flops, &g->fp8_flops) ||
	    lh_get_num(c, t, path, "memory", req | LH_POS, g->memory, &g->memory) ||
	    lh_get_num(c, t, path, "hbm_bandwidth", req | LH_POS, g->hbm_bw, &g->hbm_bw) ||
	    lh_get_num(c, t, path, "nvlink", LH_POS, known ? g->nvlink : 32e9, &g->nvlink) ||
	    lh_get_num(c, t, path, "efficiency", LH_UNIT, known ? g->efficiency : GP_DEFAULT_EFFICIENCY,
		       &g->efficiency) ||
	    lh_get_num(c, t, path, "price_per_hour", LH_NONNEG, g->price_per_hour,
		       &g->price_per_hour))
		return -1;
	return conv_eff_src(c, t, path, g, known, before);
}

/* Adds every entry of table t (name -> gpu table) to s->gpus. */
static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The table's GPU names, sorted: Lua's traversal order changes from run
 * to run, and GPU indices (ties between equal plans) must not. */
static int gpu_names(struct lh_cv *c, int t, const char *path, char (*names)[GP_NAME_MAX],
		     int *n)
{
	lua_State *L = c->L;
	*n = 0;
	lua_pushnil(L);
	while (lua_next(L, t)) {
		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING) {
			char d[64];
			lh_describe(L, -1, d, sizeof d);
			lua_pop(L, 1);
			return lh_err(c, path, "GPU names must be strings, got %s", d);
		}
		const char *name = lua_tostring(L, -1);
		if (strlen(name) >= GP_NAME_MAX) {
			char p[300];
			snprintf(p, sizeof p, "%s[\"%.200s\"]", path, name);
			lua_pop(L, 1);
			return lh_err(c, p, "GPU name too long");
		}
		if (*n == 256) {
			lua_pop(L, 1);
			return lh_err(c, path, "too many GPU types (at most 256)");
		}
		snprintf(names[(*n)++], GP_NAME_MAX, "%s", name);
	}
	qsort(names, (size_t)*n, sizeof *names, cmp_name);
	return 0;
}

/* A new GPU type (table at t) that does not say how fast it is, named
 * like a known one ("h100"): a typo more likely than a new GPU. */
static bool new_gpu_typo(struct lh_cv *c, int t, const char *path, const char *name)
{
	lua_State *L = c->L;
	bool bare = lh_rawfield(L, t, "tflops") == LUA_TNIL;
	lua_pop(L, 1);
	const char *names[256];
	int n = c->s->ngpus < 256 ? c->s->ngpus : 256;
	for (int i = 0; i < n; i++)
		names[i] = c->s->gpus[i].name;
	if (!bare || lh_nearest(name, names, n) < 0)
		return false;
	char hint[1024];
	lh_suggest(name, names, n, "GPUs", hint, sizeof hint);
	lh_err(c, path, "not a known GPU (%s); a new type needs tflops, memory and hbm_bandwidth",
	       hint);
	return true;
}

static int conv_gpu_table(struct lh_cv *c, int t, const char *path)
{
	lua_State *L = c->L;
	t = lua_absindex(L, t);
	char (*names)[GP_NAME_MAX] = malloc(256 * sizeof *names);
	int n;
	if (!names)
		return lh_err(c, path, "out of memory");
	int rc = gpu_names(c, t, path, names, &n);
	for (int k = 0; rc == 0 && k < n; k++) {
		const char *name = names[k];
		char p[300];
		snprintf(p, sizeof p, "%s[\"%s\"]", path, name);
		if (lh_rawfield(L, t, name) != LUA_TTABLE) {
			char d[64];
			lh_describe(L, -1, d, sizeof d);
			rc = lh_err(c, p, "expected a table, got %s", d);
		} else {
			int i = find_gpu(c->s, name);
			if (i < 0 && c->s->ngpus >= 256) {
				rc = lh_err(c, path, "too many GPU types (at most 256)");
			} else if (i < 0 && new_gpu_typo(c, -1, p, name)) {
				rc = -1;
			} else if (i < 0) {
				i = c->s->ngpus++;
				memset(&c->s->gpus[i], 0, sizeof c->s->gpus[i]);
				snprintf(c->s->gpus[i].name, GP_NAME_MAX, "%s", name);
				rc = conv_gpu(c, -1, p, &c->s->gpus[i], 0);
			} else {
				rc = conv_gpu(c, -1, p, &c->s->gpus[i], 1);
			}
		}
		lua_pop(L, 1);
	}
	free(names);
	return rc;
}

/* --- model --------------------------------------------------------- */

static const char *const model_keys[] = { "name", "layers", "hidden", "heads",
	"kv_heads", "ffn", "vocab", "gated", NULL };

static int conv_model_table(struct lh_cv *c, int t, const char *path,
			    struct gp_model *m, const char *name)
{
	double layers;
	if (lh_check_keys(c, t, path, model_keys, 0) ||
	    lh_get_str(c, t, path, "name", 0, name, m->name, sizeof m->name) ||
	    lh_get_num(c, t, path, "layers", LH_REQ | LH_POS | LH_INT, 0, &layers) ||
	    lh_get_num(c, t, path, "hidden", LH_REQ | LH_POS | LH_INT, 0, &m->hidden) ||
	    lh_get_num(c, t, path, "heads", LH_REQ | LH_POS | LH_INT, 0, &m->heads) ||
	    lh_get_num(c, t, path, "kv_heads", LH_POS | LH_INT, m->heads, &m->kv_heads) ||
	    lh_get_num(c, t, path, "ffn", LH_POS | LH_INT, 4 * m->hidden, &m->ffn) ||
	    lh_get_num(c, t, path, "vocab", LH_POS | LH_INT, 50257, &m->vocab) ||
	    lh_get_bool(c, t, path, "gated", false, &m->gated))
		return -1;
	if (layers > 100000)
		return lh_err(c, path, "layers: at most 100000, got %.0f", layers);
	m->layers = (int)layers;
	if (fmod(m->hidden, m->heads) != 0) {
		char p[300];
		lh_join(p, sizeof p, path, "heads");
		return lh_err(c, p, "hidden (%.0f) must be a multiple of heads (%.0f)",
			      m->hidden, m->heads);
	}
	if (m->kv_heads > m->heads || fmod(m->heads, m->kv_heads) != 0) {
		char p[300];
		lh_join(p, sizeof p, path, "kv_heads");
		return lh_err(c, p, "must divide heads (%.0f), got %.0f", m->heads,
			      m->kv_heads);
	}
	return 0;
}

/* Pushes catalog[part] of the chunk's environment. A scenario may have
 * changed its own copy of the catalog; it must still be tables. */
static int push_catalog(struct lh_cv *c, const char *part)
{
	lua_State *L = c->L;
	char d[64], path[64];
	if (lh_rawfield(L, c->env, "catalog") != LUA_TTABLE) {
		lh_describe(L, -1, d, sizeof d);
		lua_pop(L, 1);
		return lh_err(c, "catalog", "expected the prelude's catalog (a table), got %s", d);
	}
	snprintf(path, sizeof path, "catalog.%s", part);
	if (lh_rawfield(L, -1, part) != LUA_TTABLE) {
		lh_describe(L, -1, d, sizeof d);
		lua_pop(L, 2);
		return lh_err(c, path, "expected a table (the prelude's catalog), got %s", d);
	}
	lua_remove(L, -2);
	return 0;
}

static int conv_model(struct lh_cv *c, int top)
{
	lua_State *L = c->L;
	int ty = lh_rawfield(L, top, "model");
	if (ty == LUA_TTABLE) {
		int rc = conv_model_table(c, -1, "model", &c->s->model, "custom");
		lua_pop(L, 1);
		return rc;
	}
	if (ty != LUA_TSTRING) {
		char d[64];
		lh_describe(L, -1, d, sizeof d);
		lua_pop(L, 1);
		if (ty == LUA_TNIL)
			return lh_err(c, "model", "required field is missing (a catalog name or a table)");
		return lh_err(c, "model", "expected a catalog name or a table, got %s", d);
	}
	char name[GP_NAME_MAX];
	snprintf(name, sizeof name, "%s", lua_tostring(L, -1));
	lua_pop(L, 1);
	if (push_catalog(c, "models"))
		return -1;
	int found = lh_rawfield(L, -1, name) == LUA_TTABLE;
	if (!found) {
		const char *names[256];
		int n = 0;
		char hint[1024];
		lua_pop(L, 1);
		lua_pushnil(L);
		while (lua_next(L, -2)) {
			lua_pop(L, 1);
			if (lua_type(L, -1) == LUA_TSTRING && n < 256)
				names[n++] = lua_tostring(L, -1);   /* the table keeps the key */
		}
		lh_suggest(name, names, n, "catalog", hint, sizeof hint);
		lua_pop(L, 1);
		return lh_err(c, "model", "unknown model \"%s\" (%s)", name, hint);
	}
	int rc = conv_model_table(c, -1, "catalog.models", &c->s->model, name);
	lua_pop(L, 2);
	return rc;
}

/* --- DCs and links --------------------------------------------------- */

static const char *const dc_keys[] = { "name", "pools", NULL };
static const char *const pool_keys[] = { "gpu", "count", "per_node", "nvlink",
	"network", "latency", NULL };

static int conv_pool(struct lh_cv *c, int t, const char *path, struct gp_pool *p)
{
	char gpu[GP_NAME_MAX], pp[300];
	if (lh_check_keys(c, t, path, pool_keys, 0) ||
	    lh_get_str(c, t, path, "gpu", LH_REQ, NULL, gpu, sizeof gpu))
		return -1;
	p->gpu = find_gpu(c->s, gpu);
	if (p->gpu < 0) {
		const char *names[256];
		char hint[1024];
		for (int i = 0; i < c->s->ngpus && i < 256; i++)
			names[i] = c->s->gpus[i].name;
		lh_suggest(gpu, names, c->s->ngpus < 256 ? c->s->ngpus : 256, "GPUs", hint,
			   sizeof hint);
		lh_join(pp, sizeof pp, path, "gpu");
		return lh_err(c, pp, "unknown GPU \"%s\" (%s; a new type goes in gpus = { ... })",
			      gpu, hint);
	}
	const struct gp_gpu *g = &c->s->gpus[p->gpu];
	if (lh_get_int(c, t, path, "count", LH_REQ | LH_POS, 0, &p->count) ||
	    lh_get_int(c, t, path, "per_node", LH_POS, 8, &p->per_node) ||
	    lh_get_num(c, t, path, "nvlink", LH_POS, g->nvlink, &p->nvlink) ||
	    lh_get_num(c, t, path, "network", LH_POS, 100e9 / 8, &p->network) ||
	    lh_get_num(c, t, path, "latency", LH_NONNEG, 8.2e-6, &p->latency))
		return -1;
	if (p->count % p->per_node != 0 && p->count > p->per_node) {
		lh_join(pp, sizeof pp, path, "count");
		return lh_err(c, pp, "%d GPUs do not fill whole nodes of %d (per_node)",
			      p->count, p->per_node);
	}
	return 0;
}

static int conv_dcs(struct lh_cv *c, int top)
{
	lua_State *L = c->L;
	struct gp_scenario *s = c->s;
	if (lh_get_table(c, top, "", "dcs", 1) != 1)
		return -1;
	long n = lh_check_array(c, -1, "dcs", 4096);
	if (n < 0)
		goto fail;
	if (n == 0) {
		lh_err(c, "dcs", "expected at least one DC");
		goto fail;
	}
	s->dcs = gp_xcalloc(n, sizeof *s->dcs);
	if (!s->dcs) {
		lh_err(c, "dcs", "out of memory");
		goto fail;
	}
	for (long i = 1; i <= n; i++) {
		char p[300], pp[300];
		lh_joini(p, sizeof p, "dcs", i);
		if (lh_get_elem_table(c, -1, p, i))
			goto fail;
		struct gp_dc *dc = &s->dcs[s->ndcs++];
		if (lh_check_keys(c, -1, p, dc_keys, 0) ||
		    lh_get_str(c, -1, p, "name", LH_REQ, NULL, dc->name, sizeof dc->name))
			goto fail1;
		for (int j = 0; j < s->ndcs - 1; j++)
			if (!strcmp(s->dcs[j].name, dc->name)) {
				lh_join(pp, sizeof pp, p, "name");
				lh_err(c, pp, "\"%s\" is also the name of dcs[%d]", dc->name, j + 1);
				goto fail1;
			}
		lh_join(pp, sizeof pp, p, "pools");
		if (lh_get_table(c, -1, p, "pools", 1) != 1)
			goto fail1;
		long np = lh_check_array(c, -1, pp, 64);
		if (np < 0)
			goto fail2;
		if (np == 0) {
			lh_err(c, pp, "expected at least one pool");
			goto fail2;
		}
		dc->pools = gp_xcalloc(np, sizeof *dc->pools);
		if (!dc->pools) {
			lh_err(c, pp, "out of memory");
			goto fail2;
		}
		for (long j = 1; j <= np; j++) {
			char q[300];
			lh_joini(q, sizeof q, pp, j);
			if (lh_get_elem_table(c, -1, q, j))
				goto fail2;
			if (conv_pool(c, -1, q, &dc->pools[dc->npools++]))
				goto fail3;
			lua_pop(L, 1);
		}
		lua_pop(L, 2);
	}
	lua_pop(L, 1);
	return 0;
fail3:
	lua_pop(L, 1);
fail2:
	lua_pop(L, 1);
fail1:
	lua_pop(L, 1);
fail:
	lua_pop(L, 1);
	return -1;
}

void lh_suggest_dc(const struct gp_scenario *s, const char *name, char *buf, size_t n)
{
	const char **names = malloc(sizeof *names * (size_t)(s->ndcs ? s->ndcs : 1));
	for (int i = 0; names && i < s->ndcs; i++)
		names[i] = s->dcs[i].name;
	lh_suggest(name, names, names ? s->ndcs : 0, "DCs", buf, n);
	free(names);
}

static const char *const link_keys[] = { "bandwidth", "latency",
	"price_per_gb", "streams", "reverse", NULL };
static const char *const reverse_keys[] = { "bandwidth", "latency",
	"price_per_gb", "streams", NULL };

static int dc_ref(struct lh_cv *c, int t, long idx, const char *path, int *out)
{
	lua_State *L = c->L;
	char p[300];
	snprintf(p, sizeof p, "%s[%ld]", path, idx);
	if (lua_rawgeti(L, t, idx) != LUA_TSTRING) {
		char d[64];
		lh_describe(L, -1, d, sizeof d);
		lua_pop(L, 1);
		return lh_err(c, p, "expected a DC name, got %s", d);
	}
	*out = gp_find_dc(c->s, lua_tostring(L, -1));
	if (*out < 0) {
		char hint[1024];
		lh_suggest_dc(c->s, lua_tostring(L, -1), hint, sizeof hint);
		lh_err(c, p, "unknown DC \"%s\" (%s)", lua_tostring(L, -1), hint);
		lua_pop(L, 1);
		return -1;
	}
	lua_pop(L, 1);
	return 0;
}

/* The entry at the top of the stack (path p): its direction, and the
 * other one: the same figures, but for those its `reverse` table gives. */
static int read_link(struct lh_cv *c, const char *p, struct gp_link *l, struct gp_link *r,
		     bool *has_rev)
{
	lua_State *L = c->L;
	int t = lua_gettop(L);
	*l = (struct gp_link){ 0 };
	if (lh_check_keys(c, t, p, link_keys, 2) || dc_ref(c, t, 1, p, &l->from) ||
	    dc_ref(c, t, 2, p, &l->to) ||
	    lh_get_num(c, t, p, "bandwidth", LH_REQ | LH_POS, 0, &l->bandwidth) ||
	    lh_get_num(c, t, p, "latency", LH_REQ | LH_NONNEG, 0, &l->latency) ||
	    lh_get_num(c, t, p, "price_per_gb", LH_NONNEG, 0, &l->price_per_gb) ||
	    lh_get_int(c, t, p, "streams", LH_POS, 1, &l->streams))
		return -1;
	if (l->from == l->to)
		return lh_err(c, p, "a link joins two different DCs, both are \"%s\"",
			      c->s->dcs[l->from].name);
	*r = *l;
	r->from = l->to;
	r->to = l->from;
	int got = lh_get_table(c, t, p, "reverse", 0);
	*has_rev = got > 0;
	if (got <= 0)
		return got;
	char rp[320];
	snprintf(rp, sizeof rp, "%s.reverse", p);
	int rt = lua_gettop(L);
	int rc = lh_check_keys(c, rt, rp, reverse_keys, 0) ||
		 lh_get_num(c, rt, rp, "bandwidth", LH_POS, l->bandwidth, &r->bandwidth) ||
		 lh_get_num(c, rt, rp, "latency", LH_NONNEG, l->latency, &r->latency) ||
		 lh_get_num(c, rt, rp, "price_per_gb", LH_NONNEG, l->price_per_gb,
			    &r->price_per_gb) ||
		 lh_get_int(c, rt, rp, "streams", LH_POS, l->streams, &r->streams);
	lua_pop(L, 1);
	return rc ? -1 : 0;
}

/* Puts direction l in the list; given[k]: 0 mirrored from its reverse
 * (replaceable), 1 written by the user. -1 when it was written before. */
static int place_link(struct lh_cv *c, const char *p, const struct gp_link *l, char *given,
		      bool user)
{
	struct gp_scenario *s = c->s;
	int k;
	for (k = 0; k < s->nlinks; k++)
		if (s->links[k].from == l->from && s->links[k].to == l->to)
			break;
	if (k < s->nlinks && given[k] && user)
		return lh_err(c, p, "link %s -> %s is given twice", s->dcs[l->from].name,
			      s->dcs[l->to].name);
	if (k < s->nlinks && !user)
		return 0;   /* a mirror never replaces what is there */
	if (k == s->nlinks)
		s->nlinks++;
	s->links[k] = *l;
	given[k] = user;
	return 0;
}

/* Each entry is one direction and, unless the other is given too, its
 * mirror (symmetric links); `reverse` gives the mirror's own figures. */
static int conv_links(struct lh_cv *c, int top)
{
	lua_State *L = c->L;
	struct gp_scenario *s = c->s;
	int got = lh_get_table(c, top, "", "links", 0);
	if (got <= 0)
		return got;
	long n = lh_check_array(c, -1, "links", 100000);
	s->links = n >= 0 ? gp_xcalloc(2 * (size_t)n + 1, sizeof *s->links) : NULL;
	char *given = n >= 0 ? gp_xcalloc(2 * (size_t)n + 1, 1) : NULL;
	int rc = n < 0 ? -1 : !s->links || !given ? lh_err(c, "links", "out of memory") : 0;
	for (long i = 1; rc == 0 && i <= n; i++) {
		char p[300];
		lh_joini(p, sizeof p, "links", i);
		if (lh_get_elem_table(c, -1, p, i)) {
			rc = -1;
			break;
		}
		struct gp_link l, r;
		bool has_rev;
		rc = read_link(c, p, &l, &r, &has_rev);
		lua_pop(L, 1);
		if (rc == 0)
			rc = place_link(c, p, &l, given, true);
		if (rc == 0)
			rc = place_link(c, p, &r, given, has_rev);
	}
	free(given);
	lua_pop(L, 1);
	return rc;
}

/* --- job ------------------------------------------------------------- */

static const char *const job_keys[] = { "seq", "global_batch", "micro_batch",
	"precision", "optimizer", "zero", "recompute", "attention", "sequence_parallel",
	"tp_overlap", "p2p_overlap", "p2p_scatter", "grad_reduce", "defer_embedding_wgrad",
	"cross_entropy", "sync", NULL };
static const char *const sync_keys[] = { "mode", "every", "overlap", NULL };
static const char *const precisions[] = { "bf16", "fp16", "fp8", NULL };
static const char *const attentions[] = { "flash", "materialised", NULL };
static const char *const optimizers[] = { "adam", "adam-bf16", NULL };
static const char *const grad_reduces[] = { "bf16", "fp16", "fp32", NULL };
static const char *const cross_entropies[] = { "fused", "unfused", NULL };
const char *const lh_recomputes[] = { "none", "selective", "full", "auto", NULL };
static const char *const sync_modes[] = { "flat", "hierarchical", "auto", NULL };

static int conv_job(struct lh_cv *c, int top)
{
	lua_State *L = c->L;
	struct gp_job *j = &c->s->job;
	if (lh_get_table(c, top, "", "job", 1) != 1)
		return -1;
	int prec, opt, rc, mode, att, gred, ce;
	bool scatter;
	if (lh_check_keys(c, -1, "job", job_keys, 0) ||
	    lh_get_num(c, -1, "job", "seq", LH_REQ | LH_POS | LH_INT, 0, &j->seq) ||
	    lh_get_num(c, -1, "job", "global_batch", LH_REQ | LH_POS | LH_INT, 0,
		       &j->global_batch) ||
	    lh_get_num(c, -1, "job", "micro_batch", LH_POS | LH_INT, 1, &j->micro_batch) ||
	    lh_get_enum(c, -1, "job", "precision", precisions, 0, &prec) ||
	    lh_get_enum(c, -1, "job", "optimizer", optimizers, 0, &opt) ||
	    lh_get_int(c, -1, "job", "zero", LH_NONNEG, 1, &j->zero) ||
	    lh_get_enum(c, -1, "job", "recompute", lh_recomputes, GP_RC_NONE, &rc) ||
	    lh_get_enum(c, -1, "job", "attention", attentions, GP_ATT_FLASH, &att) ||
	    lh_get_bool(c, -1, "job", "sequence_parallel", true, &j->sequence_parallel) ||
	    lh_get_bool(c, -1, "job", "tp_overlap", true, &j->tp_overlap) ||
	    lh_get_bool(c, -1, "job", "p2p_overlap", true, &j->p2p_overlap) ||
	    lh_get_bool(c, -1, "job", "p2p_scatter", true, &scatter) ||
	    lh_get_enum(c, -1, "job", "grad_reduce", grad_reduces, GP_GR_BF16, &gred) ||
	    lh_get_int(c, -1, "job", "defer_embedding_wgrad", LH_NONNEG, GP_DEFER_WGRAD,
		       &j->defer_wgrad) ||
	    lh_get_enum(c, -1, "job", "cross_entropy", cross_entropies, GP_CE_FUSED, &ce))
		goto fail;
	j->grad_reduce = gred;
	j->cross_entropy = ce;
	j->p2p_whole = !scatter;
	j->precision_bytes = 2;
	j->precision = prec;
	j->optimizer = opt;
	j->attention = att;
	j->recompute = rc;
	if (j->zero > 1) {
		lh_err(c, "job.zero", "expected 0 or 1, got %d", j->zero);
		goto fail;
	}
	j->sync_mode = GP_SYNC_AUTO;
	j->sync_every = 1;
	j->sync_overlap = true;
	int got = lh_get_table(c, -1, "job", "sync", 0);
	if (got < 0)
		goto fail;
	if (got) {
		if (lh_check_keys(c, -1, "job.sync", sync_keys, 0) ||
		    lh_get_enum(c, -1, "job.sync", "mode", sync_modes, GP_SYNC_AUTO, &mode) ||
		    lh_get_int(c, -1, "job.sync", "every", LH_POS, 1, &j->sync_every) ||
		    lh_get_bool(c, -1, "job.sync", "overlap", true, &j->sync_overlap)) {
			lua_pop(L, 1);
			goto fail;
		}
		j->sync_mode = mode;
		lua_pop(L, 1);
	}
	if (j->micro_batch > j->global_batch) {
		lh_err(c, "job.micro_batch", "%.0f is larger than global_batch (%.0f)",
		       j->micro_batch, j->global_batch);
		goto fail;
	}
	/* Every replica runs whole micro-batches: no plan splits the rest. */
	if (fmod(j->global_batch, j->micro_batch) != 0) {
		lh_err(c, "job.global_batch", "%.0f sequences cannot be split into micro-batches of %.0f (micro_batch): make it a multiple",
		       j->global_batch, j->micro_batch);
		goto fail;
	}
	lua_pop(L, 1);
	return 0;
fail:
	lua_pop(L, 1);
	return -1;
}

/* --- top level ------------------------------------------------------- */

static const char *const top_keys[] = { "name", "gpus", "dcs", "links", "model",
	"job", "objective", "budget", "cost_model", "heuristic", "measured", "plan", NULL };
static const char *const objectives[] = { "time", "cost", "wan_bytes", NULL };
static const char *const budget_keys[] = { "usd_per_hour", NULL };
static const char *const measured_keys[] = { "iteration_time", "peak_memory", NULL };

/* measured = { iteration_time = s, peak_memory = bytes }, either optional. */
static int conv_measured(struct lh_cv *c, int top)
{
	struct gp_scenario *s = c->s;
	int got = lh_get_table(c, top, "", "measured", 0);
	if (got <= 0)
		return got;
	int rc = lh_check_keys(c, -1, "measured", measured_keys, 0) ||
		 lh_get_num(c, -1, "measured", "iteration_time", LH_POS, 0,
			    &s->measured.iteration_time) ||
		 lh_get_num(c, -1, "measured", "peak_memory", LH_POS, 0,
			    &s->measured.peak_memory);
	lua_pop(c->L, 1);
	return rc ? -1 : 0;
}

static int conv_catalog_gpus(struct lh_cv *c)
{
	if (push_catalog(c, "gpus"))
		return -1;
	int rc = conv_gpu_table(c, -1, "catalog.gpus");
	lua_pop(c->L, 1);
	return rc;
}

/* In protected mode: args (struct lh_cv, the table, the environment). */
static int conv_top(lua_State *L)
{
	struct lh_cv *c = lua_touserdata(L, 1);
	struct gp_scenario *s = c->s;
	int top = 2;
	c->env = 3;
	char defname[GP_NAME_MAX];
	const char *base = strrchr(c->file, '/');
	snprintf(defname, sizeof defname, "%s", base ? base + 1 : c->file);
	char *dot = strrchr(defname, '.');
	if (dot && dot != defname)
		*dot = '\0';

	s->gpus = gp_xcalloc(256, sizeof *s->gpus);
	if (!s->gpus)
		return lh_err(c, NULL, "out of memory"), 0;
	int obj;
	if (lh_check_keys(c, top, "", top_keys, 0) ||
	    lh_get_str(c, top, "", "name", 0, defname, s->name, sizeof s->name) ||
	    conv_catalog_gpus(c))
		return 0;
	int got = lh_get_table(c, top, "", "gpus", 0);
	if (got < 0)
		return 0;
	if (got) {
		int rc = conv_gpu_table(c, -1, "gpus");
		lua_pop(L, 1);
		if (rc)
			return 0;
	}
	if (conv_dcs(c, top) || conv_links(c, top) || conv_model(c, top) ||
	    conv_job(c, top) ||
	    lh_get_enum(c, top, "", "objective", objectives, GP_OBJ_TIME, &obj))
		return 0;
	s->objective = obj;
	if (lh_rawfield(L, top, "budget") == LUA_TNUMBER) {   /* the field, not its table */
		double v = lua_tonumber(L, -1);
		lua_pop(L, 1);
		return lh_err(c, "budget", "expected a table, got %g: a budget is budget = { usd_per_hour = %g } (budget.usd_per_hour=%g as an override)",
			      v, v, v), 0;
	}
	lua_pop(L, 1);
	got = lh_get_table(c, top, "", "budget", 0);
	if (got < 0)
		return 0;
	if (got) {
		int rc = lh_check_keys(c, -1, "budget", budget_keys, 0) ||
			 lh_get_num(c, -1, "budget", "usd_per_hour", LH_REQ | LH_POS, 0,
				    &s->budget_usd_per_hour);
		lua_pop(L, 1);
		if (rc)
			return 0;
	}
	if (lh_get_str(c, top, "", "cost_model", 0, "", s->cost_model, sizeof s->cost_model) ||
	    lh_get_str(c, top, "", "heuristic", 0, "", s->heuristic, sizeof s->heuristic) ||
	    conv_measured(c, top))
		return 0;
	lh_conv_plan(c, top);
	return 0;
}

struct gp_scenario *lh_scenario(lua_State *L, const char *name,
				struct gp_err *e)
{
	lh_push_prelude(L);
	lua_insert(L, -2);
	struct gp_scenario *s = lh_scenario_in(L, -2, name, e);
	lua_pop(L, 1);
	return s;
}

struct gp_scenario *lh_scenario_in(lua_State *L, int env, const char *name,
				   struct gp_err *e)
{
	env = lua_absindex(L, env);
	struct gp_scenario *s = gp_xcalloc(1, sizeof *s);
	if (!s) {
		lua_pop(L, 1);
		gp_errf(e, "out of memory");
		return NULL;
	}
	snprintf(s->path, sizeof s->path, "%s", name);
	struct lh_cv c = { .L = L, .e = e, .file = name, .s = s };
	/* Protected, so a memory error inside the conversion is a value. */
	lua_pushcfunction(L, conv_top);
	lua_pushlightuserdata(L, &c);
	lua_pushvalue(L, -3);
	lua_pushvalue(L, env);
	int rc = lua_pcall(L, 3, 0, 0);
	if (rc != LUA_OK) {
		if (rc == LUA_ERRMEM)
			gp_errf(e, "%s: memory limit of %zu MiB exceeded", name,
				lh_memory_cap(lh_host(L)) >> 20);
		else
			gp_errf(e, "%s: %s", name, lua_tostring(L, -1));
		c.failed = 1;
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	if (c.failed) {
		gp_scenario_free(s);
		return NULL;
	}
	return s;
}
