/*
 * place_warm.c: the placement MILP's warm start from a given plan
 * (place_int.h; --warm: a heuristic's, or the plan to improve on).
 *
 * The plan's pipelines become classes of one or two segments (chains,
 * and stages of no kind, give no warm start), re-split by the model; the
 * first option that admits it (replicas, DCs, links, sync mode) gives
 * the incumbent the search starts below: the plan's own counts when
 * they hold the covering MILP's rows, timed as the search times a mix
 * (pm_barrier_T: each bucket waits for its layers' latest holder, and a
 * layer's ring spans only the DCs its replicas sit in, so a uniform
 * plan's in-DC rings pay no WAN sync); else a probe at the plan's
 * breakpoint T_w (the slowest class's at its micro-batches per
 * replica), where the covering MILP decides.
 */
#include "place_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The class of m->c with these segments, or -1. */
static int find_class(const struct pm *m, int nseg, const int *kind, const int *n)
{
	for (int i = 0; i < m->nc; i++) {
		const struct pm_class *c = &m->c[i];
		if (c->nseg != nseg)
			continue;
		bool same = true;
		for (int g = 0; g < nseg && same; g++)
			same = c->kind[g] == kind[g] && c->n[g] == n[g];
		if (same)
			return i;
	}
	return -1;
}

/* The kind of a plan stage, or -1. */
static int stage_kind(const struct pm *m, const struct gp_stage *st)
{
	const struct gp_scenario *s = m->sc;
	enum gp_recompute rc = st->recompute_set ? st->recompute : s->job.recompute;
	if (st->dc < 0 || st->dc >= s->ndcs || st->pool < 0 || st->pool >= s->dcs[st->dc].npools)
		return -1;
	const struct gp_pool *p = &s->dcs[st->dc].pools[st->pool];
	for (int i = 0; i < m->nk; i++)
		if (m->k[i].p == p && m->k[i].tp == st->tp && m->k[i].rc == rc)
			return i;
	return -1;
}

/* A plan's pipelines as segments, seg[p] = { nseg, kind..., n... }, the
 * DCs they use (dcs) and their replicas (*D); false when a stage has no
 * kind or a pipeline is a chain (not in the covering options). */
static bool warm_segments(const struct pm *m, const struct gp_plan *warm,
			  int (*seg)[2 * PM_MAXSEG + 1], bool *dcs, int *D)
{
	for (int p = 0; p < warm->npipes; p++) {
		const struct gp_pipeline *pp = &warm->pipes[p];
		int ns = 0;
		for (int j = 0; j < pp->nstages; j++) {
			int k = stage_kind(m, &pp->stages[j]);
			if (k < 0)
				return false;
			if (ns == 0 || seg[p][ns] != k) {
				if (ns == 2)
					return false;   /* chains: not in the covering options */
				ns++;
				seg[p][ns] = k;
			}
			seg[p][PM_MAXSEG + ns]++;
			dcs[pp->stages[j].dc] = true;
		}
		seg[p][0] = ns;
		*D += pp->replicas;
	}
	return true;
}

/* Does option o admit a plan of D replicas on ndc DCs (dcs) whose DP
 * sync runs as the plan says? (Its links: warm_links.) */
static bool warm_admits(const struct pm *m, const struct pm_opt *o, const struct gp_plan *warm,
			int D, int ndc)
{
	if (o->uni || (o->one ? D != 1 : D < o->d || D > o->dhi || ndc > o->K))
		return false;
	if (!o->one && o->K >= 2 && ndc >= 2 && o->mode != gp_plan_sync(m->sc, warm))
		return false;   /* the plan's sync runs another way */
	return true;
}

