/*
 * place_classes.c: the placement MILP's pipeline classes (place_int.h):
 * which there are, and the class sets kept per replica bound d.
 *
 * A class is one segment (n stages of one kind), two segments of kinds
 * on different pools, in one DC or in two DCs joined by links both ways,
 * or a chain: 3..PM_CHAINSEG segments on distinct pools (two of one DC
 * too), consecutive ones in one DC or joined by links both ways, and one
 * (TP, recomputation) for all. S = stages <= S_max = min(L, 64,
 * max(8, S_need + 8)), S_need the fewest stages any kind needs to hold
 * the model. Two-segment classes
 * come for every composition of S <= S_max; when they would exceed
 * PM_MAXCLASS they are limited to pools of one DC (and dropped if still
 * too many). Chains come for every composition of S <= S_max into their
 * segments, at most PM_MAXCHAIN of them (and PM_MAXCHAINTRY tries, and
 * PM_CHAIN_SHARE of the work limit, place_int.h); they enter only the uniform
 * options (not the covering MILP). The report's note says what was cut.
 *
 * Beyond S_max, full classes: along a path of distinct pools (each next
 * one the widest way on, up to PM_MAXSEG of them), every prefix whose
 * segments take all of their pool's GPUs for 1..PM_FULLY replicas, up to
 * min(L, 64) stages (outside the space the proof states; they only add
 * plans), those of one replica (y = 1) first, until they have taken
 * PM_FULL_SHARE of the work limit in one build (deep classes cost
 * O(S^3) each: the share leaves the other replica bounds' builds their
 * turn).
 *
 * Each class gets the most replicas its pools hold, its price per hour,
 * its layer split (the fastest walk of the candidates place_split.c
 * makes, at those replicas in lockstep: best_split), U_c and Sigma_c.
 *
 * The classes depend on the replica bound d only through memory
 * (ZeRO-1): a class set is built per capacity table, and kept (up to
 * PM_MAXSETS sets, PM_SETBYTES of them) so that the options, which come
 * in d order twice, build each once; a new set reuses the classes of the
 * one built before it where their stage capacities agree, or those of
 * another solve's set of the same capacities (the second solve at the
 * plan's pool counts, place_keep.c) whose kinds cost the same; the sets
 * kept for that count in PM_SETBYTES.
 */
#include "place_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PM_MAXCLASS 50000       /* two-segment classes before they keep to one DC */
#define PM_MAXCHAIN 1000        /* chain classes (3+ segments) at most */
#define PM_MAXCHAINTRY 400000   /* chain compositions tried, kept or not */
#define PM_CHAIN_SHARE 0.3      /* of the work (time) limit, for building chains */
#define PM_FULL_SHARE 0.5       /* of the work limit, for one build's full classes */
#define PM_SETBYTES (256u << 20)     /* memory the kept class sets may take */
#define PM_SPLIT_CLEAR 0.02       /* a window split this much faster in cycle is taken unwalked */
#define PM_FULLY 4              /* replica counts full classes are cut for */
#define PM_FULL_WIDE 0.25       /* the second full path's links: this share of the widest */
#define PM_FULLY2 2             /* replica counts the second path's full classes are cut for */

static int link_idx(const struct pm *m, int a, int b)
{
	return m->lmat[a * m->sc->ndcs + b];
}

/* Can two kinds be consecutive segments? */
static bool seg_pair(const struct pm *m, const struct pm_kind *a, const struct pm_kind *b,
		     struct pm_class *c, int s)
{
	if (a->fp == b->fp)
		return false;
	c->lk[s][0] = c->lk[s][1] = -1;
	if (s == 0)
		c->la = c->lb = -1;
	if (a->dc == b->dc) {
		c->dcross[s] = gp_costtab_intra_p2p(m->ct, m->sc, a->dc, a->pool, a->tp, b->pool,
						    b->tp, m->bb);
		return true;
	}
	int la = link_idx(m, a->dc, b->dc), lb = link_idx(m, b->dc, a->dc);
	if (la < 0 || lb < 0)
		return false;
	c->lk[s][0] = la;
	c->lk[s][1] = lb;
	if (s == 0) {
		c->la = la;
		c->lb = lb;
	}
	c->dcross[s] = m->wan[la].lat + m->bb / m->wan[la].bw;
	return true;
}

