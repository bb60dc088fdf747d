/*
 * plan_dp_across.c: the dp-across-dcs engine of planner.h, a reference
 * the placement MILP is measured against: pipeline groups inside each DC
 * (one per pool, or each DC's largest pool alone, whichever simulates
 * faster), replicas inside the DC, data parallelism across DCs with the
 * job's (hierarchical) gradient sync; the batch split by raw compute,
 * then by what the chosen layouts deliver. A DC the gradient ring cannot
 * reach is left out, weakest first. Each group's (TP, PP) layouts are
 * ranked by the estimate (estimate.c); the best set, then each group's
 * runners-up one at a time, are simulated.
 */
#include "baseline.h"
#include "ring.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DP_ALTS 3            /* layouts per group tried after the first */

struct dp_grp {
	int dc, pool, n;        /* micro-batches of the group */
	int t, p, R;
	int nalt;
	int alt[DP_ALTS + 1][2];   /* (t, p), best estimate first */
};

/* Replicas of layout (t, p) of a group: what its pool holds, within
 * the group's share of the budget (its share of the batch), at most one
 * per micro-batch. */
static int grp_replicas(const struct bl_ctx *c, const struct dp_grp *g, int t, int p)
{
	const struct gp_pool *pool = bl_pool_of(c->sc, g->dc, g->pool);
	int R = bl_pool_slots(pool, t) / p;
	int Rb = bl_afford(c, c->sc->gpus[pool->gpu].price_per_hour, t * p, (double)g->n / c->M);
	if (Rb < R)
		R = Rb;
	return R > g->n ? g->n : R;
}

/* The stages of one group: p stages of its pool, layers by compute. */
static int grp_stages(const struct bl_ctx *c, const struct dp_grp *g, int t, int p, int D,
		      struct gp_stage *st)
{
	int R = grp_replicas(c, g, t, p);
	if (R < 1)
		return -1;
	for (int i = 0; i < p; i++)
		st[i] = bl_mkstage(c->sc, g->dc, g->pool, t, 0, 0);
	return bl_fill_layers(c, st, p, bl_ceil_div(g->n, R), D) ? -1 : R;
}

static int dp_build(const struct bl_ctx *c, const struct dp_grp *gs, int ng, struct gp_plan *out)
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

/* Group g takes its layout a. */
static void dp_use_alt(const struct bl_ctx *c, struct dp_grp *g, int a)
{
	g->t = g->alt[a][0];
	g->p = g->alt[a][1];
	g->R = grp_replicas(c, g, g->t, g->p);
}

/* Keeps layout (t, p) of estimate x among g's DP_ALTS + 1 best, in order. */
static void dp_rank(struct dp_grp *g, double *est, int t, int p, double x)
{
	if (g->nalt == DP_ALTS + 1 && x >= est[DP_ALTS])
		return;
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

/* Ranks (t, p) layouts of one group alone by the estimate (until the
 * deadline, once it has one). */
static void dp_layouts(struct bl_ctx *c, struct dp_grp *g, int Dguess)
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
		for (int p = 1; p <= L && p <= bl_pool_slots(pool, t); p++) {
			if ((g->nalt || fb_tp) && bl_out_of_time(c))
				break;
			int R = grp_stages(c, g, t, p, Dguess, st);
			if (R < 1)
				continue;
			struct bl_builder b;
			bl_builder_init(&b, c->eval);
			bl_builder_group(&b, st, p, R, g->n);
			double x = b.oom ? INF : bl_est_plan(c, &b.p);
			gp_plan_free(&b.p);
			if (x != INF) {
				dp_rank(g, est, t, p, x);
			} else if (t * p > fb_tp) {
				/* Nothing fits by the estimate: the simulator may
				 * still take the layout with the least per GPU. */
				fb_tp = t * p;
				fb[0] = t;
				fb[1] = p;
			}
		}
	}
	free(st);
	if (!g->nalt && fb_tp) {
		g->nalt = 1;
		g->alt[0][0] = fb[0];
		g->alt[0][1] = fb[1];
	}
	if (g->nalt)
		dp_use_alt(c, g, 0);
}

/* The gradient ring over the DCs in (ordered as the simulator orders
 * it, ring.h) has a link on every hop. */
