/*
 * place_kinds.c: the placement MILP's kinds (place_int.h), and what a
 * stage of one costs and holds.
 *
 * A kind is (pool, TP degree t, recomputation): t in {1, 2, 4, 8},
 * t <= per_node, t <= count, t | heads; recomputation the job's, or
 * none / selective / full when the job says auto. Its costs come from
 * the cost model once, per layer: F + B + W and B + W, the same for the
 * logits layer, the activations in flight per micro-batch, and the
 * boundary delay to the next stage of the same kind (sim.c's intra_p2p).
 *
 * Memory of stage i of S with n layers: weights, gradients and Adam state
 * of its layers (+ embedding on the first, + output layer on the last) at
 * 16 B/param, or 4 + 12/d with ZeRO-1 (d a lower bound on the replicas,
 * the option's), plus S - i micro-batches in flight (1F1B) of
 * activations (+ the fp32 logits on the last); as sim.c, with
 * min(m, S - i) <= S - i. The capacity tables (layers stage i of S can
 * hold on each kind) are built per d; two d's with the same tables build
 * the same classes.
 */
#include "place_int.h"

#include <math.h>
#include <string.h>

static double state_bytes(const struct pm *m, int d)
{
	return gp_costtab_state_bytes(m->ct, d);
}

/* From the cost tables (the kinds' TP degrees divide the heads), at the
 * pace of the slowest of the pool's GPUs the request names, or of all
 * of them (gp_plan_milp solves again with its plan's counts). */
static void kind_costs(const struct pm *m, struct pm_kind *k)
{
	int dc = k->dc, pool = k->pool;
	const struct gp_layer_cost *l = gp_costtab_layer(m->ct, dc, pool, k->tp, k->rc);
	const struct gp_layer_cost *g = gp_costtab_logits(m->ct, dc, pool, k->tp);
	struct gp_layer_time lt = l->t, lg = g->t;
	double pc = gp_costtab_pace(m->ct, dc, pool,
				    m->o && m->o->pool_gpus ? m->o->pool_gpus[k->fp] : 0);
	k->x = pc * (lt.f + lt.b + lt.w);
	k->bl = pc * (lt.b + lt.w);
	k->lx = pc * (lg.f + lg.b + lg.w);
	k->lb = pc * (lg.b + lg.w);
	k->act = l->m.act;
	k->lact = g->m.act;
	k->reserve = gp_costtab_reserve(m->ct, dc, pool);
	/* The simulator's transfer between two stages of this kind. */
	k->delta = gp_costtab_intra_p2p(m->ct, m->sc, dc, pool, k->tp, pool, k->tp, m->bb);
}

/* Peak bytes per GPU of stage i of S with n layers (memory model above). */
double pm_stage_mem(const struct pm *m, const struct pm_kind *k, int n, int i, int S, int d)
{
	double params = n * m->Lp + (i == 0 ? m->Ep : 0) + (i == S - 1 ? m->Ep : 0);
	double act = n * k->act + (i == S - 1 ? k->lact : 0);
	return params / k->tp * state_bytes(m, d) + (S - i) * act + k->reserve;
}

/* The layers stage i of S can hold on kind k under d; the smallest
 * overshoot of a stage that holds none goes to m->miss (explain). */
static int stage_cap(struct pm *m, const struct pm_kind *k, int i, int S, int d)
{
	/* pm_stage_mem is affine in n: solve, then settle rounding exactly. */
	double m0 = pm_stage_mem(m, k, 0, i, S, d), m1 = pm_stage_mem(m, k, 1, i, S, d) - m0;
	double f = m1 > 0 ? floor((k->g->memory - m0) / m1) : m->L;
	int n = f < 0 ? 0 : f > m->L ? m->L : (int)f;
	while (n > 0 && pm_stage_mem(m, k, n, i, S, d) > k->g->memory)
		n--;
	while (n < m->L && pm_stage_mem(m, k, n + 1, i, S, d) <= k->g->memory)
		n++;
	if (n == 0) {
		double over = pm_stage_mem(m, k, 1, i, S, d) / k->g->memory;
		if (over < m->miss) {
			m->miss = over;
		}
	}
	return n;
}