/* A class's signature: its pools and GPUs on each, smaller pool first,
 * and the links its boundary crosses. */
void pm_class_sig(const struct pm *m, const struct pm_class *c, int sig[6])
{
	int f0 = m->k[c->kind[0]].fp, g0 = c->n[0] * m->k[c->kind[0]].tp;
	int f1 = -1, g1 = 0;
	if (c->nseg == 2) {
		f1 = m->k[c->kind[1]].fp;
		g1 = c->n[1] * m->k[c->kind[1]].tp;
	}
	if (f1 >= 0 && f1 < f0) {
		int t = f0; f0 = f1; f1 = t;
		t = g0; g0 = g1; g1 = t;
	}
	sig[0] = f0; sig[1] = g0; sig[2] = f1; sig[3] = g1;
	sig[4] = c->la; sig[5] = c->lb;
}

/* Room in m->c and m->lay for one more class of S stages. */
static int grow_classes(struct pm *m, int S)
{
	if (gp_room(&m->c, &m->capc, m->nc + 1, sizeof *m->c, 256) ||
	    gp_room(&m->lay, &m->caplay, m->nlay + S, sizeof *m->lay, 4096))
		return -1;
	return 0;
}

/* The class set built before (m->prev) made attempt `at` at the same
 * class c: attempts are numbered alike in every build of one stage bound
 * (the chains' cut is sticky), up to the fewer attempts of the two. */
static bool prev_tried(struct pm *m, const struct pm_class *c, int at, bool *had)
{
	const struct pm_cset *pv = m->prev;
	if (at >= pv->natt)
		return false;
	while (m->prev_j < pv->nc && pv->c[m->prev_j].at < at)
		m->prev_j++;
	*had = m->prev_j < pv->nc && pv->c[m->prev_j].at == at;
	if (!*had)
		return true;
	/* The same segments, so the same room (c->S) in m->lay. */
	const struct pm_class *o = &pv->c[m->prev_j];
	return o->nseg == c->nseg && o->S == c->S &&
	       !memcmp(o->kind, c->kind, (size_t)c->nseg * sizeof *c->kind) &&
	       !memcmp(o->n, c->n, (size_t)c->nseg * sizeof *c->n);
}

/* Attempt `at` at class c was made the same way in the set built
 * before (m->prev), so its result stands: the class, or its absence.
 * *had: that set kept it, as m->prev->c[m->prev_j]. */
static bool same_as_prev(struct pm *m, const struct pm_class *c, int at, bool *had)
{
	const struct pm_cset *pv = m->prev;
	/* Another solve's class stands only if its kinds cost the same. */
	for (int g = 0; m->prev_other && g < c->nseg; g++)
		if (!m->ksame[c->kind[g]])
			return false;
	if (!prev_tried(m, c, at, had))
		return false;
	/* Another solve's attempts at full classes follow its own paths (the
	 * kinds' pace): its absences, unchecked against c, do not stand. */
	if (m->prev_other && !*had)
		return false;
	/* Built the same way before: when every segment's stage
	 * capacities are the same, so is the class (or its absence). */
	bool same = true;
	for (int g = 0; g < c->nseg && same; g++) {
		size_t row = ((size_t)c->kind[g] * 64 + (size_t)(c->S - 1)) * 64;
		same = !memcmp(m->capt + row, pv->capt + row, (size_t)c->S * sizeof *m->capt);
	}
	/* Or when it was built and no stage's capacity, old or new,
	 * binds at or below its U0: the split is the same. */
	for (int i = 0; !same && *had && i < c->S; i++) {
		const struct pm_class *o = &pv->c[m->prev_j];
		const struct pm_kind *k = &m->k[c->kind[pm_seg_of(c, i, NULL)]];
		double e = i == c->S - 1 ? k->lx : 0;
		size_t at_i = ((size_t)c->kind[pm_seg_of(c, i, NULL)] * 64 + (size_t)(c->S - 1)) * 64 + (size_t)i;
		int cap = m->capt[at_i] < pv->capt[at_i] ? m->capt[at_i] : pv->capt[at_i];
		/* Layers stage i could hold at U0 with no memory limit. */
		double f = k->x > 0 ? floor((o->U0 - e) / k->x) : INF;
		while (f > 0 && f * k->x + e > o->U0)
			f--;
		while (f + 1 < INF && (f + 1) * k->x + e <= o->U0)
			f++;
		if (f > cap)
			break;
		if (i == c->S - 1)
			same = true;
	}
	return same;
}

