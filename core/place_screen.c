/*
 * place_screen.c: one probe of the placement MILP (place_int.h), from
 * an option's classes at one T to GLPK's answer: pruning, the screens
 * that settle most probes without a MILP, and the rounding of the LP's
 * point.
 *
 * At a fixed T, classes with the same pools, GPUs and links differ only
 * in m_c(T): the probe keeps the largest of each. It then drops classes
 * dominated at T (prune: one-pool classes do as much with the same
 * GPUs), and is screened: infeasible when the K DCs with the most
 * micro-batch capacity cannot take N (cap_ok), when dhi replicas of the
 * class taking the most cannot, when d replicas of the smallest class
 * need more GPUs than there are, or when the LP relaxation is infeasible
 * (the search runs the first two per option too, before the tails, with
 * no tail). Else the LP's point, rounded (place_round.c), may be a plan,
 * which settles the probe; else the covering MILP decides
 * (place_cover.c). The LP screens of PM_DUAL_N classes and more go to
 * the dual simplex (with no objective every basis is dual feasible).
 * Under a cap on D prune's strongest rule does not hold: the probe is
 * solved without the cap first (infeasible there, infeasible here; a
 * plan within the cap is one here), else on the one-for-one classes.
 *
 * A probe answers 1 feasible (its solution filled if asked), 0 not, 3
 * undecided within its time, -1 error.
 */
#include "place_int.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* GPUs of each pool a replica of c takes: pools f[0..1] (f[1] -1 if one). */
void pm_class_use(const struct pm *m, const struct pm_class *c, int f[2], int g[2])
{
	f[0] = m->k[c->kind[0]].fp;
	g[0] = c->n[0] * m->k[c->kind[0]].tp;
	f[1] = -1;
	g[1] = 0;
	if (c->nseg == 2) {
		int f1 = m->k[c->kind[1]].fp, g1 = c->n[1] * m->k[c->kind[1]].tp;
		if (f1 == f[0]) {
			g[0] += g1;
		} else {
			f[1] = f1;
			g[1] = g1;
		}
	}
}

/* The fewest GPUs a replica of the classes idx[0..n) takes. */
long pm_fewest_gpus(const struct pm *m, const int *idx, int n)
{
	long g = LONG_MAX;
	for (int j = 0; j < n; j++) {
		const int *sg = m->c[idx[j]].sg;
		if (sg[1] + sg[3] < g)
			g = sg[1] + sg[3];
	}
	return g;
}

/* The one-pool classes (no link, one DC) of a probe by pool: pool f's
 * are lst[start[f] .. start[f] + cnt[f]), each with its GPUs and
 * micro-batches at T in gm[2 q], gm[2 q + 1]. */
struct pm_onepool {
	int *cnt, *start, *lst, *gm;
};

static void onepool_free(struct pm_onepool *p)
{
	free(p->cnt);
	free(p->start);
	free(p->lst);
	free(p->gm);
}

static bool onepool_build(const struct pm *m, const int *idx, int n, double T,
			  struct pm_onepool *p)
{
	int np = m->npools;
	p->cnt = gp_xcalloc((size_t)np + 1, sizeof *p->cnt);
	p->start = gp_xcalloc((size_t)np + 1, sizeof *p->start);
	p->lst = gp_xcalloc((size_t)n, sizeof *p->lst);
	p->gm = gp_xcalloc((size_t)n * 2, sizeof *p->gm);
	if (!p->cnt || !p->start || !p->lst || !p->gm)
		return false;
	for (int j = 0; j < n; j++) {
		int f[2], g[2];
		pm_class_use(m, &m->c[idx[j]], f, g);
		if (f[1] < 0 && m->c[idx[j]].la < 0)
			p->cnt[f[0]]++;
	}
	for (int f = 0; f < np; f++)
		p->start[f + 1] = p->start[f] + p->cnt[f];
	memset(p->cnt, 0, (size_t)np * sizeof *p->cnt);
	/* Per pool: (GPUs, micro-batches) of its one-pool classes. */
	for (int j = 0; j < n; j++) {
		int f[2], g[2];
		pm_class_use(m, &m->c[idx[j]], f, g);
		if (f[1] < 0 && m->c[idx[j]].la < 0) {
			int at = p->start[f[0]] + p->cnt[f[0]]++;
			p->gm[2 * at] = g[0];
			p->gm[2 * at + 1] = pm_m_of(m, &m->c[idx[j]], T);
			p->lst[at] = idx[j];
		}
	}
	return true;
}