static bool ring_ok(const struct bl_ctx *c, const bool *in)
{
	const struct gp_scenario *s = c->sc;
	int *dcs = malloc((size_t)s->ndcs * 2 * sizeof *dcs), k = 0;
	double t = INF;
	if (!dcs)
		return false;
	for (int d = 0; d < s->ndcs; d++)
		if (in[d])
			dcs[k++] = d;
	bool ok = gp_ring_choose(s, c->ct, dcs, k, 1, 0, dcs + s->ndcs, &t) == 0 && t < INF;
	free(dcs);
	return ok;
}

/* Tries one set of groups: layouts by estimate, then each group's
 * runner-up layouts one at a time, kept when the simulator agrees (until
 * the deadline: the first set is always judged). */
static double dp_try(struct bl_ctx *c, struct dp_grp *gs, int ng, struct gp_plan *best)
{
	int D = 0;
	for (int i = 0; i < ng; i++) {
		dp_layouts(c, &gs[i], 1);
		if (!gs[i].nalt)
			return INF;
		D += gs[i].R;
	}
	for (int i = 0; i < ng && !bl_out_of_time(c); i++)   /* again, with ZeRO over all */
		dp_layouts(c, &gs[i], D);
	struct gp_plan pl;
	if (dp_build(c, gs, ng, &pl))
		return INF;
	double bt = bl_judge(c, &pl, false);
	bl_plan_move(best, &pl);
	for (int i = 0; i < ng; i++)
		for (int a = 1; a < gs[i].nalt && !bl_out_of_time(c); a++) {
			struct dp_grp keep = gs[i];
			dp_use_alt(c, &gs[i], a);
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

/* The DCs taken: every DC with pools, less those the gradient ring cannot
 * reach, weakest first. Returns how many were left out; *kdc: taken. */
static int dp_pick_dcs(const struct bl_ctx *c, bool *in, int *kdc)
{
	const struct gp_scenario *s = c->sc;
	int k = 0, dropped = 0;
	for (int d = 0; d < s->ndcs; d++)
		if (s->dcs[d].npools) {
			in[d] = true;
			k++;
		}
	while (k > 1 && !ring_ok(c, in)) {
		int weak = -1;
		for (int d = 0; d < s->ndcs; d++)
			if (in[d] && (weak < 0 || bl_dc_compute(c, d) < bl_dc_compute(c, weak)))
				weak = d;
		in[weak] = false;
		k--;
		dropped++;
	}
	*kdc = k;
	return dropped;
}

/* The groups of variant var over the DCs taken, weighed by compute:
 * 0, every pool its own group; 1, each DC's largest pool. Returns their
 * number. */
static int dp_groups(const struct bl_ctx *c, const bool *in, int var,
		     struct dp_grp *gs, double *w)
{
	const struct gp_scenario *s = c->sc;
	int ng = 0;
	for (int d = 0; d < s->ndcs; d++) {
		if (!in[d])
			continue;
		int big = 0;
		for (int q = 0; q < s->dcs[d].npools; q++) {
			double x = s->dcs[d].pools[q].count * bl_stage_rate(c, d, q, 1);
			if (var == 0) {
				gs[ng] = (struct dp_grp){ .dc = d, .pool = q };
				w[ng++] = x;
			} else if (x > s->dcs[d].pools[big].count * bl_stage_rate(c, d, big, 1)) {
				big = q;
			}
		}
		if (var == 1) {
			gs[ng] = (struct dp_grp){ .dc = d, .pool = big };
			w[ng++] = s->dcs[d].pools[big].count * bl_stage_rate(c, d, big, 1);
		}
	}
	return ng;
}

/* What group g's chosen layout delivers: replicas per second of its
 * slowest stage, by the estimate (0: no layout). */
static double dp_group_rate(const struct bl_ctx *c, const struct dp_grp *g)
{
	const struct gp_scenario *s = c->sc;
	if (!g->nalt)
		return 0;
	struct gp_stage *st = malloc((size_t)s->model.layers * sizeof *st);
	double mx = 0;
	int R = st ? grp_stages(c, g, g->t, g->p, 1, st) : -1;
	for (int j = 0; R > 0 && j < g->p; j++) {
		struct bl_stage_est se;
		bl_est_stage(c, &st[j], j == 0, j == g->p - 1, 1, 1, 0, &se);
		mx = fmax(mx, se.u);
	}
	double w = R > 0 && mx > 0 ? bl_pool_slots(bl_pool_of(s, g->dc, g->pool), g->t) /
				     g->p / mx : 0;
	free(st);
	return w;
}

/* The best plan so far, and which variant and how many groups made it. */
struct dp_best {
	struct gp_plan plan;
	double t;
	int var, ng;
};

/* One variant's ng groups: the batch in proportion to compute, then
 * (second pass) to what the chosen layouts deliver per second. */
static void dp_variant(struct bl_ctx *c, struct dp_grp *gs, double *w, int *share, int ng,
		       int var, struct dp_best *b)
{
	struct gp_plan pl = { 0 };
	for (int pass = 0; pass < 2 && !(pass && bl_out_of_time(c)); pass++) {
		bl_apportion(c->M, ng, w, share);
		int k = 0;
		for (int i = 0; i < ng; i++)
			if (share[i] > 0) {
				gs[k] = gs[i];
				gs[k++].n = share[i];
			}
		double t = dp_try(c, gs, k, &pl);
		if (t < b->t) {
			b->t = t;
			b->var = var;
			b->ng = k;
			bl_plan_move(&b->plan, &pl);
			gp_plan_progress(c->o, c->engine, "simulate", t, -HUGE_VAL, c->t0);
		} else {
			gp_plan_free(&pl);
		}
		for (int i = 0; i < k; i++)
			w[i] = dp_group_rate(c, &gs[i]);
		ng = k;
	}
}

static int dp_plan(const struct gp_scenario *s, const struct gp_plan_opts *o,
		   struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e)
{
	struct gp_plan_report rloc;
	struct bl_ctx c;
	if (bl_begin(&c, s, o, "dp-across-dcs", out, &rep, &rloc, e))
		return -1;
	bool *in = calloc((size_t)s->ndcs, sizeof *in);
	int npl = 0;
	for (int d = 0; d < s->ndcs; d++)
		npl += s->dcs[d].npools;
	struct dp_grp *gs = calloc((size_t)npl + 1, sizeof *gs);
	double *w = calloc((size_t)npl + 1, sizeof *w);
	int *share = calloc((size_t)npl + 1, sizeof *share);
	if (!in || !gs || !w || !share) {
		free(in);
		free(gs);
		free(w);
		free(share);
		return bl_fail(&c, rep, e, "dp-across-dcs: out of memory");
	}
	int kdc, dropped = dp_pick_dcs(&c, in, &kdc), ng0 = 0;
	struct dp_best b = { .plan = { 0 }, .t = INF, .var = -1, .ng = 0 };
	for (int var = 0; var < 2 && !(var && b.t < INF && bl_out_of_time(&c)); var++) {
		int ng = dp_groups(&c, in, var, gs, w);
		if (var == 0)
			ng0 = ng;
		else if (ng == ng0)
			break;   /* one pool per DC: the same as variant 0 */
		dp_variant(&c, gs, w, share, ng, var, &b);
	}
	free(in);
	free(gs);
	free(w);
	free(share);
	if (b.t == INF) {
		gp_plan_free(&b.plan);
		char msg[1024];
		snprintf(msg, sizeof msg, "dp-across-dcs: no pipeline inside a DC fits the model%s%s%s",
			 c.why[0] ? " (closest: " : "", c.why, c.why[0] ? ")" : "");
		return bl_fail(&c, rep, e, msg);
	}
	if (bl_finish(&c, &b.plan, out, rep, e))
		return -1;
	snprintf(rep->note, sizeof rep->note,
		 "dp-across-dcs: %d pipeline groups (%s) in %d DC%s%s, %s gradient sync, batch by compute; %d plans simulated",
		 b.ng, b.var ? "largest pool per DC" : "one per pool", kdc, kdc > 1 ? "s" : "",
		 dropped ? " (some left out: no gradient ring)" : "",
		 kdc < 2 ? "local" : gp_plan_sync(s, out) == GP_SYNC_HIER ? "hierarchical" : "flat (the job's)",
		 c.nsim);
	bl_note_clock(&c, rep);
	return 0;
}

int gp_plan_dp_across_dcs(const struct gp_scenario *s, const struct gp_plan_opts *o,
			  struct gp_plan *out, struct gp_plan_report *rep,
			  struct gp_err *e)
{
	return bl_run(s, o, "dp-across-dcs", dp_plan, out, rep, e);
}