/* Most replicas the pools allow, and the price of one. */
static void class_limits(const struct pm *m, struct pm_class *x)
{
	x->ymax = m->N;
	x->price = 0;
	for (int s = 0; s < x->nseg; s++) {
		const struct pm_kind *k = &m->k[x->kind[s]];
		int g = 0;
		for (int u = 0; u < x->nseg; u++)
			if (m->k[x->kind[u]].fp == k->fp)
				g += x->n[u] * m->k[x->kind[u]].tp;
		int r = k->p->count / g;
		if (r < x->ymax)
			x->ymax = r;
		x->price += x->n[s] * k->tp * k->g->price_per_hour;
	}
}

/* Split `how` of class y (delays as in best_split) into lv, walked at
 * mb in place of lay when faster than *best (then y's U0 to x). */
static void take_split(struct pm *m, struct pm_class *x, struct pm_class *y, const int *lv,
		       int *lay, int mb, double *best)
{
	if (*best == INF) {
		*best = pm_split_walk(m, y, lay, mb);
		m->work += (double)x->S * (mb + x->S);
	}
	double t = pm_split_walk(m, y, lv, mb);
	m->work += (double)x->S * (mb + x->S);
	if (t < *best * (1 - 1e-9)) {
		*best = t;
		memcpy(lay, lv, (size_t)x->S * sizeof *lv);
		x->U0 = y->U0;
	}
}

/* Class x's best layer split (into lay, holding x's first, greedy one)
 * at its most replicas y in lockstep, N / y micro-batches each, every
 * WAN boundary shared by the y (latency + y bb / bandwidth, as the
 * uniform options walk it, place_uniform.c), judged by one walk each
 * (no curve): the greedy one and the levelled one or, when a boundary
 * crosses a WAN link, in place of the levelled one (which wins under 1 %
 * of those classes) the window split of the two (pm_class_split how 2,
 * 3: their light stages buffer the link's round trip on either side)
 * whose worst window is shorter, if it is shorter than the greedy one's
 * (walks are the cost of a class build: most window splits lose). */
