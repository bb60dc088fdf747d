/*
 * place_ring.c: the placement MILP and the gradient ring the simulator
 * runs over a plan's DCs (ring.h): the estimate of a fixed plan at its
 * ring, and the sets of DCs the ring options take.
 *
 * An option of K >= 2 DCs at link class q charges its DP sync at the
 * class's bandwidth beta_q and the largest latency of the links in it,
 * for K DCs: the plan's DCs are the covering MILP's decision, so the
 * ring's order is unknown there, and that charge is an upper bound on
 * every ring over DCs the pairwise rule admits (place_tail.c). Once the
 * plan is fixed its DCs are known: the simulator rings them in the
 * order gp_ring_choose gives (sim_ring.c), whose hops may all be faster
 * than the slowest pair among them (a, b, c, d with a-b and c-d slow:
 * a > c > b > d > a on the fast links only), and it may use fewer DCs
 * than K. pm_plan_estimate recharges the plan at that ring: the option
 * with K = the DCs the plan uses and (bandwidth, latency) = its ring's
 * slowest bandwidth and largest latency among its hops (the ring's time
 * when its hops share one class, as the fastest order usually makes
 * them; an upper bound on it otherwise), then the breakpoints of the
 * plan's classes (curve + tail) and pm_barrier_T at that option. The
 * search's own T, at the upper bound, stays the estimate when the ring
 * charges the same as the option.
 *
 * Ring options (pm_ring_sets, pm_enum_opts): the pairwise rule charges
 * a set of DCs with a slow pair at that pair, and keeps out a set some
 * pair of which has no link both ways, though a ring may join it on
 * fast hops only. For scenarios of at most PM_RING_DCS DCs, the sets of
 * 3 or more whose ring is faster than their slowest pair (up to
 * PM_RING_SETS, most GPUs first) each get options that use every DC of
 * the set (the covering MILP's v fixed, a replica in each) at its
 * ring's slowest hop and largest latency: the ring the simulator runs
 * on those DCs, so the charge is exact for the set the option uses.
 * The relaxation of the proof (m->lower) takes them too, at the fastest
 * link, a lower bound as for every option.
 */
#include "place_int.h"
#include "ring.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The DCs plan sol uses, ascending, into dcs (m->sc->ndcs entries);
 * returns their count. */
static int plan_dcs(const struct pm *m, const struct pm_sol *sol, int *dcs)
{
	int nd = m->sc->ndcs, n = 0;
	bool *on = calloc((size_t)nd + 1, sizeof *on);
	if (!on)
		return -1;
	for (int i = 0; i < m->nc; i++) {
		if (sol->y[i] < 1 || sol->x[i] < 1)
			continue;
		const struct pm_class *c = &m->c[i];
		for (int g = 0; g < c->nseg; g++)
			on[m->k[c->kind[g]].dc] = true;
	}
	for (int d = 0; d < nd; d++)
		if (on[d])
			dcs[n++] = d;
	free(on);
	return n;
}

/* o at the ring the simulator runs over plan sol's DCs, into *r; false
 * when o has no WAN ring or the plan's ring cannot be formed (then the
 * option's charge stands). */
static bool ring_option(const struct pm *m, const struct pm_sol *sol, const struct pm_opt *o,
			struct pm_opt *r)
{
	const struct gp_scenario *s = m->sc;
	if (o->one || o->uni || o->K < 2 || m->lower)
		return false;
	int *dcs = malloc(((size_t)s->ndcs + 1) * 2 * sizeof *dcs), *ring = dcs + s->ndcs + 1;
	int n = dcs ? plan_dcs(m, sol, dcs) : -1;
	*r = *o;
	bool ok = n >= 1;
	if (n == 1) {
		r->K = 1;   /* one DC: no WAN ring at all */
		r->q = -1;
	} else if (n >= 2) {
		/* What sim_ring.c orders the ring for: the bytes each hop
		 * carries, the latency terms of a bucket per layer. */
		r->K = n;
		int steps = o->mode == GP_SYNC_HIER ? n : o->ring;
		double latm = m->L * 2.0 * (steps - 1) / s->job.sync_every, t;
		ok = gp_ring_choose(s, m->ct, dcs, n, pm_grad_ring_bytes(m, r), latm, ring, &t) == 0 &&
		     isfinite(t);
		double bw = INFINITY, lat = 0;
		for (int i = 0; ok && i < n; i++) {
			int l = m->lmat[ring[i] * s->ndcs + ring[(i + 1) % n]];
			ok = l >= 0;
			if (ok) {
				bw = fmin(bw, m->wan[l].bw);
				lat = fmax(lat, m->wan[l].lat);
			}
		}
		r->wbw = bw;
		r->wlat = lat;
	}
	free(dcs);
	return ok && (r->K != o->K || r->wbw != o->wbw || r->wlat != o->wlat);
}

