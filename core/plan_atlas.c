/*
 * plan_atlas.c: the atlas engine of planner.h, a reference the placement
 * MILP is measured against: every pipeline spans a chain of linked DCs,
 * DP inside each DC (Atlas, Palak et al. 2024); layers in proportion to
 * stage compute. The chains are the simple paths of the link graph with
 * the most compute for each length; layouts (chain, TP, replicas) are
 * estimated (estimate.c), the best ATLAS_SIMS simulated.
 */
#include "baseline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ATLAS_SIMS 40        /* simulated layouts, best estimates first */

struct at_chain {
	int k;
	int dc[16];
	double compute;   /* FLOP/s of its DCs */
	double hops;      /* s over its hops: latency plus one activation each */
};

/* Depth-first over simple paths of the link graph: for each length the
 * path with the most compute, then the cheapest hops (latency plus one
 * activation's transfer). */
static void chain_dfs(const struct bl_ctx *c, struct at_chain *cur, bool *used,
		      struct at_chain *best, long *steps)
{
	const struct gp_scenario *s = c->sc;
	if (--*steps < 0)
		return;
	struct at_chain *b = &best[cur->k];
	if (cur->compute > b->compute * (1 + 1e-12) ||
	    (cur->compute >= b->compute * (1 - 1e-12) && cur->hops < b->hops))
		*b = *cur;
	if (cur->k == 16)
		return;
	int last = cur->dc[cur->k - 1];
	for (int d = 0; d < s->ndcs; d++) {
		const struct gp_link *l = gp_find_link(s, last, d);
		if (used[d] || !s->dcs[d].npools || !l || !gp_find_link(s, d, last))
			continue;
		used[d] = true;
		cur->dc[cur->k++] = d;
		struct gp_comm w = gp_costtab_wan(c->ct, (int)(l - s->links));
		double dc_ = bl_dc_compute(c, d), dx = w.lat + gp_boundary_bytes(s) / w.bw;
		cur->compute += dc_;
		cur->hops += dx;
		chain_dfs(c, cur, used, best, steps);
		cur->compute -= dc_;
		cur->hops -= dx;
		cur->k--;
		used[d] = false;
	}
}

struct at_cand {
	double est;   /* first: bl_cmp_est */
	int chain, t, R;
};

/* Stages per pipeline of each pool of the chain, n[0..np): floor(slots /
 * R), scaled down in proportion when they add up to more than the L
 * layers (a DC with more GPUs than the model has layers for), each DC
 * keeping at least one. The count, or -1 when a DC gives none. */
static int atlas_counts(const struct gp_scenario *s, const struct at_chain *ch, int t, int R,
			int *dcq, int *tq, int *n)
{
	int L = s->model.layers, np = 0;
	double total = 0;
	for (int i = 0; i < ch->k; i++) {
		int d = ch->dc[i], here = 0;
		for (int q = 0; q < s->dcs[d].npools && np < 64; q++, np++) {
			const struct gp_pool *p = bl_pool_of(s, d, q);
			dcq[np] = d * 64 + q;
			tq[np] = bl_tp_fit(s, p, t);
			n[np] = bl_pool_slots(p, tq[np]) / R;
			here += n[np];
			total += n[np];
		}
		if (!here)
			return -1;
	}
	for (int j = 0; total > L && j < np; j++)
		n[j] = (int)floor(n[j] * (double)L / total);
	for (int i = 0, j = 0; i < ch->k; i++) {   /* at least one stage a DC */
		int here = 0, j0 = j;
		for (; j < np && dcq[j] / 64 == ch->dc[i]; j++)
			here += n[j];
		if (!here)
			n[j0] = 1;
	}
	return np;
}

/* R identical pipelines over the chain: each DC gives every pipeline
 * floor(slots / R) stages of each of its pools (atlas_counts). */
static int atlas_build(const struct bl_ctx *c, const struct at_chain *ch, int t, int R,
		       struct gp_plan *out)
{
	const struct gp_scenario *s = c->sc;
	int L = s->model.layers, S = 0, dcq[64], tq[64], n[64];
	int np = atlas_counts(s, ch, t, R, dcq, tq, n);
	struct gp_stage *st = malloc((size_t)L * sizeof *st);
	if (!st || np < 0) {
		free(st);
		return -1;
	}
	for (int j = 0; j < np; j++)
		for (int i = 0; i < n[j]; i++) {
			if (S == L) {
				free(st);
				return -1;
			}
			st[S++] = bl_mkstage(s, dcq[j] / 64, dcq[j] % 64, tq[j], 0, 0);
		}
	if (bl_fill_layers(c, st, S, bl_ceil_div(c->M, R), R)) {
		free(st);
		return -1;
	}
	struct bl_builder b;
	bl_builder_init(&b, c->eval);
	bl_builder_group(&b, st, S, R, c->M);
	free(st);
	return bl_builder_take(&b, out);
}

/* The best chain of each length (best[k], k DCs; best[k].k != k when
 * there is none); returns the longest length found, -1 out of memory. */
static int at_chains(const struct bl_ctx *c, struct at_chain *best)
{
	const struct gp_scenario *s = c->sc;
	struct at_chain cur;
	bool *used = calloc((size_t)s->ndcs, sizeof *used);
	if (!used)
		return -1;
	for (int k = 0; k <= 16; k++)
		best[k] = (struct at_chain){ .k = 0, .compute = -1, .hops = INF };
	long steps = 200000;   /* of the depth-first search, at most */
	for (int d = 0; d < s->ndcs; d++) {
		if (!s->dcs[d].npools)
			continue;
		cur = (struct at_chain){ .k = 1, .dc = { d }, .compute = bl_dc_compute(c, d), .hops = 0 };
		used[d] = true;
		chain_dfs(c, &cur, used, best, &steps);
		used[d] = false;
	}
	free(used);
	int K = 0;
	for (int k = 1; k <= 16; k++)
		if (best[k].k == k)
			K = k;
	return K;
}