static void best_split(struct pm *m, struct pm_class *x, int *lay)
{
	struct pm_class xs = *x;
	bool wan = false;
	for (int s = 0; s + 1 < x->nseg; s++)
		if (x->lk[s][0] >= 0) {
			const struct gp_comm *l = &m->wan[x->lk[s][0]];
			xs.dcross[s] = l->lat + x->ymax * m->bb / l->bw;
			wan = true;
		}
	int mb = (m->N + x->ymax - 1) / x->ymax, lv[64], wv[64];
	double best = INF;
	if (!wan) {
		struct pm_class y = xs;
		if (pm_class_split(m, &y, lv, 1) == 0 && memcmp(lv, lay, (size_t)x->S * sizeof *lv))
			take_split(m, x, &y, lv, lay, mb, &best);
		return;
	}
	double cg = pm_split_cycle(m, &xs, lay), cyc = cg * (1 - 1e-9), u0 = x->U0;
	struct pm_class w = xs;
	bool have = false;
	for (int how = 2; how <= 3; how++) {
		struct pm_class y = xs;
		y.U0 = u0;   /* (the greedy split's bottleneck: the window split's floor) */
		if (pm_class_split(m, &y, lv, how))
			continue;
		double u = pm_split_cycle(m, &y, lv);
		if (u < cyc) {
			cyc = u;
			w = y;
			memcpy(wv, lv, sizeof lv);
			have = true;
		}
	}
	if (have && cyc < cg * (1 - PM_SPLIT_CLEAR)) {
		/* A clearly shorter cycle: the window split, unwalked. */
		memcpy(lay, wv, (size_t)x->S * sizeof *wv);
	} else if (have) {
		take_split(m, x, &w, wv, lay, mb, &best);
	}
	/* The window splits read the stage capacities up to U0 + 2 max d
	 * (win_split's bracket): same_as_prev's shortcut must check them
	 * that far. */
	double dmax = 0;
	for (int i = 0; i + 1 < x->S; i++) {
		bool end;
		int g = pm_seg_of(x, i, &end);
		dmax = fmax(dmax, end ? xs.dcross[g] : m->k[x->kind[g]].delta);
	}
	x->U0 = u0 + 2 * dmax;
}

/* Adds class c (its segments' kinds and stage counts) to m->c when a
 * layer split fits and the pools hold a replica; a class the set built
 * before has the same way is copied from it. */
static int push_class(struct pm *m, const struct pm_class *c)
{
	if (grow_classes(m, c->S))
		return -1;
	int at = m->attempt++;
	bool had;
	if (m->prev && same_as_prev(m, c, at, &had)) {
		if (!had)
			return 0;
		const struct pm_cset *pv = m->prev;
		struct pm_class x = pv->c[m->prev_j];
		/* x.S == c->S (prev_tried): the room grow_classes made. */
		memcpy(m->lay + m->nlay, pv->lay + x.off, (size_t)x.S * sizeof *m->lay);
		x.off = m->nlay;
		m->nlay += x.S;
		if (pm_curve_copy(m, &x, pv->cv))
			return -1;
		m->c[m->nc++] = x;
		return 0;
	}
	struct pm_class x = *c;
	x.at = at;
	class_limits(m, &x);
	if (x.ymax < 1 || pm_class_split(m, &x, m->lay + m->nlay, 0))
		return 0;
	x.off = m->nlay;
	m->nlay += x.S;
	best_split(m, &x, m->lay + x.off);
	if (pm_class_times(m, &x, m->lay + x.off))
		return -1;
	m->work += pm_curve_work(x.S, x.cvn);   /* (built or copied alike) */
	pm_class_sig(m, &x, x.sg);
	m->c[m->nc++] = x;
	return 0;
}

/* Chains of 3..PM_CHAINSEG segments: distinct pools (several of one DC
 * too), consecutive ones in one DC or joined by links both ways, one
 * (TP, recomputation) for all; stage counts of every composition of
 * S <= Smax. Extends the chain in c from segment s (kinds chosen so far
 * in c->kind[0..s), their pools in the mask used). */