/* The fast path's tables, [f * (G + 1) + g] each: per pool f, by GPU
 * count g <= G, the most micro-batches floor(g / g_q) copies of a
 * one-pool class q with g_q < g do (blt), the most one copy does (slt),
 * and the class with g_q = g (eq, -1 when it fits none), in one
 * allocation. With one class per pool and GPU count (probe_classes keeps one
 * per signature) that is dominated_slow's loop, which excludes the class
 * itself; NULL when two have one count (dominated_slow settles their ties)
 * or out of memory. */
static long *fast_tables(const struct pm *m, const struct pm_onepool *p, int G)
{
	int np = m->npools;
	size_t w = (size_t)G + 1;
	long *blt = gp_xcalloc((size_t)np * w * 3 + 1, sizeof *blt);
	long *slt = blt ? blt + (size_t)np * w : NULL, *eq = blt ? slt + (size_t)np * w : NULL;
	bool fast = blt != NULL;
	for (int f = 0; fast && f < np; f++)
		for (int q = p->start[f]; fast && q < p->start[f] + p->cnt[f]; q++) {
			int gq = p->gm[2 * q];
			long mq = p->gm[2 * q + 1];
			if (gq < 1 || gq > G || eq[(size_t)f * w + (size_t)gq]) {
				fast = false;   /* (two with one count: the loop's ties) */
				break;
			}
			eq[(size_t)f * w + (size_t)gq] = mq > 0 ? mq : -1;
			for (int x = gq + 1; x <= G; x++) {
				long v = (long)(x / gq) * mq;
				if (v > blt[(size_t)f * w + (size_t)x])
					blt[(size_t)f * w + (size_t)x] = v;
				if (mq > slt[(size_t)f * w + (size_t)x])
					slt[(size_t)f * w + (size_t)x] = mq;
			}
		}
	if (!fast) {
		free(blt);
		return NULL;
	}
	return blt;
}

/* What one-pool classes do with the GPUs of class c at T: *sum, the
 * best copies on each of its pools together; *single, the most one
 * replica does. From the fast path's tables. */
static void dominated_fast(const struct pm *m, const struct pm_class *c, const long *blt, int G,
			   long *sum, long *single)
{
	size_t w = (size_t)G + 1;
	const long *slt = blt + (size_t)m->npools * w, *eq = slt + (size_t)m->npools * w;
	int f[2], g[2];
	pm_class_use(m, c, f, g);
	bool one = f[1] < 0 && c->la < 0;
	*sum = *single = 0;
	for (int s = 0; s < 2 && f[s] >= 0; s++) {
		size_t at = (size_t)f[s] * w + (size_t)g[s];
		long e = one || eq[at] < 0 ? 0 : eq[at];
		*sum += blt[at] > e ? blt[at] : e;
		if (slt[at] > *single)
			*single = slt[at];
		if (e > *single)
			*single = e;
	}
}

/* The same from the one-pool lists (c is m->c[ci], mc its micro-batches
 * at T), which settle ties: equal one-pool classes keep the earlier. */
static void dominated_slow(const struct pm *m, const struct pm_class *c, int ci, int mc,
			   const struct pm_onepool *p, long *sum, long *single)
{
	int f[2], g[2];
	pm_class_use(m, c, f, g);
	bool one = f[1] < 0 && c->la < 0;
	*sum = *single = 0;
	for (int s = 0; s < 2 && f[s] >= 0; s++) {
		long best = 0;
		for (int q = p->start[f[s]]; q < p->start[f[s]] + p->cnt[f[s]]; q++) {
			int k = g[s] / p->gm[2 * q];
			/* Equal one-pool classes: the earlier stays. */
			if (p->lst[q] == ci || (one && k == 1 && g[0] == p->gm[2 * q] &&
						mc == p->gm[2 * q + 1] && p->lst[q] > ci))
				continue;
			if ((long)k * p->gm[2 * q + 1] > best)
				best = (long)k * p->gm[2 * q + 1];
			if (k >= 1 && p->gm[2 * q + 1] > *single)
				*single = p->gm[2 * q + 1];
		}
		*sum += best;
	}
}

