/*
 * place_milp.c: the network-aware heterogeneous placement MILP
 * (gp_plan_milp, planner.h), in the GeoOrchestra / Metis / Sailor line of
 * DOMAIN.md, "Heterogeneous, network-aware placement".
 *
 * The MILP is exact for the plan space and the analytical model below;
 * the model is what the simulator does for 1F1B, simplified where the
 * simulator's behaviour is not linear (marked "approx." and checked in
 * tests/test_place_milp.c against gp_simulate).
 *
 * Plan space
 *  * Pools are (DC, GPU type) aggregates; the model size grows with the
 *    number of pools, never with GPU counts.
 *  * A pipeline class c is an ordered list of S <= S_max stages made of one
 *    or two segments; a segment is n consecutive stages on one pool, all
 *    with one TP degree t (t in {1,2,4,8}, t <= per_node, t | heads,
 *    t <= count) and one recomputation policy (the job's; "auto" tries
 *    none, selective and full per segment). The two segments of a class sit
 *    on different pools, in the same DC or in DCs joined by a link.
 *    S_max = clamp(S_need + 1, 2, min(L, 16)), S_need the fewest stages of
 *    any pool that hold the model's weights and optimizer state.
 *  * Replicas y[c,m] >= 0 of class c run m micro-batches each, m in 1..N
 *    (N = global_batch / micro_batch) when N <= 64, else in {1..8}, the
 *    divisors of N and floor/ceil(N / j), j <= 16. All replicas of a class
 *    share one layer split l[c,i] >= 1, sum_i l[c,i] = L.
 *
 * Model (per micro-batch costs from the cost model's ops, evaluated once)
 *  * Stage i: t_i = f_i + b_i, f_i = l_i F + [last] F_logits,
 *    b_i = l_i (B + W) + [last] (B + W)_logits.
 *  * delta_i, boundary i -> i+1: in one DC p2p_time(2bsh, min NIC, max
 *    latency); across a link 2bsh / bandwidth + latency (one replica's
 *    share: R lockstep replicas load the link R times, which the link rows
 *    below bound, but not the first micro-batch's path: approx.).
 *  * 1F1B with limited in-flight micro-batches: the steady-state cycle
 *    U_c >= t_i and U_c >= (sum_{j>=i} t_j + 2 sum_{j>=i} delta_j) / (S - i)
 *    (stage i keeps S - i micro-batches in flight around its round trip);
 *    compute ends at Tc = (m - 1) U_c + sum_i t_i + 2 sum_i delta_i.
 *    For 1 < m < S this is conservative.
 *  * DP sync (simulator: per-layer buckets of the last backward, one after
 *    another per device; embedding gradients spread over the layers):
 *    stage i's last backward ends tail_i = sum_{j<i} (b_j + delta_j) before
 *    Tc; its sync ends at Tc - tail_i - b_i + (B + W) + l_i a_i + G_i w_i,
 *    and not before Tc - tail_i + a_i + (2 P prec) w_i (the last bucket),
 *    where G_i = prec (l_i P + [first] E + [last] E) are its gradient bytes,
 *    a_i the per-bucket fixed time (local ring latency, WAN latency
 *    2 (K - 1) alpha / every) and w_i the per-byte time (local ring
 *    2 (n - 1) / n / (t bw), WAN 2 (K - 1) / K / (every beta)).
 *    K: DCs the plan uses (brackets 1, 2, 3, 4, 5-8, 9-16, ... at their
 *    upper end); (beta, alpha): the worst link class among the ring's
 *    edges (links grouped by (bandwidth, latency), ordered by the cost of a
 *    layer's bucket; class q stands for min bandwidth, max latency of
 *    classes 1..q). n: the local ring, estimated as the most replicas of
 *    the class the pool holds (approx.: the simulator uses the replicas
 *    actually in the DC). flat sync: no local phase across DCs and WAN
 *    latency counted with K steps (approx.: the simulator uses D steps).
 *    Without DP (one replica) no sync.
 *  * Optimizer step after the sync: optimizer_time(params_i / t) of the
 *    stage, without the ZeRO-1 division by D (conservative, small).
 *  * T >= Tc + E_c for every used (c, m), E_c >= the sync and optimizer
 *    tails of each stage. The objective "time" minimises T.
 *  * Links, per direction: sum of 2bsh y m over the pipeline boundaries
 *    that cross it, plus the DP ring's 2 (K-1)/K G / every if the ring uses
 *    it, <= bandwidth * T. The ring visits the used DCs in index order (as
 *    the simulator's); two ring neighbours without a link are infeasible.
 *  * Memory per stage: l_i (P/t st(d) + (S - i) act) + [first] E/t st(d)
 *    + [last] (E/t st(d) + 4 b s V / t) <= GPU memory, st(d) = 4 + 12/d
 *    with ZeRO-1 (else 16), d the largest of 1, 2, 3, 4, 6, 8, 12, ... not
 *    above the plan's replica count D (the simulator uses D itself and
 *    min(m, S - i) in flight: plans that fit here fit there).
 *  * Pools: sum of y t over a class's stages on the pool <= count.
 *    Budget: sum of y t price over stages <= budget_usd_per_hour.
 *
 * Linearisation: z[c,m] = [y >= 1], used_c >= z, v_d >= used_c (DC used),
 * kappa one-hot over K brackets, act_e >= v_a + v_b - 1 - sum of used DCs
 * between them (ring edges), R_q cumulative "a ring edge of class >= q",
 * X_k cumulative "D >= d_k" (memory caps l <= cap_1 + sum dcap_k X_k),
 * one = [D = 1]. Every big-M is the upper bound of its row's expression
 * from the column bounds. Rows in seconds or layers; link rows are
 * divided by the bandwidth.
 *
 * Objectives: time (min T); wan_bytes (min WAN bytes per iteration with
 * T <= 1.05 T*, a second solve); cost is not modelled (bilinear T x GPUs):
 * it falls back to time and says so in the note. Budget is a constraint.
 */
#include "planner.h"
#include "cost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PM_SMAX 16
#define PM_NMAX_ALL 64       /* N up to this: every m in 1..N */
#define PM_MAXCLASS 600
#define PM_NKB 8             /* K brackets */
#define PM_NDB 40            /* D brackets */

/* A stage kind: (pool, tp, recomputation) and its per-layer costs. */
struct pm_kind {
	int pool, tp;
	enum gp_recompute rc;
	double F, BW;          /* per layer forward, backward (B + W) */
	double LF, LBW;        /* the logits layer */
	double act, lact;      /* activation bytes per layer; logits (fp32) */
	double pst, est;       /* params per GPU of a layer, of an embedding */
	double opt_l, opt_e;   /* optimizer time of a layer's, an embedding's params */
	double a_loc, w_loc;   /* local ring: per bucket, per byte (full ranks) */
};

struct pm_pool {
	int dc, pool;
	const struct gp_pool *p;
	const struct gp_gpu *g;
};

struct pm_class {
	int S, nseg, kind[2], n[2];
	int k[PM_SMAX];        /* kind of each stage */
	double delta[PM_SMAX]; /* boundary i -> i+1 */
	int xdc;               /* 1 if the boundary between segments crosses DCs */
	int la, lb;            /* link indices a->b, b->a (when xdc) */
	int ymax;
	double cap[PM_SMAX][PM_NDB];   /* layer caps per D bracket */
	/* columns */
	int cl, cU, cE, cused, cy, cz;  /* cl: first of S; cy/cz: first of nm */
};