static int chain_rec(struct pm *m, struct pm_class *c, int s, unsigned long long used)
{
	if (s >= 3) {
		/* Every composition of S <= Smax into s parts. */
		int n[PM_CHAINSEG], S = s;
		for (int u = 0; u < s; u++)
			n[u] = 1;
		for (;;) {
			/* Rejected compositions cost a layer split each: cap the
			 * attempts too, and stop at the share of the work limit
			 * (S^2 a composition, counted alike in every build,
			 * copied or not) or, as a backstop, of the time limit. The cut is for
			 * good: a build's attempts are then a prefix of one
			 * sequence, numbered alike in every build (push_class). */
			if (m->trunc_chain || m->nchain >= PM_MAXCHAIN ||
			    ++m->chain_tries > PM_MAXCHAINTRY ||
			    (m->chain_work += (double)S * S) > PM_CHAIN_SHARE * m->work_limit ||
			    ((m->chain_tries & 255) == 0 &&
			     pm_now_s() > m->t0 + PM_CHAIN_SHARE * (m->deadline - m->t0) &&
			     ++m->clock_stops)) {
				m->trunc_chain = m->cut = true;
				return 0;
			}
			c->nseg = s;
			c->S = S;
			memcpy(c->n, n, sizeof n);
			int before = m->nc;
			if (push_class(m, c))
				return -1;
			m->nchain += m->nc > before;
			/* Next composition: odometer over n[0..s), S <= Smax. */
			int u = s - 1;
			while (u >= 0) {
				n[u]++;
				S++;
				if (S <= m->Smax)
					break;
				S -= n[u] - 1;
				n[u] = 1;
				u--;
			}
			if (u < 0)
				break;
		}
	}
	if (s == PM_CHAINSEG || m->trunc_chain)
		return 0;
	const struct pm_kind *a = &m->k[c->kind[s - 1]];
	for (int b = 0; b < m->nk; b++) {
		const struct pm_kind *kb = &m->k[b];
		if (kb->tp != a->tp || kb->rc != a->rc || (used >> kb->fp & 1))
			continue;
		if (!seg_pair(m, a, kb, c, s - 1))
			continue;
		c->kind[s] = b;
		if (chain_rec(m, c, s + 1, used | 1ull << kb->fp))
			return -1;
	}
	return 0;
}

/* The fewest stages kind k needs for the model (0: none fits). */
static int stages_needed(const struct pm *m, int k)
{
	for (int S = 1; S <= m->L && S <= 64; S++) {
		long tot = 0;
		bool ok = true;
		for (int i = 0; i < S && ok; i++) {
			int cap = pm_cap_of(m, k, i, S);
			ok = cap >= 1;
			tot += cap;
		}
		if (ok && tot >= m->L)
			return S;
	}
	return 0;
}

struct pm_sortkey {
	int sg[6];
	double U;
	int i;
};

static int cmp_key(const void *a, const void *b)
{
	const struct pm_sortkey *x = a, *y = b;
	int r = memcmp(x->sg, y->sg, sizeof x->sg);
	if (r)
		return r;
	if (x->U != y->U)
		return x->U < y->U ? -1 : 1;
	return x->i - y->i;
}

/* m->order: the classes by signature (any fixed order), then U, then
 * index; pm_set_option only re-sorts runs of equal U by fill + tail. */
static int sort_classes(struct pm *m)
{
	free(m->order);
	m->order = gp_xcalloc((size_t)m->nc + 1, sizeof *m->order);
	struct pm_sortkey *k = gp_xcalloc((size_t)m->nc + 1, sizeof *k);
	if (!m->order || !k) {
		free(k);
		return -1;
	}
	for (int i = 0; i < m->nc; i++) {
		memcpy(k[i].sg, m->c[i].sg, sizeof k[i].sg);
		k[i].U = m->c[i].U;
		k[i].i = i;
	}
	qsort(k, (size_t)m->nc, sizeof *k, cmp_key);
	for (int i = 0; i < m->nc; i++)
		m->order[i] = k[i].i;
	free(k);
	return 0;
}

/* The one-segment classes of up to Smax stages. */
static int push_singles(struct pm *m, int Smax)
{
	for (int a = 0; a < m->nk; a++)
		for (int n = 1; n <= Smax; n++) {
			struct pm_class c = { .nseg = 1, .kind = { a, a }, .n = { n, 0 }, .S = n,
					      .la = -1, .lb = -1 };
			if (push_class(m, &c))
				return -1;
		}
	return 0;
}

/* Two segments: all linked pairs, else pairs in one DC, else none
 * (m->trunc_two, m->no_two say which). */
