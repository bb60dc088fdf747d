/*
 * lua_call.c: the operations of a cost-model script (lc_ops): call the
 * script with fresh descriptors, check every result, and fall back to
 * the C default for what the script leaves out.
 *
 * A result is refused unless it is a finite number of the right sign (a
 * string such as "1e-3" is refused, not converted). The first failure of
 * a batch is kept with the script's file, the line of the function, the
 * call and its arguments; later calls of the batch run the default so
 * the table stays well formed, and the batch fails.
 */
#include "lua_cost_int.h"

#include <lauxlib.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "lua_view.h"

const char *const lc_key_names[K_N] = { "compute", "efficiency", "memory", "p2p",
					"allreduce", "optimizer", "reserve" };

/* One call: what it is about (for messages) and where its stack starts. */
struct call {
	struct gp_lua_cost *lc;
	lua_State *L;
	enum lc_key k;
	const struct gp_layer_q *lq;     /* compute, efficiency, memory, reserve */
	const struct gp_channel_q *cq;   /* p2p, allreduce */
	const struct gp_gpu *gpu;        /* optimizer */
	int base;                        /* the stack top before the call */
};

static void describe(const struct call *c, char *buf, size_t n)
{
	const char *name = lc_key_names[c->k];
	if (c->lq) {
		const struct gp_layer_q *q = c->lq;
		const char *dc = q->sc->dcs[q->dc].name;
		if (c->k == K_RESERVE)
			snprintf(buf, n, "%s(gpu=%s, dc=%s)", name, q->gpu->name, dc);
		else
			snprintf(buf, n, "%s(layer=%s, gpu=%s, dc=%s, tp=%d, recompute=%s)", name,
				 q->logits ? "logits" : "block", q->gpu->name, dc, q->tp,
				 lv_recompute_name(q->recompute));
	} else if (c->cq && c->cq->kind == GP_CH_WAN) {
		const struct gp_scenario *sc = c->cq->sc;
		snprintf(buf, n, "%s(link=%s>%s)", name, sc->dcs[c->cq->link->from].name,
			 sc->dcs[c->cq->link->to].name);
	} else if (c->cq) {
		const struct gp_scenario *sc = c->cq->sc;
		snprintf(buf, n, "%s(channel=%s, dc=%s, gpu=%s)", name,
			 lv_channel_name(c->cq->kind), sc->dcs[c->cq->dc].name,
			 sc->gpus[c->cq->pool->gpu].name);
	} else {
		snprintf(buf, n, "%s(gpu=%s, n=1e9)", name, c->gpu ? c->gpu->name : "?");
	}
}

/* Records the batch's first failure: "file:line: call message". */
__attribute__((format(printf, 2, 3)))
static void fail(struct call *c, const char *fmt, ...)
{
	struct gp_lua_cost *lc = c->lc;
	if (lc->failed)
		return;
	char what[300], msg[600];
	describe(c, what, sizeof what);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	gp_errf(&lc->err, "%s:%d: %s %s", lc->name, lc->line[c->k], what, msg);
	lc->failed = true;
}

/* A Lua error in the script: its message (which names file and line),
 * the call, and the user's frames. */
static void fail_lua(struct call *c, int rc)
{
	struct gp_lua_cost *lc = c->lc;
	if (lc->failed)
		return;
	char what[300], frames[600];
	describe(c, what, sizeof what);
	if (rc == LUA_ERRMEM) {
		gp_errf(&lc->err, "%s: %s: the script's memory limit was exceeded", lc->name, what);
	} else {
		int head = lv_trace(lua_tostring(c->L, -1), lc->name, frames, sizeof frames);
		gp_errf(&lc->err, "%.*s\n  while evaluating %s%s", head, lua_tostring(c->L, -1),
			what, frames);
	}
	lc->failed = true;
}

/* The script's function for c->k is to be called: false when the key is
 * absent, the batch has failed, or the call comes from outside a batch
 * (refused and counted: only the cost tables may call). */
