/*
 * place_round.c: a plan of the placement MILP rounded from the LP
 * relaxation's point of a probe (place_int.h), a primal heuristic: on
 * these covering problems GLPK's branch and bound often needs longer to
 * find a first point than to prove one infeasible. The candidate goes
 * to the covering MILP as a plan to check (place_cover.c), which settles
 * a feasibility probe when the model accepts it.
 */
#include "place_int.h"

#include <math.h>
#include <stdlib.h>

/* pm_round_lp's partial plan: GPUs used per pool, DCs touched, each
 * class's m_c(T), and the replicas, micro-batch capacity and $/h so far. */
struct pm_round {
	long *used;
	bool *dcu;
	int *mb;
	long D, cap;
	double price;
};

/* One more replica of class c: its GPUs, its DCs. */
static void round_use(const struct pm *m, const struct pm_class *c, struct pm_round *r, int y)
{
	int f[2], g[2];
	pm_class_use(m, c, f, g);
	for (int q = 0; q < 2; q++)
		if (f[q] >= 0)
			r->used[f[q]] += (long)g[q] * y;
	for (int sg = 0; sg < c->nseg; sg++)
		r->dcu[m->k[c->kind[sg]].dc] = true;
}

/* Each class keeps floor(yl) replicas (at most ymax); false when they
 * overfill a pool. */
static bool round_floor(const struct pm *m, const int *idx, int n, double T, const double *yl,
			struct pm_sol *h, struct pm_round *r)
{
	for (int j = 0; j < n; j++) {
		const struct pm_class *c = &m->c[idx[j]];
		r->mb[j] = pm_m_of(m, c, T);
		int y = (int)floor(yl[j] + 1e-6);
		h->y[idx[j]] = h->x[idx[j]] = 0;
		if (y > c->ymax)
			y = c->ymax;
		if (y < 1 || r->mb[j] < 1)
			continue;
		h->y[idx[j]] = y;
		round_use(m, c, r, y);
		r->D += y;
		r->cap += (long)r->mb[j] * y;
		r->price += c->price * y;
	}
	for (int f = 0; f < m->npools; f++)
		if (r->used[f] > m->pl[f]->count)
			return false;
	return true;
}

/* Does one more replica of c fit its pools, and its new DCs the
 * option's K and link class? */
static bool round_fits(const struct pm *m, const struct pm_opt *o, const struct pm_class *c,
		       const struct pm_round *r)
{
	int nd = m->sc->ndcs;
	int f[2], g[2];
	pm_class_use(m, c, f, g);
	bool fits = true;
	for (int q = 0; q < 2 && fits; q++)
		fits = f[q] < 0 || r->used[f[q]] + g[q] <= m->pl[f[q]]->count;
	/* New DCs: within K, joined at the option's class. */
	int nu = 0, kdc[PM_MAXSEG];
	for (int sg = 0; fits && sg < c->nseg; sg++) {
		int dc = m->k[c->kind[sg]].dc;
		if (!r->dcu[dc])
			kdc[nu++] = dc;
	}
	if (fits && nu) {
		int have = 0;
		for (int a = 0; a < nd; a++)
			have += r->dcu[a];
		fits = have + nu <= (o->K < 1 ? 1 : o->K);
		for (int a = 0; fits && o->K >= 2 && a < nd; a++)
			for (int u = 0; fits && u < nu; u++)
				if (r->dcu[a] || (u > 0 && a == kdc[0]))
					fits = a == kdc[u] || pm_opt_pair_ok(m, o, a, kdc[u]);
	}
	return fits;
}

/* The class that gets the next replica: the most micro-batches per GPU
 * (stage 0) or the fewest GPUs (stage 1), the LP's classes first; -1
 * when none fits. */
