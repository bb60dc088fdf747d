/*
 * search.c: the search engine of planner.h, a genetic search over
 * heterogeneous plans in the spirit of DT-FM (Yuan et al., NeurIPS '22):
 * individuals are pipeline groups of stages (DC, pool, TP, layers) with
 * replicas and batch shares (and the DP sync mode across DCs when the job
 * says auto); mutation and crossover keep them valid; the
 * fitness is the simulated iteration time. Seeded with the three
 * reference engines (plan_megatron.c, plan_dp_across.c, plan_atlas.c),
 * so it is never worse than them; what they share is in baseline.h.
 */
#include "baseline.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SG_MAXST 48
#define SG_MAXG 12
#define SG_POP 24
#define SG_ELITE 4
#define SG_GENS 150
#define SG_STALL 40
#define SG_CACHE 8192

struct sg_stage {
	int16_t dc, pool, tp, layers;
};

struct sg_group {
	int nst, R, n;    /* stages, replicas, micro-batches of the group */
	struct sg_stage st[SG_MAXST];
};

struct sg_indiv {
	int ng;
	int sync;         /* enum gp_sync_mode: a gene when the job says auto */
	double fit;
	uint64_t hash;
	struct sg_group g[SG_MAXG];
};

struct sg_search {
	struct bl_ctx *c;
	uint64_t rng;
	int *base, npl;       /* flat pool index: base[dc] + pool */
	int *used;
	struct { uint64_t h; double fit; } *cache;
	struct sg_indiv *pop, *kids;   /* SG_POP each, one allocation */
	double deadline;      /* the wall-clock safety net (c->work_limit decides) */
};

/* The search stops: the work limit (it repeats), the wall clock (a
 * safety net: c->clock_stopped, said in the note) or a cancel. */
static bool sg_stop(struct sg_search *sr)
{
	struct bl_ctx *c = sr->c;
	if (bl_cancelled(c) || c->work > c->work_limit)
		return true;
	if (bl_now_s() > sr->deadline)
		return c->clock_stopped = true;
	return false;
}

static uint64_t rng_next(uint64_t *x)
{
	/* xorshift64* (Vigna 2016) */
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ULL;
}

static int rnd(struct sg_search *sr, int n)
{
	return n <= 1 ? 0 : (int)(rng_next(&sr->rng) % (uint64_t)n);
}

static uint64_t sg_hash(const struct sg_indiv *x)
{
	uint64_t h = 1469598103934665603ULL;
#define MIX(v) do { h ^= (uint64_t)(uint32_t)(v); h *= 1099511628211ULL; } while (0)
	MIX(x->ng);
	MIX(x->sync);
	for (int g = 0; g < x->ng; g++) {
		const struct sg_group *gr = &x->g[g];
		MIX(gr->nst);
		MIX(gr->R);
		MIX(gr->n);
		for (int i = 0; i < gr->nst; i++) {
			MIX(gr->st[i].dc);
			MIX(gr->st[i].pool);
			MIX(gr->st[i].tp);
			MIX(gr->st[i].layers);
		}
	}
#undef MIX
	return h;
}

static int sg_to_plan(const struct sg_search *sr, const struct sg_indiv *x,
		      struct gp_plan *out)
{
	const struct gp_scenario *s = sr->c->sc;
	struct bl_builder b;
	struct gp_stage st[SG_MAXST];
	bl_builder_init(&b, sr->c->eval);
	for (int g = 0; g < x->ng; g++) {
		const struct sg_group *gr = &x->g[g];
		for (int i = 0, next = 1; i < gr->nst; i++) {
			st[i] = bl_mkstage(s, gr->st[i].dc, gr->st[i].pool, gr->st[i].tp, next,
					next + gr->st[i].layers - 1);
			next += gr->st[i].layers;
		}
		bl_builder_group(&b, st, gr->nst, gr->R, gr->n);
	}
	if (b.oom) {
		gp_plan_free(&b.p);
		return -1;
	}
	if (s->job.sync_mode == GP_SYNC_AUTO) {
		b.p.sync_set = true;
		b.p.sync_mode = x->sync;
	}
	*out = b.p;
	return 0;
}