/* Are the DCs the plan uses joined at option o's link class? */
static bool warm_links(const struct pm *m, const struct pm_opt *o, const bool *dcs)
{
	const struct gp_scenario *s = m->sc;
	bool ok = true;
	for (int a = 0; ok && o->K >= 2 && a < s->ndcs; a++) {
		ok = !dcs[a] || pm_opt_dc_ok(o, a);
		for (int b = a + 1; ok && b < s->ndcs; b++)
			if (dcs[a] && dcs[b])
				ok = pm_opt_pair_ok(m, o, a, b);
	}
	return ok;
}

/* idx, cur->y and cur->x sized for m->nc classes (*cap: their size). */
static bool warm_grow(const struct pm *m, int **idx, struct pm_sol *cur, int *cap)
{
	if (m->nc <= *cap)
		return true;
	int *i2 = realloc(*idx, (size_t)m->nc * sizeof **idx);
	int *y2 = realloc(cur->y, (size_t)m->nc * sizeof *cur->y);
	int *x2 = realloc(cur->x, (size_t)m->nc * sizeof *cur->x);
	*idx = i2 ? i2 : *idx;
	cur->y = y2 ? y2 : cur->y;
	cur->x = x2 ? x2 : cur->x;
	if (!i2 || !y2 || !x2)
		return false;
	*cap = m->nc;
	return true;
}

/* cur := the plan in the classes of m (option o's tails on those it
 * uses), *T its slowest class's breakpoint at its micro-batches per
 * replica; false when a pipeline is no class here. */
static bool warm_counts(struct pm *m, const struct pm_opt *o, const struct gp_plan *warm,
			int (*seg)[2 * PM_MAXSEG + 1], struct pm_sol *cur, double *T)
{
	bool ok = true;
	memset(cur->y, 0, (size_t)m->nc * sizeof *cur->y);
	memset(cur->x, 0, (size_t)m->nc * sizeof *cur->x);
	*T = -INF;
	for (int p = 0; ok && p < warm->npipes; p++) {
		int c = find_class(m, seg[p][0], &seg[p][1], &seg[p][PM_MAXSEG + 1]);
		ok = c >= 0;
		if (ok) {
			cur->y[c] += warm->pipes[p].replicas;
			cur->x[c] += warm->pipes[p].replicas * warm->pipes[p].micro_batches;
		}
	}
	for (int c = 0; ok && c < m->nc; c++)
		if (cur->y[c] > 0) {
			if (o->one || !m->c[c].on)
				m->c[c].E = pm_class_tail(m, &m->c[c], o);
			*T = fmax(*T, pm_bp(m, &m->c[c], (cur->x[c] + cur->y[c] - 1) / cur->y[c]));
		}
	return ok;
}

/* Does the plan in cur (its counts in the classes of m) hold the
 * covering MILP's rows itself: each pool's GPUs, each class's replica
 * limit, each link's cycle rows (sum y bb / U_c <= its bandwidth), the
 * budget? */
static bool warm_fits(const struct pm *m, const struct pm_sol *cur)
{
	const struct gp_scenario *s = m->sc;
	long *use = gp_xcalloc((size_t)m->npools + 1, sizeof *use);
	double *row = gp_xcalloc((size_t)s->nlinks + 1, sizeof *row), price = 0;
	bool ok = use && row;
	for (int i = 0; ok && i < m->nc; i++) {
		const struct pm_class *c = &m->c[i];
		int f[2], g[2];
		if (cur->y[i] < 1)
			continue;
		ok = cur->y[i] <= c->ymax;
		pm_class_use(m, c, f, g);
		for (int q = 0; q < 2; q++)
			if (f[q] >= 0)
				use[f[q]] += (long)cur->y[i] * g[q];
		for (int b = 0; b + 1 < c->nseg; b++)
			for (int w = 0; w < 2; w++)
				if (c->lk[b][w] >= 0)
					row[c->lk[b][w]] += cur->y[i] * m->bb / c->U;
		price += cur->y[i] * c->price;
	}
	for (int q = 0; ok && q < m->npools; q++)
		ok = use[q] <= m->pl[q]->count;
	for (int l = 0; ok && l < s->nlinks; l++)
		ok = row[l] <= m->wan[l].bw * (1 + 1e-9);
	ok = ok && !(m->budget > 0 && price > m->budget * (1 + 1e-12));
	free(use);
	free(row);
	return ok;
}

