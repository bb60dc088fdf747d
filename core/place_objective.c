/*
 * place_objective.c: the placement MILP's second phase, for the
 * wan_bytes and cost objectives (place_int.h), after the search over T
 * found T* (place_search.c). The budget is a constraint throughout.
 *
 * wan_bytes: the fewest WAN bytes per iteration over plans with
 * T <= 1.05 T*, each option probed at its largest breakpoint below that
 * (only plans with fewer bytes than the best: the cutoff row). As in the
 * time phase, a mix found is timed under the DP sync's barrier
 * (pm_barrier_T): past 1.05 T* it is out (and the search unproven), and
 * the cost phase prices each mix at that time.
 *
 * cost: the fewest $ per iteration = sum y $/h T / 3600 + egress, from
 * the fastest plan (the first incumbent), by branch and bound over
 * intervals [a, b] of T per option (pm_cost_bb): P(T), the least $/h of
 * a plan that fits at T, does not grow with T, so a plan in [a, b] costs
 * at least a P(b) / 3600. Intervals of at most PM_LEAF_BP breakpoints
 * are enumerated, those narrower than 1 + PM_COST_RES are left open at
 * their bound. Each probe offers GLPK the last plan found at a smaller T
 * (feasible at any larger one). The bound reported is the least of the
 * open intervals' (m->cost_lb), and at least the work bound's dollars
 * (pm_work_cost_bound). The D = 1 option's probes are closed forms
 * (pm_one_obj), and so are the uniform options (pm_uni_obj).
 */
#include "place_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PM_COST_RES 1e-3             /* the narrowest interval the cost phase splits */
#define PM_LEAF_BP 16                /* breakpoints an interval enumerates */

/* The wan_bytes or cost objective of solution sol at sol->T, as the
 * covering MILP's objective row counts it (pm_cover_build). */
double pm_sol_objective(const struct pm *m, const struct pm_opt *o, const struct pm_sol *sol,
			enum gp_objective goal)
{
	const struct gp_scenario *s = m->sc;
	double v = 0, T = sol->T, G = pm_grad_ring_bytes(m, o);
	bool *used = gp_xcalloc((size_t)s->ndcs + 1, sizeof *used);
	if (!used)
		return INF;
	for (int i = 0; i < m->nc; i++) {
		const struct pm_class *c = &m->c[i];
		if (sol->y[i] <= 0)
			continue;
		for (int g = 0; g < c->nseg; g++)
			used[m->k[c->kind[g]].dc] = true;
		if (goal == GP_OBJ_COST)
			v += sol->y[i] * c->price * T / 3600;
		v += sol->x[i] * pm_class_egress(m, c, goal);
	}
	for (int a = 0; G > 0 && !o->one && a < s->ndcs; a++)
		for (int b = a + 1; b < s->ndcs; b++) {
			const struct gp_link *ab = gp_find_link(s, a, b), *ba = gp_find_link(s, b, a);
			if (!used[a] || !used[b] || !ab || !ba)
				continue;
			v += goal == GP_OBJ_WAN ? 2 * G : G / 1e9 * (ab->price_per_gb + ba->price_per_gb);
		}
	free(used);
	return v;
}

/* The same for dollars: every GPU is paid for the whole iteration and
 * busy at most that long, so a plan costs at least the GPU-seconds of
 * its N L layer passes at the cheapest pool's price per GPU-second. */
double pm_work_cost_bound(const struct pm *m)
{
	double best = INF;
	for (int f = 0; f < m->npools; f++) {
		double price = m->sc->gpus[m->pl[f]->gpu].price_per_hour / 3600;
		for (int i = 0; i < m->nk; i++)
			if (m->k[i].fp == f && m->k[i].x * m->k[i].tp * price < best)
				best = m->k[i].x * m->k[i].tp * price;
	}
	return best < INF ? best * m->N * m->L : 0;
}