/* A plan's pipelines with the same stage shapes become one group. */
static int sg_from_plan(const struct gp_scenario *s, const struct gp_plan *p,
			struct sg_indiv *x)
{
	memset(x, 0, sizeof *x);
	x->sync = gp_plan_sync(s, p);
	for (int i = 0; i < p->npipes; i++) {
		const struct gp_pipeline *pp = &p->pipes[i];
		if (pp->nstages > SG_MAXST)
			return -1;
		struct sg_group *gr = x->ng ? &x->g[x->ng - 1] : NULL;
		bool same = gr && gr->nst == pp->nstages;
		for (int j = 0; same && j < pp->nstages; j++) {
			const struct gp_stage *a = &pp->stages[j];
			const struct sg_stage *b = &gr->st[j];
			same = a->dc == b->dc && a->pool == b->pool && a->tp == b->tp &&
			       a->last - a->first + 1 == b->layers;
		}
		if (!same) {
			if (x->ng == SG_MAXG)
				return -1;
			gr = &x->g[x->ng++];
			gr->nst = pp->nstages;
			for (int j = 0; j < pp->nstages; j++) {
				const struct gp_stage *a = &pp->stages[j];
				gr->st[j] = (struct sg_stage){ (int16_t)a->dc, (int16_t)a->pool,
							       (int16_t)a->tp,
							       (int16_t)(a->last - a->first + 1) };
			}
		}
		gr->R += pp->replicas;
		gr->n += pp->micro_batches * pp->replicas;
	}
	return 0;
}

/* Every rule gp_plan_validate checks, plus TP inside a node and the
 * budget. */
static bool sg_ok(struct sg_search *sr, const struct sg_indiv *x)
{
	const struct gp_scenario *s = sr->c->sc;
	int tot = 0;
	if (x->ng < 1)
		return false;
	memset(sr->used, 0, (size_t)sr->npl * sizeof *sr->used);
	for (int g = 0; g < x->ng; g++) {
		const struct sg_group *gr = &x->g[g];
		int L = 0;
		if (gr->nst < 1 || gr->R < 1 || gr->n < gr->R)
			return false;
		tot += gr->n;
		for (int i = 0; i < gr->nst; i++) {
			const struct sg_stage *st = &gr->st[i];
			if (st->layers < 1 || !bl_tp_ok(s, bl_pool_of(s, st->dc, st->pool), st->tp))
				return false;
			if (i && st->dc != gr->st[i - 1].dc &&
			    (!gp_find_link(s, gr->st[i - 1].dc, st->dc) ||
			     !gp_find_link(s, st->dc, gr->st[i - 1].dc)))
				return false;
			L += st->layers;
			sr->used[sr->base[st->dc] + st->pool] += st->tp * gr->R;
		}
		if (L != s->model.layers)
			return false;
	}
	if (tot != sr->c->M)
		return false;
	double usd = 0;
	for (int d = 0; d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++) {
			const struct gp_pool *p = &s->dcs[d].pools[q];
			if (sr->used[sr->base[d] + q] > p->count)
				return false;
			usd += sr->used[sr->base[d] + q] * s->gpus[p->gpu].price_per_hour;
		}
	return !(sr->c->budget > 0 && usd > sr->c->budget * (1 + 1e-9));
}

static double sg_fit(struct sg_search *sr, struct sg_indiv *x)
{
	x->hash = sg_hash(x);
	size_t i = (size_t)(x->hash % SG_CACHE);
	if (sr->cache[i].h == x->hash && x->hash)
		return x->fit = sr->cache[i].fit;
	struct gp_plan p;
	x->fit = sg_to_plan(sr, x, &p) ? INF : bl_judge(sr->c, &p, false);
	gp_plan_free(&p);
	sr->cache[i].h = x->hash;
	sr->cache[i].fit = x->fit;
	return x->fit;
}

/* Micro-batches scaled back to the global batch; replicas <= batches. */
static void sg_fix_batch(struct sg_search *sr, struct sg_indiv *x)
{
	double w[SG_MAXG] = { 0 };
	int n[SG_MAXG], tot = 0;
	for (int g = 0; g < x->ng; g++) {
		w[g] = x->g[g].n > 0 ? x->g[g].n : 1;
		tot += x->g[g].n;
	}
	if (tot != sr->c->M) {
		bl_apportion(sr->c->M, x->ng, w, n);
		for (int g = 0; g < x->ng; g++)
			x->g[g].n = n[g];
	}
	for (int g = 0; g < x->ng; g++) {
		if (x->g[g].n < 1) {   /* a global batch smaller than the groups */
			x->g[g] = x->g[--x->ng];
			g--;
			continue;
		}
		if (x->g[g].R > x->g[g].n)
			x->g[g].R = x->g[g].n;
	}
}