/* Dominance at a fixed T: a class c is dropped when one-pool classes
 * (no links, one DC) on its pools do as much with its GPUs: on each pool
 * p of c, k_p = floor(GPUs of c on p / GPUs of c'_p) copies of the best
 * such c'_p, and sum_p k_p m_c'_p(T) >= m_c(T). Any plan using y replicas
 * of c maps to one using k_p y (or fewer, each keeping a micro-batch, at
 * least y in all) replicas of the c'_p: no more GPUs, DCs, links or
 * dollars, at least as many replicas, the same micro-batches. With
 * one_for_one (an option capping the replicas), only a single c'
 * replica with m_c'(T) >= m_c(T) on GPUs of c dominates. Ties between
 * equal one-pool classes keep the earlier. Keeps idx's order. */
static int prune(const struct pm *m, int *idx, int n, double T, bool one_for_one)
{
	struct pm_onepool p = { 0 };
	if (!onepool_build(m, idx, n, T, &p)) {
		onepool_free(&p);
		return n;
	}
	int G = 0;
	for (int j = 0; j < n; j++) {
		int f[2], g[2];
		pm_class_use(m, &m->c[idx[j]], f, g);
		G = g[0] > G ? g[0] : G;
		G = g[1] > G ? g[1] : G;
	}
	long *blt = fast_tables(m, &p, G);
	int kept = 0;
	for (int j = 0; j < n; j++) {
		const struct pm_class *c = &m->c[idx[j]];
		int mc = pm_m_of(m, c, T);
		long sum, single;
		if (blt)
			dominated_fast(m, c, blt, G, &sum, &single);
		else
			dominated_slow(m, c, idx[j], mc, &p, &sum, &single);
		bool dom = one_for_one ? single >= mc : sum >= mc;
		if (!dom)
			idx[kept++] = idx[j];
	}
	free(blt);
	onepool_free(&p);
	return kept;
}

/* An upper bound on the micro-batches the plan can take at T: per pool,
 * its GPUs times the best micro-batches per GPU of a class on it (a
 * class on two pools counted on both), summed per DC, the K largest DCs
 * (all of them for D = 1 or one DC: then the bound is the pools'). */
static bool cap_ok(const struct pm *m, const struct pm_opt *o, const int *idx, int n, double T)
{
	int np = m->npools, nd = m->sc->ndcs;
	double *rate = gp_xcalloc((size_t)np, sizeof *rate), *dc = gp_xcalloc((size_t)nd, sizeof *dc);
	if (!rate || !dc) {
		free(rate);
		free(dc);
		return true;
	}
	for (int j = 0; j < n; j++) {
		const struct pm_class *c = &m->c[idx[j]];
		int f[2], g[2];
		pm_class_use(m, c, f, g);
		double mc = pm_m_of(m, c, T);
		for (int s = 0; s < 2 && f[s] >= 0; s++)
			if (mc / g[s] > rate[f[s]])
				rate[f[s]] = mc / g[s];
	}
	for (int f = 0; f < np; f++)
		dc[m->pl_dc[f]] += floor(rate[f] * m->pl[f]->count + 1e-9);
	qsort(dc, (size_t)nd, sizeof *dc, pm_cmp_dbl_desc);
	int K = o->one ? nd : o->K < nd ? o->K : nd;
	double tot = 0;
	for (int d = 0; d < K; d++)
		tot += dc[d];
	free(rate);
	free(dc);
	return tot >= m->N;
}

/* Is the LP relaxation of option o's covering problem on idx[0..n)
 * infeasible? (Then so is the MILP.) If not and yl is given, yl[j] gets
 * the LP's replicas of class idx[j] (0 when it has no point). */