/* The cost phase of one option: its classes, the incumbent, and the
 * last plan found (the warm start of later probes). */
struct pm_costrun {
	struct pm *m;
	int oi, d;
	const int *idx;
	int n;
	struct pm_best *best;
	struct pm_sol *sol, *cur, *last;
	double lastT;                  /* last's T (INF: none yet) */
	double g;                      /* the gap */
	struct gp_err *e;
};

/* An interval of T and the least $/h at its upper end: a plan in it
 * costs at least a pb / 3600. */
struct pm_interval {
	double a, b, pb;
};

/* A plan of the cost phase found at t (in c->cur): the warm start of
 * later probes (feasible at any larger T), and the incumbent if cheaper. */
static int cost_found(struct pm_costrun *c, double t)
{
	struct pm *m = c->m;
	memcpy(c->last->y, c->cur->y, (size_t)m->nc * sizeof *c->last->y);
	memcpy(c->last->x, c->cur->x, (size_t)m->nc * sizeof *c->last->x);
	c->lastT = t;
	/* Its own time and dollars: the mix under the DP sync's barrier
	 * (pm_barrier_T, as the time phase ranks mixes). Slower than the
	 * model, another plan at t may be cheaper: no proof. */
	double Tb = pm_barrier_T(m, c->cur);
	if (Tb > -INF) {
		if (Tb > t * (1 + 1e-12)) {
			c->best->stopped = true;
			m->barrier++;
		}
		double lb = c->cur->lb;
		c->cur->T = t = Tb;
		c->cur->obj = pm_sol_objective(m, &m->opt[c->oi], c->cur, GP_OBJ_COST);
		c->cur->lb = lb;
	}
	if (c->cur->obj < c->best->obj) {
		c->best->obj = c->cur->obj;
		if (pm_take_incumbent(m, c->best, c->sol, c->cur, t, c->oi, c->d))
			return gp_errf(c->e, "out of memory");
	}
	return 0;
}

/* The cheapest plan at u better than the best (a PM_COST probe with
 * the cutoff row: improvements only), kept when found: the probe's
 * answer, or -1. */
static int cost_at(struct pm_costrun *c, double u)
{
	struct pm *m = c->m;
	m->cutoff = c->best->obj * (1 - 1e-9);
	int r = pm_probe_ws(m, c->oi, c->idx, c->n, u, PM_COST, c->lastT <= u ? c->last : NULL,
			    c->cur, c->e);
	m->cutoff = INF;
	if (r < 0)
		return -1;
	if (r == 1 && cost_found(c, u))
		return -1;
	return r;
}

/* Few breakpoints left in (a, hi] (or no interior one to split at: the
 * count has multiplicity): each gets the cheapest plan at it, which
 * settles the interval when every probe is proven; else it stays open
 * at lb. */
static int cost_leaf(struct pm_costrun *c, double a, double hi, double lb)
{
	struct pm *m = c->m;
	bool all = true;
	for (double u = pm_next_bp(m, c->idx, c->n, nextafter(a, -INF)); u <= hi;
	     u = pm_next_bp(m, c->idx, c->n, u)) {
		if (pm_stop(m)) {
			all = false;
			break;
		}
		int r = cost_at(c, u);
		if (r < 0)
			return -1;
		all = all && r != 3 && (r == 0 || c->cur->proven);
	}
	if (!all) {
		c->best->stopped = true;
		m->cost_lb = fmin(m->cost_lb, lb);
	}
	return 0;
}

/* An interval as narrow as it gets: the cheapest plan at its last
 * breakpoint hi, then open at its bound lb if that is still below. */
static int cost_narrow(struct pm_costrun *c, double hi, double lb)
{
	struct pm *m = c->m;
	if (cost_at(c, hi) < 0)
		return -1;
	if (lb < c->best->obj) {
		if (lb < c->best->obj * (1 - c->g))
			c->best->stopped = true;
		m->cost_lb = fmin(m->cost_lb, lb);
	}
	return 0;
}