/* The slowest stage of a group, per micro-batch (for rebalancing). */
static double sg_group_time(const struct sg_search *sr, const struct sg_group *gr, int D)
{
	double mx = 0;
	for (int i = 0, next = 1; i < gr->nst; i++) {
		struct gp_stage st = bl_mkstage(sr->c->sc, gr->st[i].dc, gr->st[i].pool, gr->st[i].tp,
					     next, next + gr->st[i].layers - 1);
		struct bl_stage_est se;
		next += gr->st[i].layers;
		bl_est_stage(sr->c, &st, i == 0, i == gr->nst - 1, 1, D, 0, &se);
		mx = fmax(mx, se.u);
	}
	return mx;
}

static void sg_rebalance_layers(struct sg_search *sr, struct sg_indiv *x, int g)
{
	struct sg_group *gr = &x->g[g];
	struct gp_stage st[SG_MAXST];
	int D = 0;
	for (int h = 0; h < x->ng; h++)
		D += x->g[h].R;
	for (int i = 0; i < gr->nst; i++)
		st[i] = bl_mkstage(sr->c->sc, gr->st[i].dc, gr->st[i].pool, gr->st[i].tp, 0, 0);
	if (bl_fill_layers(sr->c, st, gr->nst, bl_ceil_div(gr->n, gr->R), D) == 0)
		for (int i = 0; i < gr->nst; i++)
			gr->st[i].layers = (int16_t)(st[i].last - st[i].first + 1);
}

static void sg_rebalance_batch(struct sg_search *sr, struct sg_indiv *x)
{
	double w[SG_MAXG] = { 0 };
	int n[SG_MAXG], D = 0;
	if (x->ng < 2)
		return;
	for (int g = 0; g < x->ng; g++)
		D += x->g[g].R;
	for (int g = 0; g < x->ng; g++) {
		double t = sg_group_time(sr, &x->g[g], D);
		w[g] = t > 0 ? x->g[g].R / t : 1;
	}
	bl_apportion(sr->c->M, x->ng, w, n);
	for (int g = 0; g < x->ng; g++) {
		x->g[g].n = n[g];
	}
	sg_fix_batch(sr, x);
}

/* A random pool, anywhere (validity is checked afterwards). */
static void sg_random_pool(struct sg_search *sr, int *dc, int *pool)
{
	int f = rnd(sr, sr->npl);
	for (int d = sr->c->sc->ndcs - 1; d >= 0; d--)
		if (sr->base[d] <= f && sr->c->sc->dcs[d].npools) {
			*dc = d;
			*pool = f - sr->base[d];
			return;
		}
	*dc = *pool = 0;
}

/* Replicas a group could add with the GPUs left free. */
static int sg_room(struct sg_search *sr, const struct sg_indiv *x, int g)
{
	const struct gp_scenario *s = sr->c->sc;
	memset(sr->used, 0, (size_t)sr->npl * sizeof *sr->used);
	int *per = calloc((size_t)sr->npl, sizeof *per);
	if (!per)
		return 0;
	for (int h = 0; h < x->ng; h++)
		for (int i = 0; i < x->g[h].nst; i++) {
			const struct sg_stage *st = &x->g[h].st[i];
			sr->used[sr->base[st->dc] + st->pool] += st->tp * x->g[h].R;
			if (h == g)
				per[sr->base[st->dc] + st->pool] += st->tp;
		}
	int room = 1 << 30;
	for (int d = 0; d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++) {
			int f = sr->base[d] + q;
			if (per[f]) {
				int r = (s->dcs[d].pools[q].count - sr->used[f]) / per[f];
				room = r < room ? r : room;
			}
		}
	free(per);
	return room < 0 ? 0 : room;
}

/* The mutations: each changes group g of x (stage i of it when it takes
 * one) or leaves x as it was; sg_mutate draws one. */
typedef void sg_mut_fn(struct sg_search *sr, struct sg_indiv *x, int g, int i);

/* Moves a few layers across one stage boundary. */
static void sg_mut_layers(struct sg_search *sr, struct sg_indiv *x, int g, int i)
{
	struct sg_group *gr = &x->g[g];
	(void)i;
	if (gr->nst < 2)
		return;
	int j = rnd(sr, gr->nst - 1), dir = rnd(sr, 2);
	struct sg_stage *from = &gr->st[j + dir], *to = &gr->st[j + 1 - dir];
	int k = 1 + rnd(sr, from->layers / 4 + 1);
	if (from->layers > k) {
		from->layers = (int16_t)(from->layers - k);
		to->layers = (int16_t)(to->layers + k);
	}
}

