/*
 * baseline.c: what the planners built on the simulator share (baseline.h;
 * the reference engines plan_megatron.c, plan_dp_across.c, plan_atlas.c
 * and the search, search.c).
 *
 * Every candidate is judged by gp_simulate (sim.h), like every other plan:
 * bl_judge runs it with the evaluation schedule and remembers the closest
 * miss, so an engine that finds nothing can say what came nearest;
 * bl_pick simulates candidates in the order of their estimates
 * (estimate.c). Layers go to stages in proportion to compute within each
 * stage's memory; the plan builder turns stage lists into a gp_plan.
 */
#include "baseline.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cost.h"
#include "sim.h"

/* ------------------------------------------------------------------ */
/* Starting and finishing a run                                       */

double bl_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int ctx_init(struct bl_ctx *c, const struct gp_scenario *s,
		    const struct gp_plan_opts *o, const char *engine,
		    struct gp_err *e)
{
	memset(c, 0, sizeof *c);
	c->sc = s;
	c->o = o;
	c->ct = o->costs;
	c->cancel = o->cancel;
	c->budget = o->budget_usd_per_hour > 0 ? o->budget_usd_per_hour : 0;
	c->engine = engine;
	c->t0 = bl_now_s();
	c->deadline = o->time_limit > 0 ? c->t0 + o->time_limit : INF;
	double ws = o->work_s > 0 ? o->work_s : o->time_limit;
	c->work_limit = ws > 0 ? BL_WORK_RATE * ws : INF;
	c->sched = o ? o->schedule : GP_SCHED_1F1B;
	if ((int)c->sched < 0 || c->sched >= GP_SCHED__N)
		c->sched = GP_SCHED_1F1B;
	/* The schedule MILP per candidate would take minutes: candidates are
	 * ranked with its warm start, the greedy latency-aware schedule. */
	c->eval = c->sched == GP_SCHED_XDC_MILP ? GP_SCHED_XDC_GREEDY : c->sched;
	c->chunks = o ? gp_plan_opts_chunks(o) : 1;
	c->sim_tl = o && o->time_limit > 0 ? o->time_limit : 0;
	c->miss = INF;
	double M = s->job.global_batch / s->job.micro_batch;
	if (!(M >= 1 && M <= 1e7 && M == floor(M)))
		return gp_errf(e, "%s: job.global_batch %.0f is not a whole number of micro-batches of %.0f sequences",
			       engine, s->job.global_batch, s->job.micro_batch);
	c->M = (int)M;
	return 0;
}

static void rep_start(struct gp_plan_report *rep, const char *engine)
{
	memset(rep, 0, sizeof *rep);
	rep->engine = engine;
	rep->status = GP_MILP_FEASIBLE;
	rep->bound = -HUGE_VAL;
	rep->gap = HUGE_VAL;
	rep->objective = HUGE_VAL;
	rep->estimate_s = HUGE_VAL;
}

int bl_opts(const struct gp_scenario *s, const struct gp_plan_opts *o,
	    struct gp_plan_opts *oo, struct gp_costtab **own, struct gp_err *e)
{
	*oo = o ? *o : (struct gp_plan_opts){ .schedule = GP_SCHED_1F1B };
	*own = NULL;
	if (oo->costs)
		return 0;
	*own = gp_costtab_new(s, NULL, e);
	oo->costs = *own;
	return *own ? 0 : -1;
}

int bl_run(const struct gp_scenario *s, const struct gp_plan_opts *o, const char *engine,
	   bl_engine_fn *fn, struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e)
{
	struct gp_plan_opts oo;
	struct gp_costtab *own;
	if (bl_opts(s, o, &oo, &own, e)) {
		memset(out, 0, sizeof *out);
		if (rep) {
			rep_start(rep, engine);
			rep->status = GP_MILP_ERROR;
			snprintf(rep->note, sizeof rep->note, "%s", e->msg);
		}
		return -1;
	}
	int rc = fn(s, &oo, out, rep, e);
	gp_costtab_free(own);
	return rc;
}