struct pm {
	const struct gp_scenario *sc;
	const struct gp_cost_model *cm;
	struct gp_err *e;
	int L, N, Smax;
	double b, s, prec, P, E, bb;
	struct pm_pool *pools;
	int npools;
	struct pm_kind *kinds;
	int nkinds;
	struct pm_class *cls;
	int ncls;
	bool truncated;
	int *ms;
	int nm;
	double db[PM_NDB];
	int ndb;
	int kb_lo[PM_NKB], kb_hi[PM_NKB], nkb;
	/* link classes */
	int *lcls;             /* class of each directed link */
	double qbw[64], qal[64];   /* effective (cumulative) per class */
	int nq;
	/* the model */
	struct gp_milp *lp;
	double *lo, *hi;       /* mirror of column bounds */
	int ncol, capcol;
	int cT, cv, ck, cR, cact, csync, cX, cone;
	int fix_c, fix_j, fix_y; /* fix_c >= 0: only y[fix_c, fix_j] = fix_y */
	bool dry;              /* row_ind only measures */
	double dry_ub;
};

/* ------------------------------------------------------------------ */
/* Columns and rows with their bounds mirrored for big-M computation.   */

static int col(struct pm *m, const char *nm, double lo, double hi, bool in, double obj)
{
	int c = gp_milp_col(m->lp, nm, lo, hi, in, obj);
	if (c < 0)
		return -1;
	if (c >= m->capcol) {
		int nc = m->capcol ? 2 * m->capcol : 1024;
		double *a = realloc(m->lo, (size_t)nc * sizeof *a);
		if (!a)
			return -1;
		m->lo = a;
		double *b = realloc(m->hi, (size_t)nc * sizeof *b);
		if (!b)
			return -1;
		m->hi = b;
		m->capcol = nc;
	}
	m->lo[c] = lo;
	m->hi[c] = hi;
	m->ncol = c + 1;
	return c;
}

#define EXP_MAX 4096
struct lexp {
	int n;
	int c[EXP_MAX];
	double v[EXP_MAX];
	double k;      /* constant */
};

static void ex_add(struct lexp *x, int c, double v)
{
	if (c < 0 || v == 0)
		return;
	for (int i = 0; i < x->n; i++)
		if (x->c[i] == c) {
			x->v[i] += v;
			return;
		}
	if (x->n < EXP_MAX) {
		x->c[x->n] = c;
		x->v[x->n++] = v;
	}
}

static double ex_ub(const struct pm *m, const struct lexp *x)
{
	double u = x->k;
	for (int i = 0; i < x->n; i++)
		u += x->v[i] > 0 ? x->v[i] * m->hi[x->c[i]] : x->v[i] * m->lo[x->c[i]];
	return u;
}

/* lhs >= expr, relaxed unless every column in on[] is 1 and every one
 * in off[] is 0; M is the expression's upper bound from column bounds.
 * In a dry run, only the largest such bound is recorded. */
static void row_ind(struct pm *m, const char *nm, int lhs, const struct lexp *x,
		    const int *on, int non, const int *off, int noff)
{
	static struct lexp r;
	double M = ex_ub(m, x) - (lhs >= 0 && !m->dry ? m->lo[lhs] : 0);
	if (m->dry) {
		if (M > m->dry_ub)
			m->dry_ub = M;
		return;
	}
	r.n = 0;
	r.k = 0;
	ex_add(&r, lhs, 1);
	for (int i = 0; i < x->n; i++)
		ex_add(&r, x->c[i], -x->v[i]);
	double rhs = x->k;
	if (non + noff > 0) {
		if (M <= 0)
			return;   /* never binding */
		for (int i = 0; i < non; i++)
			ex_add(&r, on[i], -M);
		for (int i = 0; i < noff; i++)
			ex_add(&r, off[i], M);
		rhs -= M * non;
	}
	gp_milp_row(m->lp, nm, r.n, r.c, r.v, rhs, HUGE_VAL);
}

static void row_ge(struct pm *m, const char *nm, int lhs, const struct lexp *x,
		   const int *ind, int nind)
{
	row_ind(m, nm, lhs, x, ind, nind, NULL, 0);
}

/* ------------------------------------------------------------------ */
/* Cost tables                                                         */

static void kind_costs(struct pm *m, struct pm_kind *k)
{
	const struct gp_scenario *sc = m->sc;
	const struct pm_pool *pp = &m->pools[k->pool];
	struct gp_layer_q q = { sc, pp->g, pp->p, k->tp, k->rc, 0 };
	struct gp_layer_time lt, lg;
	m->cm->ops->layer_time(m->cm->ud, &q, &lt);
	q.logits = 1;
	m->cm->ops->layer_time(m->cm->ud, &q, &lg);
	k->F = lt.f;
	k->BW = lt.b + lt.w;
	k->LF = lg.f;
	k->LBW = lg.b + lg.w;
	k->act = gp_layer_act_bytes(&sc->model, m->b, m->s, k->tp, k->rc);
	k->lact = 4 * m->b * m->s * sc->model.vocab / k->tp;
	k->pst = m->P / k->tp;
	k->est = m->E / k->tp;
	k->opt_l = m->cm->ops->optimizer_time(m->cm->ud, pp->g, k->pst);
	k->opt_e = m->cm->ops->optimizer_time(m->cm->ud, pp->g, k->est);
}

/* The local ring of a stage kind over n ranks (simulator, dp_group). */
static void local_ring(struct pm *m, struct pm_kind *k, int n)
{
	const struct gp_pool *p = m->pools[k->pool].p;
	double bw, lat;
	if ((long)n * k->tp <= p->per_node) {
		bw = p->nvlink;
		lat = 5e-6;
	} else {
		int r = p->per_node / k->tp;
		if (r < 1)
			r = 1;
		if (r > n)
			r = n;
		bw = p->network * r;
		lat = p->latency;
	}
	double X = 1e9;
	double a0 = m->cm->ops->allreduce_time(m->cm->ud, 0, n, bw, lat);
	double a1 = m->cm->ops->allreduce_time(m->cm->ud, X, n, bw, lat);
	k->a_loc = a0;
	k->w_loc = (a1 - a0) / X / k->tp;   /* per byte of the whole bucket */
}

static double state_bytes(const struct pm *m, double d)
{
	return gp_state_bytes_per_param(m->sc->job.zero, (int)d);
}

/* Layers stage i of class c holds at most with D >= d (may be < 1). */
static double stage_cap(const struct pm *m, const struct pm_class *c, int i, double d)
{
	const struct pm_kind *k = &m->kinds[c->k[i]];
	double st = state_bytes(m, d);
	double fixed = 0;
	if (i == 0)
		fixed += k->est * st;
	if (i == c->S - 1)
		fixed += k->est * st + k->lact;
	double per = k->pst * st + (c->S - i) * k->act;
	double mem = m->pools[k->pool].g->memory;
	double cap = floor((mem - fixed) / per + 1e-9);
	return cap > m->L ? m->L : cap;
}

/* ------------------------------------------------------------------ */
/* The plan space                                                      */

static int dc_linked(const struct gp_scenario *sc, int a, int b)
{
	return a == b || gp_find_link(sc, a, b) != NULL;
}

static int link_idx(const struct gp_scenario *sc, int a, int b)
{
	const struct gp_link *l = gp_find_link(sc, a, b);
	return l ? (int)(l - sc->links) : -1;
}