/* Doubles or halves a stage's TP degree. */
static void sg_mut_tp(struct sg_search *sr, struct sg_indiv *x, int g, int i)
{
	struct sg_stage *st = &x->g[g].st[i];
	st->tp = (int16_t)(rnd(sr, 2) ? st->tp * 2 : st->tp / 2);
	if (st->tp < 1)
		st->tp = 1;
}

/* A few replicas more or fewer. */
static void sg_mut_replicas(struct sg_search *sr, struct sg_indiv *x, int g, int i)
{
	struct sg_group *gr = &x->g[g];
	(void)i;
	int k = 1 + rnd(sr, gr->R / 4 + 1);
	gr->R += rnd(sr, 2) ? k : -k;
	if (gr->R < 1)
		gr->R = 1;
	if (gr->R > gr->n)
		gr->R = gr->n;
}

/* Micro-batches from group g to another. */
static void sg_mut_batch(struct sg_search *sr, struct sg_indiv *x, int g, int i)
{
	struct sg_group *gr = &x->g[g];
	(void)i;
	if (x->ng < 2)
		return;
	int h = rnd(sr, x->ng - 1);
	h += h >= g;
	int k = 1 + rnd(sr, gr->n / 4 + 1);
	if (gr->n - k >= 1) {
		gr->n -= k;
		x->g[h].n += k;
		if (gr->R > gr->n)
			gr->R = gr->n;
	}
}

/* Splits a stage; the new half maybe on another pool. */
static void sg_mut_split(struct sg_search *sr, struct sg_indiv *x, int g, int i)
{
	const struct gp_scenario *s = sr->c->sc;
	struct sg_group *gr = &x->g[g];
	struct sg_stage *st = &gr->st[i];
	if (st->layers < 2 || gr->nst == SG_MAXST)
		return;
	memmove(&gr->st[i + 2], &gr->st[i + 1], (size_t)(gr->nst - i - 1) * sizeof *st);
	gr->nst++;
	int k = 1 + rnd(sr, st->layers - 1);
	gr->st[i + 1] = *st;
	gr->st[i + 1].layers = (int16_t)(st->layers - k);
	st->layers = (int16_t)k;
	if (rnd(sr, 2)) {
		int d, q;
		sg_random_pool(sr, &d, &q);
		gr->st[i + 1].dc = (int16_t)d;
		gr->st[i + 1].pool = (int16_t)q;
		gr->st[i + 1].tp = (int16_t)bl_tp_fit(s, bl_pool_of(s, d, q), st->tp);
	}
}

/* Merges a stage into the next. */
static void sg_mut_merge(struct sg_search *sr, struct sg_indiv *x, int g, int i)
{
	struct sg_group *gr = &x->g[g];
	struct sg_stage *st = &gr->st[i];
	(void)sr;
	if (gr->nst < 2 || i == gr->nst - 1)
		return;
	st->layers = (int16_t)(st->layers + gr->st[i + 1].layers);
	memmove(&gr->st[i + 1], &gr->st[i + 2], (size_t)(gr->nst - i - 2) * sizeof *st);
	gr->nst--;
}

/* Another pool for one stage. */
static void sg_mut_pool(struct sg_search *sr, struct sg_indiv *x, int g, int i)
{
	const struct gp_scenario *s = sr->c->sc;
	struct sg_stage *st = &x->g[g].st[i];
	int d, q;
	sg_random_pool(sr, &d, &q);
	st->dc = (int16_t)d;
	st->pool = (int16_t)q;
	st->tp = (int16_t)bl_tp_fit(s, bl_pool_of(s, d, q), st->tp);
}

static void sg_mut_rebalance_layers(struct sg_search *sr, struct sg_indiv *x, int g, int i)
{
	(void)i;
	sg_rebalance_layers(sr, x, g);
}

static void sg_mut_rebalance_batch(struct sg_search *sr, struct sg_indiv *x, int g, int i)
{
	(void)g;
	(void)i;
	sg_rebalance_batch(sr, x);
}