static bool relax_infeasible(struct pm *m, const struct pm_opt *o, const int *idx, int n,
			     double T, int *cy, int *cx, double *yl, struct gp_err *e)
{
	struct gp_milp *rl = pm_cover_build(m, o, idx, n, T, PM_FEAS, true, cy, cx, NULL, NULL);
	double left = m->deadline - pm_now_s();
	/* The dual simplex pays on large LPs only (PM_DUAL_N classes). */
	struct gp_milp_params rp = { .time_limit = fmax(0.05, fmin(left, m->probe_tl)),
				     .dual = n >= PM_DUAL_N, .it_limit = rl ? pm_it_limit(m, rl, true) : 0,
				     .cancel = m->o ? m->o->cancel : NULL };
	struct gp_milp_report rr;
	int st = rl ? gp_milp_solve(rl, &rp, &rr, e) : -1;
	if (st == 0)
		m->work += pm_it_work(rl, true) * (double)rr.iterations;
	m->it_stops += st == 0 && rr.it_stopped;
	bool inf = st == 0 && rr.status == GP_MILP_INFEASIBLE;
	for (int j = 0; yl && j < n; j++)
		yl[j] = st == 0 && rr.x && (rr.status == GP_MILP_OPTIMAL ||
					    rr.status == GP_MILP_FEASIBLE) ? rr.x[cy[j]] : 0;
	if (st == 0)
		gp_milp_report_free(&rr);
	gp_milp_free(rl);
	m->screened += inf;
	return inf;
}

/* One probe as pm_probe_ws works it. */
struct pm_probe {
	struct pm *m;
	int oi;
	const struct pm_opt *o;
	struct pm_opt ou;              /* o without its cap on the replicas */
	bool capped;                   /* o caps the replicas (D <= dhi < Dmax) */
	double T;
	enum pm_goal goal;
	int *idx, n;                   /* the largest class of each signature */
	int *ia, na;                   /* those pruning leaves */
	int *cy, *cx;                  /* column scratch of the LP screens */
	struct pm_sol *sol;
	struct gp_err *e;
};

static void probe_free(struct pm_probe *p)
{
	free(p->idx);
	free(p->ia);
	free(p->cy);
	free(p->cx);
}

/* At a fixed T, classes with the same pools, GPUs and links differ
 * only in m_c(T): idx gets the largest of each (idx0 is sorted by
 * signature), and none that fits no micro-batch; returns their count. */
static int probe_classes(const struct pm *m, const int *idx0, int n0, double T, int *idx)
{
	int n = 0, prev[6] = { -2 }, bm = 0;
	double pu = -1;
	for (int j = 0; j < n0; j++) {
		const struct pm_class *c = &m->c[idx0[j]];
		int mb = pm_m_of(m, c, T);
		const int *sg = c->sg;
		/* (Crossing a link, also U: the cycle rows weigh 1 / U.) */
		bool same = n > 0 && !memcmp(sg, prev, sizeof prev) && (c->la < 0 || c->U == pu);
		if (mb >= 1 && !same)
			pu = c->U;
		if (mb < 1 || (same && mb <= bm))
			continue;
		if (same) {
			idx[n - 1] = idx0[j];
		} else {
			idx[n++] = idx0[j];
			memcpy(prev, sg, sizeof prev);
		}
		bm = mb;
	}
	return n;
}

/* The screens on the replica bounds: no classes left when they fail. */
static void probe_screens(struct pm_probe *p)
{
	struct pm *m = p->m;
	/* At least d replicas, each with the GPUs of the smallest class
	 * that fits a micro-batch at T. */
	if (!p->o->one && p->n && pm_fewest_gpus(m, p->idx, p->n) * p->o->d > m->gpus) {
		m->screened++;
		p->n = 0;
	}
	/* Under the cap, dhi replicas of the class fitting the most
	 * micro-batches must take N. */
	if (p->capped && p->goal == PM_FEAS) {
		int mmax = 0, bm;
		for (int j = 0; j < p->n; j++)
			if (bm = pm_m_of(m, &m->c[p->idx[j]], p->T), bm > mmax)
				mmax = bm;
		if ((long)p->o->dhi * mmax < m->N) {
			m->screened++;
			p->n = 0;
		}
	}
}

