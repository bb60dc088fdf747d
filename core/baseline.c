/*
 * baseline.c: what the planners built on the simulator share (baseline.h;
 * the reference engines plan_megatron.c, plan_dp_across.c, plan_atlas.c
 * and the search, search.c).
 *
 * Every candidate is judged by gp_simulate (sim.h), like every other plan:
 * bl_judge runs it with the evaluation schedule and remembers the closest
 * miss, so an engine that finds nothing can say what came nearest. A
 * closed-form estimate (DOMAIN.md, "unequal stages": (m - 1) max_s(t_s +
 * c_s) + sum_s(t_s + c_s), plus exposed sync and the optimizer) only
 * orders candidates, so the simulator sees the promising ones first.
 * Layers go to stages in proportion to compute within each stage's memory;
 * the plan builder turns stage lists into a gp_plan.
 */
#include "baseline.h"

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
	c->cm = &gp_default_cost;
	c->engine = engine;
	c->t0 = bl_now_s();
	c->sched = o ? o->schedule : GP_SCHED_1F1B;
	if ((int)c->sched < 0 || c->sched >= GP_SCHED__N)
		c->sched = GP_SCHED_1F1B;
	/* The schedule MILP per candidate would take minutes: candidates are
	 * ranked with its warm start, the greedy latency-aware schedule. */
	c->eval = c->sched == GP_SCHED_XDC_MILP ? GP_SCHED_XDC_GREEDY : c->sched;
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
	if (ctx_init(c, s, o, engine, e)) {
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
	snprintf(buf, sizeof buf, "%s", msg);   /* msg may be e->msg */
	rep->status = GP_MILP_INFEASIBLE;
	rep->seconds = bl_now_s() - c->t0;
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
	if (t == INF) {
		gp_plan_free(best);
		rep->status = GP_MILP_NOSOL;
		snprintf(rep->note, sizeof rep->note, "%s: the chosen plan fails under %s: %s",
			 c->engine, gp_sched_name(c->sched), c->why);
		return gp_errf(e, "%s", rep->note);
	}
	rep->estimate_s = rep->objective = t;
	rep->seconds = bl_now_s() - c->t0;
	bl_plan_move(out, best);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Judging plans                                                      */

/* Simulates p with the evaluation schedule (or the final one); its
 * iteration time, or INF when it does not fit or is not a valid plan. */
double bl_judge(struct bl_ctx *c, struct gp_plan *p, bool final)
{
	struct gp_sim_opts so = { .cost = c->cm, .record = false,
				  .time_limit = c->sim_tl };
	struct gp_result r;
	struct gp_err e = { "" };
	p->schedule = final ? c->sched : c->eval;
	p->chunks = 1;
	c->nsim++;
	if (gp_simulate(c->sc, p, &so, &r, &e)) {
		if (c->miss == INF && !c->why[0])
			snprintf(c->why, sizeof c->why, "%s", e.msg);
		return INF;
	}
	double t = r.fits ? r.iteration_time : INF;
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

int bl_cmp_est(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	if (x != y)
		return x < y ? -1 : 1;
	return 0;
}

/* Simulates candidates 0..n-1 (sorted, best estimates first) as build
 * makes them: the first sims, and up to 4 sims while none has fitted.
 * The fastest goes to best; returns its index, or -1. */
int bl_pick(struct bl_ctx *c, int n, int sims, bl_build_fn *build, const void *ud,
	    struct gp_plan *best)
{
	double bt = INF;
	int bi = -1;
	for (int i = 0; i < n && (i < sims || (bi < 0 && i < 4 * sims)); i++) {
		struct gp_plan pl;
		if (build(c, ud, i, &pl))
			continue;
		double t = bl_judge(c, &pl, false);
		if (t < bt) {
			bt = t;
			bi = i;
			bl_plan_move(best, &pl);
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

double bl_stage_rate(const struct gp_scenario *s, int dc, int pool, int tp)
{
	const struct gp_gpu *g = gpu_of(s, dc, pool);
	return g->flops * g->efficiency * tp;
}

/* A DC's compute: every GPU of every pool, TP 1. */
double bl_dc_compute(const struct gp_scenario *s, int d)
{
	double x = 0;
	for (int q = 0; q < s->dcs[d].npools; q++)
		x += s->dcs[d].pools[q].count * bl_stage_rate(s, d, q, 1);
	return x;
}

/* The logits layer in units of one block's FLOPs (both cost 3 x forward). */
static double logit_layers(const struct gp_scenario *s)
{
	double b = s->job.micro_batch, q = s->job.seq;
	return gp_logits_flops_fwd(&s->model, b, q) / gp_layer_flops_fwd(&s->model, b, q);
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

/* Water-filling: every stage gets a layer, then each further layer goes
 * to the stage that would be least loaded with it, (n + 1 + x) / rate (x:
 * the logits, in layers, on the last stage), among stages under their
 * memory cap while there are any. -1 when S > L. */
static int split_layers(int L, int S, const double *rate, double xlast,
			const int *cap, int *n)
{
	if (S > L || S < 1)
		return -1;
	for (int i = 0; i < S; i++)
		n[i] = 1;
	for (int left = L - S; left > 0; left--) {
		int best = -1, bestc = -1;
		double bt = INF, btc = INF;
		for (int i = 0; i < S; i++) {
			double t = (n[i] + 1 + (i == S - 1 ? xlast : 0)) / rate[i];
			if (t < bt) {
				bt = t;
				best = i;
			}
			if ((!cap || n[i] < cap[i]) && t < btc) {
				btc = t;
				bestc = i;
			}
		}
		n[bestc >= 0 ? bestc : best]++;
	}
	return 0;
}

/* Most layers a stage can hold within its GPU memory, with the lightest
 * recomputation the job allows, inflight micro-batches and ZeRO over D. */
static int layer_cap(const struct gp_scenario *s, int dc, int pool, int tp,
		     bool first, bool last, int inflight, int D)
{
	const struct gp_model *m = &s->model;
	double b = s->job.micro_batch, q = s->job.seq;
	enum gp_recompute rc = s->job.recompute == GP_RC_AUTO ? GP_RC_FULL : s->job.recompute;
	double sb = gp_state_bytes_per_param(s->job.zero, D);
	double fixed = ((first ? gp_embedding_params(m) : 0) +
			(last ? gp_embedding_params(m) : 0)) / tp * sb +
		       (last ? inflight * 4 * b * q * m->vocab / tp : 0);
	double per = gp_layer_params(m) / tp * sb +
		     inflight * gp_layer_act_bytes(m, b, q, tp, rc);
	double n = (gpu_of(s, dc, pool)->memory - fixed) / per;
	return n < 0 ? 0 : n > 1e6 ? 1000000 : (int)n;
}

static int inflight_of(enum gp_sched k, int m, int S, int i)
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
	double *rate = malloc((size_t)S * sizeof *rate);
	int *cap = malloc((size_t)S * sizeof *cap), *n = malloc((size_t)S * sizeof *n);
	int rc = -1;
	if (rate && cap && n) {
		for (int i = 0; i < S; i++) {
			rate[i] = bl_stage_rate(s, st[i].dc, st[i].pool, st[i].tp);
			cap[i] = layer_cap(s, st[i].dc, st[i].pool, st[i].tp, i == 0,
					   i == S - 1, inflight_of(c->eval, m, S, i), D);
		}
		rc = split_layers(L, S, rate, logit_layers(s), cap, n);
		for (int i = 0, next = 1; rc == 0 && i < S; i++) {
			st[i].first = next;
			st[i].last = next + n[i] - 1;
			next += n[i];
		}
	}
	free(rate);
	free(cap);
	free(n);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The estimate                                                       */

/* One stage per micro-batch: compute (F + B + W) and memory, with the
 * cheapest recomputation that fits when the job says auto (as sim.c). */
void bl_est_stage(const struct bl_ctx *c, const struct gp_stage *st, bool first,
		  bool last, int inflight, int D, struct bl_stage_est *o)
{
	const struct gp_scenario *s = c->sc;
	const struct gp_pool *pool = bl_pool_of(s, st->dc, st->pool);
	const struct gp_gpu *gpu = &s->gpus[pool->gpu];
	const struct gp_model *m = &s->model;
	double b = s->job.micro_batch, q = s->job.seq;
	int nl = st->last - st->first + 1;
	o->params = nl * gp_layer_params(m) + (first ? gp_embedding_params(m) : 0) +
		    (last ? gp_embedding_params(m) : 0);
	double stat = o->params / st->tp * gp_state_bytes_per_param(s->job.zero, D);
	double lact = last ? 4 * b * q * m->vocab / st->tp : 0;
	enum gp_recompute cand[3] = { GP_RC_NONE, GP_RC_SELECTIVE, GP_RC_FULL };
	int nc = 3;
	if (st->recompute != GP_RC_AUTO) {
		cand[0] = st->recompute;
		nc = 1;
	}
	for (int i = 0; i < nc; i++) {
		o->rc = cand[i];
		o->mem = stat + inflight * (nl * gp_layer_act_bytes(m, b, q, st->tp, cand[i]) + lact);
		if (o->mem <= gpu->memory)
			break;
	}
	struct gp_layer_q lq = { s, gpu, pool, st->tp, o->rc, 0 };
	struct gp_layer_time lt, lg = { 0, 0, 0 };
	c->cm->ops->layer_time(c->cm->ud, &lq, &lt);
	if (last) {
		lq.logits = 1;
		c->cm->ops->layer_time(c->cm->ud, &lq, &lg);
	}
	o->u = nl * (lt.f + lt.b + lt.w) + lg.f + lg.b + lg.w;
	o->b = nl * (lt.b + lt.w) + lg.b + lg.w;
}

static int link_idx(const struct gp_scenario *s, int a, int b)
{
	const struct gp_link *l = gp_find_link(s, a, b);
	return l ? (int)(l - s->links) : -1;
}

/* The estimate's scratch: per link and per device (a stage of a
 * pipeline, its replicas counted once). */
struct est_ws {
	double *act, *syn;   /* per link: activation bytes, amortised sync bytes */
	double *tdev;        /* per device: its pipeline's time */
	double *tloc, *bwin; /* its local gradient sync, the backward that hides it */
	double *topt;        /* its optimizer step */
	int *kk, *steps;     /* its DP group's DCs and ring steps, */
	int *rings;          /* those DCs in index order (ndcs per device), */
	int *cnt;            /* replicas per DC of the group at hand */
	double bytes, every; /* one activation; steps per WAN sync */
	bool hier;
	int D, nd;           /* replicas, devices */
};

static int est_ws_init(const struct bl_ctx *c, const struct gp_plan *p, struct est_ws *w)
{
	const struct gp_scenario *s = c->sc;
	int D = 0, nd = 0, nl = s->nlinks, ndc = s->ndcs;
	for (int g = 0; g < p->npipes; g++) {
		D += p->pipes[g].replicas;
		nd += p->pipes[g].nstages;
	}
	double *a = calloc((size_t)(2 * nl + 4 * nd + 1), sizeof *a);
	int *ia = calloc((size_t)(nd * (ndc + 3) + ndc + 1), sizeof *ia);
	if (!a || !ia) {
		free(a);
		free(ia);
		return -1;
	}
	w->act = a;
	w->syn = w->act + nl;
	w->tdev = w->syn + nl;
	w->tloc = w->tdev + nd;
	w->bwin = w->tloc + nd;
	w->topt = w->bwin + nd;
	w->kk = ia;
	w->steps = w->kk + nd;
	w->rings = w->steps + nd;
	w->cnt = w->rings + nd * ndc;
	w->bytes = gp_boundary_bytes(s);
	w->every = s->job.sync_every;
	w->hier = gp_plan_sync(s, p) == GP_SYNC_HIER;
	w->D = D;
	w->nd = nd;
	return 0;
}

/* The activation's transfer from stage i of pp to the next, in *cm;
 * across DCs it loads both directions of the link. -1: no link. */
static int est_hop(const struct bl_ctx *c, struct est_ws *w, const struct gp_pipeline *pp,
		   int i, double *cm)
{
	const struct gp_scenario *s = c->sc;
	int m = pp->micro_batches, R = pp->replicas;
	*cm = 0;
	if (i + 1 >= pp->nstages)
		return 0;
	const struct gp_stage *st = &pp->stages[i], *nx = &pp->stages[i + 1];
	const struct gp_pool *pool = bl_pool_of(s, st->dc, st->pool);
	if (nx->dc == st->dc) {
		const struct gp_pool *q = bl_pool_of(s, nx->dc, nx->pool);
		*cm = fmax(pool->latency, q->latency) + w->bytes / fmin(pool->network, q->network);
		return 0;
	}
	int l1 = link_idx(s, st->dc, nx->dc), l2 = link_idx(s, nx->dc, st->dc);
	if (l1 < 0 || l2 < 0)
		return -1;
	*cm = s->links[l1].latency + w->bytes * R / s->links[l1].bandwidth;
	w->act[l1] += w->bytes * m * R;
	w->act[l2] += w->bytes * m * R;
	return 0;
}

/* The DP group of stage st (device di), as sim.c forms it: every stage
 * holding st's middle layer. Its DCs, in index order, become di's ring;
 * returns the group's replicas (w->cnt: per DC). */
static int est_dp_group(const struct bl_ctx *c, struct est_ws *w, const struct gp_plan *p,
			const struct gp_stage *st, int di)
{
	int ndc = c->sc->ndcs, mid = (st->first + st->last) / 2, Dg = 0;
	memset(w->cnt, 0, (size_t)ndc * sizeof *w->cnt);
	for (int h = 0; h < p->npipes; h++)
		for (int j = 0; j < p->pipes[h].nstages; j++) {
			const struct gp_stage *x = &p->pipes[h].stages[j];
			if (x->first <= mid && mid <= x->last) {
				w->cnt[x->dc] += p->pipes[h].replicas;
				Dg += p->pipes[h].replicas;
			}
		}
	int k = 0, *ring = w->rings + di * ndc;
	for (int d = 0; d < ndc; d++)
		if (w->cnt[d])
			ring[k++] = d;
	w->kk[di] = k;
	w->steps[di] = w->hier ? k : Dg;
	return Dg;
}

/* Stage st's gradient sync (device di, DP group of Dg replicas, R of
 * them in its pipeline): the all-reduce inside the DC, and when the group
 * spans DCs, the amortised bytes on each edge of its ring (hierarchical:
 * the k-way exchange of shards; flat: the ring over all replicas, then
 * nothing local). -1 when an edge has no link. */
static int est_sync(const struct bl_ctx *c, struct est_ws *w, const struct gp_stage *st,
		    const struct bl_stage_est *se, int di, int Dg, int R)
{
	const struct gp_scenario *s = c->sc;
	const struct gp_pool *pool = bl_pool_of(s, st->dc, st->pool);
	int k = w->kk[di], *ring = w->rings + di * s->ndcs;
	bool hier = w->hier;
	int ranks = k > 1 && hier ? w->cnt[st->dc] : Dg;
	double lbw, llat;
	if ((long)ranks * st->tp <= pool->per_node) {
		lbw = pool->nvlink;
		llat = 5e-6;
	} else {
		int r = pool->per_node / st->tp;
		r = r < 1 ? 1 : r > ranks ? ranks : r;
		lbw = pool->network * r;
		llat = pool->latency;
	}
	double grad = se->params * s->job.precision_bytes;
	w->tloc[di] = Dg <= 1 || (k > 1 && !hier) ? 0
		      : c->cm->ops->allreduce_time(c->cm->ud, grad / st->tp, ranks, lbw, llat);
	if (k < 2)
		return 0;
	double wan = (hier ? 2.0 * (k - 1) / k : 2.0 * (Dg - 1) / Dg) *
		     grad * R / Dg / w->every;
	for (int r = 0; r < k; r++) {
		int l1 = link_idx(s, ring[r], ring[(r + 1) % k]);
		int l2 = link_idx(s, ring[(r + 1) % k], ring[r]);
		if (l1 < 0 || l2 < 0)
			return -1;
		w->syn[l1] += wan;
		if (k == 2) {
			w->syn[l2] += wan;
			break;
		}
	}
	return 0;
}

/* Stage i of pp (device di): in *x its time per micro-batch with the
 * transfer to the next stage; in w its backward window, optimizer step
 * and gradient sync. -1 when it looks too big for its GPU or a link is
 * missing. */
static int est_stage(const struct bl_ctx *c, struct est_ws *w, const struct gp_plan *p,
		     const struct gp_pipeline *pp, int i, int di, double *x)
{
	const struct gp_scenario *s = c->sc;
	const struct gp_stage *st = &pp->stages[i];
	const struct gp_pool *pool = bl_pool_of(s, st->dc, st->pool);
	const struct gp_gpu *gpu = &s->gpus[pool->gpu];
	int S = pp->nstages, m = pp->micro_batches, D = w->D;
	struct bl_stage_est se;
	double cm;
	bl_est_stage(c, st, i == 0, i == S - 1, inflight_of(p->schedule, m, S, i), D, &se);
	if (se.mem > gpu->memory || est_hop(c, w, pp, i, &cm))
		return -1;
	*x = se.u + cm;
	w->bwin[di] = se.b;
	w->topt[di] = c->cm->ops->optimizer_time(c->cm->ud, gpu,
		se.params / st->tp / (s->job.zero && D > 1 ? D : 1));
	int Dg = est_dp_group(c, w, p, st, di);
	return est_sync(c, w, st, &se, di, Dg, pp->replicas);
}

/* Pipeline g, its first device di: every device's time is the pipeline's,
 * (m - 1) max_s + sum_s of its stages. -1: INF. */
static int est_pipeline(const struct bl_ctx *c, struct est_ws *w, const struct gp_plan *p,
			int g, int di)
{
	const struct gp_pipeline *pp = &p->pipes[g];
	int S = pp->nstages, m = pp->micro_batches;
	double sum = 0, mx = 0;
	for (int i = 0; i < S; i++) {
		double x;
		if (est_stage(c, w, p, pp, i, di + i, &x))
			return -1;
		sum += x;
		mx = fmax(mx, x);
	}
	for (int i = 0; i < S; i++)
		w->tdev[di + i] = (m - 1) * mx + sum;
	return 0;
}

/* The slowest device (its pipeline, then the sync its backward does not
 * hide, then the optimizer) and the busiest link. */
static double est_slowest(const struct bl_ctx *c, const struct est_ws *w)
{
	const struct gp_scenario *s = c->sc;
	double T = 0;
	for (int i = 0; i < w->nd && T < INF; i++) {
		double twan = 0;
		int k = w->kk[i], *ring = w->rings + i * s->ndcs;
		for (int r = 0; k > 1 && r < k; r++) {
			int li = link_idx(s, ring[r], ring[(r + 1) % k]);
			twan = fmax(twan, w->syn[li] / s->links[li].bandwidth +
				    2.0 * (w->steps[i] - 1) * s->links[li].latency / w->every);
		}
		T = fmax(T, w->tdev[i] + fmax(0, w->tloc[i] + twan - w->bwin[i]) + w->topt[i]);
	}
	for (int l = 0; l < s->nlinks && T < INF; l++)
		T = fmax(T, (w->act[l] + w->syn[l]) / s->links[l].bandwidth);
	return T;
}

/* The quick estimate of a plan's iteration time; INF when a stage looks
 * too big for its GPU or a transfer has no link. Mirrors sim.c's rules
 * (DP groups by a stage's middle layer, hierarchical rings, link
 * sharing) in closed form. */
double bl_est_plan(struct bl_ctx *c, const struct gp_plan *p)
{
	struct est_ws w;
	c->nest++;
	if (est_ws_init(c, p, &w))
		return INF;
	double T = 0;
	for (int g = 0, di = 0; g < p->npipes && T < INF; g++) {
		if (est_pipeline(c, &w, p, g, di))
			T = INF;
		di += p->pipes[g].nstages;
	}
	if (T < INF)
		T = est_slowest(c, &w);
	free(w.act);
	free(w.kk);
	return T;
}