/* A new group: a copy of g, maybe moved to another DC. */
static void sg_mut_clone(struct sg_search *sr, struct sg_indiv *x, int g, int i)
{
	const struct gp_scenario *s = sr->c->sc;
	(void)i;
	if (x->ng == SG_MAXG)
		return;
	struct sg_group *ng = &x->g[x->ng++];
	*ng = x->g[g];
	ng->R = 1;
	ng->n = 1;
	if (rnd(sr, 2)) {
		int d, q;
		sg_random_pool(sr, &d, &q);
		for (int j = 0; j < ng->nst; j++) {
			ng->st[j].dc = (int16_t)d;
			ng->st[j].pool = (int16_t)rnd(sr, s->dcs[d].npools);
			ng->st[j].tp = (int16_t)bl_tp_fit(s, bl_pool_of(s, d, ng->st[j].pool),
							  ng->st[j].tp);
		}
	}
	int room = sg_room(sr, x, x->ng - 1);
	ng->R = 1 + (room > 0 ? rnd(sr, room + 1) : 0);
	sg_rebalance_batch(sr, x);
}

/* Drops group g, its batch to the others. */
static void sg_mut_drop(struct sg_search *sr, struct sg_indiv *x, int g, int i)
{
	(void)i;
	if (x->ng < 2)
		return;
	x->g[g] = x->g[--x->ng];
	sg_fix_batch(sr, x);
}

/* Grows group g into the free GPUs. */
static void sg_mut_grow(struct sg_search *sr, struct sg_indiv *x, int g, int i)
{
	struct sg_group *gr = &x->g[g];
	(void)i;
	int room = sg_room(sr, x, g);
	if (room > 0) {
		gr->R += 1 + rnd(sr, room);
		if (gr->n < gr->R)
			sg_rebalance_batch(sr, x);
	}
}

/* Drawn uniformly: moving layers twice as often as the others. */
static sg_mut_fn *const sg_mutations[] = {
	sg_mut_layers, sg_mut_layers, sg_mut_tp, sg_mut_replicas, sg_mut_batch,
	sg_mut_split, sg_mut_merge, sg_mut_pool, sg_mut_rebalance_layers,
	sg_mut_rebalance_batch, sg_mut_clone, sg_mut_drop, sg_mut_grow,
};

/* One random change. The caller checks validity and retries. */
static void sg_mutate(struct sg_search *sr, struct sg_indiv *x)
{
	const struct gp_scenario *s = sr->c->sc;
	int g = rnd(sr, x->ng);
	int i = rnd(sr, x->g[g].nst);
	int op = rnd(sr, (int)(sizeof sg_mutations / sizeof *sg_mutations));
	if (s->job.sync_mode == GP_SYNC_AUTO && rnd(sr, 8) == 0)
		x->sync = x->sync == GP_SYNC_FLAT ? GP_SYNC_HIER : GP_SYNC_FLAT;
	sg_mutations[op](sr, x, g, i);
	sg_fix_batch(sr, x);
}

/* Takes one group of b into a: replaces one of a's, or joins them. */
static void sg_cross(struct sg_search *sr, struct sg_indiv *a, const struct sg_indiv *b)
{
	const struct sg_group *gb = &b->g[rnd(sr, b->ng)];
	int at = a->ng < SG_MAXG && rnd(sr, 2) ? a->ng++ : rnd(sr, a->ng);
	a->g[at] = *gb;
	sg_fix_batch(sr, a);
	if (at >= a->ng)
		return;
	/* Shrink the newcomer until the GPUs suffice. */
	while (!sg_ok(sr, a) && a->g[at].R > 1)
		a->g[at].R = a->g[at].R * 3 / 4;
}

static int cmp_indiv(const void *p, const void *q)
{
	const struct sg_indiv *a = p, *b = q;
	if (a->fit != b->fit)
		return a->fit < b->fit ? -1 : 1;
	return a->hash < b->hash ? -1 : a->hash > b->hash;
}

static const struct sg_indiv *tournament(struct sg_search *sr,
					 const struct sg_indiv *pop)
{
	const struct sg_indiv *w = &pop[rnd(sr, SG_POP)];
	for (int k = 0; k < 2; k++) {
		const struct sg_indiv *y = &pop[rnd(sr, SG_POP)];
		if (y->fit < w->fit)
			w = y;
	}
	return w;
}

/* A valid mutant of p (1-3 changes), or p itself after 16 misses. */
static void sg_child(struct sg_search *sr, const struct sg_indiv *p,
		     const struct sg_indiv *q, struct sg_indiv *out)
{
	for (int tries = 0; tries < 16; tries++) {
		*out = *p;
		if (q && tries < 8)
			sg_cross(sr, out, q);
		int k = 1 + rnd(sr, 3);
		for (int j = 0; j < k; j++)
			sg_mutate(sr, out);
		if (sg_ok(sr, out))
			return;
	}
	*out = *p;
}