static bool scripted(struct call *c)
{
	struct gp_lua_cost *lc = c->lc;
	if (lc->ref[c->k] == LUA_NOREF)
		return false;
	if (!lc->in_batch) {
		lc->stray++;
		return false;
	}
	if (lc->failed)
		return false;
	c->L = lh_state(lc->h);
	c->base = lua_gettop(c->L);
	lua_pushcfunction(c->L, lh_msgh);
	lua_rawgeti(c->L, LUA_REGISTRYINDEX, lc->ref[c->k]);
	return true;
}

/* Runs the function with the nargs pushed: the number of results, or -1
 * (recorded, stack restored). */
static int run(struct call *c, int nargs)
{
	int rc = lh_pcall_armed(c->lc->h, nargs, LUA_MULTRET, c->base + 1);
	c->lc->calls++;
	if (rc != LUA_OK) {
		fail_lua(c, rc);
		lua_settop(c->L, c->base);
		return -1;
	}
	return lua_gettop(c->L) - (c->base + 1);
}

static void done(struct call *c)
{
	lua_settop(c->L, c->base);
}

static void show_value(lua_State *L, int idx, char *buf, size_t n)
{
	if (lua_type(L, idx) == LUA_TNUMBER) {
		double v = lua_tonumber(L, idx);
		snprintf(buf, n, isnan(v) ? "NaN" : "%g", v);
	} else if (lua_type(L, idx) == LUA_TSTRING) {
		snprintf(buf, n, "a string (\"%.40s\")", lua_tostring(L, idx));
	} else {
		lh_describe(L, idx, buf, n);
	}
}

enum { POS = 1, UNIT_FRAC = 2 };

/* Result i (1-based) of nres as a finite number >= 0 (> 0 with POS, in
 * (0, 1] with UNIT_FRAC) of `unit`. */
static int take(struct call *c, int nres, int i, const char *unit, int flags, double *out)
{
	int idx = c->base + 1 + i;
	if (i > nres || lua_isnil(c->L, idx)) {
		if (i == 1)
			fail(c, "returned nothing (missing return?); expected %s", unit);
		else
			fail(c, "returned nil as result %d; expected %s", i, unit);
		return -1;
	}
	char got[80];
	show_value(c->L, idx, got, sizeof got);
	double v = lua_type(c->L, idx) == LUA_TNUMBER ? lua_tonumber(c->L, idx) : NAN;
	bool ok = lua_type(c->L, idx) == LUA_TNUMBER && isfinite(v) && v >= 0 &&
		  (!(flags & POS) || v > 0) && (!(flags & UNIT_FRAC) || (v > 0 && v <= 1));
	if (!ok) {
		const char *want = flags & UNIT_FRAC ? "in (0, 1]" : flags & POS ? "> 0" : ">= 0";
		char which[32] = "";
		if (nres > 1)
			snprintf(which, sizeof which, " as result %d", i);
		fail(c, "returned %s%s; expected a finite number of %s %s", got, which, unit,
		     want);
		return -1;
	}
	*out = v;
	return 0;
}

/* Figures that are probably in the wrong unit, said once per operation. */
static void check_magnitude(struct call *c, double v, double lo, double hi, const char *hint)
{
	struct gp_lua_cost *lc = c->lc;
	if ((v == 0 || (v >= lo && v <= hi)) || lc->warned[c->k] || !lc->log)
		return;
	char what[300], line[600];
	describe(c, what, sizeof what);
	snprintf(line, sizeof line, "%s:%d: warning: %s returned %g: %s", lc->name,
		 lc->line[c->k], what, v, hint);
	lc->log(lc->log_ud, line);
	lc->warned[c->k] = true;
}

/* A forward faster than the layer's FLOPs at the GPUs' peak (FP8's
 * when the job runs FP8 and the GPU has it): over 100 % of peak, which
 * no GPU reaches, so a figure in the wrong unit or a lost factor. Said
 * once per operation, as a warning: the plan still runs on it. */