/* A warm start from a plan (a heuristic's): its pipelines as classes of
 * one or two segments, re-split by the model; for every option that
 * admits the result, T_w = the slowest class's breakpoint at its
 * micro-batches per replica, and a probe at T_w (the covering MILP
 * decides: the plan's counts are one witness). The first such T_w is the
 * incumbent the search starts below. Returns 1 if one was found. */
int pm_warm_start(struct pm *m, const struct gp_plan *warm, struct pm_best *best,
		  struct pm_sol *sol, struct gp_err *e)
{
	const struct gp_scenario *s = m->sc;
	int np = warm ? warm->npipes : 0, D = 0, took = 0;
	int (*seg)[2 * PM_MAXSEG + 1] = np ? gp_xcalloc((size_t)np, sizeof *seg) : NULL;
	bool *dcs = gp_xcalloc((size_t)s->ndcs + 1, sizeof *dcs);
	if (!seg || !dcs || !warm_segments(m, warm, seg, dcs, &D)) {
		free(seg);
		free(dcs);
		return 0;
	}
	int *idx = gp_xcalloc((size_t)m->nc + 1, sizeof *idx);
	struct pm_sol cur = { .y = gp_xcalloc((size_t)m->nc + 1, sizeof *cur.y),
			      .x = gp_xcalloc((size_t)m->nc + 1, sizeof *cur.x) };
	int ndc = 0, cap = m->nc;
	for (int a = 0; a < s->ndcs; a++)
		ndc += dcs[a];
	for (int oi = 0; idx && cur.y && cur.x && oi < m->nopt; oi++) {
		const struct pm_opt *o = &m->opt[oi];
		if (!warm_admits(m, o, warm, D, ndc))
			continue;
		if (pm_stop(m))
			break;
		if (!warm_links(m, o, dcs))
			continue;
		if (pm_enum_classes(m, s->job.zero ? o->d : 1) < 0) {
			took = gp_errf(e, "out of memory");
			break;
		}
		if (!warm_grow(m, &idx, &cur, &cap))
			break;
		int n = pm_set_option(m, o, INF, idx);
		double T;
		if (!warm_counts(m, o, warm, seg, &cur, &T) || !(T < best->T))
			continue;
		/* The option's classes (sorted by pm_set_option) and the plan's. */
		int nn = n;
		for (int c = 0; c < m->nc; c++)
			if (!m->c[c].on && cur.y[c] > 0)
				idx[nn++] = c;
		/* The plan itself, when it holds the rows: its time under the
		 * DP sync's barrier, each layer's ring over the DCs its
		 * replicas sit in (the tails charge every layer a WAN ring). */
		cur.opt = oi;
		double Tw = warm_fits(m, &cur) ? pm_barrier_T(m, &cur) : -INF;
		int r = Tw > -INF ? 1 : pm_probe(m, oi, idx, nn, T, PM_FEAS, &cur, e);
		if (r < 0) {
			took = -1;
			break;
		}
		/* Else the probe's plan, under the barrier (as the search's). */
		double Tb = Tw > -INF ? Tw : r == 1 ? pm_barrier_T(m, &cur) : -INF;
		if (Tb > -INF)
			T = Tb;
		if (!(T < best->T))
			continue;
		if (r == 1 && pm_take_incumbent(m, best, sol, &cur, T, oi, s->job.zero ? o->d : 1) == 0) {
			best->lo = -INF;
			took++;
			break;   /* an incumbent is all the search needs */
		}
	}
	free(seg);
	free(dcs);
	free(idx);
	free(cur.y);
	free(cur.x);
	return took;
}
