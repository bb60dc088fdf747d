/*
 * baseline.c: the reference placement engines of planner.h, the yardsticks
 * the placement MILP is measured against.
 *
 *  megatron       uniform TP x PP x DP on one GPU type, blind to the WAN:
 *                 GPUs taken in DC order, ranks in Megatron-LM's order (TP
 *                 innermost, then DP, then PP; Narayanan et al., SC '21).
 *  dp-across-dcs  a pipeline group per pool inside each DC, replicas inside
 *                 the DC, data parallelism across DCs with the job's
 *                 (hierarchical) gradient sync; batch split by compute.
 *  atlas          every pipeline spans a chain of linked DCs, DP inside
 *                 each DC (Atlas, Palak et al. 2024); layers in proportion
 *                 to stage compute.
 *  (search, the genetic search seeded with these three, is in search.c.)
 *
 * Every candidate is judged by gp_simulate (sim.h), like every other plan.
 * A closed-form estimate (DOMAIN.md, "unequal stages": (m - 1) max_s(t_s +
 * c_s) + sum_s(t_s + c_s), plus exposed sync and the optimizer) only orders
 * candidates, so the simulator sees the promising ones first.
 */
#include "baseline.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cost.h"
#include "sim.h"

#define MEGATRON_SIMS 50     /* simulated layouts, best estimates first */
#define ATLAS_SIMS 40
#define DP_ALTS 3            /* layouts per group tried after the first */

double bl_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------ */
/* What every engine shares                                            */