static void check_peak(struct call *c, const struct gp_layer_q *q, double f)
{
	struct gp_lua_cost *lc = c->lc;
	const struct gp_job *j = &q->sc->job;
	const struct gp_model *m = &q->sc->model;
	double b = j->micro_batch, sq = j->seq;
	double flops = q->logits ? gp_logits_flops_fwd(m, b, sq) : gp_layer_flops_fwd(m, b, sq);
	double peak = (j->precision == GP_PREC_FP8 && q->gpu->fp8_flops > 0 ? q->gpu->fp8_flops
									    : q->gpu->flops) *
		      q->tp;
	double least = peak > 0 ? flops / peak : 0;
	if (f <= 0 || f >= least || lc->warned[c->k] || !lc->log)
		return;
	char what[300], line[700], ft[32], lt[32], fl[32];
	describe(c, what, sizeof what);
	snprintf(line, sizeof line,
		 "%s:%d: warning: %s returned %s, faster than peak: the layer's %s take %s at the peak of %d %s (%.0f %% of peak)",
		 lc->name, lc->line[c->k], what, gp_fmt_time(f, 3, ft, sizeof ft),
		 gp_fmt_si(flops, 3, "FLOP", fl, sizeof fl), gp_fmt_time(least, 3, lt, sizeof lt),
		 q->tp, q->gpu->name, 100 * least / f);
	lc->log(lc->log_ud, line);
	lc->warned[c->k] = true;
}

/* The GPU as the script sees it: its efficiency is the script's own
 * when it has an efficiency function. */
static bool same_query(const struct gp_layer_q *a, const struct gp_layer_q *b)
{
	return a->sc == b->sc && a->dc == b->dc && a->gpu == b->gpu && a->pool == b->pool &&
	       a->tp == b->tp && a->recompute == b->recompute && a->logits == b->logits;
}

/* The cost tables ask a layer's time and then its memory with the same
 * query: the efficiency of the first serves the second (the function
 * is pure), which saves a third of a script's calls. */
static void effective_gpu(struct gp_lua_cost *lc, const struct gp_layer_q *q, struct gp_gpu *g)
{
	*g = *q->gpu;
	if (lc->eff_valid && lc->ref[K_EFFICIENCY] != LUA_NOREF && same_query(&lc->eff_q, q)) {
		g->efficiency = lc->eff;
		return;
	}
	struct call c = { .lc = lc, .k = K_EFFICIENCY, .lq = q };
	if (!scripted(&c))
		return;
	lv_push_gpu(c.L, q->gpu, q->gpu->efficiency);
	lv_push_layer(c.L, q);
	lua_rawgeti(c.L, LUA_REGISTRYINDEX, lc->view);
	int params = lua_gettop(c.L);
	lv_push_ctx(c.L, q, params);
	lua_remove(c.L, params);
	int n = run(&c, 3);
	double e;
	if (n >= 0 && !take(&c, n, 1, "the fraction of peak FLOP/s", UNIT_FRAC, &e)) {
		g->efficiency = e;
		lc->eff_q = *q;
		lc->eff = e;
		lc->eff_valid = true;
	}
	if (n >= 0)
		done(&c);
}

/* Calls compute or memory (c->k) with (layer, gpu, ctx): the number of
 * results, or -1 when the script has no such function or failed. */
static int call_layer(struct call *c, const struct gp_layer_q *q, const struct gp_gpu *g)
{
	if (!scripted(c))
		return -1;
	lv_push_layer(c->L, q);
	lv_push_gpu(c->L, g, g->efficiency);
	lua_rawgeti(c->L, LUA_REGISTRYINDEX, c->lc->view);
	int params = lua_gettop(c->L);
	lv_push_ctx(c->L, q, params);
	lua_remove(c->L, params);
	return run(c, 3);
}

/* compute -> forward [, backward [, weight gradient]]: what is left out
 * takes the default's proportions for this layer. */