/* With no seed: one group, a few stages in one random DC. */
static void sg_random(struct sg_search *sr, struct sg_indiv *x)
{
	const struct gp_scenario *s = sr->c->sc;
	int d, q, L = s->model.layers;
	memset(x, 0, sizeof *x);
	x->sync = gp_plan_sync(s, NULL);
	sg_random_pool(sr, &d, &q);
	x->ng = 1;
	struct sg_group *gr = &x->g[0];
	gr->nst = 1 + rnd(sr, L < 8 ? L : 8);
	for (int i = 0; i < gr->nst; i++) {
		int pq = rnd(sr, s->dcs[d].npools);
		int t = 1 << rnd(sr, 4);
		gr->st[i] = (struct sg_stage){ (int16_t)d, (int16_t)pq,
					       (int16_t)bl_tp_fit(s, bl_pool_of(s, d, pq), t),
					       (int16_t)(L / gr->nst + (i < L % gr->nst)) };
	}
	gr->R = 1;
	gr->n = sr->c->M;
	int room = sg_room(sr, x, 0);
	gr->R += room > 0 ? rnd(sr, room + 1) : 0;
	if (gr->R > gr->n)
		gr->R = gr->n;
	sg_rebalance_layers(sr, x, 0);
}

/* The reference engines that seed the search. */
static const struct {
	const char *name;
	int (*plan)(const struct gp_scenario *, const struct gp_plan_opts *,
		    struct gp_plan *, struct gp_plan_report *, struct gp_err *);
} sg_engines[3] = {
	{ "megatron", gp_plan_megatron },
	{ "dp-across-dcs", gp_plan_dp_across_dcs },
	{ "atlas", gp_plan_atlas },
};

/* The reference engines' plans (kept to fall back on) and what seeded. */
struct sg_seeds {
	struct gp_plan plan[3];
	double t[3];          /* their simulated times; INF: the engine failed */
	int n;                /* engines that gave a plan, and the warm plans */
	char names[96];
};

static int sg_init(struct sg_search *sr, struct bl_ctx *c, const struct gp_plan_opts *o)
{
	const struct gp_scenario *s = c->sc;
	/* Without a limit, GP_SEARCH_WORK_S of work; without a time limit,
	 * the wall clock's safety net at 4 x the work. */
	double work = o && o->work_s > 0 ? o->work_s : GP_SEARCH_WORK_S;
	double limit = o && o->time_limit > 0 ? o->time_limit : 4 * work;
	*sr = (struct sg_search){ .c = c, .deadline = c->t0 + limit };
	if (c->work_limit == INF)
		c->work_limit = BL_WORK_RATE * GP_SEARCH_WORK_S;
	/* splitmix64 of the seed, so nearby seeds start far apart */
	uint64_t z = (o && o->seed ? o->seed : 1) + 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	sr->rng = (z ^ (z >> 31)) | 1;
	sr->base = calloc((size_t)s->ndcs + 1, sizeof *sr->base);
	for (int d = 0; sr->base && d < s->ndcs; d++) {
		sr->base[d] = sr->npl;
		sr->npl += s->dcs[d].npools;
	}
	sr->used = calloc((size_t)sr->npl + 1, sizeof *sr->used);
	sr->cache = calloc(SG_CACHE, sizeof *sr->cache);
	sr->pop = malloc(2 * SG_POP * sizeof *sr->pop);
	if (!sr->base || !sr->used || !sr->cache || !sr->pop)
		return -1;
	sr->kids = sr->pop + SG_POP;
	return 0;
}

static void sg_free(struct sg_search *sr)
{
	free(sr->base);
	free(sr->used);
	free(sr->cache);
	free(sr->pop);
}

/* Plan p into the population at pop[npop] when it is valid there;
 * returns the new size. */
static int sg_add(struct sg_search *sr, const struct gp_plan *p, int npop)
{
	if (sg_from_plan(sr->c->sc, p, &sr->pop[npop]) == 0 && sg_ok(sr, &sr->pop[npop])) {
		sg_fit(sr, &sr->pop[npop]);
		npop++;
	}
	return npop;
}

/* The first population's seeds: the reference engines' plans, then the
 * warm plans. Returns how many. Engine i may take 1 / (4 - i) of the
 * work left (what it did counts as the search's): a quarter of the
 * search's each at most, so the generations keep a quarter; the wall
 * clock left is each one's safety net. */
