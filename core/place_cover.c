/*
 * place_cover.c: the breakpoints of the placement MILP and its covering
 * MILP of one probe (place_int.h): one option, one T.
 *
 * For a fixed option and T, class c fits m_c(T) = max m <= N with
 * t_c(m) <= T micro-batches per replica, and feasibility is a covering
 * MILP (variables = classes): integer replicas y_c and micro-batches x_c,
 *    sum x_c = N, y_c <= x_c <= m_c(T) y_c,
 *    per pool: sum y_c GPUs_c(pool) <= count,
 *    per DC used: y_c <= ymax_c v_dc (binary), sum v <= K, conflicts
 *      v_a + v_b <= 1 for pairs not joined at class q (a ring option,
 *      place_ring.c: v = 1 on its set's DCs, 0 elsewhere, no conflicts,
 *      sum y_c >= 1 over each DC's classes, no twin rows, and the
 *      ring's bytes below on its hops only),
 *    per link direction: 2bsh x_c per boundary crossing it (activations one
 *      way, gradients the other) + the DP ring's 2 (K - 1)/K G / every
 *      (G: all gradients; 2 G / every for flat sync) times e_ab >=
 *      v_a + v_b - 1 (every used pair charged: conservative)
 *      <= bandwidth T,
 *    per link: sum y_c bb / (bandwidth U_c) <= 1 over classes crossing it
 *      (lockstep replicas cross together every cycle; the per-replica
 *      boundary delay in Sigma_c holds only while the link keeps up),
 *    budget: sum y_c $/h_c <= budget, and D = 1 or d <= sum y_c <= dhi;
 *    twin DCs (same pools, same links) ordered by the GPUs they use.
 * An objective probe minimises WAN bytes, $ per iteration (GPUs' $/h T /
 * 3600 + egress) or $/h, and may carry a cutoff row: only plans better
 * than the best so far. GLPK solves it with its MIP presolve (bound
 * tightening, which settles the large infeasible probes sooner), no
 * cuts and first-fractional branching (light: faster here than MIR cuts
 * and Driebeck-Tomlin branching), the full settings after that in the
 * search's second pass, within the probe's time; its LP is GLPK's
 * choice. A plan given to a feasibility probe that the model accepts
 * settles it; one given to an objective probe goes to GLPK as a warm
 * start.
 *
 * The breakpoints (m - 1) U_c + Sigma_c + E_c of the classes are where
 * feasibility can change: the search moves over them.
 */
#include "place_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Micro-batches one replica of c fits in T (0..N): the curve is
 * nondecreasing, so by bisection; past its stored values it runs within
 * a period of its slope U's line, so a guess from that line brackets the
 * answer in a few steps (galloping out when it does not). */