/* Capacity tables a and b build the same classes when they agree on
 * the pipelines of at most Smax stages, the most a set built from a
 * holds (the fewest stages any kind needs, which sets Smax, is then the
 * same too: it is below Smax). */
bool pm_caps_same(const struct pm *m, const short *a, const short *b, int Smax)
{
	size_t blk = (size_t)Smax * 64 * sizeof *a;
	for (int k = 0; k < m->nk; k++)
		if (memcmp(a + (size_t)k * 64 * 64, b + (size_t)k * 64 * 64, blk))
			return false;
	/* And the deeper rows full classes take. */
	for (int k = 0; m->deep && k < m->nk; k++)
		for (int S = Smax + 1; S <= 64; S++) {
			size_t row = ((size_t)k * 64 + (size_t)(S - 1)) * 64;
			if (m->deep[k * 65 + S] && memcmp(a + row, b + row, (size_t)S * sizeof *a))
				return false;
		}
	return true;
}

/* Fills m->capn for d; returns true when it builds the classes of
 * m->capt (the classes built for the previous d stand: memory is all d
 * changes). */
bool pm_caps_for(struct pm *m, int d)
{
	/* Row by row in S, up to the Smax enum_build will take (the fewest
	 * stages any kind needs, + 8); the rows past it stay 0. */
	int top = m->L < 64 ? m->L : 64, need = 0;
	memset(m->capn, 0, (size_t)m->nk * 64 * 64 * sizeof *m->capn);
	for (int S = 1; S <= top; S++) {
		for (int k = 0; k < m->nk; k++) {
			long tot = 0;
			bool ok = true;
			for (int i = 0; i < S; i++) {
				int c = stage_cap(m, &m->k[k], i, S, d);
				m->capn[((size_t)k * 64 + (size_t)(S - 1)) * 64 + (size_t)i] = (short)c;
				ok = ok && c >= 1;
				tot += c;
			}
			if (!need && ok && tot >= m->L)
				need = S;
		}
		if (need && S >= (need + 8 > 8 ? need + 8 : 8)) {
			top = S;
			break;
		}
	}
	/* The deeper rows of the full classes (pm_full_rows). */
	for (int k = 0; m->deep && k < m->nk; k++)
		for (int S = top + 1; S <= 64; S++)
			for (int i = 0; m->deep[k * 65 + S] && i < S; i++)
				m->capn[((size_t)k * 64 + (size_t)(S - 1)) * 64 + (size_t)i] =
					(short)stage_cap(m, &m->k[k], i, S, d);
	return m->enumerated && pm_caps_same(m, m->capn, m->capt, m->Smax);
}

/* m->k: every pool's kinds with their costs. */
int pm_enum_kinds(struct pm *m)
{
	const struct gp_scenario *s = m->sc;
	enum gp_recompute rcs[3] = { s->job.recompute, GP_RC_NONE, GP_RC_NONE };
	int nrc = 1;
	if (s->job.recompute == GP_RC_AUTO) {
		rcs[0] = GP_RC_NONE;
		rcs[1] = GP_RC_SELECTIVE;
		rcs[2] = GP_RC_FULL;
		nrc = 3;
	}
	m->k = gp_xcalloc((size_t)m->npools * 4 * 3, sizeof *m->k);
	if (!m->k)
		return -1;
	for (int f = 0; f < m->npools; f++) {
		const struct gp_pool *p = m->pl[f];
		for (int t = 1; t <= 8; t *= 2) {
			if (t > p->per_node || t > p->count || (long)s->model.heads % t)
				continue;
			for (int r = 0; r < nrc; r++) {
				struct pm_kind *k = &m->k[m->nk++];
				k->fp = f;
				k->dc = m->pl_dc[f];
				k->pool = (int)(p - s->dcs[k->dc].pools);
				k->p = p;
				k->g = &s->gpus[p->gpu];
				k->tp = t;
				k->rc = rcs[r];
				kind_costs(m, k);
			}
		}
	}
	return 0;
}