/* Some DC of the chain has fewer than R TP groups of (up to) t. */
static bool at_too_few(const struct gp_scenario *s, const struct at_chain *ch, int t, int R)
{
	for (int i = 0; i < ch->k; i++) {
		int d = ch->dc[i], sl = 0;
		for (int q = 0; q < s->dcs[d].npools; q++)
			sl += bl_pool_slots(bl_pool_of(s, d, q), bl_tp_fit(s, bl_pool_of(s, d, q), t));
		if (sl < R)
			return true;
	}
	return false;
}

static int at_max_per_node(const struct gp_scenario *s)
{
	int maxper = 1;
	for (int d = 0; d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++)
			if (s->dcs[d].pools[q].per_node > maxper)
				maxper = s->dcs[d].pools[q].per_node;
	return maxper;
}

/* Every layout that builds over the chains of kmin..K DCs (TP dividing
 * the heads, R replicas), estimated, until the deadline once there is
 * one. -1: out of memory. */
static int at_candidates(struct bl_ctx *c, const struct at_chain *best, int kmin, int K,
			 struct at_cand **out, int *nout)
{
	const struct gp_scenario *s = c->sc;
	int n = 0, cap = 256, maxper = at_max_per_node(s);
	struct at_cand *cand = malloc((size_t)cap * sizeof *cand);
	if (!cand)
		return -1;
	for (int k = kmin; k <= K; k++)
		for (int t = 1; t <= maxper; t *= 2) {
			if ((long)s->model.heads % t)
				continue;
			for (int R = 1; R <= c->M && !(n && bl_out_of_time(c)); R++) {
				struct gp_plan pl;
				if (atlas_build(c, &best[k], t, R, &pl)) {
					/* Too many stages at small R; none at large. */
					if (at_too_few(s, &best[k], t, R))
						break;
					continue;
				}
				if (bl_over_budget(c, &pl)) {
					gp_plan_free(&pl);
					break;   /* more replicas cost more */
				}
				if (n == cap) {
					struct at_cand *nc = realloc(cand, (size_t)(cap *= 2) * sizeof *nc);
					if (!nc) {
						gp_plan_free(&pl);
						free(cand);
						return -1;
					}
					cand = nc;
				}
				cand[n++] = (struct at_cand){ .est = bl_est_plan(c, &pl), .chain = k, .t = t, .R = R };
				gp_plan_free(&pl);
			}
		}
	*out = cand;
	*nout = n;
	return 0;
}

/* What bl_pick builds from: the chains and the candidates over them. */
struct at_cands {
	const struct at_chain *best;
	const struct at_cand *cand;
};

static int at_build_i(const struct bl_ctx *c, const void *ud, int i, struct gp_plan *out)
{
	const struct at_cands *a = ud;
	const struct at_cand *k = &a->cand[i];
	return atlas_build(c, &a->best[k->chain], k->t, k->R, out);
}

static int at_plan(const struct gp_scenario *s, const struct gp_plan_opts *o,
		   struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e)
{
	struct gp_plan_report rloc;
	struct bl_ctx c;
	if (bl_begin(&c, s, o, "atlas", out, &rep, &rloc, e))
		return -1;
	struct at_chain best[17];
	int K = at_chains(&c, best);
	if (K < 0)
		return bl_fail(&c, rep, e, "atlas: out of memory");
	/* Atlas's point is a pipeline across DCs: one DC alone only when
	 * there is no other. */
	int kmin = K >= 2 ? 2 : 1, n;
	struct at_cand *cand;
	if (at_candidates(&c, best, kmin, K, &cand, &n))
		return bl_fail(&c, rep, e, "atlas: out of memory");
	qsort(cand, (size_t)n, sizeof *cand, bl_cmp_est);
	struct gp_plan bp = { 0 };
	int bi = bl_pick(&c, n, ATLAS_SIMS, at_build_i, &(struct at_cands){ best, cand }, &bp);
	if (bi < 0) {
		char msg[1024];
		snprintf(msg, sizeof msg, "atlas: no pipeline over a chain of linked DCs fits the model%s%s%s",
			 c.why[0] ? " (closest: " : "", c.why, c.why[0] ? ")" : "");
		free(cand);
		return bl_fail(&c, rep, e, msg);
	}
	struct at_cand k = cand[bi];
	free(cand);
	if (bl_finish(&c, &bp, out, rep, e))
		return -1;
	char path[160] = "";
	for (int i = 0; i < best[k.chain].k; i++) {
		size_t l = strlen(path);
		snprintf(path + l, sizeof path - l, "%s%s", i ? ">" : "", s->dcs[best[k.chain].dc[i]].name);
	}
	snprintf(rep->note, sizeof rep->note,
		 "atlas: %d pipelines of %d stages over %s, TP up to %d, DP inside each DC, layers by compute; %d layouts estimated, %d simulated",
		 k.R < c.M ? k.R : c.M, out->pipes[0].nstages, path, k.t, n, c.nsim);
	bl_note_clock(&c, rep);
	return 0;
}

int gp_plan_atlas(const struct gp_scenario *s, const struct gp_plan_opts *o,
		  struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e)
{
	return bl_run(s, o, "atlas", at_plan, out, rep, e);
}