static void class_fill(struct pm *m, struct pm_class *c)
{
	const struct gp_scenario *sc = m->sc;
	int i = 0;
	for (int g = 0; g < c->nseg; g++)
		for (int j = 0; j < c->n[g]; j++)
			c->k[i++] = c->kind[g];
	c->S = i;
	c->xdc = 0;
	c->la = c->lb = -1;
	for (i = 0; i + 1 < c->S; i++) {
		const struct pm_pool *a = &m->pools[m->kinds[c->k[i]].pool];
		const struct pm_pool *b = &m->pools[m->kinds[c->k[i + 1]].pool];
		if (a->dc == b->dc) {
			c->delta[i] = m->cm->ops->p2p_time(m->cm->ud, m->bb,
				fmin(a->p->network, b->p->network),
				fmax(a->p->latency, b->p->latency));
		} else {
			const struct gp_link *l = gp_find_link(sc, a->dc, b->dc);
			c->delta[i] = m->bb / l->bandwidth + l->latency;
			c->xdc = 1;
			c->la = link_idx(sc, a->dc, b->dc);
			c->lb = link_idx(sc, b->dc, a->dc);
		}
	}
	c->delta[c->S - 1] = 0;
	c->ymax = 1 << 30;
	for (int g = 0; g < c->nseg; g++) {
		const struct pm_kind *k = &m->kinds[c->kind[g]];
		int y = m->pools[k->pool].p->count / (k->tp * c->n[g]);
		if (y < c->ymax)
			c->ymax = y;
	}
	if (c->ymax > m->N)
		c->ymax = m->N;
	for (i = 0; i < c->S; i++)
		for (int d = 0; d < m->ndb; d++)
			c->cap[i][d] = stage_cap(m, c, i, m->db[d]);
}

/* A class is kept if it has a replica's GPUs and fits with the most
 * replicas it could have. */
static bool class_ok(const struct pm *m, const struct pm_class *c)
{
	if (c->ymax < 1 || c->S > m->L)
		return false;
	int sum = 0;
	for (int i = 0; i < c->S; i++) {
		int cap = (int)c->cap[i][m->ndb - 1];
		if (cap < 1)
			return false;
		sum += cap;
	}
	return sum >= m->L;
}

static int add_class(struct pm *m, int ka, int na, int kb, int nb)
{
	if (m->ncls >= PM_MAXCLASS) {
		m->truncated = true;
		return 0;
	}
	struct pm_class *c = &m->cls[m->ncls];
	memset(c, 0, sizeof *c);
	c->kind[0] = ka;
	c->n[0] = na;
	c->nseg = 1;
	if (kb >= 0) {
		c->kind[1] = kb;
		c->n[1] = nb;
		c->nseg = 2;
	}
	class_fill(m, c);
	if (class_ok(m, c))
		m->ncls++;
	return 0;
}

static int enum_kinds(struct pm *m)
{
	const struct gp_scenario *sc = m->sc;
	m->npools = 0;
	for (int d = 0; d < sc->ndcs; d++)
		m->npools += sc->dcs[d].npools;
	m->pools = gp_xcalloc((size_t)m->npools + 1, sizeof *m->pools);
	m->kinds = gp_xcalloc((size_t)m->npools * 12 + 1, sizeof *m->kinds);
	if (!m->pools || !m->kinds)
		return gp_errf(m->e, "out of memory");
	int n = 0;
	for (int d = 0; d < sc->ndcs; d++)
		for (int q = 0; q < sc->dcs[d].npools; q++) {
			const struct gp_pool *p = &sc->dcs[d].pools[q];
			m->pools[n++] = (struct pm_pool){ d, q, p, &sc->gpus[p->gpu] };
		}
	enum gp_recompute rcs[3] = { sc->job.recompute, 0, 0 };
	int nrc = 1;
	if (sc->job.recompute == GP_RC_AUTO) {
		rcs[0] = GP_RC_NONE;
		rcs[1] = GP_RC_SELECTIVE;
		rcs[2] = GP_RC_FULL;
		nrc = 3;
	}
	m->nkinds = 0;
	for (int p = 0; p < m->npools; p++)
		for (int t = 1; t <= 8; t *= 2) {
			const struct gp_pool *pl = m->pools[p].p;
			if (t > pl->per_node || t > pl->count || (long)sc->model.heads % t)
				continue;
			for (int r = 0; r < nrc; r++) {
				struct pm_kind *k = &m->kinds[m->nkinds++];
				k->pool = p;
				k->tp = t;
				k->rc = rcs[r];
				kind_costs(m, k);
			}
		}
	return 0;
}

/* Fewest stages of one kind that hold the weights and optimizer state
 * with the most replicas possible (activations aside). */
static int stages_needed(const struct pm *m)
{
	int best = 1 << 30;
	double st = state_bytes(m, m->db[m->ndb - 1]);
	for (int i = 0; i < m->nkinds; i++) {
		const struct pm_kind *k = &m->kinds[i];
		double mem = m->pools[k->pool].g->memory;
		double per = k->pst * st;
		double tot = m->L * per + 2 * k->est * st;
		int s = (int)ceil(tot / mem);
		if (s < 1)
			s = 1;
		if (s < best)
			best = s;
	}
	return best;
}