static void op_layer_time(void *ud, const struct gp_layer_q *q, struct gp_layer_time *out)
{
	struct gp_lua_cost *lc = ud;
	struct gp_gpu g;
	effective_gpu(lc, q, &g);
	struct gp_layer_q eq = *q;
	eq.gpu = &g;
	gp_default_cost.ops->layer_time(NULL, &eq, out);
	struct call c = { .lc = lc, .k = K_COMPUTE, .lq = q };
	int n = call_layer(&c, q, &g);
	if (n < 0)
		return;
	struct gp_layer_time d = *out, t;
	if (n > 3) {
		fail(&c, "returned %d values; expected 1 to 3 (forward, backward, weight gradient seconds)", n);
	} else if (!take(&c, n, 1, "seconds", 0, &t.f)) {
		if (n == 1) {
			t.b = d.f > 0 ? t.f * (d.b / d.f) : t.f;
			t.w = d.f > 0 ? t.f * (d.w / d.f) : t.f;
			*out = t;
		} else if (n == 2 && !take(&c, n, 2, "seconds", 0, &t.b)) {
			double bw = t.b;
			t.b = d.b + d.w > 0 ? bw * (d.b / (d.b + d.w)) : bw / 2;
			t.w = bw - t.b;
			*out = t;
		} else if (n == 3 && !take(&c, n, 2, "seconds", 0, &t.b) &&
			   !take(&c, n, 3, "seconds", 0, &t.w)) {
			*out = t;
		}
		check_magnitude(&c, t.f, 1e-9, 1e3, "seconds per layer and micro-batch expected (milliseconds instead of seconds?)");
		check_peak(&c, q, t.f);
	}
	done(&c);
}

/* memory -> stored bytes [, of those what W keeps]. */
static void op_layer_memory(void *ud, const struct gp_layer_q *q, struct gp_layer_mem *out)
{
	struct gp_lua_cost *lc = ud;
	gp_default_cost.ops->layer_memory(NULL, q, out);
	struct call c = { .lc = lc, .k = K_MEMORY, .lq = q };
	if (lc->ref[K_MEMORY] == LUA_NOREF)
		return;
	struct gp_gpu g;
	effective_gpu(lc, q, &g);
	int n = call_layer(&c, q, &g);
	if (n < 0)
		return;
	struct gp_layer_mem d = *out, m;
	if (n > 2) {
		fail(&c, "returned %d values; expected 1 or 2 (stored bytes, bytes kept for W)", n);
	} else if (!take(&c, n, 1, "bytes", 0, &m.act)) {
		if (n == 1) {
			m.wact = d.act > 0 ? m.act * (d.wact / d.act) : 0;
			*out = m;
		} else if (!take(&c, n, 2, "bytes", 0, &m.wact)) {
			if (m.wact > m.act)
				fail(&c, "returned %g bytes for W, more than the %g the layer stores", m.wact, m.act);
			else
				*out = m;
		}
	}
	done(&c);
}

static void op_state_memory(void *ud, const struct gp_scenario *sc, struct gp_state_mem *out)
{
	(void)ud;
	gp_default_cost.ops->state_memory(NULL, sc, out);
}

/* optimizer(gpu, n, ctx) -> seconds of a step over n parameters. */
static double op_optimizer(void *ud, const struct gp_gpu *gpu, double params)
{
	struct gp_lua_cost *lc = ud;
	double t = gp_default_cost.ops->optimizer_time(NULL, gpu, params);
	struct call c = { .lc = lc, .k = K_OPTIMIZER, .gpu = gpu };
	if (!scripted(&c))
		return t;
	lv_push_gpu(c.L, gpu, gpu->efficiency);
	lua_pushnumber(c.L, params);
	lua_rawgeti(c.L, LUA_REGISTRYINDEX, lc->view);
	int pv = lua_gettop(c.L);
	lv_push_bare_ctx(c.L, pv);
	lua_remove(c.L, pv);
	int n = run(&c, 3);
	if (n < 0)
		return t;
	double v;
	if (!take(&c, n, 1, "seconds", 0, &v))
		t = v;
	done(&c);
	return t;
}