/* p->ia := the classes the one-for-one rule leaves, which holds under
 * the cap. */
static void prune_one_for_one(struct pm_probe *p)
{
	memcpy(p->ia, p->idx, (size_t)p->n * sizeof *p->ia);
	p->na = prune(p->m, p->ia, p->n, p->T, true);
}

/* The probe under the cap on the one-for-one classes: the LP screen,
 * then the covering MILP. */
static int solve_one_for_one(struct pm_probe *p)
{
	prune_one_for_one(p);
	return relax_infeasible(p->m, p->o, p->ia, p->na, p->T, p->cy, p->cx, NULL, p->e) ? 0 :
	       pm_cover_solve(p->m, p->oi, p->o, p->ia, p->na, p->T, p->goal, NULL, p->sol, p->e);
}

/* The probe under the cap: its strongly pruned classes solved without
 * the cap first (the relaxation, where the strong rule holds).
 * Infeasible there, infeasible here; a plan within the cap is one here,
 * for an objective the optimum (for a bound only, the relaxation's will
 * do). Else the one-for-one classes: a feasibility probe solves them;
 * for an objective they are left in p->ia, and -2 returned. */
static int capped_probe(struct pm_probe *p, const struct pm_sol *ws)
{
	struct pm *m = p->m;
	bool feas = p->goal == PM_FEAS;
	struct pm_sol t = { .y = gp_xcalloc((size_t)m->nc + 1, sizeof *t.y),
			    .x = gp_xcalloc((size_t)m->nc + 1, sizeof *t.x) };
	if (!t.y || !t.x) {
		free(t.y);
		free(t.x);
		return gp_errf(p->e, "out of memory");
	}
	int r1 = pm_cover_solve(m, p->oi, &p->ou, p->ia, p->na, p->T, p->goal, ws, &t, p->e);
	long D = 0;
	for (int j = 0; r1 == 1 && j < p->na; j++)
		D += t.y[p->ia[j]];
	int rc = -2;
	if (r1 == 1 && (D <= p->o->dhi || (!feas && m->bound_only))) {
		if (p->sol) {
			pm_sol_copy(m, p->sol, &t, p->oi);
			if (!feas)
				p->sol->proven = t.proven && D <= p->o->dhi;
		}
		rc = 1;
	} else if (r1 <= 0) {
		rc = r1;
	} else if (feas) {
		rc = solve_one_for_one(p);
	} else {
		prune_one_for_one(p);
	}
	free(t.y);
	free(t.x);
	return rc;
}

/* Screens the probe on p->ia at T, else rounds the LP's point, else
 * solves the covering MILP (under the cap as the header says). *by_milp:
 * the strongly pruned classes went to the MILP under the cap. */
static int probe_decide(struct pm_probe *p, const struct pm_sol *ws, bool *by_milp)
{
	struct pm *m = p->m;
	const struct pm_opt *o = p->o;
	int rc = -2;
	/* An objective under the cap: without the cap the optimum is a
	 * lower bound; when its plan keeps the cap it is the optimum. */
	if (p->capped && p->goal != PM_FEAS && p->na > 0)
		rc = capped_probe(p, ws);
	/* Screening: when the K DCs that could do the most cannot take N
	 * micro-batches, or the LP relaxation (without the cap) is
	 * infeasible, neither is the MILP feasible. */
	if (p->na > 0 && p->goal == PM_FEAS && !cap_ok(m, o, p->ia, p->na, p->T)) {
		m->screened++;
		rc = 0;
	}
	double *yl = p->goal == PM_FEAS && !ws && !o->one ? gp_xcalloc((size_t)p->na + 1, sizeof *yl)
							     : NULL;
	if (rc == -2 && p->na > 0 && p->goal == PM_FEAS &&
	    relax_infeasible(m, &p->ou, p->ia, p->na, p->T, p->cy, p->cx, yl, p->e))
		rc = 0;
	*by_milp = rc == -2;
	/* The LP's point, rounded, may settle the probe without branching. */
	struct pm_sol hs = { 0 };
	if (rc == -2 && yl) {
		hs.y = gp_xcalloc((size_t)m->nc + 1, sizeof *hs.y);
		hs.x = gp_xcalloc((size_t)m->nc + 1, sizeof *hs.x);
		if (hs.y && hs.x && pm_round_lp(m, o, p->ia, p->na, p->T, yl, &hs))
			ws = &hs;
	}
	if (rc == -2 && p->goal == PM_FEAS && p->capped && p->na < p->n) {
		rc = capped_probe(p, ws);
		*by_milp = false;
	}
	if (rc == -2)
		rc = pm_cover_solve(m, p->oi, o, p->ia, p->na, p->T, p->goal, ws, p->sol, p->e);
	free(hs.y);
	free(hs.x);
	free(yl);
	return rc;
}