static int push_pairs(struct pm *m, int Smax)
{
	long pairs = 0, same = 0;
	struct pm_class t;
	for (int a = 0; a < m->nk; a++)
		for (int b = 0; b < m->nk; b++)
			if (seg_pair(m, &m->k[a], &m->k[b], &t, 0)) {
				pairs++;
				same += m->k[a].dc == m->k[b].dc;
			}
	long per = (long)Smax * (Smax - 1) / 2;
	bool only_same = false;
	if (pairs * per > PM_MAXCLASS) {
		only_same = true;
		m->trunc_two = m->cut = true;
		if (same * per > PM_MAXCLASS) {
			m->no_two = true;
			return 0;
		}
	}
	for (int a = 0; a < m->nk; a++)
		for (int b = 0; b < m->nk; b++) {
			struct pm_class c = { .nseg = 2, .kind = { a, b } };
			if (!seg_pair(m, &m->k[a], &m->k[b], &c, 0))
				continue;
			if (only_same && m->k[a].dc != m->k[b].dc)
				continue;
			for (int na = 1; na < Smax; na++)
				for (int nb = 1; na + nb <= Smax; nb++) {
					c.n[0] = na;
					c.n[1] = nb;
					c.S = na + nb;
					if (push_class(m, &c))
						return -1;
				}
		}
	return 0;
}

/* The widest way on from kind a to kind b: INF inside a DC, else the
 * slower direction of their link pair (0: none). */
static double full_bw(const struct pm *m, const struct pm_kind *a, const struct pm_kind *b)
{
	if (a->dc == b->dc)
		return INF;
	int x = link_idx(m, a->dc, b->dc), y = link_idx(m, b->dc, a->dc);
	return x < 0 || y < 0 ? 0 : fmin(m->wan[x].bw, m->wan[y].bw);
}

/* The full path from kind a: distinct pools at its TP and
 * recomputation, each next one another pool of the same DC first, else
 * among the ways on at least `wide` times as wide as the widest, the
 * pool that runs the most layers at once (GPUs / (TP x per-layer time));
 * its kinds into path, their number returned. wide = 1: the widest way
 * on; less: a wide enough link to a larger or faster pool. */
static int full_path(const struct pm *m, int a, double wide, int *path)
{
	unsigned long long used = 1ull << m->k[a].fp;
	int np = 1;
	path[0] = a;
	while (np < PM_MAXSEG) {
		const struct pm_kind *ka = &m->k[path[np - 1]];
		int best = -1;
		double wmax = 0, pace = 0;
		for (int pass = 0; pass < 2; pass++)
			for (int b = 0; b < m->nk; b++) {
				const struct pm_kind *kb = &m->k[b];
				if (kb->tp != ka->tp || kb->rc != ka->rc || (used >> kb->fp & 1))
					continue;
				double w = full_bw(m, ka, kb), r = kb->p->count / (kb->tp * kb->x);
				if (pass == 0) {
					wmax = fmax(wmax, w);
					continue;
				}
				if (w <= 0 || w < wide * wmax || (wmax == INF && w < INF))
					continue;
				if (best < 0 || r > pace) {
					best = b;
					pace = r;
				}
			}
		if (best < 0)
			break;
		path[np++] = best;
		used |= 1ull << m->k[best].fp;
	}
	return np;
}

/* Calls fn for the full classes along path (np kinds) for y replicas:
 * its prefixes past `from` kinds, each segment all of its pool's GPUs
 * for y replicas (count / (TP y) stages), up to top stages in all. */