static int enum_classes(struct pm *m)
{
	m->cls = gp_xcalloc(PM_MAXCLASS, sizeof *m->cls);
	if (!m->cls)
		return gp_errf(m->e, "out of memory");
	int need = stages_needed(m);
	int top = m->L < PM_SMAX ? m->L : PM_SMAX;
	m->Smax = need + 1;
	if (m->Smax < 2)
		m->Smax = 2;
	if (m->Smax > top)
		m->Smax = top;
	/* One segment first, then two in one DC, then across links. */
	for (int a = 0; a < m->nkinds; a++)
		for (int n = 1; n <= m->Smax; n++)
			add_class(m, a, n, -1, 0);
	for (int pass = 0; pass < 2; pass++)
		for (int a = 0; a < m->nkinds; a++)
			for (int b = 0; b < m->nkinds; b++) {
				const struct pm_kind *ka = &m->kinds[a], *kb = &m->kinds[b];
				if (ka->pool == kb->pool)
					continue;
				int da = m->pools[ka->pool].dc, dbb = m->pools[kb->pool].dc;
				if ((pass == 0) != (da == dbb) || !dc_linked(m->sc, da, dbb))
					continue;
				for (int na = 1; na < m->Smax; na++)
					for (int nb = 1; na + nb <= m->Smax; nb++)
						add_class(m, a, na, b, nb);
			}
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int enum_ms(struct pm *m)
{
	int N = m->N;
	m->ms = gp_xcalloc((size_t)(N <= PM_NMAX_ALL ? N : 200), sizeof *m->ms);
	if (!m->ms)
		return gp_errf(m->e, "out of memory");
	m->nm = 0;
	if (N <= PM_NMAX_ALL) {
		for (int i = 1; i <= N; i++)
			m->ms[m->nm++] = i;
		return 0;
	}
	int tmp[400], n = 0;
	for (int i = 1; i <= 8; i++)
		tmp[n++] = i;
	for (int i = 1; (long)i * i <= N && n < 360; i++)
		if (N % i == 0) {
			tmp[n++] = i;
			tmp[n++] = N / i;
		}
	for (int j = 1; j <= 16; j++) {
		tmp[n++] = N / j;
		tmp[n++] = (N + j - 1) / j;
	}
	qsort(tmp, (size_t)n, sizeof *tmp, cmp_int);
	for (int i = 0; i < n && m->nm < 200; i++)
		if (tmp[i] >= 1 && tmp[i] <= N && (m->nm == 0 || m->ms[m->nm - 1] != tmp[i]))
			m->ms[m->nm++] = tmp[i];
	return 0;
}

/* D brackets 1, 2, 3, 4, 6, 8, 12, ... (ZeRO-1 state only). */
static void enum_dbrackets(struct pm *m, int Dmax)
{
	m->ndb = 1;
	m->db[0] = 1;
	if (!m->sc->job.zero)
		return;
	double seq[PM_NDB];
	int n = 0;
	seq[n++] = 1;
	seq[n++] = 2;
	seq[n++] = 3;
	seq[n++] = 4;
	while (n < PM_NDB && seq[n - 1] < Dmax)
		seq[n] = seq[n - 2] * 2, n++;
	m->ndb = 0;
	for (int i = 0; i < n && seq[i] <= Dmax; i++)
		m->db[m->ndb++] = seq[i];
}

/* K brackets: 1, 2, 3, 4, 5-8, 9-16, ... */
static void enum_kbrackets(struct pm *m)
{
	int ndc = m->sc->ndcs;
	m->nkb = 0;
	for (int k = 1; k <= ndc && k <= 4; k++) {
		m->kb_lo[m->nkb] = m->kb_hi[m->nkb] = k;
		m->nkb++;
	}
	for (int lo = 5; lo <= ndc && m->nkb < PM_NKB; lo = 2 * lo - 1) {
		m->kb_lo[m->nkb] = lo;
		m->kb_hi[m->nkb] = 2 * lo - 2 < ndc ? 2 * lo - 2 : ndc;
		m->nkb++;   /* 5-8, 9-16, 17-32 ... */
	}
}

/* Link classes by (bandwidth, latency), ordered by the time of one
 * layer's gradient bucket over them; each class stands for the worst
 * bandwidth and latency of the classes up to it. */
static int enum_lclasses(struct pm *m)
{
	const struct gp_scenario *sc = m->sc;
	m->lcls = gp_xcalloc((size_t)sc->nlinks + 1, sizeof *m->lcls);
	if (!m->lcls)
		return gp_errf(m->e, "out of memory");
	double bw[64], al[64], key[64];
	int n = 0;
	double ref = m->P * m->prec;
	for (int i = 0; i < sc->nlinks; i++) {
		const struct gp_link *l = &sc->links[i];
		int j;
		for (j = 0; j < n; j++)
			if (bw[j] == l->bandwidth && al[j] == l->latency)
				break;
		if (j == n && n < 64) {
			bw[n] = l->bandwidth;
			al[n] = l->latency;
			key[n] = ref / l->bandwidth + 2 * l->latency;
			n++;
		}
	}
	/* insertion sort by key, then bandwidth descending, latency ascending */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0; j--) {
			bool sw = key[j] < key[j - 1] ||
				  (key[j] == key[j - 1] && (bw[j] > bw[j - 1] ||
				   (bw[j] == bw[j - 1] && al[j] < al[j - 1])));
			if (!sw)
				break;
			double t;
			t = bw[j]; bw[j] = bw[j - 1]; bw[j - 1] = t;
			t = al[j]; al[j] = al[j - 1]; al[j - 1] = t;
			t = key[j]; key[j] = key[j - 1]; key[j - 1] = t;
		}
	m->nq = n;
	for (int q = 0; q < n; q++) {
		m->qbw[q] = q ? fmin(m->qbw[q - 1], bw[q]) : bw[q];
		m->qal[q] = q ? fmax(m->qal[q - 1], al[q]) : al[q];
	}
	for (int i = 0; i < sc->nlinks; i++)
		for (int q = 0; q < n; q++)
			if (bw[q] == sc->links[i].bandwidth && al[q] == sc->links[i].latency)
				m->lcls[i] = q;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Building                                                            */

static int class_dcs(const struct pm *m, const struct pm_class *c, int *d)
{
	int n = 0;
	for (int g = 0; g < c->nseg; g++) {
		int x = m->pools[m->kinds[c->kind[g]].pool].dc;
		if (n == 0 || d[n - 1] != x)
			d[n++] = x;
	}
	return n;
}

static double class_gpus_price(const struct pm *m, const struct pm_class *c, double *gpus)
{
	double usd = 0, n = 0;
	for (int i = 0; i < c->S; i++) {
		const struct pm_kind *k = &m->kinds[c->k[i]];
		usd += k->tp * m->pools[k->pool].g->price_per_hour;
		n += k->tp;
	}
	if (gpus)
		*gpus = n;
	return usd;
}

/* Per-bucket fixed and per-byte sync time of stage i, K bracket j, link
 * class q (q < 0: no WAN). */
static void sync_coefs(const struct pm *m, const struct pm_kind *k, int K, int q,
		       double *a, double *w)
{
	const struct gp_job *job = &m->sc->job;
	bool loc = K == 1 || job->sync_mode == GP_SYNC_HIER;
	*a = loc ? k->a_loc : 0;
	*w = loc ? k->w_loc : 0;
	if (K > 1 && q >= 0) {
		double coef = 2.0 * (K - 1) / K;
		*a += 2.0 * (K - 1) * m->qal[q] / job->sync_every;
		*w += coef / (job->sync_every * m->qbw[q]);
	}
}

/* E_c >= the optimizer and DP-sync tail of each stage past Tc. */
static void e_rows(struct pm *m, const struct pm_class *c)
{
	static struct lexp x, base;
	int S = c->S, ind[2], off[1] = { m->cone };
	double tail_k = 0;
	for (int i = 0; i < S; i++) {
		const struct pm_kind *k = &m->kinds[c->k[i]];
		int first = i == 0, last = i == S - 1;
		/* -tail_i + opt_i */
		base.n = 0;
		base.k = -tail_k + (first + last) * k->opt_e;
		for (int j = 0; j < i; j++)
			ex_add(&base, c->cl + j, -m->kinds[c->k[j]].BW);
		ex_add(&base, c->cl + i, k->opt_l);
		row_ge(m, "Eopt", c->cE, &base, NULL, 0);
		double Gk = m->prec * m->E * (first + last);
		for (int j = 0; j < m->nkb; j++) {
			int K = m->kb_hi[j];
			for (int q = K > 1 ? 0 : -1; q < (K > 1 ? m->nq : 0); q++) {
				double a, w;
				sync_coefs(m, k, K, q, &a, &w);
				int ni = 0;
				ind[ni++] = m->ck + j;
				if (q > 0)
					ind[ni++] = m->cR + q;
				/* buckets back to back from the first one:
				 * -b_i + (B + W) + l a + G w */
				x = base;
				ex_add(&x, c->cl + i, -k->BW + a + m->prec * m->P * w);
				x.k += (last ? -k->LBW : 0) + k->BW + Gk * w;
				row_ind(m, "Esync", c->cE, &x, ind, ni, off, 1);
				/* the last bucket after the last backward */
				x = base;
				x.k += a + m->prec * m->P * w;
				row_ind(m, "Elast", c->cE, &x, ind, ni, off, 1);
			}
		}
		tail_k += c->delta[i];
	}
}

static void build(struct pm *m, const struct gp_plan_opts *o, enum gp_objective obj,
		  double Tcap)
{
	const struct gp_scenario *sc = m->sc;
	char nm[64];
	int ndc = sc->ndcs;
	/* Upper bound of T: one class serial, big enough for every row. */
	double Tub = 0;
	for (int ci = 0; ci < m->ncls; ci++) {
		const struct pm_class *c = &m->cls[ci];
		double t = 0, d = 0;
		for (int i = 0; i < c->S; i++) {
			const struct pm_kind *k = &m->kinds[c->k[i]];
			t += m->L * (k->F + k->BW) + k->LF + k->LBW;
			d += 2 * c->delta[i];
		}
		double tc = m->N * (t + d) * 2 + 1;
		if (tc > Tub)
			Tub = tc;
	}
	m->cT = col(m, "T", 0, Tcap > 0 ? Tcap : HUGE_VAL, false, obj == GP_OBJ_WAN ? 0 : 1);
	/* DCs, K brackets, ring edges, link classes, D brackets. */
	m->cv = m->ncol;
	for (int d = 0; d < ndc; d++) {
		snprintf(nm, sizeof nm, "v%d", d);
		col(m, nm, 0, 1, true, 0);
	}
	m->ck = m->ncol;
	for (int j = 0; j < m->nkb; j++) {
		snprintf(nm, sizeof nm, "kappa%d", j);
		col(m, nm, 0, 1, true, 0);
	}
	m->cR = m->ncol;
	for (int q = 0; q < m->nq; q++) {
		snprintf(nm, sizeof nm, "R%d", q);
		col(m, nm, q == 0 ? 1 : 0, 1, true, 0);
	}
	m->cact = m->ncol;
	for (int l = 0; l < sc->nlinks; l++) {
		snprintf(nm, sizeof nm, "act%d", l);
		col(m, nm, 0, 1, true, 0);
	}
	m->csync = m->ncol;
	double Gtot = m->prec * (m->L * m->P + 2 * m->E);
	for (int l = 0; l < sc->nlinks; l++) {
		snprintf(nm, sizeof nm, "sync%d", l);
		/* seconds of the link's time */
		col(m, nm, 0, 2 * Gtot / (sc->job.sync_every * sc->links[l].bandwidth), false,
		    obj == GP_OBJ_WAN ? sc->links[l].bandwidth / 1e9 : 0);
	}
	m->cX = m->ncol;
	for (int k = 1; k < m->ndb; k++) {
		snprintf(nm, sizeof nm, "X%d", k);
		col(m, nm, 0, 1, true, 0);
	}
	m->cone = col(m, "one", 0, 1, true, 0);
	/* Per class. */
	for (int ci = 0; ci < m->ncls; ci++) {
		struct pm_class *c = &m->cls[ci];
		c->cl = m->ncol;
		for (int i = 0; i < c->S; i++) {
			snprintf(nm, sizeof nm, "l%d_%d", ci, i);
			double hi = c->cap[i][m->ndb - 1];
			if (hi > m->L - (c->S - 1))
				hi = m->L - (c->S - 1);
			col(m, nm, 1, hi, true, 0);
		}
		snprintf(nm, sizeof nm, "U%d", ci);
		c->cU = col(m, nm, 0, Tub, false, 0);
		/* E's bound: the largest of its rows' expressions. */
		m->dry = true;
		m->dry_ub = 0;
		c->cE = m->ncol;   /* not yet a column: rows only measured */
		e_rows(m, c);
		m->dry = false;
		snprintf(nm, sizeof nm, "E%d", ci);
		c->cE = col(m, nm, 0, m->dry_ub, false, 0);
		snprintf(nm, sizeof nm, "used%d", ci);
		c->cused = col(m, nm, 0, 1, true, 0);
		c->cy = m->ncol;
		for (int j = 0; j < m->nm; j++) {
			snprintf(nm, sizeof nm, "y%d_%d", ci, m->ms[j]);
			int ub = m->N / m->ms[j];
			if (ub > c->ymax)
				ub = c->ymax;
			double ylo = 0;
			if (m->fix_c >= 0)
				ylo = ub = ci == m->fix_c && j == m->fix_j ? m->fix_y : 0;
			col(m, nm, ylo, ub, true,
			    obj == GP_OBJ_WAN && c->xdc
			    ? 2 * m->ms[j] * m->bb / 1e9 : 0);
		}
		c->cz = m->ncol;
		for (int j = 0; j < m->nm; j++) {
			snprintf(nm, sizeof nm, "z%d_%d", ci, m->ms[j]);
			col(m, nm, 0, 1, true, 0);
		}
	}
	static struct lexp x;
	int ind[4];
	/* Batch, pools, budget, D. */
	x.n = 0; x.k = 0;
	for (int ci = 0; ci < m->ncls; ci++)
		for (int j = 0; j < m->nm; j++)
			ex_add(&x, m->cls[ci].cy + j, m->ms[j]);
	gp_milp_row(m->lp, "batch", x.n, x.c, x.v, m->N, m->N);
	for (int p = 0; p < m->npools; p++) {
		x.n = 0;
		for (int ci = 0; ci < m->ncls; ci++) {
			const struct pm_class *c = &m->cls[ci];
			double g = 0;
			for (int i = 0; i < c->S; i++)
				if (m->kinds[c->k[i]].pool == p)
					g += m->kinds[c->k[i]].tp;
			for (int j = 0; g > 0 && j < m->nm; j++)
				ex_add(&x, c->cy + j, g);
		}
		snprintf(nm, sizeof nm, "pool%d", p);
		if (x.n)
			gp_milp_row(m->lp, nm, x.n, x.c, x.v, -HUGE_VAL, m->pools[p].p->count);
	}
	if (o->budget_usd_per_hour > 0) {
		x.n = 0;
		for (int ci = 0; ci < m->ncls; ci++) {
			double usd = class_gpus_price(m, &m->cls[ci], NULL);
			for (int j = 0; j < m->nm; j++)
				ex_add(&x, m->cls[ci].cy + j, usd);
		}
		gp_milp_row(m->lp, "budget", x.n, x.c, x.v, -HUGE_VAL, o->budget_usd_per_hour);
	}
	/* sum y >= d_1 + sum (d_k - d_{k-1}) X_k; X cumulative; one = [D = 1]. */
	x.n = 0;
	double Dmax = 0;
	for (int ci = 0; ci < m->ncls; ci++)
		for (int j = 0; j < m->nm; j++) {
			ex_add(&x, m->cls[ci].cy + j, 1);
			Dmax += m->hi[m->cls[ci].cy + j];
		}
	for (int k = 1; k < m->ndb; k++)
		ex_add(&x, m->cX + k - 1, -(m->db[k] - m->db[k - 1]));
	gp_milp_row(m->lp, "Dbr", x.n, x.c, x.v, m->db[0], HUGE_VAL);
	for (int k = 2; k < m->ndb; k++) {
		int cc[2] = { m->cX + k - 1, m->cX + k - 2 };
		double vv[2] = { 1, -1 };
		gp_milp_row(m->lp, "Xmono", 2, cc, vv, -HUGE_VAL, 0);
	}
	x.n = 0;
	for (int ci = 0; ci < m->ncls; ci++)
		for (int j = 0; j < m->nm; j++)
			ex_add(&x, m->cls[ci].cy + j, 1);
	ex_add(&x, m->cone, 2);
	gp_milp_row(m->lp, "one_lo", x.n, x.c, x.v, 2, HUGE_VAL);
	/* one = 1 => sum y <= 1 */
	for (int i = 0; i < x.n; i++)
		if (x.c[i] == m->cone)
			x.v[i] = Dmax;
	gp_milp_row(m->lp, "one_hi", x.n, x.c, x.v, -HUGE_VAL, 1 + Dmax);
	/* K: one-hot, sum v within the bracket. */
	x.n = 0;
	for (int j = 0; j < m->nkb; j++)
		ex_add(&x, m->ck + j, 1);
	gp_milp_row(m->lp, "kappa", x.n, x.c, x.v, 1, 1);
	x.n = 0;
	for (int d = 0; d < ndc; d++)
		ex_add(&x, m->cv + d, 1);
	for (int j = 0; j < m->nkb; j++)
		ex_add(&x, m->ck + j, -m->kb_hi[j]);
	gp_milp_row(m->lp, "K_hi", x.n, x.c, x.v, -HUGE_VAL, 0);
	for (int j = 0; j < m->nkb; j++)
		x.v[ndc + j] = -m->kb_lo[j];
	gp_milp_row(m->lp, "K_lo", x.n, x.c, x.v, 0, HUGE_VAL);
	/* Ring edges: a -> b is used when both are and no used DC lies
	 * between them in index order (cyclically). */
	if (ndc > 1)
		for (int a = 0; a < ndc; a++)
			for (int b = 0; b < ndc; b++) {
				if (a == b)
					continue;
				x.n = 0;
				ex_add(&x, m->cv + a, 1);
				ex_add(&x, m->cv + b, 1);
				for (int d = (a + 1) % ndc; d != b; d = (d + 1) % ndc)
					ex_add(&x, m->cv + d, -1);
				int li = link_idx(sc, a, b);
				snprintf(nm, sizeof nm, "ring%d_%d", a, b);
				if (li < 0) {
					gp_milp_row(m->lp, nm, x.n, x.c, x.v, -HUGE_VAL, 1);
					continue;
				}
				ex_add(&x, m->cact + li, -1);
				gp_milp_row(m->lp, nm, x.n, x.c, x.v, -HUGE_VAL, 1);
				/* R cumulative */
				for (int q = 1; q <= m->lcls[li]; q++) {
					int cc[2] = { m->cR + q, m->cact + li };
					double vv[2] = { 1, -1 };
					gp_milp_row(m->lp, "Rq", 2, cc, vv, 0, HUGE_VAL);
				}
			}
	/* Sync bytes on ring edges, link capacity. */
	for (int l = 0; l < sc->nlinks; l++) {
		const struct gp_link *lk = &sc->links[l];
		for (int j = 0; j < m->nkb; j++) {
			int K = m->kb_hi[j];
			if (K < 2)
				continue;
			double coef = sc->job.sync_mode == GP_SYNC_HIER ? 2.0 * (K - 1) / K : 2.0;
			x.n = 0;
			x.k = coef * Gtot / (sc->job.sync_every * lk->bandwidth);
			ind[0] = m->cact + l;
			ind[1] = m->ck + j;
			row_ge(m, "syncb", m->csync + l, &x, ind, 2);
		}
		x.n = 0;
		x.k = 0;
		ex_add(&x, m->csync + l, 1);
		ex_add(&x, m->cT, -1);
		for (int ci = 0; ci < m->ncls; ci++) {
			const struct pm_class *c = &m->cls[ci];
			if (!c->xdc || (c->la != l && c->lb != l))
				continue;
			for (int j = 0; j < m->nm; j++)
				ex_add(&x, c->cy + j, m->ms[j] * m->bb / lk->bandwidth);
		}
		snprintf(nm, sizeof nm, "link%d", l);
		gp_milp_row(m->lp, nm, x.n, x.c, x.v, -HUGE_VAL, 0);
	}
	/* Classes. */
	for (int ci = 0; ci < m->ncls; ci++) {
		struct pm_class *c = &m->cls[ci];
		int S = c->S;
		x.n = 0;
		x.k = 0;
		for (int i = 0; i < S; i++)
			ex_add(&x, c->cl + i, 1);
		gp_milp_row(m->lp, "layers", x.n, x.c, x.v, m->L, m->L);
		for (int j = 0; j < m->nm; j++) {
			int cc[2] = { c->cy + j, c->cz + j };
			double vv[2] = { 1, -m->hi[c->cy + j] };
			gp_milp_row(m->lp, "yz", 2, cc, vv, -HUGE_VAL, 0);
			vv[1] = -1;
			gp_milp_row(m->lp, "zy", 2, cc, vv, 0, HUGE_VAL);
			int cu[2] = { c->cused, c->cz + j };
			gp_milp_row(m->lp, "used", 2, cu, vv, 0, HUGE_VAL);
		}
		int dcs[2], nd = class_dcs(m, c, dcs);
		for (int d = 0; d < nd; d++) {
			int cc[2] = { m->cv + dcs[d], c->cused };
			double vv[2] = { 1, -1 };
			gp_milp_row(m->lp, "vused", 2, cc, vv, 0, HUGE_VAL);
		}
		/* Memory: l <= cap_1 + sum dcap X + L (1 - used). */
		for (int i = 0; i < S; i++) {
			x.n = 0;
			ex_add(&x, c->cl + i, 1);
			for (int k = 1; k < m->ndb; k++)
				ex_add(&x, m->cX + k - 1, -(c->cap[i][k] - c->cap[i][k - 1]));
			ex_add(&x, c->cused, m->L);
			gp_milp_row(m->lp, "mem", x.n, x.c, x.v, -HUGE_VAL,
				    c->cap[i][0] + m->L);
		}
		/* t_i as expressions; U >= t_i, U >= round trip / (S - i). */
		for (int i = 0; i < S; i++) {
			x.n = 0;
			x.k = 0;
			for (int j = i; j < S; j++) {
				const struct pm_kind *k = &m->kinds[c->k[j]];
				ex_add(&x, c->cl + j, (k->F + k->BW) / (S - i));
				x.k += ((j == S - 1 ? k->LF + k->LBW : 0) + 2 * c->delta[j]) / (S - i);
			}
			row_ge(m, "Urt", c->cU, &x, NULL, 0);
			const struct pm_kind *k = &m->kinds[c->k[i]];
			x.n = 0;
			x.k = i == S - 1 ? k->LF + k->LBW : 0;
			ex_add(&x, c->cl + i, k->F + k->BW);
			row_ge(m, "Ut", c->cU, &x, NULL, 0);
		}
		e_rows(m, c);
		/* T >= (m - 1) U + sum t + 2 sum delta + E - M (1 - z). */
		for (int j = 0; j < m->nm; j++) {
			x.n = 0;
			x.k = 0;
			ex_add(&x, c->cU, m->ms[j] - 1);
			ex_add(&x, c->cE, 1);
			for (int i = 0; i < S; i++) {
				const struct pm_kind *k = &m->kinds[c->k[i]];
				ex_add(&x, c->cl + i, k->F + k->BW);
				x.k += 2 * c->delta[i] + (i == S - 1 ? k->LF + k->LBW : 0);
			}
			ind[0] = c->cz + j;
			row_ge(m, "T", m->cT, &x, ind, 1);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Driver                                                              */

static void pm_free(struct pm *m)
{
	gp_milp_free(m->lp);
	free(m->lo);
	free(m->hi);
	free(m->pools);
	free(m->kinds);
	free(m->cls);
	free(m->ms);
	free(m->lcls);
	memset(m, 0, sizeof *m);
}

/* Everything up to the MILP: cost tables, plan space, brackets. */
static int pm_prepare(struct pm *m, const struct gp_scenario *sc, struct gp_err *e)
{
	memset(m, 0, sizeof *m);
	m->fix_c = -1;
	m->sc = sc;
	m->cm = &gp_default_cost;
	m->e = e;
	m->L = sc->model.layers;
	m->b = sc->job.micro_batch;
	m->s = sc->job.seq;
	m->prec = sc->job.precision_bytes;
	m->P = gp_layer_params(&sc->model);
	m->E = gp_embedding_params(&sc->model);
	m->bb = gp_boundary_bytes(sc);
	double nb = sc->job.global_batch / sc->job.micro_batch;
	if (nb != floor(nb))
		return gp_errf(e, "job.global_batch %.0f cannot be split into micro-batches of %.0f: %.0f sequences are left over",
			       sc->job.global_batch, sc->job.micro_batch,
			       fmod(sc->job.global_batch, sc->job.micro_batch));
	m->N = (int)nb;
	long gpus = 0;
	for (int d = 0; d < sc->ndcs; d++)
		for (int q = 0; q < sc->dcs[d].npools; q++)
			gpus += sc->dcs[d].pools[q].count;
	int Dmax = gpus < m->N ? (int)gpus : m->N;
	enum_dbrackets(m, Dmax);
	enum_kbrackets(m);
	if (enum_kinds(m) || enum_lclasses(m))
		return -1;
	for (int i = 0; i < m->nkinds; i++)
		local_ring(m, &m->kinds[i], 1);
	if (enum_classes(m) || enum_ms(m))
		return -1;
	/* The local ring's size: the most replicas the class's pool holds
	 * (the estimate the model states); kinds are per class here, so
	 * take it per kind from the one-segment classes. */
	for (int i = 0; i < m->nkinds; i++) {
		struct pm_kind *k = &m->kinds[i];
		int n = m->pools[k->pool].p->count / k->tp;
		if (n > m->N)
			n = m->N;
		local_ring(m, k, n < 1 ? 1 : n);
	}
	return 0;
}

/* Why no class exists or none fits the budget: what does not fit and by
 * how much. */
static int explain_empty(const struct pm *m, const struct gp_plan_opts *o,
			 struct gp_err *e)
{
	const struct gp_scenario *sc = m->sc;
	if (m->nkinds == 0)
		return gp_errf(e, "no pool can host a stage: TP degrees 1, 2, 4, 8 must divide the model's %.0f heads and fit a node",
			       sc->model.heads);
	/* The largest share of the model one GPU can hold. */
	double st = state_bytes(m, m->db[m->ndb - 1]);
	double best_mem = 0;
	int best = 0;
	for (int i = 0; i < m->nkinds; i++) {
		double mem = m->pools[m->kinds[i].pool].g->memory * m->kinds[i].tp;
		if (mem > best_mem) {
			best_mem = mem;
			best = i;
		}
	}
	const struct pm_kind *k = &m->kinds[best];
	const struct pm_pool *p = &m->pools[k->pool];
	double per = k->pst * st + k->act;
	double cap = floor(p->g->memory / per);
	double model = (m->L * m->P + 2 * m->E) * st;
	if (m->ncls == 0) {
		if (cap < 1)
			return gp_errf(e, "the model does not fit: one layer needs %.3g GB per GPU (%s, tp %d: %.3g GB of weights and optimizer state, %.3g GB of activations), the GPU has %.3g GB",
				       per / 1e9, p->g->name, k->tp, k->pst * st / 1e9,
				       k->act / 1e9, p->g->memory / 1e9);
		int need = (int)ceil(m->L / cap);
		if (need < 1)
			need = 1;
		return gp_errf(e, "the model does not fit: its %.0f GB of weights and optimizer state need at least %d stages of %.0f GB %s GPUs at tp %d (%d GPUs), but the plan space allows %d stages and the pool has %d GPUs",
			       model / 1e9, need, p->g->memory / 1e9, p->g->name, k->tp,
			       need * k->tp, m->Smax, p->p->count);
	}
	if (o->budget_usd_per_hour > 0) {
		double cheapest = HUGE_VAL;
		int ci = 0;
		for (int i = 0; i < m->ncls; i++) {
			double usd = class_gpus_price(m, &m->cls[i], NULL);
			if (usd < cheapest) {
				cheapest = usd;
				ci = i;
			}
		}
		if (cheapest > o->budget_usd_per_hour) {
			const struct pm_class *c = &m->cls[ci];
			double g;
			class_gpus_price(m, c, &g);
			return gp_errf(e, "budget $%.2f/hour is too small: the cheapest pipeline that fits (%d stages, %.0f GPUs, first on %s/%s) costs $%.2f/hour, $%.2f/hour more",
				       o->budget_usd_per_hour, c->S, g,
				       sc->dcs[m->pools[m->kinds[c->k[0]].pool].dc].name,
				       m->pools[m->kinds[c->k[0]].pool].g->name, cheapest,
				       cheapest - o->budget_usd_per_hour);
		}
	}
	return 0;
}

/* Turns the solution into a plan: one pipeline per used (class, m). */
static int extract(const struct pm *m, const double *xv, enum gp_sched sched,
		   struct gp_plan *out, struct gp_err *e)
{
	const struct gp_scenario *sc = m->sc;
	int np = 0;
	for (int ci = 0; ci < m->ncls; ci++)
		for (int j = 0; j < m->nm; j++)
			if (lround(xv[m->cls[ci].cy + j]) > 0)
				np++;
	*out = (struct gp_plan){ .schedule = sched, .chunks = 1 };
	out->pipes = gp_xcalloc((size_t)(np ? np : 1), sizeof *out->pipes);
	if (!out->pipes)
		return gp_errf(e, "out of memory");
	for (int ci = 0; ci < m->ncls; ci++) {
		const struct pm_class *c = &m->cls[ci];
		for (int j = 0; j < m->nm; j++) {
			long y = lround(xv[c->cy + j]);
			if (y <= 0)
				continue;
			struct gp_pipeline *pp = &out->pipes[out->npipes];
			pp->stages = gp_xcalloc((size_t)c->S, sizeof *pp->stages);
			if (!pp->stages) {
				gp_plan_free(out);
				return gp_errf(e, "out of memory");
			}
			out->npipes++;
			pp->nstages = c->S;
			pp->replicas = (int)y;
			pp->micro_batches = m->ms[j];
			int first = 1;
			for (int i = 0; i < c->S; i++) {
				const struct pm_kind *k = &m->kinds[c->k[i]];
				struct gp_stage *st = &pp->stages[i];
				int n = (int)lround(xv[c->cl + i]);
				st->dc = m->pools[k->pool].dc;
				st->pool = m->pools[k->pool].pool;
				st->tp = k->tp;
				st->first = first;
				st->last = first + n - 1;
				first += n;
				st->recompute = k->rc;
				st->recompute_set = sc->job.recompute == GP_RC_AUTO;
			}
		}
	}
	return 0;
}

/* A warm start: the best of a few one-class plans (y = N / m replicas),
 * each completed by the MILP with y fixed (small: only splits and
 * indicators are free). Candidates are ranked by m times the slowest stage
 * of an even split. Returns a malloc'd point or NULL. */
static double *warm_point(struct pm *m, const struct gp_plan_opts *o, double Tcap)
{
	enum { NC = 4 };
	int cc[NC], cj[NC], n = 0;
	double score[NC];
	for (int ci = 0; ci < m->ncls; ci++) {
		const struct pm_class *c = &m->cls[ci];
		double slow = 0, usd = class_gpus_price(m, c, NULL);
		for (int i = 0; i < c->S; i++) {
			const struct pm_kind *k = &m->kinds[c->k[i]];
			double t = (double)m->L / c->S * (k->F + k->BW) +
				   (i == c->S - 1 ? k->LF + k->LBW : 0) + 2 * c->delta[i];
			slow = fmax(slow, t);
		}
		for (int j = 0; j < m->nm; j++) {
			int mm = m->ms[j];
			if (m->N % mm || m->N / mm > c->ymax)
				continue;
			if (o->budget_usd_per_hour > 0 && usd * (m->N / mm) > o->budget_usd_per_hour)
				continue;
			double sc = (mm + c->S - 1) * slow;
			int at;
			if (n < NC)
				at = n++;
			else if (sc < score[NC - 1])
				at = NC - 1;
			else
				continue;
			cc[at] = ci;
			cj[at] = j;
			score[at] = sc;
			for (int a = at; a > 0 && score[a] < score[a - 1]; a--) {
				double t = score[a]; score[a] = score[a - 1]; score[a - 1] = t;
				int u = cc[a]; cc[a] = cc[a - 1]; cc[a - 1] = u;
				u = cj[a]; cj[a] = cj[a - 1]; cj[a - 1] = u;
			}
		}
	}
	double *best = NULL, bestT = HUGE_VAL;
	for (int a = 0; a < n; a++) {
		m->fix_c = cc[a];
		m->fix_j = cj[a];
		m->fix_y = m->N / m->ms[cj[a]];
		gp_milp_free(m->lp);
		m->lp = gp_milp_new();
		if (!m->lp)
			break;
		build(m, o, GP_OBJ_TIME, Tcap);
		struct gp_milp_params p = { .time_limit = 5 };
		struct gp_milp_report r = { 0 };
		struct gp_err e2;
		if (gp_milp_solve(m->lp, &p, &r, &e2) == 0 && r.x &&
		    (r.status == GP_MILP_OPTIMAL || r.status == GP_MILP_FEASIBLE) &&
		    r.objective < bestT) {
			free(best);
			best = r.x;
			r.x = NULL;
			bestT = r.objective;
		}
		gp_milp_report_free(&r);
	}
	m->fix_c = -1;
	return best;
}

static int pm_solve(struct pm *m, const struct gp_plan_opts *o, enum gp_objective obj,
		    double Tcap, struct gp_milp_report *r, struct gp_err *e)
{
	double *w = obj == GP_OBJ_TIME ? warm_point(m, o, Tcap) : NULL;
	gp_milp_free(m->lp);
	m->ncol = 0;
	m->lp = gp_milp_new();
	if (!m->lp)
		return gp_errf(e, "out of memory");
	build(m, o, obj, Tcap);
	struct gp_milp_params p = { .time_limit = o->time_limit > 0 ? o->time_limit : 60,
				    .gap = o->gap, .warm = w };
	int rc = gp_milp_solve(m->lp, &p, r, e);
	free(w);
	return rc;
}

int gp_plan_milp(const struct gp_scenario *s, const struct gp_plan_opts *o,
		 const struct gp_plan *warm, struct gp_plan *out,
		 struct gp_plan_report *rep, struct gp_err *e)
{
	static const struct gp_plan_opts dflt = { 0 };
	if (!o)
		o = &dflt;
	(void)warm;  /* see the note: warm starts are not mapped yet */
	*out = (struct gp_plan){ 0 };
	*rep = (struct gp_plan_report){ .engine = "milp", .status = GP_MILP_ERROR,
					.objective = HUGE_VAL, .bound = -HUGE_VAL,
					.gap = HUGE_VAL };
	struct pm m;
	int rc = pm_prepare(&m, s, e);
	if (rc) {
		if (m.N == 0 && s->job.global_batch / s->job.micro_batch !=
		    floor(s->job.global_batch / s->job.micro_batch))
			rep->status = GP_MILP_INFEASIBLE;
		snprintf(rep->note, sizeof rep->note, "%s", e ? e->msg : "");
		pm_free(&m);
		return -1;
	}
	if (explain_empty(&m, o, e)) {
		rep->status = GP_MILP_INFEASIBLE;
		snprintf(rep->note, sizeof rep->note, "%s", e ? e->msg : "");
		pm_free(&m);
		return -1;
	}
	enum gp_objective obj = o->objective == GP_OBJ_WAN ? GP_OBJ_WAN : GP_OBJ_TIME;
	struct gp_milp_report r = { 0 };
	rc = pm_solve(&m, o, GP_OBJ_TIME, 0, &r, e);
	double secs = r.seconds;
	int ncols = r.ncols, nrows = r.nrows, nints = r.nints;
	if (rc == 0 && obj == GP_OBJ_WAN &&
	    (r.status == GP_MILP_OPTIMAL || r.status == GP_MILP_FEASIBLE)) {
		double Tstar = r.objective;
		gp_milp_report_free(&r);
		rc = pm_solve(&m, o, GP_OBJ_WAN, 1.05 * Tstar, &r, e);
		secs += r.seconds;
	}
	if (rc == 0 && r.status != GP_MILP_OPTIMAL && r.status != GP_MILP_FEASIBLE) {
		rep->status = r.status;
		if (r.status == GP_MILP_INFEASIBLE)
			rc = gp_errf(e, "no plan fits: with %d pipeline classes, the pools' GPUs, memory%s and the links cannot take a global batch of %d micro-batches",
				     m.ncls, o->budget_usd_per_hour > 0 ? ", the budget" : "", m.N);
		else
			rc = gp_errf(e, "the placement MILP found no plan within %.0f s (%d classes, %d columns, %d rows)",
				     o->time_limit > 0 ? o->time_limit : 60, m.ncls, r.ncols, r.nrows);
	}
	if (rc == 0) {
		enum gp_sched sched = o->schedule != GP_SCHED_GPIPE ? o->schedule : GP_SCHED_1F1B;
		rc = extract(&m, r.x, sched, out, e);
		if (rc == 0) {
			rep->status = r.status;
			rep->objective = r.objective;
			rep->bound = r.bound;
			rep->gap = r.gap;
			rep->estimate_s = r.x[m.cT];
			snprintf(rep->note, sizeof rep->note,
				 "%d classes (S <= %d%s), %d m values; %d cols, %d rows, %d integer%s%s",
				 m.ncls, m.Smax, m.truncated ? ", truncated" : "", m.nm,
				 ncols, nrows, nints,
				 o->objective == GP_OBJ_COST ? "; cost objective not modelled: minimised time" : "",
				 warm ? "; warm start not used" : "");
		}
	}
	rep->seconds = secs;
	if (rc && e)
		snprintf(rep->note, sizeof rep->note, "%s", e->msg);
	gp_milp_report_free(&r);
	pm_free(&m);
	return rc;
}

/* For cross-checks with another solver (tests): the time model as LP. */
int gp_place_milp_write_lp(const struct gp_scenario *s, const struct gp_plan_opts *o,
			   const char *path, int *ncls, struct gp_err *e);
int gp_place_milp_write_lp(const struct gp_scenario *s, const struct gp_plan_opts *o,
			   const char *path, int *ncls, struct gp_err *e)
{
	struct pm m;
	int rc = pm_prepare(&m, s, e);
	if (rc == 0 && !(rc = explain_empty(&m, o, e))) {
		m.lp = gp_milp_new();
		if (!m.lp)
			rc = gp_errf(e, "out of memory");
		else {
			build(&m, o, GP_OBJ_TIME, 0);
			rc = gp_milp_write_lp(m.lp, path, e);
		}
	}
	if (ncls)
		*ncls = m.ncls;
	pm_free(&m);
	return rc;
}