/* Solves one probe of option oi at T on its classes idx0[0..n0) (sorted
 * by pm_set_option), ws a plan to offer GLPK: 1 feasible (sol filled if
 * given), 0 not, 3 undecided, -1 error.
 *
 * prune's strong rule (k replicas of a smaller class for one) does not
 * hold under the option's cap on replicas (D <= dhi). So a feasibility
 * probe is screened and solved on the strongly pruned classes; a
 * feasible answer stands (pruning only removes classes); an infeasible
 * one stands when the same classes are infeasible without the cap too
 * (a relaxation), else the probe is solved again on the classes the
 * one-for-one rule leaves. An objective probe under the cap is solved
 * without it first: a plan within the cap is the optimum, else the
 * one-for-one classes decide. */
int pm_probe_ws(struct pm *m, int oi, const int *idx0, int n0, double T, enum pm_goal goal,
		const struct pm_sol *ws, struct pm_sol *sol, struct gp_err *e)
{
	const struct pm_opt *o = &m->opt[oi];
	if (o->one && goal != PM_FEAS)
		return pm_one_obj(m, oi, idx0, n0, T, goal, sol);
	int Dmax = m->gpus < m->N ? m->gpus : m->N;
	struct pm_probe p = { .m = m, .oi = oi, .o = o, .ou = *o, .capped = !o->one && o->dhi < Dmax,
			      .T = T, .goal = goal, .sol = sol, .e = e };
	p.ou.dhi = Dmax;
	p.idx = gp_xcalloc((size_t)n0 + 1, sizeof *p.idx);
	p.ia = gp_xcalloc((size_t)n0 + 1, sizeof *p.ia);
	p.cy = gp_xcalloc((size_t)n0 + 1, sizeof *p.cy);
	p.cx = gp_xcalloc((size_t)n0 + 1, sizeof *p.cx);
	if (!p.idx || !p.ia || !p.cy || !p.cx) {
		probe_free(&p);
		return gp_errf(e, "out of memory");
	}
	p.n = probe_classes(m, idx0, n0, T, p.idx);
	probe_screens(&p);
	memcpy(p.ia, p.idx, (size_t)p.n * sizeof *p.ia);
	p.na = p.n;
	/* (Not with D = 1: the map to k y replicas would break it.) */
	if (p.n > 1 && !o->one)
		p.na = prune(m, p.ia, p.n, T, false);
	bool by_milp;
	int rc = probe_decide(&p, ws, &by_milp);
	/* Infeasible on the strongly pruned classes under the cap: it
	 * stands when they are infeasible without the cap too. */
	if (rc == 0 && by_milp && goal == PM_FEAS && p.capped && p.na < p.n) {
		int r2 = pm_cover_solve(m, oi, &p.ou, p.ia, p.na, T, goal, NULL, NULL, e);
		if (r2 != 0)
			rc = r2 < 0 ? r2 : solve_one_for_one(&p);
	}
	probe_free(&p);
	return rc;
}

/* A probe with no plan to offer GLPK. */
int pm_probe(struct pm *m, int oi, const int *idx0, int n0, double T, enum pm_goal goal,
	     struct pm_sol *sol, struct gp_err *e)
{
	return pm_probe_ws(m, oi, idx0, n0, T, goal, NULL, sol, e);
}