static int round_pick(const struct pm *m, const struct pm_opt *o, const int *idx, int n,
		      const double *yl, const struct pm_sol *h, const struct pm_round *r, int stage)
{
	int bj = -1;
	double bs = -1;
	for (int j = 0; j < n; j++) {
		const struct pm_class *c = &m->c[idx[j]];
		if (r->mb[j] < 1 || h->y[idx[j]] >= c->ymax || r->D + 1 > o->dhi || r->D + 1 > m->N)
			continue;
		if (m->budget > 0 && r->price + c->price > m->budget)
			continue;
		if (!round_fits(m, o, c, r))
			continue;
		int f[2], g[2];
		pm_class_use(m, c, f, g);
		double gp = (double)(g[0] + g[1]);
		double sc = stage == 0 ? r->mb[j] / gp : 1 / gp;
		if (yl[j] > 1e-6)
			sc *= 4;   /* the LP's classes first */
		if (sc > bs) {
			bs = sc;
			bj = j;
		}
	}
	return bj;
}

/* Micro-batches: one per replica, the rest to classes that cross no
 * link first (links carry 2bsh per micro-batch); true when all N go. */
static bool round_spread(const struct pm *m, const int *idx, int n, struct pm_sol *h,
			 const struct pm_round *r)
{
	long left = m->N - r->D;
	for (int pass = 0; pass < 2; pass++)
		for (int j = 0; j < n; j++) {
			const struct pm_class *c = &m->c[idx[j]];
			int y = h->y[idx[j]];
			if (pass == 0)
				h->x[idx[j]] = y;
			if (!y || (pass == 0) != (c->la < 0))
				continue;
			long add = (long)(r->mb[j] - 1) * y;
			if (add > left)
				add = left;
			h->x[idx[j]] += (int)add;
			left -= add;
		}
	return left == 0;
}

/* A plan rounded from the LP relaxation's replicas yl[0..n) of classes
 * idx (a primal heuristic: GLPK's branch and bound often needs longer to
 * find a first point of these covering problems than to prove them
 * infeasible): each class keeps floor(yl) replicas; then, while the
 * replicas cannot take N micro-batches at T, one more replica of the
 * class that adds the most micro-batches per GPU and still fits its
 * pools, the option's DCs and links, the budget and dhi (classes the LP
 * used first); then replicas of the smallest classes up to d; the
 * micro-batches go to classes that cross no link first. Fills h (y, x
 * per class) and returns true when it has a candidate; pm_cover_solve
 * checks it against the model exactly. */
bool pm_round_lp(const struct pm *m, const struct pm_opt *o, const int *idx, int n, double T,
		 const double *yl, struct pm_sol *h)
{
	struct pm_round r = { .used = gp_xcalloc((size_t)m->npools + 1, sizeof *r.used),
			      .dcu = gp_xcalloc((size_t)m->sc->ndcs + 1, sizeof *r.dcu),
			      .mb = gp_xcalloc((size_t)n + 1, sizeof *r.mb) };
	bool ok = r.used && r.dcu && r.mb && round_floor(m, idx, n, T, yl, h, &r);
	long N = m->N;
	/* Add replicas: toward N micro-batches, then toward d replicas. */
	for (int stage = 0; ok && stage < 2; stage++) {
		while ((stage == 0 ? r.cap < N : r.D < o->d) && !pm_stop(m)) {
			int bj = round_pick(m, o, idx, n, yl, h, &r, stage);
			if (bj < 0)
				break;
			const struct pm_class *c = &m->c[idx[bj]];
			round_use(m, c, &r, 1);
			h->y[idx[bj]]++;
			r.D++;
			r.cap += r.mb[bj];
			r.price += c->price;
		}
	}
	ok = ok && r.cap >= N && r.D >= (o->one ? 1 : o->d) && r.D <= (o->one ? 1 : o->dhi) &&
	     r.D <= N;
	ok = ok && round_spread(m, idx, n, h, &r);
	free(r.used);
	free(r.dcu);
	free(r.mb);
	return ok;
}