int bl_ctx_init(struct bl_ctx *c, const struct gp_scenario *s,
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
static int pool_slots(const struct gp_pool *p, int t)
{
	if (t > p->per_node)
		return 0;
	return (p->count / p->per_node) * (p->per_node / t) + (p->count % p->per_node) / t;
}

static double stage_rate(const struct gp_scenario *s, int dc, int pool, int tp)
{
	const struct gp_gpu *g = gpu_of(s, dc, pool);
	return g->flops * g->efficiency * tp;
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
/* Building plans                                                      */


static void bl_builder_pipe(struct bl_builder *b, const struct gp_stage *st, int S, int R,
			    int mb)
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

void bl_builder_init(struct bl_builder *b, enum gp_sched k)
{
	memset(b, 0, sizeof *b);
	b->p.schedule = k;
	b->p.chunks = 1;
}

void bl_plan_move(struct gp_plan *dst, struct gp_plan *src)
{
	gp_plan_free(dst);
	*dst = *src;
	memset(src, 0, sizeof *src);
}

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
			rate[i] = stage_rate(s, st[i].dc, st[i].pool, st[i].tp);
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
/* Judging plans                                                       */

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

/* The quick estimate of a plan's iteration time; INF when a stage looks
 * too big for its GPU or a transfer has no link. Mirrors sim.c's rules
 * (DP groups by a stage's middle layer, hierarchical rings, link
 * sharing) in closed form. */
static double est_plan(struct bl_ctx *c, const struct gp_plan *p)
{
	const struct gp_scenario *s = c->sc;
	int D = 0, nd = 0, nl = s->nlinks, ndc = s->ndcs;
	c->nest++;
	for (int g = 0; g < p->npipes; g++) {
		D += p->pipes[g].replicas;
		nd += p->pipes[g].nstages;
	}
	double *a = calloc((size_t)(2 * nl + 4 * nd + 1), sizeof *a);
	int *ia = calloc((size_t)(nd * (ndc + 3) + ndc + 1), sizeof *ia);
	if (!a || !ia) {
		free(a);
		free(ia);
		return INF;
	}
	double *act = a, *syn = act + nl, *tdev = syn + nl, *tloc = tdev + nd,
	       *bwin = tloc + nd, *topt = bwin + nd;
	int *kk = ia, *steps = kk + nd, *rings = steps + nd, *cnt = rings + nd * ndc;
	double T = 0, bytes = gp_boundary_bytes(s), every = s->job.sync_every;
	bool hier = gp_plan_sync(s, p) == GP_SYNC_HIER;
	int di = 0;
	for (int g = 0; g < p->npipes && T < INF; g++) {
		const struct gp_pipeline *pp = &p->pipes[g];
		int S = pp->nstages, m = pp->micro_batches, R = pp->replicas;
		double sum = 0, mx = 0;
		for (int i = 0; i < S; i++, di++) {
			const struct gp_stage *st = &pp->stages[i];
			const struct gp_pool *pool = bl_pool_of(s, st->dc, st->pool);
			const struct gp_gpu *gpu = &s->gpus[pool->gpu];
			struct bl_stage_est se;
			bl_est_stage(c, st, i == 0, i == S - 1, inflight_of(p->schedule, m, S, i), D, &se);
			if (se.mem > gpu->memory) {
				T = INF;
				break;
			}
			double cm = 0;
			if (i + 1 < S) {
				const struct gp_stage *nx = &pp->stages[i + 1];
				if (nx->dc == st->dc) {
					const struct gp_pool *q = bl_pool_of(s, nx->dc, nx->pool);
					cm = fmax(pool->latency, q->latency) +
					     bytes / fmin(pool->network, q->network);
				} else {
					int l1 = link_idx(s, st->dc, nx->dc), l2 = link_idx(s, nx->dc, st->dc);
					if (l1 < 0 || l2 < 0) {
						T = INF;
						break;
					}
					cm = s->links[l1].latency + bytes * R / s->links[l1].bandwidth;
					act[l1] += bytes * m * R;
					act[l2] += bytes * m * R;
				}
			}
			sum += se.u + cm;
			mx = fmax(mx, se.u + cm);
			bwin[di] = se.b;
			topt[di] = c->cm->ops->optimizer_time(c->cm->ud, gpu,
				se.params / st->tp / (s->job.zero && D > 1 ? D : 1));
			/* The DP group: every stage holding this one's middle layer. */
			int mid = (st->first + st->last) / 2, Dg = 0;
			memset(cnt, 0, (size_t)ndc * sizeof *cnt);
			for (int h = 0; h < p->npipes; h++)
				for (int j = 0; j < p->pipes[h].nstages; j++) {
					const struct gp_stage *x = &p->pipes[h].stages[j];
					if (x->first <= mid && mid <= x->last) {
						cnt[x->dc] += p->pipes[h].replicas;
						Dg += p->pipes[h].replicas;
					}
				}
			int k = 0, *ring = rings + di * ndc;
			for (int d = 0; d < ndc; d++)
				if (cnt[d])
					ring[k++] = d;
			kk[di] = k;
			steps[di] = hier ? k : Dg;
			int ranks = k > 1 && hier ? cnt[st->dc] : Dg;
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
			double grad = se.params * s->job.precision_bytes;
			tloc[di] = Dg <= 1 || (k > 1 && !hier) ? 0
				   : c->cm->ops->allreduce_time(c->cm->ud, grad / st->tp, ranks, lbw, llat);
			if (k > 1) {
				double wan = (hier ? 2.0 * (k - 1) / k : 2.0 * (Dg - 1) / Dg) *
					     grad * R / Dg / every;
				for (int r = 0; r < k; r++) {
					int l1 = link_idx(s, ring[r], ring[(r + 1) % k]);
					int l2 = link_idx(s, ring[(r + 1) % k], ring[r]);
					if (l1 < 0 || l2 < 0) {
						T = INF;
						break;
					}
					syn[l1] += wan;
					if (k == 2) {
						syn[l2] += wan;
						break;
					}
				}
			}
		}
		for (int i = 0; T < INF && i < S; i++)
			tdev[di - S + i] = (m - 1) * mx + sum;
	}
	for (int i = 0; i < nd && T < INF; i++) {
		double twan = 0;
		int *ring = rings + i * ndc;
		for (int r = 0; kk[i] > 1 && r < kk[i]; r++) {
			int li = link_idx(s, ring[r], ring[(r + 1) % kk[i]]);
			twan = fmax(twan, syn[li] / s->links[li].bandwidth +
				    2.0 * (steps[i] - 1) * s->links[li].latency / every);
		}
		T = fmax(T, tdev[i] + fmax(0, tloc[i] + twan - bwin[i]) + topt[i]);
	}
	for (int l = 0; l < nl && T < INF; l++)
		T = fmax(T, (act[l] + syn[l]) / s->links[l].bandwidth);
	free(a);
	free(ia);
	return T;
}

void bl_rep_start(struct gp_plan_report *rep, const char *engine)
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
	bl_rep_start(*rep, engine);
	memset(out, 0, sizeof *out);
	if (bl_ctx_init(c, s, o, engine, e)) {
		bl_fail(c, *rep, e, e->msg);
		return -1;
	}
	return 0;
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

/* Simulates the chosen plan with the final schedule and fills the report. */
static int finish(struct bl_ctx *c, struct gp_plan *best, struct gp_plan *out,
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

/* ------------------------------------------------------------------ */
/* megatron                                                            */

struct mcand {
	int gi, t, p, d;
	double est;
};

static int cmp_est(const void *a, const void *b)
{
	const struct mcand *x = a, *y = b;
	if (x->est != y->est)
		return x->est < y->est ? -1 : 1;
	return 0;
}

/* TP groups of GPU type gi at degree t over all its pools, in DC order;
 * fills sdc/spool when given. */
static int type_slots(const struct gp_scenario *s, int gi, int t, int *sdc, int *spool)
{
	int n = 0;
	for (int d = 0; d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++) {
			const struct gp_pool *p = &s->dcs[d].pools[q];
			if (p->gpu != gi || !bl_tp_ok(s, p, t))
				continue;
			int k = pool_slots(p, t);
			for (int i = 0; sdc && i < k; i++) {
				sdc[n + i] = d;
				spool[n + i] = q;
			}
			n += k;
		}
	return n;
}

/* The layout: stage j of replica i on slot j d + i (Megatron-LM's rank
 * order: TP innermost, then DP, then PP); replicas whose stages sit in
 * the same pools are one pipeline of the plan. */
static int megatron_build(const struct bl_ctx *c, const struct mcand *k, struct gp_plan *out)
{
	const struct gp_scenario *s = c->sc;
	int N = type_slots(s, k->gi, k->t, NULL, NULL), L = s->model.layers;
	int *sdc = malloc((size_t)N * sizeof *sdc), *spool = malloc((size_t)N * sizeof *spool);
	struct gp_stage *st = malloc((size_t)k->p * sizeof *st);
	struct bl_builder b;
	bl_builder_init(&b, c->eval);
	if (!sdc || !spool || !st) {
		b.oom = true;
	} else {
		type_slots(s, k->gi, k->t, sdc, spool);
		int m = c->M / k->d;
		for (int i = 0; i < k->d;) {
			int i2 = i + 1;
			while (i2 < k->d) {
				bool same = true;
				for (int j = 0; j < k->p && same; j++)
					same = sdc[j * k->d + i] == sdc[j * k->d + i2] &&
					       spool[j * k->d + i] == spool[j * k->d + i2];
				if (!same)
					break;
				i2++;
			}
			/* Equal split; the first L % p stages take one more. */
			for (int j = 0, next = 1; j < k->p; j++) {
				int n = L / k->p + (j < L % k->p);
				st[j] = bl_mkstage(s, sdc[j * k->d + i], spool[j * k->d + i], k->t,
						next, next + n - 1);
				next += n;
			}
			bl_builder_pipe(&b, st, k->p, i2 - i, m);
			i = i2;
		}
	}
	free(sdc);
	free(spool);
	free(st);
	return bl_builder_take(&b, out);
}

int gp_plan_megatron(const struct gp_scenario *s, const struct gp_plan_opts *o,
		     struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e)
{
	struct gp_plan_report rloc;
	struct bl_ctx c;
	if (bl_begin(&c, s, o, "megatron", out, &rep, &rloc, e))
		return -1;
	int L = s->model.layers, n = 0, cap = 64;
	struct mcand *cand = malloc((size_t)cap * sizeof *cand);
	if (!cand)
		return bl_fail(&c, rep, e, "megatron: out of memory");
	for (int gi = 0; gi < s->ngpus; gi++)
		for (int t = 1; t <= 1024; t *= 2) {
			int N = type_slots(s, gi, t, NULL, NULL);
			for (int p = 1; p <= L && p <= N; p++) {
				int d = N / p;
				while (d > 1 && c.M % d)
					d--;
				if (n == cap) {
					struct mcand *nc = realloc(cand, (size_t)(cap *= 2) * sizeof *nc);
					if (!nc) {
						free(cand);
						return bl_fail(&c, rep, e, "megatron: out of memory");
					}
					cand = nc;
				}
				struct mcand k = { gi, t, p, d, INF };
				struct gp_plan pl;
				if (megatron_build(&c, &k, &pl) == 0) {
					k.est = est_plan(&c, &pl);
					gp_plan_free(&pl);
				}
				cand[n++] = k;
			}
		}
	qsort(cand, (size_t)n, sizeof *cand, cmp_est);
	struct gp_plan best = { 0 };
	double bt = INF;
	int bi = -1;
	/* Best estimates first; keep going past the budget only while
	 * nothing has fitted yet. */
	for (int i = 0; i < n && (i < MEGATRON_SIMS || (bi < 0 && i < 4 * MEGATRON_SIMS)); i++) {
		struct gp_plan pl;
		if (megatron_build(&c, &cand[i], &pl))
			continue;
		double t = bl_judge(&c, &pl, false);
		if (t < bt) {
			bt = t;
			bi = i;
			bl_plan_move(&best, &pl);
		} else {
			gp_plan_free(&pl);
		}
	}
	if (bi < 0) {
		char msg[1024];
		int len = snprintf(msg, sizeof msg, "megatron: no uniform TP x PP x DP layout fits on one GPU type");
		for (int gi = 0; gi < s->ngpus && len < (int)sizeof msg; gi++) {
			int G = type_slots(s, gi, 1, NULL, NULL);
			if (!G)
				continue;
			double need = (L * gp_layer_params(&s->model) + 2 * gp_embedding_params(&s->model)) *
				      16 / s->gpus[gi].memory;
			len += snprintf(msg + len, sizeof msg - (size_t)len,
					"; %s: %d GPUs, and weights, gradients and optimizer state alone need %.0f GPUs of %.0f GB without ZeRO",
					s->gpus[gi].name, G, ceil(need), s->gpus[gi].memory / 1e9);
		}
		if (c.why[0] && len < (int)sizeof msg)
			snprintf(msg + len, sizeof msg - (size_t)len, " (closest: %s)", c.why);
		free(cand);
		return bl_fail(&c, rep, e, msg);
	}
	struct mcand k = cand[bi];
	int tried = c.nsim;
	free(cand);
	if (finish(&c, &best, out, rep, e))
		return -1;
	snprintf(rep->note, sizeof rep->note,
		 "megatron: %s TP %d x PP %d x DP %d (%d micro-batches each), equal layers, GPUs taken in DC order blind to the WAN; %d layouts estimated, %d simulated",
		 s->gpus[k.gi].name, k.t, k.p, k.d, c.M / k.d, n, tried);
	return 0;
}

/* ------------------------------------------------------------------ */
/* dp-across-dcs                                                       */

struct grp {
	int dc, pool, n;        /* micro-batches of the group */
	int t, p, R;
	int nalt;
	int alt[DP_ALTS + 1][2];   /* (t, p), best estimate first */
};

/* The stages of one group: p stages of its pool, layers by compute. */
static int grp_stages(const struct bl_ctx *c, const struct grp *g, int t, int p, int D,
		      struct gp_stage *st)
{
	int R = pool_slots(bl_pool_of(c->sc, g->dc, g->pool), t) / p;
	if (R < 1)
		return -1;
	if (R > g->n)
		R = g->n;
	for (int i = 0; i < p; i++)
		st[i] = bl_mkstage(c->sc, g->dc, g->pool, t, 0, 0);
	return bl_fill_layers(c, st, p, bl_ceil_div(g->n, R), D) ? -1 : R;
}

static int dp_build(const struct bl_ctx *c, const struct grp *gs, int ng, struct gp_plan *out)
{
	int L = c->sc->model.layers, D = 0;
	for (int i = 0; i < ng; i++)
		D += gs[i].R;
	struct gp_stage *st = malloc((size_t)L * sizeof *st);
	struct bl_builder b;
	bl_builder_init(&b, c->eval);
	for (int i = 0; st && i < ng; i++) {
		int R = grp_stages(c, &gs[i], gs[i].t, gs[i].p, D, st);
		if (R < 1) {
			b.oom = true;
			break;
		}
		bl_builder_group(&b, st, gs[i].p, R, gs[i].n);
	}
	free(st);
	if (!st || b.oom) {
		gp_plan_free(&b.p);
		return -1;
	}
	*out = b.p;
	return 0;
}

/* Ranks (t, p) layouts of one group alone by the estimate. */
static void dp_layouts(struct bl_ctx *c, struct grp *g, int Dguess)
{
	const struct gp_scenario *s = c->sc;
	const struct gp_pool *pool = bl_pool_of(s, g->dc, g->pool);
	int L = s->model.layers;
	double est[DP_ALTS + 1];
	int fb[2] = { 0, 0 }, fb_tp = 0;
	g->nalt = 0;
	struct gp_stage *st = malloc((size_t)L * sizeof *st);
	if (!st)
		return;
	for (int t = 1; t <= pool->per_node; t *= 2) {
		if (!bl_tp_ok(s, pool, t))
			continue;
		for (int p = 1; p <= L && p <= pool_slots(pool, t); p++) {
			int R = grp_stages(c, g, t, p, Dguess, st);
			if (R < 1)
				continue;
			struct bl_builder b;
			bl_builder_init(&b, c->eval);
			bl_builder_group(&b, st, p, R, g->n);
			double x = b.oom ? INF : est_plan(c, &b.p);
			gp_plan_free(&b.p);
			if (x == INF) {
				/* Nothing fits by the estimate: the simulator may
				 * still take the layout with the least per GPU. */
				if (t * p > fb_tp) {
					fb_tp = t * p;
					fb[0] = t;
					fb[1] = p;
				}
				continue;
			}
			if (g->nalt == DP_ALTS + 1 && x >= est[DP_ALTS])
				continue;
			int k = g->nalt < DP_ALTS + 1 ? g->nalt++ : DP_ALTS;
			while (k > 0 && est[k - 1] > x) {
				est[k] = est[k - 1];
				g->alt[k][0] = g->alt[k - 1][0];
				g->alt[k][1] = g->alt[k - 1][1];
				k--;
			}
			est[k] = x;
			g->alt[k][0] = t;
			g->alt[k][1] = p;
		}
	}
	free(st);
	if (!g->nalt && fb_tp) {
		g->nalt = 1;
		g->alt[0][0] = fb[0];
		g->alt[0][1] = fb[1];
	}
	if (g->nalt) {
		g->t = g->alt[0][0];
		g->p = g->alt[0][1];
		g->R = pool_slots(pool, g->t) / g->p;
		if (g->R > g->n)
			g->R = g->n;
	}
}

/* Gradient rings go round the DCs in index order (sim.c): every
 * neighbour pair needs a link. */
static bool ring_ok(const struct gp_scenario *s, const bool *in)
{
	int first = -1, prev = -1, k = 0;
	for (int d = 0; d < s->ndcs; d++) {
		if (!in[d])
			continue;
		if (prev >= 0 && (!gp_find_link(s, prev, d) || !gp_find_link(s, d, prev)))
			return false;
		if (first < 0)
			first = d;
		prev = d;
		k++;
	}
	return k <= 2 || (gp_find_link(s, prev, first) && gp_find_link(s, first, prev));
}

static double dc_compute(const struct gp_scenario *s, int d)
{
	double x = 0;
	for (int q = 0; q < s->dcs[d].npools; q++)
		x += s->dcs[d].pools[q].count * stage_rate(s, d, q, 1);
	return x;
}

/* Tries one set of groups: layouts by estimate, then each group's
 * runner-up layouts one at a time, kept when the simulator agrees. */
static double dp_try(struct bl_ctx *c, struct grp *gs, int ng, struct gp_plan *best)
{
	int D = 0;
	for (int i = 0; i < ng; i++) {
		dp_layouts(c, &gs[i], 1);
		if (!gs[i].nalt)
			return INF;
		D += gs[i].R;
	}
	for (int i = 0; i < ng; i++)   /* again, with ZeRO over all replicas */
		dp_layouts(c, &gs[i], D);
	struct gp_plan pl;
	if (dp_build(c, gs, ng, &pl))
		return INF;
	double bt = bl_judge(c, &pl, false);
	bl_plan_move(best, &pl);
	for (int i = 0; i < ng; i++)
		for (int a = 1; a < gs[i].nalt; a++) {
			struct grp keep = gs[i];
			gs[i].t = gs[i].alt[a][0];
			gs[i].p = gs[i].alt[a][1];
			gs[i].R = pool_slots(bl_pool_of(c->sc, gs[i].dc, gs[i].pool), gs[i].t) / gs[i].p;
			if (gs[i].R > gs[i].n)
				gs[i].R = gs[i].n;
			memset(&pl, 0, sizeof pl);
			double t = dp_build(c, gs, ng, &pl) ? INF : bl_judge(c, &pl, false);
			if (t < bt) {
				bt = t;
				bl_plan_move(best, &pl);
			} else {
				gp_plan_free(&pl);
				gs[i] = keep;
			}
		}
	return bt;
}

int gp_plan_dp_across_dcs(const struct gp_scenario *s, const struct gp_plan_opts *o,
			  struct gp_plan *out, struct gp_plan_report *rep,
			  struct gp_err *e)
{
	struct gp_plan_report rloc;
	struct bl_ctx c;
	if (bl_begin(&c, s, o, "dp-across-dcs", out, &rep, &rloc, e))
		return -1;
	bool *in = calloc((size_t)s->ndcs, sizeof *in);
	int npl = 0;
	for (int d = 0; d < s->ndcs; d++)
		npl += s->dcs[d].npools;
	struct grp *gs = calloc((size_t)npl + 1, sizeof *gs);
	double *w = calloc((size_t)npl + 1, sizeof *w);
	int *share = calloc((size_t)npl + 1, sizeof *share);
	if (!in || !gs || !w || !share) {
		free(in);
		free(gs);
		free(w);
		free(share);
		return bl_fail(&c, rep, e, "dp-across-dcs: out of memory");
	}
	int kdc = 0, dropped = 0;
	for (int d = 0; d < s->ndcs; d++)
		if (s->dcs[d].npools) {
			in[d] = true;
			kdc++;
		}
	/* A DC the gradient ring cannot reach is left out, weakest first. */
	while (kdc > 1 && !ring_ok(s, in)) {
		int weak = -1;
		for (int d = 0; d < s->ndcs; d++)
			if (in[d] && (weak < 0 || dc_compute(s, d) < dc_compute(s, weak)))
				weak = d;
		in[weak] = false;
		kdc--;
		dropped++;
	}
	struct gp_plan best = { 0 }, pl = { 0 };
	double bt = INF;
	int bvar = -1, bng = 0, ng0 = 0;
	/* Variant 0: every pool its own group; 1: each DC's largest pool. */
	for (int var = 0; var < 2; var++) {
		int ng = 0;
		for (int d = 0; d < s->ndcs; d++) {
			if (!in[d])
				continue;
			int big = 0;
			for (int q = 0; q < s->dcs[d].npools; q++) {
				double x = s->dcs[d].pools[q].count * stage_rate(s, d, q, 1);
				if (var == 0) {
					gs[ng] = (struct grp){ .dc = d, .pool = q };
					w[ng++] = x;
				} else if (x > s->dcs[d].pools[big].count * stage_rate(s, d, big, 1)) {
					big = q;
				}
			}
			if (var == 1) {
				gs[ng] = (struct grp){ .dc = d, .pool = big };
				w[ng++] = s->dcs[d].pools[big].count * stage_rate(s, d, big, 1);
			}
		}
		if (var == 0)
			ng0 = ng;
		else if (ng == ng0)
			break;   /* one pool per DC: the same as variant 0 */
		/* The batch in proportion to raw compute, then (second pass)
		 * to what the chosen layouts deliver per second. */
		for (int pass = 0; pass < 2; pass++) {
			bl_apportion(c.M, ng, w, share);
			int k = 0;
			for (int i = 0; i < ng; i++)
				if (share[i] > 0) {
					gs[k] = gs[i];
					gs[k++].n = share[i];
				}
			double t = dp_try(&c, gs, k, &pl);
			if (t < bt) {
				bt = t;
				bvar = var;
				bng = k;
				bl_plan_move(&best, &pl);
			} else {
				gp_plan_free(&pl);
			}
			for (int i = 0; i < k; i++) {
				if (!gs[i].nalt) {
					w[i] = 0;
					continue;
				}
				struct gp_stage *st = malloc((size_t)s->model.layers * sizeof *st);
				double mx = 0;
				int R = st ? grp_stages(&c, &gs[i], gs[i].t, gs[i].p, 1, st) : -1;
				for (int j = 0; R > 0 && j < gs[i].p; j++) {
					struct bl_stage_est se;
					bl_est_stage(&c, &st[j], j == 0, j == gs[i].p - 1, 1, 1, &se);
					mx = fmax(mx, se.u);
				}
				w[i] = R > 0 && mx > 0 ? pool_slots(bl_pool_of(s, gs[i].dc, gs[i].pool), gs[i].t) /
							 gs[i].p / mx : 0;
				free(st);
			}
			ng = k;
		}
	}
	free(in);
	free(gs);
	free(w);
	free(share);
	if (bt == INF) {
		gp_plan_free(&best);
		char msg[1024];
		snprintf(msg, sizeof msg, "dp-across-dcs: no pipeline inside a DC fits the model%s%s%s",
			 c.why[0] ? " (closest: " : "", c.why, c.why[0] ? ")" : "");
		return bl_fail(&c, rep, e, msg);
	}
	if (finish(&c, &best, out, rep, e))
		return -1;
	snprintf(rep->note, sizeof rep->note,
		 "dp-across-dcs: %d pipeline groups (%s) in %d DC%s%s, %s gradient sync, batch by compute; %d plans simulated",
		 bng, bvar ? "largest pool per DC" : "one per pool", kdc, kdc > 1 ? "s" : "",
		 dropped ? " (some left out: no gradient ring)" : "",
		 kdc < 2 ? "local" : gp_plan_sync(s, out) == GP_SYNC_HIER ? "hierarchical" : "flat (the job's)",
		 c.nsim);
	return 0;
}

/* ------------------------------------------------------------------ */
/* atlas                                                               */

struct chain {
	int k;
	int dc[16];
	double compute, cost;
};

/* Depth-first over simple paths of the link graph: for each length the
 * path with the most compute, then the cheapest hops (latency plus one
 * activation's transfer). */
static void chain_dfs(const struct gp_scenario *s, struct chain *cur, bool *used,
		      struct chain *best, long *budget)
{
	if (--*budget < 0)
		return;
	struct chain *b = &best[cur->k];
	if (cur->compute > b->compute * (1 + 1e-12) ||
	    (cur->compute >= b->compute * (1 - 1e-12) && cur->cost < b->cost))
		*b = *cur;
	if (cur->k == 16)
		return;
	int last = cur->dc[cur->k - 1];
	for (int d = 0; d < s->ndcs; d++) {
		const struct gp_link *l = gp_find_link(s, last, d);
		if (used[d] || !s->dcs[d].npools || !l || !gp_find_link(s, d, last))
			continue;
		used[d] = true;
		cur->dc[cur->k++] = d;
		double dc_ = dc_compute(s, d), dx = l->latency + gp_boundary_bytes(s) / l->bandwidth;
		cur->compute += dc_;
		cur->cost += dx;
		chain_dfs(s, cur, used, best, budget);
		cur->compute -= dc_;
		cur->cost -= dx;
		cur->k--;
		used[d] = false;
	}
}

struct acand {
	int chain, t, R;
	double est;
};

static int cmp_aest(const void *a, const void *b)
{
	const struct acand *x = a, *y = b;
	if (x->est != y->est)
		return x->est < y->est ? -1 : 1;
	return 0;
}

/* R identical pipelines over the chain: each DC gives every pipeline
 * floor(slots / R) stages of each of its pools. */
static int atlas_build(const struct bl_ctx *c, const struct chain *ch, int t, int R,
		       struct gp_plan *out)
{
	const struct gp_scenario *s = c->sc;
	int L = s->model.layers, S = 0;
	struct gp_stage *st = malloc((size_t)L * sizeof *st);
	if (!st)
		return -1;
	for (int i = 0; i < ch->k; i++) {
		int d = ch->dc[i], here = 0;
		for (int q = 0; q < s->dcs[d].npools; q++) {
			const struct gp_pool *p = bl_pool_of(s, d, q);
			int tq = bl_tp_fit(s, p, t), n = pool_slots(p, tq) / R;
			for (int j = 0; j < n; j++, here++) {
				if (S == L) {
					free(st);
					return -1;
				}
				st[S++] = bl_mkstage(s, d, q, tq, 0, 0);
			}
		}
		if (!here) {
			free(st);
			return -1;
		}
	}
	if (bl_fill_layers(c, st, S, bl_ceil_div(c->M, R), R)) {
		free(st);
		return -1;
	}
	struct bl_builder b;
	bl_builder_init(&b, c->eval);
	bl_builder_group(&b, st, S, R, c->M);
	free(st);
	return bl_builder_take(&b, out);
}

int gp_plan_atlas(const struct gp_scenario *s, const struct gp_plan_opts *o,
		  struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e)
{
	struct gp_plan_report rloc;
	struct bl_ctx c;
	if (bl_begin(&c, s, o, "atlas", out, &rep, &rloc, e))
		return -1;
	struct chain best[17], cur;
	bool *used = calloc((size_t)s->ndcs, sizeof *used);
	if (!used)
		return bl_fail(&c, rep, e, "atlas: out of memory");
	for (int k = 0; k <= 16; k++)
		best[k] = (struct chain){ .k = 0, .compute = -1, .cost = INF };
	long budget = 200000;
	for (int d = 0; d < s->ndcs; d++) {
		if (!s->dcs[d].npools)
			continue;
		cur = (struct chain){ .k = 1, .dc = { d }, .compute = dc_compute(s, d), .cost = 0 };
		used[d] = true;
		chain_dfs(s, &cur, used, best, &budget);
		used[d] = false;
	}
	free(used);
	int K = 0;
	for (int k = 1; k <= 16; k++)
		if (best[k].k == k)
			K = k;
	/* Atlas's point is a pipeline across DCs: one DC alone only when
	 * there is no other. */
	int kmin = K >= 2 ? 2 : 1, n = 0, cap = 256;
	struct acand *cand = malloc((size_t)cap * sizeof *cand);
	if (!cand)
		return bl_fail(&c, rep, e, "atlas: out of memory");
	int maxper = 1;
	for (int d = 0; d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++)
			if (s->dcs[d].pools[q].per_node > maxper)
				maxper = s->dcs[d].pools[q].per_node;
	for (int k = kmin; k <= K; k++)
		for (int t = 1; t <= maxper; t *= 2) {
			if ((long)s->model.heads % t)
				continue;
			for (int R = 1; R <= c.M; R++) {
				struct gp_plan pl;
				if (atlas_build(&c, &best[k], t, R, &pl)) {
					/* Too many stages at small R; none at large. */
					bool any_dc_empty = false;
					for (int i = 0; i < best[k].k; i++) {
						int d = best[k].dc[i], sl = 0;
						for (int q = 0; q < s->dcs[d].npools; q++)
							sl += pool_slots(bl_pool_of(s, d, q),
									 bl_tp_fit(s, bl_pool_of(s, d, q), t));
						if (sl < R)
							any_dc_empty = true;
					}
					if (any_dc_empty)
						break;
					continue;
				}
				if (n == cap) {
					struct acand *nc = realloc(cand, (size_t)(cap *= 2) * sizeof *nc);
					if (!nc) {
						gp_plan_free(&pl);
						free(cand);
						return bl_fail(&c, rep, e, "atlas: out of memory");
					}
					cand = nc;
				}
				cand[n++] = (struct acand){ k, t, R, est_plan(&c, &pl) };
				gp_plan_free(&pl);
			}
		}
	qsort(cand, (size_t)n, sizeof *cand, cmp_aest);
	struct gp_plan bp = { 0 };
	double bt = INF;
	int bi = -1;
	for (int i = 0; i < n && (i < ATLAS_SIMS || (bi < 0 && i < 4 * ATLAS_SIMS)); i++) {
		struct gp_plan pl;
		if (atlas_build(&c, &best[cand[i].chain], cand[i].t, cand[i].R, &pl))
			continue;
		double t = bl_judge(&c, &pl, false);
		if (t < bt) {
			bt = t;
			bi = i;
			bl_plan_move(&bp, &pl);
		} else {
			gp_plan_free(&pl);
		}
	}
	if (bi < 0) {
		char msg[1024];
		snprintf(msg, sizeof msg, "atlas: no pipeline over a chain of linked DCs fits the model%s%s%s",
			 c.why[0] ? " (closest: " : "", c.why, c.why[0] ? ")" : "");
		free(cand);
		return bl_fail(&c, rep, e, msg);
	}
	struct acand k = cand[bi];
	free(cand);
	if (finish(&c, &bp, out, rep, e))
		return -1;
	char path[160] = "";
	for (int i = 0; i < best[k.chain].k; i++) {
		size_t l = strlen(path);
		snprintf(path + l, sizeof path - l, "%s%s", i ? ">" : "", s->dcs[best[k.chain].dc[i]].name);
	}
	snprintf(rep->note, sizeof rep->note,
		 "atlas: %d pipelines of %d stages over %s, TP up to %d, DP inside each DC, layers by compute; %d layouts estimated, %d simulated",
		 k.R < c.M ? k.R : c.M, out->pipes[0].nstages, path, k.t, n, c.nsim);
	return 0;
}