static int full_prefixes(struct pm *m, const int *path, int np, int from, int y, int top,
			 int (*fn)(struct pm *, const struct pm_class *))
{
	struct pm_class c = { .la = -1, .lb = -1 };
	for (int s = 0; s < PM_MAXSEG; s++)
		c.lk[s][0] = c.lk[s][1] = -1;
	for (int s = 0; s < np && c.S < top; s++) {
		const struct pm_kind *k = &m->k[path[s]];
		int n = k->p->count / (k->tp * y);
		n = n < top - c.S ? n : top - c.S;
		if (n < 1 || (s > 0 && !seg_pair(m, &m->k[path[s - 1]], k, &c, s - 1)))
			break;
		c.kind[s] = path[s];
		c.n[s] = n;
		c.nseg = s + 1;
		c.S += n;
		if (s >= from && fn(m, &c))
			return -1;
	}
	return 0;
}

/* Calls fn for every full class: a prefix of a full path whose
 * segments take all of their pool's GPUs for y = 1..PM_FULLY replicas
 * (count / (TP y) stages each, up to min(L, 64) in all), as deep as the
 * pools make it: the long pipelines over many pools that win when the
 * model needs more stages than S_max allows. Replica counts go outside,
 * so that a build cut at PM_FULL_SHARE has every path's lone replica. */
static int full_each(struct pm *m, int (*fn)(struct pm *, const struct pm_class *))
{
	if (m->npools > 64)
		return 0;
	int top = m->L < 64 ? m->L : 64;
	for (int y = 1; y <= PM_FULLY; y++)
		for (int a = 0, pi = 0; a < m->nk; pi = !pi, a += !pi) {
			if (pi && y > PM_FULLY2)
				continue;
			/* The widest path, then one by wide enough links
			 * (only its prefixes past the first where they part). */
			int path[PM_MAXSEG], np = full_path(m, a, pi ? PM_FULL_WIDE : 1, path), from = 0;
			if (pi) {
				int p0[PM_MAXSEG], n0 = full_path(m, a, 1, p0);
				while (from < np && from < n0 && p0[from] == path[from])
					from++;
			}
			if (full_prefixes(m, path, np, from, y, top, fn))
				return -1;
		}
	return 0;
}

/* Marks the capacity rows a full class needs (pm_caps_for fills them). */
static int full_mark(struct pm *m, const struct pm_class *c)
{
	for (int s = 0; s < c->nseg; s++)
		m->deep[c->kind[s] * 65 + c->S] = 1;
	return 0;
}

/* The full classes' capacity rows, once (they do not depend on d). */
int pm_full_rows(struct pm *m)
{
	m->deep = gp_xcalloc((size_t)m->nk * 65 + 1, 1);
	return m->deep ? full_each(m, full_mark) : -1;
}

/* Adds full class c unless the enumerated ones hold it. */
static int full_push(struct pm *m, const struct pm_class *c)
{
	if (c->S <= m->Smax && (c->nseg <= 2 || !m->trunc_chain))
		return 0;
	if (pm_stop(m) || m->trunc_full)
		return 0;
	if (m->work - m->full_from > PM_FULL_SHARE * m->work_limit) {
		m->trunc_full = true;   /* (the rest to the other builds) */
		return 0;
	}
	return push_class(m, c);
}

/* The chains, from every kind on. */
static int push_chains(struct pm *m)
{
	if (m->npools < 3 || m->npools > 64)
		return 0;
	for (int a = 0; a < m->nk; a++) {
		struct pm_class c = { .kind = { a } };
		if (chain_rec(m, &c, 1, 1ull << m->k[a].fp))
			return -1;
	}
	return 0;
}