int pm_m_of(const struct pm *m, const struct pm_class *c, double T)
{
	if (pm_bp(m, c, 1) > T)
		return 0;
	if (pm_bp(m, c, m->N) <= T)
		return m->N;
	int lo = 1, hi = m->N;   /* bp(lo) <= T < bp(hi) */
	if (c->per == 1 && c->cvn > 0 && c->dper > 0 && c->tlast + c->E <= T) {
		/* Past the transient the curve is a line: one division, then
		 * a step either way for rounding. */
		double g = floor((T - c->E - c->tlast) / c->dper) + c->cvn;
		int k = g >= m->N ? m->N - 1 : (int)g;
		while (k < m->N - 1 && pm_bp(m, c, k + 1) <= T)
			k++;
		while (k > 1 && pm_bp(m, c, k) > T)
			k--;
		return k;
	}
	int k0 = c->cvn > 1 ? c->cvn : 1;
	if (k0 < m->N && pm_bp(m, c, k0) <= T && c->U > 0) {
		double g = floor((T - pm_bp(m, c, k0)) / c->U) + k0;
		int k = g >= m->N ? m->N - 1 : g < k0 ? k0 : (int)g;
		int w = c->per + 1;
		if (pm_bp(m, c, k) <= T) {
			lo = k;
			while (lo + w < m->N && pm_bp(m, c, lo + w) <= T) {
				lo += w;
				w *= 2;
			}
			hi = lo + w < m->N ? lo + w : m->N;
		} else {
			hi = k;
			lo = k0;
			while (hi - w > k0 && pm_bp(m, c, hi - w) > T) {
				hi -= w;
				w *= 2;
			}
			if (hi - w > k0)
				lo = hi - w;
		}
	} else if (k0 < m->N && pm_bp(m, c, k0) > T) {
		hi = k0;
	}
	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;
		if (pm_bp(m, c, mid) <= T)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The breakpoints <= T of classes idx[0..n), counted (their m_c(T)). */
double pm_count_bp(const struct pm *m, const int *idx, int n, double T)
{
	double cnt = 0;
	for (int j = 0; j < n; j++)
		cnt += pm_m_of(m, &m->c[idx[j]], T);
	return cnt;
}

/* Largest breakpoint <= T (-INF if none). */
double pm_prev_bp(const struct pm *m, const int *idx, int n, double T)
{
	double best = -INF;
	for (int j = 0; j < n; j++) {
		const struct pm_class *c = &m->c[idx[j]];
		int k = pm_m_of(m, c, T);
		if (k > 0 && pm_bp(m, c, k) > best)
			best = pm_bp(m, c, k);
	}
	return best;
}

/* Smallest breakpoint > T (INF if none). */
double pm_next_bp(const struct pm *m, const int *idx, int n, double T)
{
	double best = INF;
	for (int j = 0; j < n; j++) {
		const struct pm_class *c = &m->c[idx[j]];
		int k = pm_m_of(m, c, T);
		if (k < m->N && pm_bp(m, c, k + 1) < best)
			best = pm_bp(m, c, k + 1);
	}
	return best;
}

/* Per micro-batch of class c: WAN bytes (goal wan_bytes) or egress
 * dollars (cost) of its boundaries that cross links (activations one
 * way, gradients the other; chains cross several). */
double pm_class_egress(const struct pm *m, const struct pm_class *c, enum gp_objective goal)
{
	const struct gp_scenario *s = m->sc;
	double v = 0;
	for (int b = 0; b + 1 < c->nseg; b++)
		if (c->lk[b][0] >= 0)
			v += goal == GP_OBJ_WAN ? 2 * m->bb
			     : m->bb / 1e9 * (s->links[c->lk[b][0]].price_per_gb +
					      s->links[c->lk[b][1]].price_per_gb);
	return v;
}

/* What pm_class_egress counts toward a probe's goal (nothing for the
 * others). */
double pm_probe_egress(const struct pm *m, const struct pm_class *c, enum pm_goal goal)
{
	return goal == PM_WAN ? pm_class_egress(m, c, GP_OBJ_WAN)
	       : goal == PM_COST ? pm_class_egress(m, c, GP_OBJ_COST) : 0;
}

/* sol := y replicas of class ci taking all N micro-batches at T. */
void pm_sol_single(const struct pm *m, struct pm_sol *sol, int ci, int y, double T, double obj,
		   int oi)
{
	memset(sol->y, 0, (size_t)m->nc * sizeof *sol->y);
	memset(sol->x, 0, (size_t)m->nc * sizeof *sol->x);
	sol->y[ci] = y;
	sol->x[ci] = m->N;
	sol->T = T;
	sol->obj = sol->lb = obj;
	sol->proven = true;
	sol->opt = oi;
}

/* dst := src (the whole solution, as option oi's). */
void pm_sol_copy(const struct pm *m, struct pm_sol *dst, const struct pm_sol *src, int oi)
{
	memcpy(dst->y, src->y, (size_t)m->nc * sizeof *dst->y);
	memcpy(dst->x, src->x, (size_t)m->nc * sizeof *dst->x);
	dst->T = src->T;
	dst->obj = src->obj;
	dst->lb = src->lb;
	dst->proven = src->proven;
	dst->opt = oi;
}

static bool same_link(const struct gp_link *x, const struct gp_link *y)
{
	return (!x && !y) || (x && y && x->bandwidth == y->bandwidth &&
			      x->latency == y->latency && x->price_per_gb == y->price_per_gb);
}

/* DCs a and b are interchangeable: equal pools, equal links to every
 * other DC, and joined both ways. */
static bool twins(const struct gp_scenario *s, int a, int b)
{
	const struct gp_dc *x = &s->dcs[a], *y = &s->dcs[b];
	if (x->npools != y->npools || !gp_find_link(s, a, b) || !same_link(gp_find_link(s, a, b), gp_find_link(s, b, a)))
		return false;
	for (int q = 0; q < x->npools; q++) {
		const struct gp_pool *p = &x->pools[q], *r = &y->pools[q];
		if (p->gpu != r->gpu || p->count != r->count || p->per_node != r->per_node ||
		    p->nvlink != r->nvlink || p->network != r->network || p->latency != r->latency)
			return false;
	}
	for (int c = 0; c < s->ndcs; c++)
		if (c != a && c != b && (!same_link(gp_find_link(s, a, c), gp_find_link(s, b, c)) ||
					 !same_link(gp_find_link(s, c, a), gp_find_link(s, c, b))))
			return false;
	return true;
}

/* The covering MILP being built, and the rows it gathers term by term. */
struct pm_cover {
	const struct pm *m;
	const struct pm_opt *o;
	const int *idx;
	int n;
	double T, G;                   /* G: the WAN ring's bytes per edge */
	enum pm_goal goal;
	bool relax;                    /* the LP relaxation */
	bool dcs;                      /* DC columns (v_d) and rows */
	bool cut;                      /* a cutoff row on the objective */
	struct gp_milp *lp;
	int *cy, *cx;                  /* y and x column of each class */
	int *cv, *ce;                  /* v column per DC, e column per pair [a * nd + b] */
	int *rc;                       /* one row's terms */
	double *rv;
	int **lc, *ln;                 /* per link: its row's terms */
	double **lv;
	int *pc, *pn;                  /* per pool: its row's terms [f * (n + 1) + q] */
	double *pv;
	int no, *oc;                   /* the objective's terms, for the cutoff row */
	double *ov;
};

static bool cover_alloc(struct pm_cover *b)
{
	int nd = b->m->sc->ndcs, nl = b->m->sc->nlinks, n = b->n, np = b->m->npools;
	b->cv = gp_xcalloc((size_t)nd, sizeof *b->cv);
	b->ce = gp_xcalloc((size_t)nd * nd, sizeof *b->ce);
	b->rc = gp_xcalloc((size_t)(2 * n + nd + 4), sizeof *b->rc);
	b->rv = gp_xcalloc((size_t)(2 * n + nd + 4), sizeof *b->rv);
	b->lc = gp_xcalloc((size_t)nl + 1, sizeof *b->lc);
	b->lv = gp_xcalloc((size_t)nl + 1, sizeof *b->lv);
	b->ln = gp_xcalloc((size_t)nl + 1, sizeof *b->ln);
	b->pc = gp_xcalloc((size_t)np * (size_t)(n + 1), sizeof *b->pc);
	b->pv = gp_xcalloc((size_t)np * (size_t)(n + 1), sizeof *b->pv);
	b->pn = gp_xcalloc((size_t)np + 1, sizeof *b->pn);
	b->oc = b->cut ? gp_xcalloc((size_t)(2 * n + nd * nd + 1), sizeof *b->oc) : NULL;
	b->ov = b->cut ? gp_xcalloc((size_t)(2 * n + nd * nd + 1), sizeof *b->ov) : NULL;
	bool ok = b->cv && b->ce && b->rc && b->rv && b->lc && b->lv && b->ln && b->pc && b->pv &&
		  b->pn && (!b->cut || (b->oc && b->ov));
	for (int l = 0; ok && l < nl; l++) {
		b->lc[l] = gp_xcalloc((size_t)n + 2, sizeof **b->lc);
		b->lv[l] = gp_xcalloc((size_t)n + 2, sizeof **b->lv);
		ok = b->lc[l] && b->lv[l];
	}
	return ok;
}

static void cover_free(struct pm_cover *b)
{
	free(b->oc);
	free(b->ov);
	for (int l = 0; b->lc && l < b->m->sc->nlinks; l++) {
		free(b->lc[l]);
		free(b->lv[l]);
	}
	free(b->cv);
	free(b->ce);
	free(b->rc);
	free(b->rv);
	free(b->lc);
	free(b->lv);
	free(b->ln);
	free(b->pc);
	free(b->pv);
	free(b->pn);
}

/* A term of the objective, kept for the cutoff row. */
static void cover_obj_term(struct pm_cover *b, int col, double v)
{
	if (b->cut && v != 0) {
		b->oc[b->no] = col;
		b->ov[b->no++] = v;
	}
}

/* Class j's columns and rows (mb_, one_, dc_), and its terms of the
 * pool and link rows. */
static void cover_class(struct pm_cover *b, int j)
{
	const struct pm *m = b->m;
	const struct pm_class *c = &m->c[b->idx[j]];
	int n = b->n, id = b->idx[j];
	int mb = pm_m_of(m, c, b->T);
	double ycost = b->goal == PM_COST ? c->price * b->T / 3600 : b->goal == PM_PRICE ? c->price : 0;
	double xcost = pm_probe_egress(m, c, b->goal);
	char nm[64];
	snprintf(nm, sizeof nm, "y_%d", id);
	b->cy[j] = gp_milp_col(b->lp, nm, 0, mb > 0 ? c->ymax : 0, !b->relax, ycost);
	snprintf(nm, sizeof nm, "x_%d", id);
	/* Integer y make some integer x exist unless links weigh x. */
	b->cx[j] = gp_milp_col(b->lp, nm, 0, mb > 0 ? m->N : 0, !b->relax && c->la >= 0, xcost);
	cover_obj_term(b, b->cy[j], ycost);
	cover_obj_term(b, b->cx[j], xcost);
	int k2[2] = { b->cx[j], b->cy[j] };
	double v2[2] = { 1, -(double)mb };
	snprintf(nm, sizeof nm, "mb_%d", id);
	gp_milp_row(b->lp, nm, 2, k2, v2, -INF, 0);
	v2[1] = -1;
	snprintf(nm, sizeof nm, "one_%d", id);
	gp_milp_row(b->lp, nm, 2, k2, v2, 0, INF);
	for (int sg = 0; sg < c->nseg; sg++) {
		const struct pm_kind *k = &m->k[c->kind[sg]];
		int f = k->fp;
		double g = c->n[sg] * k->tp;
		int at = -1;
		for (int q = 0; q < b->pn[f]; q++)
			if (b->pc[(size_t)f * (n + 1) + q] == b->cy[j])
				at = q;
		if (at >= 0) {
			b->pv[(size_t)f * (n + 1) + at] += g;
		} else {
			b->pc[(size_t)f * (n + 1) + b->pn[f]] = b->cy[j];
			b->pv[(size_t)f * (n + 1) + b->pn[f]++] = g;
		}
		if (b->dcs && (sg == 0 || k->dc != m->k[c->kind[0]].dc)) {
			int k3[2] = { b->cy[j], b->cv[k->dc] };
			double v3[2] = { 1, -(double)c->ymax };
			snprintf(nm, sizeof nm, "dc_%d_%d", id, k->dc);
			gp_milp_row(b->lp, nm, 2, k3, v3, -INF, 0);
		}
	}
	if (c->la >= 0) {
		b->lc[c->la][b->ln[c->la]] = b->cx[j];
		b->lv[c->la][b->ln[c->la]++] = m->bb;
		b->lc[c->lb][b->ln[c->lb]] = b->cx[j];
		b->lv[c->lb][b->ln[c->lb]++] = m->bb;
	}
}

/* The plan-wide rows: batch, replicas, budget, pools. */
static void cover_plan_rows(struct pm_cover *b)
{
	const struct pm *m = b->m;
	int n = b->n;
	for (int j = 0; j < n; j++) {
		b->rc[j] = b->cx[j];
		b->rv[j] = 1;
	}
	gp_milp_row(b->lp, "batch", n, b->rc, b->rv, m->N, m->N);
	for (int j = 0; j < n; j++) {
		b->rc[j] = b->cy[j];
		b->rv[j] = 1;
	}
	if (b->o->one)
		gp_milp_row(b->lp, "replicas", n, b->rc, b->rv, 1, 1);
	else
		gp_milp_row(b->lp, "replicas", n, b->rc, b->rv, b->o->d, b->o->dhi);
	if (m->budget > 0) {
		for (int j = 0; j < n; j++)
			b->rv[j] = m->c[b->idx[j]].price;
		gp_milp_row(b->lp, "budget", n, b->rc, b->rv, -INF, m->budget);
	}
	char nm[64];
	for (int f = 0; f < m->npools; f++)
		if (b->pn[f]) {
			snprintf(nm, sizeof nm, "pool_%d", f);
			gp_milp_row(b->lp, nm, b->pn[f], b->pc + (size_t)f * (n + 1),
				    b->pv + (size_t)f * (n + 1), -INF, m->pl[f]->count);
		}
}

/* At most K DCs; pairs not joined at the option's link class apart;
 * the others' WAN ring columns e_ab >= v_a + v_b - 1. */
static void cover_dc_rows(struct pm_cover *b)
{
	const struct pm *m = b->m;
	const struct gp_scenario *s = m->sc;
	int nd = s->ndcs;
	char nm[64];
	for (int d = 0; d < nd; d++) {
		b->rc[d] = b->cv[d];
		b->rv[d] = 1;
	}
	/* A ring option uses every DC of its set (its classes none other). */
	const struct pm_opt *o = b->o;
	gp_milp_row(b->lp, "dcs", nd, b->rc, b->rv, o->set ? o->K : -INF, o->K);
	for (int a = 0; a < nd; a++)
		for (int c = a + 1; c < nd; c++) {
			int k2[3] = { b->cv[a], b->cv[c], -1 };
			double v2[3] = { 1, 1, -1 };
			/* A ring option's ring bytes go over its hops only. */
			bool hop = !o->set || (pm_opt_dc_ok(o, a) && pm_opt_dc_ok(o, c) &&
					       (o->nxt[a] == c || o->nxt[c] == a));
			if (o->K >= 2 && !pm_opt_pair_ok(m, o, a, c)) {
				snprintf(nm, sizeof nm, "apart_%d_%d", a, c);
				gp_milp_row(b->lp, nm, 2, k2, v2, -INF, 1);
			} else if (b->G > 0 && hop && gp_find_link(s, a, c)) {
				snprintf(nm, sizeof nm, "e_%d_%d", a, c);
				double ecost = b->goal == PM_WAN ? 2 * b->G : b->goal == PM_COST ?
					b->G / 1e9 * (gp_find_link(s, a, c)->price_per_gb +
						      gp_find_link(s, c, a)->price_per_gb) : 0;
				b->ce[a * nd + c] = k2[2] = gp_milp_col(b->lp, nm, 0, 1, false, ecost);
				gp_milp_row(b->lp, nm, 3, k2, v2, -INF, 1);
				cover_obj_term(b, k2[2], ecost);
			}
		}
}

/* A ring option's every DC holds a replica of some class: sum of y_c
 * over the classes in DC d >= 1. False: out of memory. */
static bool cover_set_rows(struct pm_cover *b)
{
	const struct pm *m = b->m;
	int *col = malloc(((size_t)b->n + 1) * sizeof *col);
	double *one = malloc(((size_t)b->n + 1) * sizeof *one);
	char nm[64];
	for (int d = 0; col && one && d < m->sc->ndcs; d++) {
		if (!pm_opt_dc_ok(b->o, d))
			continue;
		int k = 0;
		for (int j = 0; j < b->n; j++) {
			const struct pm_class *c = &m->c[b->idx[j]];
			bool in = false;
			for (int g = 0; g < c->nseg; g++)
				in = in || m->k[c->kind[g]].dc == d;
			if (in) {
				col[k] = b->cy[j];
				one[k++] = 1;
			}
		}
		snprintf(nm, sizeof nm, "use_%d", d);
		gp_milp_row(b->lp, nm, k, col, one, 1, INF);
	}
	bool ok = col && one;
	free(col);
	free(one);
	return ok;
}

/* Twin DCs (same pools, same links to the rest) are interchangeable:
 * the earlier one uses at least as many GPUs. */
static void cover_twin_rows(struct pm_cover *b)
{
	const struct pm *m = b->m;
	int nd = m->sc->ndcs;
	char nm[64];
	for (int a = 0; a < nd; a++) {
		int t = a + 1;
		if (t >= nd || !twins(m->sc, a, t))
			continue;
		int nn = 0;
		for (int j = 0; j < b->n; j++) {
			const struct pm_class *c = &m->c[b->idx[j]];
			double g = 0;
			for (int sg = 0; sg < c->nseg; sg++) {
				const struct pm_kind *k = &m->k[c->kind[sg]];
				g += (k->dc == a ? 1 : k->dc == t ? -1 : 0) * c->n[sg] * k->tp;
			}
			if (g != 0) {
				b->rc[nn] = b->cy[j];
				b->rv[nn++] = g;
			}
		}
		snprintf(nm, sizeof nm, "twin_%d", a);
		if (nn)
			gp_milp_row(b->lp, nm, nn, b->rc, b->rv, 0, INF);
	}
}

/* Per link direction: its bytes in seconds of the link <= T; then the
 * cycle rows: lockstep replicas cross a link at once, every cycle, so
 * the link must carry each crossing class's boundary traffic at its
 * cycle rate, sum_c y_c bb / (bandwidth U_c) <= 1, or the cycles (and
 * the per-replica boundary delay in Sigma_c) stretch. */
static void cover_link_rows(struct pm_cover *b)
{
	const struct pm *m = b->m;
	const struct gp_scenario *s = m->sc;
	int nd = s->ndcs, nl = s->nlinks;
	char nm[64];
	for (int l = 0; l < nl; l++) {
		const struct gp_link *lk = &s->links[l];
		int a = lk->from < lk->to ? lk->from : lk->to, c = lk->from ^ lk->to ^ a;
		if (b->dcs && b->G > 0 && b->ce[a * nd + c] > 0) {
			b->lc[l][b->ln[l]] = b->ce[a * nd + c];
			b->lv[l][b->ln[l]++] = b->G;
		}
		if (!b->ln[l])
			continue;
		/* In seconds of the link: bytes / bandwidth <= T. */
		for (int q = 0; q < b->ln[l]; q++)
			b->lv[l][q] /= m->wan[l].bw;
		snprintf(nm, sizeof nm, "link_%d", l);
		gp_milp_row(b->lp, nm, b->ln[l], b->lc[l], b->lv[l], -INF, b->T);
	}
	for (int l = 0; l < nl; l++) {
		int nn = 0;
		for (int j = 0; j < b->n; j++) {
			const struct pm_class *c = &m->c[b->idx[j]];
			if ((c->la == l || c->lb == l) && c->U > 0) {
				b->rc[nn] = b->cy[j];
				b->rv[nn++] = m->bb / (m->wan[l].bw * c->U);
			}
		}
		snprintf(nm, sizeof nm, "cycle_%d", l);
		if (nn)
			gp_milp_row(b->lp, nm, nn, b->rc, b->rv, -INF, 1);
	}
}

/* The warm solution as a vector of this model's columns: its y and
 * x, the DCs it touches, and the pairs among them. */
static void cover_warm(const struct pm_cover *b, const struct pm_sol *ws, double *x0)
{
	const struct pm *m = b->m;
	int nd = m->sc->ndcs, nc = gp_milp_ncols(b->lp);
	for (int k = 0; k < nc; k++)
		x0[k] = 0;
	for (int j = 0; j < b->n; j++) {
		const struct pm_class *c = &m->c[b->idx[j]];
		x0[b->cy[j]] = ws->y[b->idx[j]];
		x0[b->cx[j]] = ws->x[b->idx[j]];
		for (int sg = 0; b->dcs && ws->y[b->idx[j]] > 0 && sg < c->nseg; sg++)
			x0[b->cv[m->k[c->kind[sg]].dc]] = 1;
	}
	for (int a = 0; b->dcs && a < nd; a++)
		for (int c = a + 1; c < nd; c++)
			if (b->ce[a * nd + c] > 0)
				x0[b->ce[a * nd + c]] = x0[b->cv[a]] * x0[b->cv[c]];
}

/* The covering MILP of option o on classes idx[0..n) at T, for goal
 * (relax: its LP relaxation); cy[j], cx[j] get the y and x columns of
 * class idx[j]; with ws and x0, x0 gets ws as a vector of the columns.
 * NULL when out of memory. */
struct gp_milp *pm_cover_build(const struct pm *m, const struct pm_opt *o, const int *idx,
			       int n, double T, enum pm_goal goal, bool relax, int *cy, int *cx,
			       const struct pm_sol *ws, double *x0)
{
	struct gp_milp *lp = gp_milp_new();
	if (!lp)
		return NULL;
	int nd = m->sc->ndcs;
	struct pm_cover b = { .m = m, .o = o, .idx = idx, .n = n, .T = T,
			      /* The relaxation (m->lower) charges the ring's
			       * bytes only where a pair is all of it. */
			      .G = m->lower && o->K > 2 ? 0 : pm_grad_ring_bytes(m, o), .goal = goal, .relax = relax,
			      .lp = lp, .cy = cy, .cx = cx,
			      .cut = m->cutoff < INF && (goal == PM_WAN || goal == PM_COST) };
	bool ok = cover_alloc(&b);
	b.dcs = ok && !o->one && nd > 1;
	char nm[64];
	for (int d = 0; b.dcs && d < nd; d++) {
		/* A ring option: its set's DCs used, no other. */
		double on = o->set ? (double)(o->set >> d & 1u) : 0;
		snprintf(nm, sizeof nm, "v_%d", d);
		b.cv[d] = gp_milp_col(lp, nm, on, o->set ? on : 1, !relax, 0);
	}
	for (int j = 0; ok && j < n; j++)
		cover_class(&b, j);
	if (ok)
		cover_plan_rows(&b);
	if (b.dcs)
		cover_dc_rows(&b);
	if (ok && b.dcs && o->set)
		ok = cover_set_rows(&b);
	/* (Twins are interchangeable only where the option treats both alike.) */
	if (ok && nd > 1 && !o->set)
		cover_twin_rows(&b);
	if (ok)
		cover_link_rows(&b);
	if (ok && ws && x0)
		cover_warm(&b, ws, x0);
	/* Only plans better than the cutoff (the best so far): a search
	 * for an improvement, which the screens and presolve settle sooner. */
	if (ok && b.cut && b.no > 0)
		gp_milp_row(lp, "cutoff", b.no, b.oc, b.ov, -INF, m->cutoff);
	cover_free(&b);
	if (!ok) {
		gp_milp_free(lp);
		return NULL;
	}
	return lp;
}

/* sol := the plan ws restricted to classes idx[0..n), at T for option oi. */
static void sol_from_warm(const struct pm *m, struct pm_sol *sol, const struct pm_sol *ws,
			  const int *idx, int n, double T, int oi)
{
	memset(sol->y, 0, (size_t)m->nc * sizeof *sol->y);
	memset(sol->x, 0, (size_t)m->nc * sizeof *sol->x);
	for (int j = 0; j < n; j++) {
		sol->y[idx[j]] = ws->y[idx[j]];
		sol->x[idx[j]] = ws->x[idx[j]];
	}
	sol->T = T;
	sol->obj = 0;
	sol->opt = oi;
}

/* sol := GLPK's point r (columns cy, cx of classes idx[0..n)). */
static void sol_from_glpk(const struct pm *m, struct pm_sol *sol, const struct gp_milp_report *r,
			  const int *cy, const int *cx, const int *idx, int n, double T, int oi)
{
	memset(sol->y, 0, (size_t)m->nc * sizeof *sol->y);
	memset(sol->x, 0, (size_t)m->nc * sizeof *sol->x);
	for (int j = 0; j < n; j++) {
		sol->y[idx[j]] = (int)lround(r->x[cy[j]]);
		sol->x[idx[j]] = (int)lround(r->x[cx[j]]);
	}
	sol->T = T;
	sol->obj = r->objective;
	sol->proven = r->status == GP_MILP_OPTIMAL;
	sol->lb = sol->proven ? r->objective : fmin(r->bound, r->objective);
	sol->opt = oi;
}

/* Builds and solves the covering MILP of option o on classes idx[0..n):
 * 1 feasible (sol filled if given, for option oi), 0 not, 3 undecided,
 * -1 error. */
int pm_cover_solve(struct pm *m, int oi, const struct pm_opt *o, const int *idx, int n, double T,
		   enum pm_goal goal, const struct pm_sol *ws, struct pm_sol *sol, struct gp_err *e)
{
	if (n == 0)
		return 0;
	int nd = m->sc->ndcs;
	int *cy = gp_xcalloc((size_t)n, sizeof *cy), *cx = gp_xcalloc((size_t)n, sizeof *cx);
	double *x0 = ws ? gp_xcalloc((size_t)(2 * n + nd + nd * nd + 1), sizeof *x0) : NULL;
	struct gp_milp *lp = cy && cx ? pm_cover_build(m, o, idx, n, T, goal, false, cy, cx, ws, x0)
				      : NULL;
	if (!lp) {
		free(cy);
		free(cx);
		free(x0);
		return gp_errf(e, "out of memory");
	}
	/* A feasibility probe handed a plan this model accepts is settled. */
	if (goal == PM_FEAS && x0 && gp_milp_violation(lp, x0) <= 1e-9) {
		if (sol)
			sol_from_warm(m, sol, ws, idx, n, T, oi);
		m->rounded++;
		gp_milp_free(lp);
		free(cy);
		free(cx);
		free(x0);
		return 1;
	}
	m->probes++;
	m->work += PM_WORK_PROBE;
	double left = m->deadline - pm_now_s();
	if (left > m->probe_tl)
		left = m->probe_tl;
	/* A warm solution (the last plan of a scan upward in T, still
	 * feasible here) goes to GLPK through its heuristic callback when
	 * it satisfies this model; it prunes the branch and bound. */
	struct gp_milp_params p = { .time_limit = left > 0.05 ? left : 0.05, .warm = x0,
				    .presolve = true, .light = true, .dual = n >= PM_DUAL_N,
				    .then_full = m->probe_tl > PM_QUICK_TL,
				    .node_limit = m->probe_tl > PM_QUICK_TL ? PM_PROBE_NODES : PM_QUICK_NODES,
				    .it_limit = pm_it_limit(m, lp, false),
				    .cancel = m->o ? m->o->cancel : NULL };
	struct gp_milp_report r;
	int rc = gp_milp_solve(lp, &p, &r, e);
	m->work += pm_it_work(lp, false) * (double)r.iterations;
	m->it_stops += r.it_stopped;
	if (rc == 0) {
		if (r.status == GP_MILP_INFEASIBLE) {
			rc = 0;
		} else if (r.x && (r.status == GP_MILP_OPTIMAL || r.status == GP_MILP_FEASIBLE)) {
			rc = 1;
			if (sol)
				sol_from_glpk(m, sol, &r, cy, cx, idx, n, T, oi);
		} else if (r.status == GP_MILP_NOSOL) {
			rc = 3;   /* undecided within the probe's work or time: not proven */
			m->work_probes += r.work_stopped && !r.it_stopped;
			m->clock_stops += !r.work_stopped;
		} else {
			rc = gp_errf(e, "the covering MILP at T = %.6g s failed: %s", T, r.msg);
		}
	}
	if (x0 && r.warm_used)
		m->warm_used++;
	gp_milp_report_free(&r);
	gp_milp_free(lp);
	free(cy);
	free(cx);
	free(x0);
	return rc;
}