/* reserve(gpu, ctx) -> bytes per GPU the job cannot use. */
static double op_reserve(void *ud, const struct gp_layer_q *q)
{
	struct gp_lua_cost *lc = ud;
	double r = gp_default_cost.ops->reserve(NULL, q);
	struct call c = { .lc = lc, .k = K_RESERVE, .lq = q };
	if (!scripted(&c))
		return r;
	lv_push_gpu(c.L, q->gpu, q->gpu->efficiency);
	lua_rawgeti(c.L, LUA_REGISTRYINDEX, lc->view);
	int pv = lua_gettop(c.L);
	lv_push_ctx(c.L, q, pv);
	lua_remove(c.L, pv);
	int n = run(&c, 2);
	if (n < 0)
		return r;
	double v;
	if (!take(&c, n, 1, "bytes", 0, &v))
		r = v;
	done(&c);
	return r;
}

/* A field of a channel's result table: a finite number, > 0 with POS. */
static int take_field(struct call *c, int t, const char *key, const char *unit, int flags,
		      double *out)
{
	lua_State *L = c->L;
	int ty = lua_getfield(L, t, key);
	char got[80];
	show_value(L, -1, got, sizeof got);
	double v = lua_tonumber(L, -1);
	lua_pop(L, 1);
	if (ty == LUA_TNIL) {
		fail(c, "returned a table without %s; expected {latency = seconds, bandwidth = bytes/s}", key);
		return -1;
	}
	if (ty != LUA_TNUMBER || !isfinite(v) || v < 0 || ((flags & POS) && v <= 0)) {
		fail(c, "returned %s = %s; expected a finite number of %s %s", key, got, unit,
		     flags & POS ? "> 0" : ">= 0");
		return -1;
	}
	*out = v;
	return 0;
}

#define MAX_CURVE 32

/* The result table names only latency, bandwidth and curve. */
static int known_fields(struct call *c, int t)
{
	static const char *const keys[] = { "latency", "bandwidth", "curve", NULL };
	struct gp_err e = { "" };
	struct lh_cv cv = { .L = c->L, .e = &e, .file = "" };
	if (!lh_check_keys(&cv, t, "result", keys, 0))
		return 0;
	fail(c, "returned a table with %s", e.msg + 2);
	return -1;
}

/* The size of the messages a channel carries in this scenario, where a
 * bandwidth curve is read: a stage boundary's activation (point to
 * point), one layer's gradients (all-reduce). */
static double message_bytes(const struct call *c)
{
	const struct gp_scenario *sc = c->cq->sc;
	if (c->k == K_P2P)
		return gp_boundary_bytes(sc);
	return gp_layer_params(&sc->model) * sc->job.precision_bytes;
}

/* curve = {{bytes, fraction}, ...}: the fraction of bandwidth a message
 * of that size achieves, ascending in bytes; read at `at` bytes,
 * linearly in log(bytes) between points and flat beyond them. */
static int read_curve(struct call *c, int t, double at, double *frac)
{
	lua_State *L = c->L;
	if (lua_getfield(L, t, "curve") == LUA_TNIL) {
		lua_pop(L, 1);
		*frac = 1;
		return 0;
	}
	int cv = lua_gettop(L), n = lua_istable(L, cv) ? (int)lua_rawlen(L, cv) : 0;
	double x[MAX_CURVE], y[MAX_CURVE];
	int bad = n < 1 || n > MAX_CURVE;
	for (int i = 0; !bad && i < n; i++) {
		bad = lua_rawgeti(L, cv, i + 1) != LUA_TTABLE;
		if (!bad) {
			lua_rawgeti(L, -1, 1);
			lua_rawgeti(L, -2, 2);
			x[i] = lua_type(L, -2) == LUA_TNUMBER ? lua_tonumber(L, -2) : NAN;
			y[i] = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : NAN;
			lua_pop(L, 2);
			bad = !(x[i] > 0 && isfinite(x[i]) && y[i] > 0 && y[i] <= 1) ||
			      (i > 0 && !(x[i] > x[i - 1]));
		}
		lua_pop(L, 1);
	}
	lua_settop(L, cv - 1);
	if (bad) {
		fail(c, "returned a bad curve; expected 1 to %d points {bytes, fraction}, bytes > 0 ascending, fraction in (0, 1]",
		     MAX_CURVE);
		return -1;
	}
	int i = 0;
	while (i < n && x[i] < at)
		i++;
	if (i == 0 || i == n)
		*frac = y[i == 0 ? 0 : n - 1];
	else
		*frac = y[i - 1] + (y[i] - y[i - 1]) * log(at / x[i - 1]) / log(x[i] / x[i - 1]);
	return 0;
}