/* Builds the classes of m->capt into m->c (from m->prev where it can). */
static int enum_build(struct pm *m)
{
	m->nc = 0;
	m->nlay = 0;
	m->ncv = 0;
	m->attempt = 0;
	m->prev_j = 0;
	int need = 0;
	for (int i = 0; i < m->nk; i++) {
		int s = stages_needed(m, i);
		if (s && (!need || s < need))
			need = s;
	}
	if (!need) {
		/* No class: pm_caps_for filled every row, and a later d whose
		 * rows differ anywhere must build again. */
		m->Smax = m->L < 64 ? m->L : 64;
		return 0;
	}
	int Smax = need + 8 > 8 ? need + 8 : 8;
	if (Smax > m->L)
		Smax = m->L;
	if (Smax > 64)
		Smax = 64;
	m->Smax = Smax;
	if (!m->Sproof || Smax < m->Sproof)
		m->Sproof = Smax;
	/* Attempts are numbered alike only for the same stage bound. */
	if (m->prev && (m->prev->Smax != Smax || m->prev->nc == 0))   /* (none to reuse) */
		m->prev = NULL;
	if (push_singles(m, Smax))
		return -1;
	m->trunc_two = m->no_two = false;
	m->trunc_chain = false;
	m->nchain = 0;
	m->chain_tries = 0;
	m->chain_work = 0;
	if (push_pairs(m, Smax) || push_chains(m))
		return -1;
	m->full_from = m->work;
	m->trunc_full = false;
	if (full_each(m, full_push))
		return -1;
	return 0;
}

/* Exchanges the current classes (m) with kept set x. */
static void set_swap(struct pm *m, struct pm_cset *x)
{
	struct pm_cset t = { m->capt, m->c, m->nc, m->capc, m->lay, m->nlay, m->caplay,
			     m->cv, m->ncv, m->capcv, m->order, m->Smax, m->nchain, m->attempt,
			     m->trunc_two, m->no_two, m->trunc_chain };
	m->capt = x->capt;
	m->c = x->c;
	m->nc = x->nc;
	m->capc = x->capc;
	m->lay = x->lay;
	m->nlay = x->nlay;
	m->caplay = x->caplay;
	m->cv = x->cv;
	m->ncv = x->ncv;
	m->capcv = x->capcv;
	m->order = x->order;
	m->Smax = x->Smax;
	m->nchain = x->nchain;
	m->attempt = x->natt;
	m->trunc_two = x->trunc_two;
	m->no_two = x->no_two;
	m->trunc_chain = x->trunc_chain;
	*x = t;
}

/* The classes for replica bound d (ZeRO-1 shrinks the state with d), or
 * those already built when memory gives every stage the same capacity. */
int pm_enum_classes(struct pm *m, int d)
{
	m->cur_d = d;
	if (pm_caps_for(m, d))
		return 0;
	/* A kept set built for the same capacities: take it, keep ours. */
	for (int i = 0; i < m->nsets; i++)
		if (pm_caps_same(m, m->sets[i].capt, m->capn, m->sets[i].Smax)) {
			set_swap(m, &m->sets[i]);
			return 0;
		}
	size_t kept = 0;
	for (int i = 0; i < m->nsets; i++)
		kept += pm_set_bytes(m, &m->sets[i]);
	kept += pm_keep_bytes(m);   /* (another solve's, copied from) */
	if (m->enumerated && m->nsets < PM_MAXSETS && kept + pm_set_bytes(m, NULL) <= PM_SETBYTES) {
		/* Keep the current set; build into fresh arrays. */
		struct pm_cset *x = &m->sets[m->nsets];
		*x = (struct pm_cset){ 0 };
		x->capt = gp_xcalloc((size_t)m->nk * 64 * 64 + 1, sizeof *x->capt);
		if (!x->capt)
			return -1;
		set_swap(m, x);
		m->nsets++;
		m->prev = x;
		/* m->capt is the fresh table: pm_caps_for's result goes to capn. */
	} else {
		m->prev = NULL;
	}
	short *sw = m->capt;
	m->capt = m->capn;
	m->capn = sw;
	m->enumerated = true;
	/* Another solve's set of these capacities: copy from it instead. */
	const struct pm_cset *other = pm_keep_find(m);
	m->prev_other = other != NULL;
	if (other)
		m->prev = other;
	if (enum_build(m) || sort_classes(m)) {
		m->enumerated = false;   /* half built: never reuse it */
		m->nc = 0;
		return -1;
	}
	return 0;
}