/* What every engine does first: a report (the caller's or rloc), an
 * empty plan, the context. -1 with the report and error filled. */
int bl_begin(struct bl_ctx *c, const struct gp_scenario *s, const struct gp_plan_opts *o,
	     const char *engine, struct gp_plan *out, struct gp_plan_report **rep,
	     struct gp_plan_report *rloc, struct gp_err *e)
{
	if (!*rep)
		*rep = rloc;
	rep_start(*rep, engine);
	memset(out, 0, sizeof *out);
	if (ctx_init(c, s, o, engine, e) || bl_cancelled(c)) {
		bl_fail(c, *rep, e, e->msg);
		return -1;
	}
	return 0;
}

/* The run fails with msg, in the report (infeasible) and in e; -1. */
int bl_fail(struct bl_ctx *c, struct gp_plan_report *rep, struct gp_err *e,
	    const char *msg)
{
	char buf[sizeof e->msg];
	bool cancelled = bl_cancelled(c);
	if (cancelled)
		snprintf(buf, sizeof buf, "%s: cancelled", c->engine);
	else if (c->budget > 0)
		snprintf(buf, sizeof buf, "%s; within the budget of $%.2f/h", msg, c->budget);
	else
		snprintf(buf, sizeof buf, "%s", msg);   /* msg may be e->msg */
	rep->status = cancelled ? GP_MILP_NOSOL : GP_MILP_INFEASIBLE;
	rep->seconds = bl_now_s() - c->t0;
	rep->work_s = c->work / BL_WORK_RATE;
	snprintf(rep->note, sizeof rep->note, "%s", buf);
	return gp_errf(e, "%s", buf);
}