/* p2p and allreduce -> {latency = s, bandwidth = bytes/s [, curve]}. */
static void channel_op(struct gp_lua_cost *lc, enum lc_key k, const struct gp_channel_q *q,
		       struct gp_comm *out)
{
	struct call c = { .lc = lc, .k = k, .cq = q };
	if (!scripted(&c))
		return;
	lv_push_channel(c.L, q);
	lua_rawgeti(c.L, LUA_REGISTRYINDEX, lc->view);
	int pv = lua_gettop(c.L);
	lv_push_bare_ctx(c.L, pv);
	lua_remove(c.L, pv);
	int n = run(&c, 2);
	if (n < 0)
		return;
	int t = c.base + 2;
	struct gp_comm r;
	double frac;
	if (n < 1 || !lua_istable(c.L, t)) {
		char got[80] = "nothing";
		if (n >= 1)
			show_value(c.L, t, got, sizeof got);
		fail(&c, "returned %s; expected {latency = seconds, bandwidth = bytes/s}", got);
	} else if (!known_fields(&c, t) &&
		   !take_field(&c, t, "latency", "seconds", 0, &r.lat) &&
		   !take_field(&c, t, "bandwidth", "bytes/s", POS, &r.bw) &&
		   !read_curve(&c, t, message_bytes(&c), &frac)) {
		r.bw *= frac;
		*out = r;
		check_magnitude(&c, r.bw, 1e3, 1e14, "bytes/s expected (bits instead of bytes?)");
	}
	done(&c);
}

static void op_p2p(void *ud, const struct gp_channel_q *q, struct gp_comm *out)
{
	gp_default_cost.ops->p2p(NULL, q, out);
	channel_op(ud, K_P2P, q, out);
}

static void op_allreduce(void *ud, const struct gp_channel_q *q, struct gp_comm *out)
{
	gp_default_cost.ops->allreduce(NULL, q, out);
	channel_op(ud, K_ALLREDUCE, q, out);
}

static int op_begin(void *ud, struct gp_err *e)
{
	(void)e;
	struct gp_lua_cost *lc = ud;
	lc->in_batch = true;
	lc->failed = false;
	lc->err.msg[0] = 0;
	lc->eff_valid = false;   /* a new batch: the scenario may have moved */
	/* One budget for the batch: an endless loop stops the first call,
	 * and the batch fails with it. */
	lh_arm(lc->h, 0);
	return 0;
}

static int op_end(void *ud, struct gp_err *e)
{
	struct gp_lua_cost *lc = ud;
	lc->in_batch = false;
	lh_disarm(lc->h);
	if (!lc->failed)
		return 0;
	if (e)
		*e = lc->err;
	return -1;
}

/* A script's layer times are one GPU's, as the default's are (and are
 * the default's where it gives none): the straggler term is the
 * cluster's, not the model's, and applies to them alike (gp_straggle,
 * at the GPUs a plan uses of the pool). */
static double op_jitter(void *ud, const struct gp_layer_q *q)
{
	(void)ud;
	return gp_default_cost.ops->jitter(NULL, q);
}

const struct gp_cost_ops lc_ops = {
	.layer_time = op_layer_time,
	.layer_memory = op_layer_memory,
	.state_memory = op_state_memory,
	.optimizer_time = op_optimizer,
	.p2p = op_p2p,
	.allreduce = op_allreduce,
	.reserve = op_reserve,
	.jitter = op_jitter,
	.begin = op_begin,
	.end = op_end,
};