static int sg_seed(struct sg_search *sr, const struct gp_plan_opts *o,
		   const struct gp_plan *warm, int nwarm, struct sg_seeds *sd)
{
	const struct gp_scenario *s = sr->c->sc;
	int npop = 0;
	sd->n = 0;
	sd->names[0] = 0;
	for (int i = 0; i < 3; i++) {
		struct gp_plan_report r = { 0 };
		struct gp_err e2 = { "" };
		struct gp_plan_opts so = *o;
		so.time_limit = fmax(sr->deadline - bl_now_s(), 1e-3);
		so.work_s = fmax(sr->c->work_limit - sr->c->work, 1e-3 * BL_WORK_RATE) /
			    BL_WORK_RATE / (4 - i);
		sd->t[i] = INF;
		int rc = sg_engines[i].plan(s, &so, &sd->plan[i], &r, &e2);
		sr->c->work += r.work_s * BL_WORK_RATE;
		sr->c->clock_stopped |= r.clock_stopped;
		if (rc)
			continue;
		sd->t[i] = r.estimate_s;
		size_t l = strlen(sd->names);
		snprintf(sd->names + l, sizeof sd->names - l, "%s%s", sd->n++ ? ", " : "",
			 sg_engines[i].name);
		npop = sg_add(sr, &sd->plan[i], npop);
	}
	for (int i = 0; i < nwarm && npop < SG_POP; i++)
		npop = sg_add(sr, &warm[i], npop);
	if (nwarm) {
		size_t l = strlen(sd->names);
		snprintf(sd->names + l, sizeof sd->names - l, "%s%d warm plan%s",
			 sd->n++ ? ", " : "", nwarm, nwarm > 1 ? "s" : "");
	}
	return npop;
}

/* The rest of the first population after its npop seeds: their mutants,
 * or random individuals when there are none (past the deadline, copies
 * of those made); then sorted. */
static void sg_fill(struct sg_search *sr, int npop)
{
	struct sg_indiv *pop = sr->pop;
	int nseedpop = npop, made = 0;
	for (int k = 0; npop < SG_POP; k++) {
		if (npop && (made || sg_stop(sr))) {
			made = made ? made : npop;
			pop[npop] = pop[npop % made];
			npop++;
			continue;
		}
		if (nseedpop)
			sg_child(sr, &pop[k % nseedpop], NULL, &pop[npop]);
		else
			sg_random(sr, &pop[npop]);
		if (!nseedpop && !sg_ok(sr, &pop[npop]) && k < 1000)
			continue;
		sg_fit(sr, &pop[npop]);
		npop++;
	}
	qsort(pop, SG_POP, sizeof *pop, cmp_indiv);
}

/* Generations (elitism, tournaments, crossover in 3 of 10 children) until
 * SG_GENS, SG_STALL without progress or sg_stop. Returns how many
 * ran; *best_gen: the one that found the best. */
static int sg_evolve(struct sg_search *sr, int *best_gen)
{
	struct sg_indiv *pop = sr->pop, *kids = sr->kids;
	int gen = 0, stall = 0;
	double best = pop[0].fit;
	*best_gen = 0;
	for (gen = 1; gen <= SG_GENS && stall < SG_STALL && !sg_stop(sr); gen++) {
		for (int i = 0; i < SG_ELITE; i++)
			kids[i] = pop[i];
		for (int i = SG_ELITE; i < SG_POP; i++) {
			const struct sg_indiv *a = tournament(sr, pop);
			const struct sg_indiv *b = rnd(sr, 10) < 3 ? tournament(sr, pop) : NULL;
			sg_child(sr, a, b, &kids[i]);
			sg_fit(sr, &kids[i]);
		}
		memcpy(pop, kids, SG_POP * sizeof *pop);
		qsort(pop, SG_POP, sizeof *pop, cmp_indiv);
		if (pop[0].fit < best * (1 - 1e-9)) {
			best = pop[0].fit;
			*best_gen = gen;
			stall = 0;
			gp_plan_progress(sr->c->o, "search", "search", best, -HUGE_VAL, sr->c->t0);
		} else {
			stall++;
		}
	}
	return gen - 1;
}

/* The best individual simulated with the final schedule, into bp; a seed
 * replaces it when at least as fast, so the search is never worse than a
 * seed whatever the final schedule makes of it (*from: that seed, or
 * -1). Frees the seeds; returns bp's time. */