/* Simulates the chosen plan with the final schedule and fills the report. */
int bl_finish(struct bl_ctx *c, struct gp_plan *best, struct gp_plan *out,
	      struct gp_plan_report *rep, struct gp_err *e)
{
	best->schedule = c->sched;
	best->chunks = 1;
	double t = bl_judge(c, best, true);
	if (t == INF && bl_cancelled(c)) {
		gp_plan_free(best);
		return bl_fail(c, rep, e, "");
	}
	if (t == INF) {
		gp_plan_free(best);
		rep->status = GP_MILP_NOSOL;
		snprintf(rep->note, sizeof rep->note, "%s: the chosen plan fails under %s: %s",
			 c->engine, gp_sched_name(c->sched), c->why);
		return gp_errf(e, "%s", rep->note);
	}
	rep->estimate_s = rep->objective = t;
	rep->seconds = bl_now_s() - c->t0;
	rep->work_s = c->work / BL_WORK_RATE;
	bl_plan_move(out, best);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Judging plans                                                      */

/* Simulates p with the evaluation schedule (or the final one); its
 * iteration time, or INF when it does not fit or is not a valid plan. */
double bl_judge(struct bl_ctx *c, struct gp_plan *p, bool final)
{
	/* The request's deadline holds inside one simulation too (a plan
	 * of millions of micro-batches simulates for seconds), once a plan
	 * that fits was found: the first one and the chosen one's final
	 * simulation always finish, or an engine on a loaded machine would
	 * answer none. */
	bool cut = isfinite(c->deadline) && c->found && !final;
	struct gp_sim_opts so = { .costs = c->ct, .record = false,
				  .time_limit = c->sim_tl, .cancel = c->cancel,
				  .deadline = cut ? c->deadline : 0 };
	struct gp_result r;
	struct gp_err e = { "" };
	p->schedule = final ? c->sched : c->eval;
	/* As the plan will run: with the chunks asked for (a plan that
	 * cannot hold them is not one the request can run). */
	p->chunks = c->chunks;
	if (bl_over_budget(c, p)) {
		/* An example only from a plan the GPUs could run at all. */
		struct gp_err ev = { "" };
		if (c->miss == INF && !c->why[0] && !gp_plan_validate(c->sc, p, &ev))
			snprintf(c->why, sizeof c->why, "the plans tried cost more than the budget of $%.2f/h (one: $%.2f/h)",
				 c->budget, bl_usd_per_hour(c, p));
		return INF;
	}
	if (bl_cancelled(c))
		return INF;
	c->nsim++;
	c->work += bl_sim_work(p);
	if (gp_simulate(c->sc, p, &so, &r, &e)) {
		if (so.deadline > 0 && bl_now_s() > so.deadline)
			c->clock_stopped = true;
		if (c->miss == INF && !c->why[0])
			snprintf(c->why, sizeof c->why, "%s", e.msg);
		return INF;
	}
	double t = r.fits ? r.iteration_time : INF;
	c->found |= r.fits;
	if (!r.fits) {
		double over = 0;
		for (int i = 0; i < r.ndevs; i++)
			over = fmax(over, r.devs[i].mem_peak / r.devs[i].mem_capacity);
		if (over < c->miss) {
			c->miss = over;
			snprintf(c->why, sizeof c->why, "%s", r.fit_msg);
		}
	}
	gp_result_free(&r);
	return t;
}

double bl_usd_per_hour(const struct bl_ctx *c, const struct gp_plan *p)
{
	return gp_plan_usd_per_hour(c->sc, p);
}

bool bl_over_budget(const struct bl_ctx *c, const struct gp_plan *p)
{
	return c->budget > 0 && bl_usd_per_hour(c, p) > c->budget * (1 + 1e-9);
}

int bl_afford(const struct bl_ctx *c, double gpu_usd_per_hour, int gpus, double share)
{
	double usd = gpus * gpu_usd_per_hour;
	if (c->budget <= 0 || usd <= 0)
		return INT_MAX;
	double n = floor(c->budget * share * (1 + 1e-9) / usd);
	return n > INT_MAX ? INT_MAX : (int)n;
}

bool bl_cancelled(const struct bl_ctx *c)
{
	return c->cancel && atomic_load_explicit(c->cancel, memory_order_relaxed);
}

bool bl_out_of_time(struct bl_ctx *c)
{
	if (bl_cancelled(c) || c->work > c->work_limit)
		return true;
	if (c->deadline < INF && bl_now_s() > c->deadline)
		return c->clock_stopped = true;
	return false;
}

double bl_sim_work(const struct gp_plan *p)
{
	double w = 0;
	for (int g = 0; g < p->npipes; g++)
		w += (double)p->pipes[g].nstages * (p->pipes[g].micro_batches + 1);
	return w;
}

void bl_note_clock(const struct bl_ctx *c, struct gp_plan_report *rep)
{
	if (!c->clock_stopped || !rep)
		return;
	rep->clock_stopped = true;
	rep->status = rep->status == GP_MILP_OPTIMAL ? GP_MILP_FEASIBLE : rep->status;
	size_t l = strlen(rep->note);
	snprintf(rep->note + l, sizeof rep->note - l,
		 "%sstopped by the time limit; results may differ run to run", l ? "; " : "");
}

int bl_cmp_est(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	if (x != y)
		return x < y ? -1 : 1;
	return 0;
}

/* Simulates candidates 0..n-1 (sorted, best estimates first) as build
 * makes them: the first sims, and up to 4 sims while none has fitted,
 * until the deadline once one has. The fastest goes to best; returns its
 * index, or -1. */
int bl_pick(struct bl_ctx *c, int n, int sims, bl_build_fn *build, const void *ud,
	    struct gp_plan *best)
{
	double bt = INF;
	int bi = -1;
	for (int i = 0; i < n && (i < sims || (bi < 0 && i < 4 * sims)); i++) {
		if (bi >= 0 && bl_out_of_time(c))
			break;
		struct gp_plan pl;
		if (build(c, ud, i, &pl))
			continue;
		double t = bl_judge(c, &pl, false);
		if (t < bt) {
			bt = t;
			bi = i;
			bl_plan_move(best, &pl);
			gp_plan_progress(c->o, c->engine, "simulate", bt, -HUGE_VAL, c->t0);
		} else {
			gp_plan_free(&pl);
		}
	}
	return bi;
}

/* ------------------------------------------------------------------ */
/* Pools and stages                                                   */

const struct gp_pool *bl_pool_of(const struct gp_scenario *s, int dc, int pool)
{
	return &s->dcs[dc].pools[pool];
}

static const struct gp_gpu *gpu_of(const struct gp_scenario *s, int dc, int pool)
{
	return &s->gpus[bl_pool_of(s, dc, pool)->gpu];
}

/* TP inside one node, dividing the heads (Megatron-LM's constraint). */
bool bl_tp_ok(const struct gp_scenario *s, const struct gp_pool *p, int t)
{
	return t >= 1 && t <= p->per_node && t <= p->count &&
	       (long)s->model.heads % t == 0;
}

/* The largest power of two <= t that the pool allows (1 always does). */
int bl_tp_fit(const struct gp_scenario *s, const struct gp_pool *p, int t)
{
	int f = 1;
	while (f * 2 <= t)
		f *= 2;
	while (f > 1 && !bl_tp_ok(s, p, f))
		f /= 2;
	return f;
}

/* TP groups of t GPUs a pool holds, none straddling a node. */
int bl_pool_slots(const struct gp_pool *p, int t)
{
	if (t > p->per_node)
		return 0;
	return (p->count / p->per_node) * (p->per_node / t) + (p->count % p->per_node) / t;
}

static double layer_u(const struct gp_layer_cost *l)
{
	return l->t.f + l->t.b + l->t.w;
}

/* At the pace of the slowest of the pool's GPUs (the plan is not made). */
double bl_stage_rate(const struct bl_ctx *c, int dc, int pool, int tp)
{
	const struct gp_layer_cost *l = gp_costtab_layer(c->ct, dc, pool, tp, GP_RC_NONE);
	double pc = gp_costtab_pace(c->ct, dc, pool, 0);
	return l && layer_u(l) > 0 ? 1 / (pc * layer_u(l)) : 0;
}

double bl_dc_compute(const struct bl_ctx *c, int d)
{
	double x = 0;
	for (int q = 0; q < c->sc->dcs[d].npools; q++)
		x += c->sc->dcs[d].pools[q].count * bl_stage_rate(c, d, q, 1);
	return x;
}

/* The logits layer of a stage in units of its blocks' time. */
static double logit_layers(const struct bl_ctx *c, const struct gp_stage *st)
{
	const struct gp_layer_cost *l = gp_costtab_layer(c->ct, st->dc, st->pool, st->tp, GP_RC_NONE);
	const struct gp_layer_cost *g = gp_costtab_logits(c->ct, st->dc, st->pool, st->tp);
	return l && g && layer_u(l) > 0 ? layer_u(g) / layer_u(l) : 0;
}

struct gp_stage bl_mkstage(const struct gp_scenario *s, int dc, int pool, int tp,
			   int first, int last)
{
	return (struct gp_stage){ .dc = dc, .pool = pool, .tp = tp, .first = first,
				  .last = last, .recompute = s->job.recompute,
				  .recompute_set = false };
}

int bl_ceil_div(int a, int b)
{
	return (a + b - 1) / b;
}

/* ------------------------------------------------------------------ */
/* Building plans                                                     */

void bl_builder_init(struct bl_builder *b, enum gp_sched k)
{
	memset(b, 0, sizeof *b);
	b->p.schedule = k;
	b->p.chunks = 1;
}

/* R replicas of the S stages st, mb micro-batches each. */
void bl_builder_pipe(struct bl_builder *b, const struct gp_stage *st, int S, int R, int mb)
{
	if (b->oom || R < 1 || mb < 1)
		return;
	if (b->p.npipes == b->cap) {
		int nc = b->cap ? b->cap * 2 : 4;
		struct gp_pipeline *np = realloc(b->p.pipes, (size_t)nc * sizeof *np);
		if (!np) {
			b->oom = true;
			return;
		}
		b->p.pipes = np;
		b->cap = nc;
	}
	struct gp_stage *cp = malloc((size_t)S * sizeof *cp);
	if (!cp) {
		b->oom = true;
		return;
	}
	memcpy(cp, st, (size_t)S * sizeof *cp);
	b->p.pipes[b->p.npipes++] = (struct gp_pipeline){ mb, R, cp, S };
}

/* n micro-batches over R identical replicas: q or q + 1 each, so any
 * total is exact (two pipelines in the plan when n % R != 0). */
void bl_builder_group(struct bl_builder *b, const struct gp_stage *st, int S, int R, int n)
{
	if (n < R)
		R = n;
	if (R < 1)
		return;
	int q = n / R, r = n % R;
	if (r)
		bl_builder_pipe(b, st, S, r, q + 1);
	bl_builder_pipe(b, st, S, R - r, q);
}

/* Hands the built plan over, or frees it when building ran out of memory. */
int bl_builder_take(struct bl_builder *b, struct gp_plan *out)
{
	if (b->oom) {
		gp_plan_free(&b->p);
		return -1;
	}
	*out = b->p;
	return 0;
}

void bl_plan_move(struct gp_plan *dst, struct gp_plan *src)
{
	gp_plan_free(dst);
	*dst = *src;
	memset(src, 0, sizeof *src);
}

/* ------------------------------------------------------------------ */
/* Layers by compute within memory                                    */

/* Largest-remainder apportionment of n over k weights; every share is
 * at least 1 when n >= k. */
void bl_apportion(int n, int k, const double *w, int *out)
{
	double W = 0;
	for (int i = 0; i < k; i++)
		W += w[i] > 0 ? w[i] : 0;
	int given = 0;
	for (int i = 0; i < k; i++) {
		double x = W > 0 ? n * fmax(w[i], 0) / W : (double)n / k;
		out[i] = (int)floor(x);
		given += out[i];
	}
	while (given < n) {
		int best = 0;
		double br = -1;
		for (int i = 0; i < k; i++) {
			double x = W > 0 ? n * fmax(w[i], 0) / W : (double)n / k;
			double r = x - out[i];
			if (r > br + 1e-12) {
				br = r;
				best = i;
			}
		}
		out[best]++;
		given++;
	}
	for (int i = 0; i < k && n >= k; i++)
		while (out[i] < 1) {
			int big = 0;
			for (int j = 1; j < k; j++)
				if (out[j] > out[big])
					big = j;
			out[big]--;
			out[i]++;
		}
}

/* Stage i's time with one layer more, (n + 1 + x) / rate (x: the
 * logits, in layers, on the last stage). */
static double fill_key(const int *n, const double *rate, double xlast, int S, int i)
{
	return (n[i] + 1 + (i == S - 1 ? xlast : 0)) / rate[i];
}

/* A binary heap of stages h[0..nh) by (key, index), least first. */
static bool fill_less(const double *key, int a, int b)
{
	return key[a] < key[b] || (key[a] == key[b] && a < b);
}

static void fill_down(int *h, int nh, const double *key, int k)
{
	for (;;) {
		int l = 2 * k + 1, m = k;
		if (l < nh && fill_less(key, h[l], h[m]))
			m = l;
		if (l + 1 < nh && fill_less(key, h[l + 1], h[m]))
			m = l + 1;
		if (m == k)
			return;
		int t = h[k];
		h[k] = h[m];
		h[m] = t;
		k = m;
	}
}

static void fill_heapify(int *h, int nh, const double *key)
{
	for (int k = nh / 2 - 1; k >= 0; k--)
		fill_down(h, nh, key, k);
}

/* Water-filling: every stage gets a layer, then each further layer goes
 * to the stage that would be least loaded with it (fill_key; the lowest
 * index on ties), among stages under their memory cap while there are
 * any. A heap per phase, so O(L log S) (the scan it replaces was
 * O(L S), minutes at 1000 layers). -1 when S > L; h, key: S each. */
static int split_layers(int L, int S, const double *rate, double xlast,
			const int *cap, int *n, int *h, double *key)
{
	if (S > L || S < 1)
		return -1;
	int nh = 0;
	for (int i = 0; i < S; i++) {
		n[i] = 1;
		key[i] = fill_key(n, rate, xlast, S, i);
		if (!cap || n[i] < cap[i])
			h[nh++] = i;
	}
	fill_heapify(h, nh, key);
	bool capped = false;   /* every stage at its cap: all of them compete */
	for (int left = L - S; left > 0; left--) {
		if (!nh && !capped) {
			capped = true;
			for (int i = 0; i < S; i++)
				h[nh++] = i;
			fill_heapify(h, nh, key);
		}
		int i = h[0];
		n[i]++;
		key[i] = fill_key(n, rate, xlast, S, i);
		if (!capped && cap && n[i] >= cap[i])
			h[0] = h[--nh];
		fill_down(h, nh, key, 0);
	}
	return 0;
}

/* Most layers a stage can hold within its GPU memory, with the lightest
 * recomputation the job allows, inflight micro-batches and ZeRO over D. */
static int layer_cap(const struct bl_ctx *c, const struct gp_stage *st, bool first,
		     bool last, int inflight, int D)
{
	const struct gp_scenario *s = c->sc;
	const struct gp_model *m = &s->model;
	enum gp_recompute rc = s->job.recompute == GP_RC_AUTO ? GP_RC_FULL : s->job.recompute;
	const struct gp_layer_cost *l = gp_costtab_layer(c->ct, st->dc, st->pool, st->tp, rc);
	const struct gp_layer_cost *g = gp_costtab_logits(c->ct, st->dc, st->pool, st->tp);
	if (!l || !g)
		return 0;
	int tp = st->tp;
	double sb = gp_costtab_state_bytes(c->ct, D);
	double fixed = ((first ? gp_embedding_params(m) : 0) +
			(last ? gp_embedding_params(m) : 0)) / tp * sb +
		       (last ? inflight * g->m.act : 0) + gp_costtab_reserve(c->ct, st->dc, st->pool);
	double per = gp_layer_params(m) / tp * sb + inflight * l->m.act;
	double n = (gpu_of(s, st->dc, st->pool)->memory - fixed) / per;
	return n < 0 ? 0 : n > 1e6 ? 1000000 : (int)n;
}

/* Micro-batches stage i of S holds at once under schedule k, m in all. */
int bl_inflight(enum gp_sched k, int m, int S, int i)
{
	if (k == GP_SCHED_GPIPE)
		return m;
	return m < S - i ? m : S - i;
}

/* Fills layers of st[0..S) (pools and TP set) in proportion to compute,
 * within memory. */
int bl_fill_layers(const struct bl_ctx *c, struct gp_stage *st, int S, int m, int D)
{
	const struct gp_scenario *s = c->sc;
	int L = s->model.layers;
	if (S > L)
		return -1;
	double *rate = malloc(2 * (size_t)S * sizeof *rate);
	int *cap = malloc(3 * (size_t)S * sizeof *cap), *n = cap + S;
	int rc = -1;
	if (rate && cap) {
		for (int i = 0; i < S; i++) {
			rate[i] = bl_stage_rate(c, st[i].dc, st[i].pool, st[i].tp);
			cap[i] = layer_cap(c, &st[i], i == 0, i == S - 1,
					   bl_inflight(c->eval, m, S, i), D);
		}
		rc = split_layers(L, S, rate, logit_layers(c, &st[S - 1]), cap, n, n + S,
				  rate + S);
		for (int i = 0, next = 1; rc == 0 && i < S; i++) {
			st[i].first = next;
			st[i].last = next + n[i] - 1;
			next += n[i];
		}
	}
	free(rate);
	free(cap);
	return rc;
}