/* The least $/h at t (a bound for the intervals below t); its plan, when
 * the option admits it, costs what it costs at t: an incumbent. The
 * PM_PRICE probe's answer, or -1. */
static int cost_price(struct pm_costrun *c, double t)
{
	struct pm *m = c->m;
	m->bound_only = true;
	int r2 = pm_probe(m, c->oi, c->idx, c->n, t, PM_PRICE, c->cur, c->e);
	m->bound_only = false;
	if (r2 != 1)
		return r2 < 0 ? -1 : r2;
	const struct pm_opt *o = &m->opt[c->oi];
	long D = 0;
	for (int j = 0; j < c->n; j++)
		D += c->cur->y[c->idx[j]];
	if (o->one ? D == 1 : D >= o->d && D <= o->dhi) {
		double lbp = c->cur->lb;
		c->cur->T = t;
		c->cur->obj = pm_sol_objective(m, o, c->cur, GP_OBJ_COST);
		if (cost_found(c, t))
			return -1;
		c->cur->lb = lbp;
	}
	return 1;
}

/* The bounds of every interval left open: the deadline or the stack
 * stopped the cost phase. */
static void cost_stop(struct pm_costrun *c, double lb, const struct pm_interval *st, int ns)
{
	struct pm *m = c->m;
	c->best->stopped = true;
	m->cost_lb = fmin(m->cost_lb, lb);
	for (int i = 0; i < ns; i++)
		m->cost_lb = fmin(m->cost_lb, st[i].a * st[i].pb / 3600);
}

/* The cost phase for option oi: the cheapest plan per iteration, by
 * branch and bound on intervals [a, b] of the iteration time T >= T0.
 * P(T), the least $/h of a plan that fits at T (a PM_PRICE probe), does
 * not grow with T, so a plan whose time lies in [a, b] costs at least
 * a P(b) / 3600 (egress >= 0). The interval with the least bound goes
 * first; it is split at its geometric mean t, where P(t) is probed and
 * the cheapest plan at t (a PM_COST probe: an incumbent) found; an
 * interval whose bound reaches the best (less the gap) is dropped, and so
 * is one without a breakpoint. One narrower than 1 + PM_COST_RES (or the
 * gap), or holding a single breakpoint, gets the cheapest plan at its
 * last breakpoint and, if its bound is still below the best, stays open:
 * its bound, like those the deadline leaves, goes to m->cost_lb. */
static int pm_cost_bb(struct pm_costrun *c, double T0, double pmin)
{
	struct pm *m = c->m;
	const int *idx = c->idx;
	int n = c->n;
	double g = c->g, res = g > PM_COST_RES ? g : PM_COST_RES;
	double b0 = pm_prev_bp(m, idx, n, INF);
	if (!(T0 <= b0))
		return 0;
	struct pm_interval st[256];
	int ns = 0;
	st[ns++] = (struct pm_interval){ T0, b0, pmin };
	while (ns > 0) {
		/* The least bound first. */
		int k = 0;
		for (int i = 1; i < ns; i++)
			if (st[i].a * st[i].pb < st[k].a * st[k].pb)
				k = i;
		struct pm_interval v = st[k];
		st[k] = st[--ns];
		double lb = v.a * v.pb / 3600;
		if (lb >= c->best->obj * (1 - g)) {
			if (lb < c->best->obj)   /* dropped within the gap: still a bound */
				m->cost_lb = fmin(m->cost_lb, lb);
			continue;
		}
		double hi = pm_prev_bp(m, idx, n, v.b);   /* the last breakpoint in [a, b] */
		if (hi < v.a)
			continue;
		if (pm_stop(m) || ns + 2 > (int)(sizeof st / sizeof st[0])) {
			cost_stop(c, lb, st, ns);
			return 0;
		}
		double nb = pm_count_bp(m, idx, n, hi) - pm_count_bp(m, idx, n, nextafter(v.a, -INF));
		double t = pm_prev_bp(m, idx, n, sqrt(v.a * v.b));
		if (!(t > v.a && t < hi))
			t = pm_next_bp(m, idx, n, v.a);
		if (nb <= PM_LEAF_BP || !(t > v.a && t < hi)) {
			if (cost_leaf(c, v.a, hi, lb))
				return -1;
			continue;
		}
		if (v.b <= v.a * (1 + res)) {
			if (cost_narrow(c, hi, lb))
				return -1;
			continue;
		}
		/* Split at the geometric mean t. */
		int r2 = cost_price(c, t);
		if (r2 < 0)
			return -1;
		st[ns++] = (struct pm_interval){ nextafter(t, INF), v.b, v.pb };
		if (r2 != 0)   /* no plan fits at t: none below it either */
			st[ns++] = (struct pm_interval){ v.a, t, r2 == 1 ? fmax(c->cur->lb, v.pb) : v.pb };
	}
	return 0;
}