static double sg_final(struct sg_search *sr, struct sg_seeds *sd, struct gp_plan *bp, int *from)
{
	double bt = INF;
	*bp = (struct gp_plan){ 0 };
	*from = -1;
	if (sr->pop[0].fit < INF && sg_to_plan(sr, &sr->pop[0], bp) == 0) {
		bt = bl_judge(sr->c, bp, true);
		if (bt == INF)
			gp_plan_free(bp);
	}
	for (int i = 0; i < 3; i++) {
		if (sd->t[i] == INF)
			continue;
		if (sd->t[i] <= bt) {
			gp_plan_free(bp);
			*bp = sd->plan[i];
			memset(&sd->plan[i], 0, sizeof sd->plan[i]);
			bt = sd->t[i];
			*from = i;
		}
		gp_plan_free(&sd->plan[i]);
	}
	return bt;
}

/* The search, seeded with the three reference engines and, when given,
 * with warm (which is not kept unless the search reproduces it: the
 * caller compares). */
static int sg_run(const struct gp_scenario *s, const struct gp_plan_opts *o,
		  const struct gp_plan *warm, int nwarm, struct gp_plan *out,
		  struct gp_plan_report *rep, struct gp_err *e)
{
	struct gp_plan_report rloc;
	struct bl_ctx c;
	if (bl_begin(&c, s, o, "search", out, &rep, &rloc, e))
		return -1;
	struct sg_search sr;
	if (sg_init(&sr, &c, o)) {
		sg_free(&sr);
		return bl_fail(&c, rep, e, "search: out of memory");
	}
	struct sg_seeds sd;
	sg_fill(&sr, sg_seed(&sr, o, warm, nwarm, &sd));
	int best_gen, gen = sg_evolve(&sr, &best_gen), from;
	struct gp_plan bp;
	double bt = sg_final(&sr, &sd, &bp, &from);
	int sims = c.nsim;
	bool by_work = c.work > c.work_limit;
	sg_free(&sr);
	if (bt == INF) {
		char msg[1024];
		snprintf(msg, sizeof msg, "search: no plan found that fits in %d generations%s%s%s",
			 gen, c.why[0] ? " (closest: " : "", c.why, c.why[0] ? ")" : "");
		return bl_fail(&c, rep, e, msg);
	}
	bl_plan_move(out, &bp);
	out->schedule = c.sched;
	out->chunks = c.chunks;   /* as judged */
	rep->estimate_s = rep->objective = bt;
	rep->seconds = bl_now_s() - c.t0;
	char tail[64];
	if (from >= 0)
		snprintf(tail, sizeof tail, "kept %s's plan, none beat it", sg_engines[from].name);
	else
		snprintf(tail, sizeof tail, "best found in generation %d", best_gen);
	rep->work_s = c.work / BL_WORK_RATE;
	snprintf(rep->note, sizeof rep->note,
		 "search: seed %u, %d generations of %d, %d plans simulated, seeded with %s; %s%s",
		 o && o->seed ? o->seed : 1, gen, SG_POP, sims,
		 sd.n ? sd.names : "nothing (random start)", tail,
		 by_work ? "; stopped by the work limit" : "");
	bl_note_clock(&c, rep);
	return 0;
}

/* The request's warm plan, if any, is a seed. */
static int sg_plan(const struct gp_scenario *s, const struct gp_plan_opts *o,
		   struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e)
{
	return sg_run(s, o, o->warm, o->warm ? 1 : 0, out, rep, e);
}

int gp_plan_search(const struct gp_scenario *s, const struct gp_plan_opts *o,
		   struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e)
{
	return bl_run(s, o, "search", sg_plan, out, rep, e);
}

int gp_plan_search_from(const struct gp_scenario *s, const struct gp_plan_opts *o,
			const struct gp_plan *warm, int nwarm, struct gp_plan *out,
			struct gp_plan_report *rep, struct gp_err *e)
{
	struct gp_plan_opts oo;
	struct gp_costtab *own;
	if (bl_opts(s, o, &oo, &own, e)) {
		memset(out, 0, sizeof *out);
		if (rep)
			*rep = (struct gp_plan_report){ .engine = "search", .status = GP_MILP_ERROR };
		return -1;
	}
	oo.warm = NULL;
	int rc = sg_run(s, &oo, warm, nwarm, out, rep, e);
	gp_costtab_free(own);
	return rc;
}