double pm_plan_estimate(struct pm *m, const struct pm_sol *sol, double T, bool *ring)
{
	double old = fmax(T, pm_barrier_T(m, sol));
	*ring = false;
	if (sol->opt < 0 || sol->opt >= m->nopt || !sol->y || !sol->x)
		return old;
	struct pm_opt *o = &m->opt[sol->opt], keep = *o, r;
	if (!ring_option(m, sol, o, &r))
		return old;
	*ring = true;
	*o = r;
	m->memo->o = NULL;   /* the memo's values are the option's */
	double est = -INFINITY;
	for (int i = 0; i < m->nc; i++) {
		int y = sol->y[i], x = sol->x[i];
		if (y < 1 || x < 1)
			continue;
		const struct pm_class *c = &m->c[i];
		est = fmax(est, pm_curve(m, c, (x + y - 1) / y) + pm_class_tail(m, c, o));
	}
	est = fmax(est, pm_barrier_T(m, sol));
	*o = keep;
	m->memo->o = NULL;
	return est > -INFINITY ? est : old;
}

/* The ring over the DCs of set (k of them, <= PM_RING_DCS) into *r:
 * gp_ring_choose's order for all the gradients' ring bytes and a
 * bucket per layer; false when no ring has a link on every hop. */
static bool set_ring(const struct pm *m, unsigned set, int k, struct pm_rset *r)
{
	const struct gp_scenario *s = m->sc;
	int dcs[PM_RING_DCS], ring[PM_RING_DCS], n = 0;
	for (int d = 0; d < s->ndcs; d++)
		if (set >> d & 1u)
			dcs[n++] = d;
	double G = gp_grad_reduce_bytes(&s->job) * (m->L * m->Lp + 2 * m->Ep), t;
	double bytes = 2.0 * (k - 1) / k * G / s->job.sync_every;
	double latm = m->L * 2.0 * (k - 1) / s->job.sync_every;
	if (gp_ring_choose(s, m->ct, dcs, k, bytes, latm, ring, &t) || !isfinite(t))
		return false;
	*r = (struct pm_rset){ .set = set, .k = k, .bw = INFINITY, .lat = 0 };
	memset(r->nxt, -1, sizeof r->nxt);
	for (int i = 0; i < k; i++) {
		int a = ring[i], b = ring[(i + 1) % k], l = m->lmat[a * s->ndcs + b];
		if (l < 0)
			return false;
		r->nxt[a] = (signed char)b;
		r->bw = fmin(r->bw, m->wan[l].bw);
		r->lat = fmax(r->lat, m->wan[l].lat);
	}
	return true;
}

/* The slowest pair of set under the pairwise rule: the least of both
 * directions' bandwidths, 0 where a pair has no link both ways. */
static double set_pairs(const struct pm *m, unsigned set)
{
	int nd = m->sc->ndcs;
	double bw = INFINITY;
	for (int a = 0; a < nd; a++)
		for (int b = a + 1; b < nd; b++) {
			if (!(set >> a & 1u) || !(set >> b & 1u))
				continue;
			int x = m->lmat[a * nd + b], y = m->lmat[b * nd + a];
			bw = fmin(bw, x >= 0 && y >= 0 ? fmin(m->wan[x].bw, m->wan[y].bw) : 0);
		}
	return bw;
}

/* m->rs: sets of 3 or more DCs (scenarios of at most PM_RING_DCS DCs)
 * whose ring's every hop is faster than their slowest pair, or which
 * only a ring joins (a pair without a link both ways): the pairwise
 * rule charges them at that pair or keeps them out. At most
 * PM_RING_SETS, those of the most GPUs first (then the faster ring,
 * then the lower set), each a family of ring options (pm_enum_opts)
 * charged at its ring and using every DC of it. */
void pm_ring_sets(struct pm *m)
{
	int nd = m->sc->ndcs;
	m->nrs = 0;
	if (nd < 3 || nd > PM_RING_DCS)
		return;
	long gp[PM_RING_SETS];
	for (unsigned set = 1; set < 1u << nd; set++) {
		int k = 0;
		for (unsigned x = set; x; x &= x - 1)
			k++;
		struct pm_rset r;
		if (k < 3 || !set_ring(m, set, k, &r) || !(r.bw > set_pairs(m, set)))
			continue;
		long g = 0;
		for (int d = 0; d < nd; d++)
			g += set >> d & 1u ? m->dc_gpus[d] : 0;
		/* Insertion by GPUs, then ring bandwidth (sets ascend). */
		int p = m->nrs < PM_RING_SETS ? m->nrs++ : PM_RING_SETS;
		while (p > 0 && (gp[p - 1] < g || (gp[p - 1] == g && m->rs[p - 1].bw < r.bw))) {
			if (p < PM_RING_SETS) {
				m->rs[p] = m->rs[p - 1];
				gp[p] = gp[p - 1];
			}
			p--;
		}
		if (p < PM_RING_SETS) {
			m->rs[p] = r;
			gp[p] = g;
		}
	}
}