/* The cost phase of covering option oi on its n classes idx: the
 * cheapest $/h any plan of the option needs bounds every T from below,
 * then pm_cost_bb from T*. 0, or -1 on error. */
int pm_cost_option(struct pm *m, int oi, const int *idx, int n, double Tstar,
		   struct pm_best *best, struct pm_sol *sol, struct pm_sol *cur, struct pm_sol *last,
		   int d, struct gp_err *e)
{
	m->bound_only = true;
	int rp = pm_probe(m, oi, idx, n, INF, PM_PRICE, cur, e);
	m->bound_only = false;
	if (rp < 0)
		return -1;
	if (rp != 1) {
		if (rp == 3) {
			m->cost_lb = 0;   /* its cheapest plan unknown */
			best->stopped = true;
		}
		return 0;
	}
	struct pm_costrun c = { .m = m, .oi = oi, .d = d, .idx = idx, .n = n, .best = best,
				.sol = sol, .cur = cur, .last = last, .lastT = INF,
				.g = m->o ? m->o->gap : 0, .e = e };
	return pm_cost_bb(&c, Tstar, cur->lb) ? -1 : 0;
}

/* The wan_bytes phase of covering option oi on its n classes idx: the
 * fewest bytes at its largest breakpoint within 1.05 T*, when fewer
 * than the best's. 0, or -1 on error. */
int pm_wan_option(struct pm *m, int oi, const int *idx, int n, double Tstar,
		  struct pm_best *best, struct pm_sol *sol, struct pm_sol *cur, int d,
		  struct gp_err *e)
{
	double T = pm_prev_bp(m, idx, n, Tstar * PM_WAN_SLACK);
	if (T == -INF || T < Tstar * (1 - 1e-12))
		return 0;
	/* Only a plan with fewer bytes than the best helps. */
	m->cutoff = best->obj < INF ? best->obj * (1 - 1e-9) : INF;
	int r = pm_probe(m, oi, idx, n, T, PM_WAN, cur, e);
	m->cutoff = INF;
	if (r < 0)
		return -1;
	if (r == 3 || (r == 1 && !cur->proven))
		best->stopped = true;   /* undecided: no proof */
	/* The plan's own time: the mix under the DP sync's barrier (as the
	 * time phase ranks mixes). Past 1.05 T* it is out, and the option
	 * may hold another plan within it: no proof. */
	double Tb = r == 1 ? pm_barrier_T(m, cur) : -INF;
	if (Tb > Tstar * PM_WAN_SLACK * (1 + 1e-12)) {
		best->stopped = true;
		m->barrier++;
		return 0;
	}
	if (Tb > -INF)
		T = Tb;
	if (r == 1 && (best->obj == INF || cur->obj < best->obj - 1e-9 * fabs(best->obj))) {
		best->obj = cur->obj;
		if (pm_take_incumbent(m, best, sol, cur, T, oi, d))
			return gp_errf(e, "out of memory");
	}
	return 0;
}
