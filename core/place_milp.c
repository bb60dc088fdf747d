/*
 * place_milp.c: the network-aware heterogeneous placement engine
 * (gp_plan_milp, planner.h), DOMAIN.md "Heterogeneous, network-aware
 * placement", decomposed by the iteration time T.
 *
 * Plan space
 *  * Kinds (pool, TP, recomputation), their costs and each stage's memory
 *    and layer capacity: place_kinds.c.
 *  * Pipeline classes (segments of kinds, chains) and the class sets
 *    per replica bound d: place_classes.c; their layer splits, U_c and
 *    Sigma_c: place_split.c.
 *
 * Options, and the tail E_c of a class under one: place_tail.c.
 *
 * D = 1 and the uniform options, solved in closed form: place_uniform.c.
 *
 * The breakpoints, and the covering MILP of one option at one T:
 * place_cover.c.
 *
 * Feasibility is monotone in T, and the optimum T* is a breakpoint
 * (m - 1) U_c + Sigma_c + E_c: per option a binary search over the
 * breakpoints below the best T so far (by rank, counted in closed form;
 * below a known best, first galloping down from it), one MILP per probe.
 * T* is then optimal for this model: OPTIMAL, objective = bound = T*.
 * A probe's
 * pruning and screens: place_screen.c; the rounding of its LP's point:
 * place_round.c. With a gap g,
 * an option below an incumbent T is first probed at its last breakpoint
 * <= (1 - g) T: infeasible there, it cannot beat T by more than g (and
 * such a probe, with room to spare, is proven sooner). The
 * options are searched twice: first with probes of at most PM_QUICK_TL
 * (easy options give an incumbent early), then with PM_PROBE_TL the
 * options a short probe left undecided. A probe undecided in the second
 * pass counts as infeasible for the search; each option keeps the lowest
 * T it may still hold (undecided probes, gap stops), and the bound is
 * the least of those.
 *
 * Warm starts from a given plan: place_warm.c; in the cost phase each
 * probe offers GLPK the last plan found at a smaller T through its
 * heuristic callback (taken only when it satisfies the probe, whose
 * cutoff row asks for a cheaper plan than the best).
 *
 * Objectives: time as above; wan_bytes: min WAN bytes per iteration over
 * plans with T <= 1.05 T* (each option at its largest breakpoint below);
 * cost: min $ per iteration = sum y $/h T / 3600 + egress, from the
 * fastest plan (the first incumbent) by branch and bound over intervals
 * of T per option (pm_cost_bb: a plan in [a, b] costs at least a P(b) /
 * 3600, P(T) the least $/h at T; intervals of at most PM_LEAF_BP
 * breakpoints are enumerated, those narrower than 1 + PM_COST_RES left
 * open at their bound). The D = 1 option's probes are closed forms
 * (pm_one_obj). The bound reported is the least of the open intervals',
 * and at least the work bound's dollars (pm_work_cost_bound). The budget is
 * a constraint throughout.
 */
#include "place_int.h"
#include "sim.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PM_COST_RES 1e-3             /* cost phase: the narrowest interval it splits */
#define PM_LEAF_BP 16                /* cost phase: breakpoints an interval enumerates */

/* ------------------------------------------------------------------ */
/* Search over T                                                       */

/* A probe timed out: optimality is no longer proven below what is known
 * infeasible (lo) at that point. */
static void mark_undecided(struct pm *m, double lo)
{
	double b = lo == -INF ? 0 : lo;
	if (m->ob && b < m->ob[m->cur_oi])
		m->ob[m->cur_oi] = b;
	m->undecided++;
}

/* The smallest feasible breakpoint of option oi below `below` (INF: any);
 * *T gets it, or INF when none; *lo the largest infeasible one seen. */
static int solve_option(struct pm *m, int oi, const int *idx, int n, double below,
			struct pm_sol *sol, double *T, double *lo, struct gp_err *e)
{
	*T = INF;
	*lo = -INF;
	if (m->opt[oi].one)
		return pm_solve_one(m, oi, idx, n, below, sol, T, lo);
	double hi = pm_prev_bp(m, idx, n, below == INF ? INF : below);
	if (below < INF && hi >= below)
		hi = pm_prev_bp(m, idx, n, nextafter(below, -INF));
	if (hi == -INF)
		return 0;
	/* With a gap g, an option matters only if it beats the best by more
	 * than g: probe first at the last breakpoint t <= (1 - g) best. No
	 * plan there, and none of the option's is below the next breakpoint,
	 * which is above (1 - g) best: within the gap, and such a probe, with
	 * room to spare, is proven infeasible sooner. */
	double g = m->o ? m->o->gap : 0;
	if (g > 0 && below < INF) {
		double t = pm_prev_bp(m, idx, n, below * (1 - g));
		if (t == -INF) {
			/* Not even the fastest breakpoint is that far down: the
			 * option holds nothing below it. */
			double f = pm_next_bp(m, idx, n, -1);
			if (m->ob && f < below && f < m->ob[m->cur_oi])
				m->ob[m->cur_oi] = f;
			return 0;
		}
		if (t < hi) {
			int r0 = pm_probe(m, oi, idx, n, t, PM_FEAS, sol, e);
			if (r0 < 0)
				return -1;
			if (r0 == 0) {
				double nb = pm_next_bp(m, idx, n, t);
				if (m->ob && nb < m->ob[m->cur_oi])
					m->ob[m->cur_oi] = nb;
				*lo = t;
				return 0;
			}
			if (r0 == 1)
				hi = t;   /* far below the best: search on from here */
		}
	}
	int r = pm_probe(m, oi, idx, n, hi, PM_FEAS, sol, e);
	if (r == 3)
		mark_undecided(m, -INF);
	if (r <= 0 || r == 3) {
		*lo = hi;
		return r < 0 ? -1 : 0;
	}
	double lo_t = -INF;
	/* Below a known best, the option's optimum is usually close to it:
	 * gallop down from hi (steps of 0.1 %, 0.4 %, ...) until a probe
	 * fails, then bisect between. */
	for (double step = 1e-3; below < INF && step < 0.5; step *= 4) {
		double t = pm_prev_bp(m, idx, n, hi * (1 - step));
		if (!(t > lo_t && t < hi))
			break;
		if (pm_now_s() > m->deadline) {
			*lo = lo_t;
			*T = hi;
			return 2;
		}
		r = pm_probe(m, oi, idx, n, t, PM_FEAS, sol, e);
		if (r < 0)
			return -1;
		if (r == 3)
			mark_undecided(m, lo_t);
		if (r == 1) {
			hi = t;
		} else {
			lo_t = t;
			break;
		}
	}
	for (;;) {
		/* Within the requested gap: stop; lo_t bounds this option. */
		if (g > 0 && lo_t > -INF && hi - lo_t <= g * hi) {
			if (m->ob && lo_t < m->ob[m->cur_oi])
				m->ob[m->cur_oi] = lo_t;
			break;
		}
		double cl = lo_t == -INF ? 0 : pm_count_bp(m, idx, n, lo_t);
		double ch = pm_count_bp(m, idx, n, nextafter(hi, -INF));
		if (ch - cl < 0.5)
			break;
		/* About the median breakpoint in (lo, hi), by bisection on counts. */
		double want = cl + floor((ch - cl + 1) / 2), a = lo_t == -INF ? 0 : lo_t, b = hi;
		double ca = cl;
		/* Until (a, b] holds the wanted breakpoint and no earlier one,
		 * or 8 halvings: near the median is as good for the search (8: P3
		 * 0.117 -> 0.105 s against 16). */
		for (int it = 0; it < 8 && b - a > 1e-15 * b && ca < want - 1; it++) {
			double mid = 0.5 * (a + b), cm = pm_count_bp(m, idx, n, mid);
			if (cm >= want) {
				b = mid;
			} else {
				a = mid;
				ca = cm;
			}
		}
		/* (a, b] holds the wanted breakpoint and a has want - 1 below
		 * it: the next one after a. */
		double t = pm_next_bp(m, idx, n, a);
		if (!(t > lo_t && t < hi))
			t = pm_next_bp(m, idx, n, lo_t == -INF ? -1 : lo_t);
		if (!(t > lo_t && t < hi))
			break;
		if (pm_now_s() > m->deadline) {
			*lo = lo_t;
			*T = hi;
			return 2;   /* stopped */
		}
		r = pm_probe(m, oi, idx, n, t, PM_FEAS, sol, e);
		if (r < 0)
			return -1;
		if (r == 3)
			mark_undecided(m, lo_t);
		if (r == 1)
			hi = t;
		else
			lo_t = t;
	}
	if (sol && sol->T != hi && pm_probe(m, oi, idx, n, hi, PM_FEAS, sol, e) != 1)
		return gp_errf(e, "milp: a feasible probe at T = %.6g s failed again", hi);
	*T = hi;
	*lo = lo_t;
	return 1;
}

/* ------------------------------------------------------------------ */

/* A lower bound on T for every plan of the model, searched or not: each
 * stage of a replica running m micro-batches is busy m n x_k <= t_c(m)
 * <= T, so the GPU-seconds of all N L layer passes (at the fewest per
 * layer any kind of the pool needs, x_k tp_k; logits left out) fit in the
 * pools' GPUs x T: T >= N L / sum_p (count_p / w_p). */
static double pm_work_bound(const struct pm *m)
{
	double rate = 0;
	for (int f = 0; f < m->npools; f++) {
		double w = INF;
		for (int i = 0; i < m->nk; i++)
			if (m->k[i].fp == f && m->k[i].x * m->k[i].tp < w)
				w = m->k[i].x * m->k[i].tp;
		if (w < INF && w > 0)
			rate += m->pl[f]->count / w;
	}
	return rate > 0 ? (double)m->N * m->L / rate : 0;
}

/* The same for dollars: every GPU is paid for the whole iteration and
 * busy at most that long, so a plan costs at least the GPU-seconds of
 * its N L layer passes at the cheapest pool's price per GPU-second. */
static double pm_work_cost_bound(const struct pm *m)
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

static void pm_free(struct pm *m)
{
	free(m->pl);
	free(m->pl_dc);
	free(m->dc_gpus);
	free(m->k);
	free(m->c);
	free(m->lay);
	free(m->qbw);
	free(m->capt);
	free(m->capn);
	free(m->order);
	free(m->lmat);
	free(m->opt);
	free(m->ob);
	for (int i = 0; i < m->nsets; i++) {
		free(m->sets[i].capt);
		free(m->sets[i].c);
		free(m->sets[i].lay);
		free(m->sets[i].order);
	}
	if (m->memo) {
		free(m->memo->at);
		free(m->memo->v);
		free(m->memo);
	}
}

static int pm_init(struct pm *m, const struct gp_scenario *s, const struct gp_plan_opts *o,
		   struct gp_err *e)
{
	memset(m, 0, sizeof *m);
	m->sc = s;
	m->o = o;
	m->cm = &gp_default_cost;
	m->t0 = pm_now_s();
	m->deadline = m->t0 + (o && o->time_limit > 0 ? o->time_limit : 60);
	m->probe_tl = PM_PROBE_TL;
	m->budget = o ? o->budget_usd_per_hour : 0;
	m->miss = INF;
	m->cutoff = INF;
	m->L = s->model.layers;
	double N = s->job.global_batch / s->job.micro_batch;
	if (!(N >= 1 && N <= 1e7 && N == floor(N)))
		return gp_errf(e, "milp: job.global_batch %.0f cannot be split into micro-batches of %.0f sequences",
			       s->job.global_batch, s->job.micro_batch);
	m->N = (int)N;
	m->bb = gp_boundary_bytes(s);
	m->prec = s->job.precision_bytes;
	m->Lp = gp_layer_params(&s->model);
	m->Ep = gp_embedding_params(&s->model);
	for (int d = 0; d < s->ndcs; d++)
		m->npools += s->dcs[d].npools;
	m->pl = gp_xcalloc((size_t)m->npools, sizeof *m->pl);
	m->pl_dc = gp_xcalloc((size_t)m->npools, sizeof *m->pl_dc);
	m->dc_gpus = gp_xcalloc((size_t)s->ndcs, sizeof *m->dc_gpus);
	if (!m->pl || !m->pl_dc || !m->dc_gpus)
		return gp_errf(e, "out of memory");
	for (int d = 0, f = 0; d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++, f++) {
			m->pl[f] = &s->dcs[d].pools[q];
			m->pl_dc[f] = d;
			m->dc_gpus[d] += m->pl[f]->count;
			m->gpus += m->pl[f]->count;
		}
	if (pm_enum_kinds(m) || pm_link_classes(m))
		return gp_errf(e, "out of memory");
	m->Tlb = pm_work_bound(m);
	m->capt = gp_xcalloc((size_t)m->nk * 64 * 64 + 1, sizeof *m->capt);
	m->capn = gp_xcalloc((size_t)m->nk * 64 * 64 + 1, sizeof *m->capn);
	m->lmat = gp_xcalloc((size_t)s->ndcs * (size_t)s->ndcs + 1, sizeof *m->lmat);
	if (!m->lmat)
		return gp_errf(e, "out of memory");
	for (int a = 0; a < s->ndcs; a++)
		for (int b = 0; b < s->ndcs; b++) {
			const struct gp_link *l = gp_find_link(s, a, b);
			m->lmat[a * s->ndcs + b] = l ? (int)(l - s->links) : -1;
		}
	size_t nmemo = (size_t)m->nk * (size_t)(m->L + 1) * 4 + 1;
	m->memo = gp_xcalloc(1, sizeof *m->memo);
	if (m->memo) {
		m->memo->at = gp_xcalloc(nmemo, sizeof *m->memo->at);
		m->memo->v = gp_xcalloc(nmemo, sizeof *m->memo->v);
		m->memo->gen = 1;
	}
	if (!m->capt || !m->capn || !m->memo || !m->memo->at || !m->memo->v)
		return gp_errf(e, "out of memory");
	pm_enum_opts(m);
	if (m->opt_oom)
		return gp_errf(e, "out of memory");
	return 0;
}

/* The plan of a solution: per class, y replicas sharing x micro-batches
 * (q or q + 1 each, never more than m_c(T)). */
static int make_plan(const struct pm *m, const struct pm_sol *sol, struct gp_plan *out)
{
	const struct gp_scenario *s = m->sc;
	enum gp_sched k = m->o ? m->o->schedule : GP_SCHED_1F1B;
	if (k == GP_SCHED_GPIPE || (int)k < 0 || k >= GP_SCHED__N)
		k = GP_SCHED_1F1B;
	memset(out, 0, sizeof *out);
	out->schedule = k;
	out->chunks = 1;
	/* The sync mode is a decision when the job leaves it open: the
	 * option's, written only where the ring crosses DCs. */
	const struct pm_opt *o = sol->opt >= 0 && sol->opt < m->nopt ? &m->opt[sol->opt] : NULL;
	if (s->job.sync_mode == GP_SYNC_AUTO && o && !o->one && !o->uni && o->K >= 2) {
		out->sync_set = true;
		out->sync_mode = o->mode;
	}
	out->pipes = gp_xcalloc((size_t)m->nc * 2 + 1, sizeof *out->pipes);
	if (!out->pipes)
		return -1;
	for (int i = 0; i < m->nc; i++) {
		int y = sol->y[i], x = sol->x[i];
		if (y < 1 || x < 1)
			continue;
		const struct pm_class *c = &m->c[i];
		int q = x / y, r = x % y;
		for (int part = 0; part < 2; part++) {
			int R = part == 0 ? r : y - r, mb = part == 0 ? q + 1 : q;
			if (R < 1 || mb < 1)
				continue;
			struct gp_pipeline *pp = &out->pipes[out->npipes++];
			pp->replicas = R;
			pp->micro_batches = mb;
			pp->nstages = c->S;
			pp->stages = gp_xcalloc((size_t)c->S, sizeof *pp->stages);
			if (!pp->stages) {
				gp_plan_free(out);
				return -1;
			}
			for (int j = 0, next = 1; j < c->S; j++) {
				const struct pm_kind *kd = &m->k[c->kind[pm_seg_of(c, j, NULL)]];
				int nl = m->lay[c->off + j];
				pp->stages[j] = (struct gp_stage){ .dc = kd->dc, .pool = kd->pool,
					.tp = kd->tp, .first = next, .last = next + nl - 1,
					.recompute = kd->rc,
					.recompute_set = s->job.recompute == GP_RC_AUTO };
				if (!pp->stages[j].recompute_set)
					pp->stages[j].recompute = s->job.recompute;
				next += nl;
			}
		}
	}
	if (out->sync_set) {
		int dc0 = out->npipes ? out->pipes[0].stages[0].dc : -1;
		bool across = false;
		for (int i = 0; i < out->npipes && !across; i++)
			for (int j = 0; j < out->pipes[i].nstages && !across; j++)
				across = out->pipes[i].stages[j].dc != dc0;
		out->sync_set = across;
	}
	return 0;
}

static const char *opt_desc(const struct pm *m, const struct pm_opt *o, char *buf, size_t n)
{
	if (o->one)
		snprintf(buf, n, "one replica");
	else if (o->uni)
		snprintf(buf, n, "%d-%d replicas of one class, DP inside each DC", o->d, o->dhi);
	else if (o->K < 2)
		snprintf(buf, n, "%d-%d replicas in one DC", o->d, o->dhi);
	else
		snprintf(buf, n, "%d-%d replicas, <= %d DCs on links >= %.3g GB/s%s", o->d, o->dhi, o->K,
			 o->wbw / 1e9, m->sc->job.sync_mode != GP_SYNC_AUTO ? ""
			 : o->mode == GP_SYNC_FLAT ? ", flat sync" : ", hierarchical sync");
	return buf;
}

/* Why nothing fits: memory, GPUs, budget. */
static int explain(struct pm *m, struct gp_plan_report *rep, struct gp_err *e)
{
	const struct gp_scenario *s = m->sc;
	char msg[768];
	rep->status = GP_MILP_INFEASIBLE;
	/* Memory: the largest d (ZeRO-1 shrinks the state with d) holds
	 * the most; the search may have left another d's classes. */
	int dm = 1;
	while (s->job.zero && dm * 2 <= m->gpus)
		dm *= 2;
	if (pm_enum_classes(m, dm) < 0)
		return gp_errf(e, "out of memory");
	if (m->nc == 0 && m->miss < INF) {
		double best = INF;
		const struct pm_kind *bk = NULL;
		for (int i = 0; i < m->nk; i++) {
			const struct pm_kind *k = &m->k[i];
			int S = m->L < 64 ? m->L : 64;
			/* One layer per stage, the worst (first) stage. */
			double need = pm_stage_mem(m, k, 1, 0, S, m->gpus) / k->g->memory;
			if (need < best) {
				best = need;
				bk = k;
			}
		}
		if (bk)
			snprintf(msg, sizeof msg,
				 "milp: the model does not fit in GPU memory: even one layer per stage over %d stages at TP %d on %s needs %.2f GiB per GPU in the first stage, %.2f GiB available (%.1fx too much)",
				 m->L < 64 ? m->L : 64, bk->tp, bk->g->name,
				 best * bk->g->memory / 1073741824.0, bk->g->memory / 1073741824.0, best);
		else
			snprintf(msg, sizeof msg, "milp: no TP degree fits any pool");
	} else if (m->budget > 0 && m->nc > 0) {
		/* The cheapest plan without the budget. */
		double save = m->budget, cheapest = INF;
		m->budget = 0;
		int *idx = gp_xcalloc((size_t)m->nc, sizeof *idx);
		struct pm_sol sol = { 0 };
		sol.y = gp_xcalloc((size_t)m->nc, sizeof *sol.y);
		sol.x = gp_xcalloc((size_t)m->nc, sizeof *sol.x);
		for (int oi = 0; idx && sol.y && sol.x && oi < m->nopt; oi++) {
			if (m->opt[oi].d != m->cur_d && m->opt[oi].d > 1 && s->job.zero)
				continue;
			int n = pm_set_option(m, &m->opt[oi], INF, idx);
			if (n && pm_probe(m, oi, idx, n, INF, PM_PRICE, &sol, NULL) == 1 &&
			    sol.obj < cheapest)
				cheapest = sol.obj;
		}
		free(idx);
		free(sol.y);
		free(sol.x);
		m->budget = save;
		if (cheapest < INF)
			snprintf(msg, sizeof msg,
				 "milp: the budget $%.2f/hour is too small: the cheapest plan that fits needs $%.2f/hour (%.2fx the budget)",
				 save, cheapest, cheapest / save);
		else
			snprintf(msg, sizeof msg,
				 "milp: no plan fits the GPUs and links even without the budget $%.2f/hour",
				 save);
	} else {
		snprintf(msg, sizeof msg,
			 "milp: no plan of up to %d stages covers %d micro-batches with the GPUs (%d) and links available%s%s",
			 m->Smax, m->N, m->gpus, m->why[0] ? ": " : "", m->why);
	}
	snprintf(rep->note, sizeof rep->note, "%s", msg);
	rep->seconds = pm_now_s() - m->t0;
	return gp_errf(e, "%s", msg);
}

/* Takes probe result cur (at T, option oi, replica bound d) as the new
 * incumbent. */
int pm_take_incumbent(const struct pm *m, struct pm_best *best, struct pm_sol *sol,
		      const struct pm_sol *cur, double T, int oi, int d)
{
	if (m->nc > sol->cap) {
		int *y = realloc(sol->y, (size_t)m->nc * sizeof *y);
		if (y)
			sol->y = y;
		int *x = y ? realloc(sol->x, (size_t)m->nc * sizeof *x) : NULL;
		if (!x)
			return -1;
		sol->x = x;
		sol->cap = m->nc;
	}
	best->T = T;
	best->opt = oi;
	best->d = d;
	sol->T = T;
	sol->opt = oi;
	memcpy(sol->y, cur->y, (size_t)m->nc * sizeof *sol->y);
	memcpy(sol->x, cur->x, (size_t)m->nc * sizeof *sol->x);
	return 0;
}

/* The wan_bytes or cost objective of solution sol at sol->T, as the
 * covering MILP's objective row counts it (pm_cover_build). */
static double pm_sol_objective(const struct pm *m, const struct pm_opt *o, const struct pm_sol *sol,
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

/* Runs the whole time search (and the objective's second phase); leaves
 * the winning classes in m (split for best->d) and the solution in sol. */

/* A plan of the cost phase found at t: the warm start of later probes
 * (feasible at any larger T), and the incumbent if cheaper. */
static int cost_found(struct pm *m, struct pm_best *best, struct pm_sol *sol,
		      const struct pm_sol *cur, struct pm_sol *last, double *lastT, double t,
		      int oi, int d, struct gp_err *e)
{
	memcpy(last->y, cur->y, (size_t)m->nc * sizeof *last->y);
	memcpy(last->x, cur->x, (size_t)m->nc * sizeof *last->x);
	*lastT = t;
	if (cur->obj < best->obj) {
		best->obj = cur->obj;
		if (pm_take_incumbent(m, best, sol, cur, t, oi, d))
			return gp_errf(e, "out of memory");
	}
	return 0;
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
static int pm_cost_bb(struct pm *m, int oi, const int *idx, int n, double T0, double pmin,
		      struct pm_best *best, struct pm_sol *sol, struct pm_sol *cur,
		      struct pm_sol *last, int d, struct gp_err *e)
{
	double g = m->o ? m->o->gap : 0, res = g > PM_COST_RES ? g : PM_COST_RES, lastT = INF;
	double b0 = pm_prev_bp(m, idx, n, INF);
	if (!(T0 <= b0))
		return 0;
	struct iv { double a, b, pb; } st[256];
	int ns = 0;
	st[ns++] = (struct iv){ T0, b0, pmin };
	while (ns > 0) {
		/* The least bound first. */
		int k = 0;
		for (int i = 1; i < ns; i++)
			if (st[i].a * st[i].pb < st[k].a * st[k].pb)
				k = i;
		struct iv v = st[k];
		st[k] = st[--ns];
		double lb = v.a * v.pb / 3600;
		if (lb >= best->obj * (1 - g)) {
			if (lb < best->obj)   /* dropped within the gap: still a bound */
				m->cost_lb = fmin(m->cost_lb, lb);
			continue;
		}
		double hi = pm_prev_bp(m, idx, n, v.b);   /* the last breakpoint in [a, b] */
		if (hi < v.a)
			continue;
		if (pm_now_s() > m->deadline || ns + 2 > (int)(sizeof st / sizeof st[0])) {
			best->stopped = true;
			m->cost_lb = fmin(m->cost_lb, lb);
			for (int i = 0; i < ns; i++)
				m->cost_lb = fmin(m->cost_lb, st[i].a * st[i].pb / 3600);
			return 0;
		}
		/* Few breakpoints left (or no interior one to split at: the
		 * count has multiplicity): each gets the cheapest plan at it,
		 * which settles the interval when every probe is proven. */
		double nb = pm_count_bp(m, idx, n, hi) - pm_count_bp(m, idx, n, nextafter(v.a, -INF));
		double t = pm_prev_bp(m, idx, n, sqrt(v.a * v.b));
		if (!(t > v.a && t < hi))
			t = pm_next_bp(m, idx, n, v.a);
		if (nb <= PM_LEAF_BP || !(t > v.a && t < hi)) {
			bool all = true;
			for (double u = pm_next_bp(m, idx, n, nextafter(v.a, -INF)); u <= hi;
			     u = pm_next_bp(m, idx, n, u)) {
				if (pm_now_s() > m->deadline) {
					all = false;
					break;
				}
				m->cutoff = best->obj * (1 - 1e-9);   /* improvements only */
				int r = pm_probe_ws(m, oi, idx, n, u, PM_COST, lastT <= u ? last : NULL, cur, e);
				m->cutoff = INF;
				if (r < 0)
					return -1;
				all = all && r != 3 && (r == 0 || cur->proven);
				if (r == 1 && cost_found(m, best, sol, cur, last, &lastT, u, oi, d, e))
					return -1;
			}
			if (!all) {
				best->stopped = true;
				m->cost_lb = fmin(m->cost_lb, lb);
			}
			continue;
		}
		/* As narrow as it gets: the cheapest plan at its last
		 * breakpoint, then open at its bound if that is still below. */
		if (v.b <= v.a * (1 + res)) {
			m->cutoff = best->obj * (1 - 1e-9);
			int r = pm_probe_ws(m, oi, idx, n, hi, PM_COST, lastT <= hi ? last : NULL, cur, e);
			m->cutoff = INF;
			if (r < 0)
				return -1;
			if (r == 1 && cost_found(m, best, sol, cur, last, &lastT, hi, oi, d, e))
				return -1;
			if (lb < best->obj) {
				if (lb < best->obj * (1 - g))
					best->stopped = true;
				m->cost_lb = fmin(m->cost_lb, lb);
			}
			continue;
		}
		/* Split at the geometric mean t. The least $/h there bounds
		 * the lower half; its plan, when the option admits it, costs
		 * what it costs at t: an incumbent. */
		m->bound_only = true;
		int r2 = pm_probe(m, oi, idx, n, t, PM_PRICE, cur, e);
		m->bound_only = false;
		if (r2 < 0)
			return -1;
		if (r2 == 1) {
			const struct pm_opt *o = &m->opt[oi];
			long D = 0;
			for (int j = 0; j < n; j++)
				D += cur->y[idx[j]];
			if (o->one ? D == 1 : D >= o->d && D <= o->dhi) {
				double lbp = cur->lb;
				cur->T = t;
				cur->obj = pm_sol_objective(m, o, cur, GP_OBJ_COST);
				if (cost_found(m, best, sol, cur, last, &lastT, t, oi, d, e))
					return -1;
				cur->lb = lbp;
			}
		}
		st[ns++] = (struct iv){ nextafter(t, INF), v.b, v.pb };
		if (r2 != 0)   /* no plan fits at t: none below it either */
			st[ns++] = (struct iv){ v.a, t, r2 == 1 ? fmax(cur->lb, v.pb) : v.pb };
	}
	return 0;
}

static int pm_search(struct pm *m, enum gp_objective goal, struct pm_sol *sol, struct pm_best *best,
		     struct gp_err *e)
{
	const struct gp_scenario *s = m->sc;
	int *idx = NULL;
	struct pm_sol cur = { 0 }, last = { 0 };
	int rc = 0;
	best->T = INF;
	best->obj = INF;
	best->lo = INF;
	best->opt = -1;
	best->stopped = false;
	int last_d = -1;
	if (m->warm && pm_warm_start(m, m->warm, best, sol, e) < 0)
		return -1;
	m->warm_T = best->T;
	double Tstar = INF;
	struct pm_best p1 = { .opt = -1 };
	/* Phase 1 finds T*; phase 2 (wan, cost) optimises at or above it.
	 * Phase 1 passes over the options twice: first with short probes
	 * (an incumbent from the easy options early), then again, with
	 * full-length probes, over the options a short probe left undecided;
	 * only the second pass's undecided probes stay in the proof. */
	char *redo = gp_xcalloc((size_t)m->nopt + 1, 1);
	m->ob = gp_xcalloc((size_t)m->nopt + 1, sizeof *m->ob);
	if (!redo || !m->ob) {
		free(redo);
		return gp_errf(e, "out of memory");
	}
	for (int oi = 0; oi < m->nopt; oi++)
		m->ob[oi] = INF;
	for (int phase = 1; phase <= (goal == GP_OBJ_TIME ? 1 : 2) && rc == 0; phase++) {
	    for (int pass = 0; pass < (phase == 1 ? 2 : 1) && rc == 0 && !best->stopped; pass++) {
		m->probe_tl = phase == 1 && pass == 0 ? fmin(PM_QUICK_TL, PM_PROBE_TL) : PM_PROBE_TL;
		if (phase == 1 && pass == 1) {
			bool any = false;
			for (int oi = 0; oi < m->nopt; oi++)
				any |= redo[oi];
			if (!any)
				break;
			m->undecided = 0;
		}
		for (int oi = 0; oi < m->nopt && rc >= 0; oi++) {
			const struct pm_opt *o = &m->opt[oi];
			if (phase == 1 && pass == 1 && !redo[oi])
				continue;
			if (pm_now_s() > m->deadline) {
				best->stopped = true;
				if (phase == 2)
					m->cost_lb = 0;   /* options left unscanned */
				break;
			}
			int d = s->job.zero ? o->d : 1;
			if (d != last_d) {
				if (pm_enum_classes(m, d) < 0) {
					rc = gp_errf(e, "out of memory");
					break;
				}
				last_d = d;
				free(idx);
				free(cur.y);
				free(cur.x);
				free(last.y);
				free(last.x);
				idx = gp_xcalloc((size_t)m->nc, sizeof *idx);
				cur.y = gp_xcalloc((size_t)m->nc, sizeof *cur.y);
				cur.x = gp_xcalloc((size_t)m->nc, sizeof *cur.x);
				last.y = gp_xcalloc((size_t)m->nc, sizeof *last.y);
				last.x = gp_xcalloc((size_t)m->nc, sizeof *last.x);
				if (!idx || !cur.y || !cur.x || !last.y || !last.x) {
					rc = gp_errf(e, "out of memory");
					break;
				}
			}
			if (o->uni && m->o && m->o->covering_only)
				continue;
			if (phase == 1 && pass == 1)
				m->ob[oi] = INF;   /* the redo supersedes the first pass, screens too */
			if (o->uni) {
				/* Closed forms: the fastest plan, then (wan, cost)
				 * the best one within the phase's limit on T. */
				double T;
				if (phase == 1 && pm_solve_uni(m, oi, best->T, &cur, &T) && T < best->T) {
					if (pm_take_incumbent(m, best, sol, &cur, T, oi, d)) {
						rc = gp_errf(e, "out of memory");
						break;
					}
					best->lo = -INF;
				}
				if (phase == 2 &&
				    pm_uni_obj(m, oi, goal, goal == GP_OBJ_WAN ? Tstar * 1.05 : INF, best, sol,
					    &cur, d) < 0) {
					rc = gp_errf(e, "out of memory");
					break;
				}
				continue;
			}
			/* Screened before the tails are computed: even with no
			 * tail, dhi replicas of the class fitting the most
			 * micro-batches below the best (within the gap) cannot
			 * take N. */
			if (phase == 1 && best->T < INF && !o->one) {
				double g = m->o ? m->o->gap : 0, Tg = best->T * (1 - g);
				long mmax = 0;
				for (int j = 0; j < m->nc; j++) {
					const struct pm_class *c = &m->c[j];
					if (c->nseg > 2 || c->sig >= Tg)
						continue;
					double f = c->U > 0 ? floor((Tg - c->sig) / c->U) + 1 : m->N;
					if (f > mmax)
						mmax = f > m->N ? m->N : (long)f;
				}
				if (mmax * o->dhi < m->N) {
					m->screened++;
					if (g > 0 && Tg < m->ob[oi])
						m->ob[oi] = Tg;
					continue;
				}
			}
			int n = pm_set_option(m, o, phase == 1 ? best->T : INF, idx);
			/* No T helps an option whose d replicas of its smallest
			 * class need more GPUs than there are. */
			if (n && !o->one && pm_fewest_gpus(m, idx, n) * o->d > m->gpus) {
				m->screened++;
				n = 0;
			}
			if (!n)
				continue;
			if (phase == 1) {
				double T, lo;
				cur.T = -1;
				int u0 = m->undecided;
				m->cur_oi = oi;
				m->ob[oi] = INF;   /* (a redo supersedes the first pass) */
				int r = solve_option(m, oi, idx, n, best->T, &cur, &T, &lo, e);
				if (pass == 0 && m->undecided > u0)
					redo[oi] = 1;
				if (r < 0) {
					rc = -1;
					break;
				}
				if (r == 2)
					best->stopped = true;
				if (r >= 1 && T < best->T) {
					if (pm_take_incumbent(m, best, sol, &cur, T, oi, d)) {
						rc = gp_errf(e, "out of memory");
						break;
					}
					best->lo = lo;
				}
				if (r == 2)
					break;
				continue;
			}
			/* Phase 2. */
			if (goal == GP_OBJ_WAN) {
				double T = pm_prev_bp(m, idx, n, Tstar * 1.05);
				if (T == -INF || T < Tstar * (1 - 1e-12))
					continue;
				/* Only a plan with fewer bytes than the best helps. */
				m->cutoff = best->obj < INF ? best->obj * (1 - 1e-9) : INF;
				int r = pm_probe(m, oi, idx, n, T, PM_WAN, &cur, e);
				m->cutoff = INF;
				if (r < 0) {
					rc = -1;
					break;
				}
				if (r == 3 || (r == 1 && !cur.proven))
					best->stopped = true;   /* undecided: no proof */
				if (r == 1 && (best->obj == INF ||
					       cur.obj < best->obj - 1e-9 * fabs(best->obj))) {
					best->obj = cur.obj;
					if (pm_take_incumbent(m, best, sol, &cur, T, oi, d)) {
						rc = gp_errf(e, "out of memory");
						break;
					}
				}
				continue;
			}
			/* Cost: the cheapest $/h any plan of this option needs bounds
			 * every T from below. */
			m->bound_only = true;
			int rp = pm_probe(m, oi, idx, n, INF, PM_PRICE, &cur, e);
			m->bound_only = false;
			if (rp < 0) {
				rc = -1;
				break;
			}
			if (rp != 1) {
				if (rp == 3) {
					m->cost_lb = 0;   /* its cheapest plan unknown */
					best->stopped = true;
				}
				continue;
			}
			double pmin = cur.lb;
			if (pm_cost_bb(m, oi, idx, n, Tstar, pmin, best, sol, &cur, &last, d, e)) {
				rc = -1;
				break;
			}
			continue;
		}
	    }
		if (phase == 1 && goal != GP_OBJ_TIME) {
			Tstar = best->T;
			if (Tstar == INF)
				break;
			p1 = *best;
			best->T = INF;
			/* The fastest plan, at its own cost, is the first incumbent
			 * (ties keep it: the fastest of the cheapest). */
			if (goal == GP_OBJ_COST || goal == GP_OBJ_WAN) {
				if (pm_enum_classes(m, p1.d) < 0) {
					rc = gp_errf(e, "out of memory");
					break;
				}
				last_d = -1;
				best->obj = pm_sol_objective(m, &m->opt[p1.opt], sol, goal);
				best->T = Tstar;
			}
			/* With T* unproven, plans below it are not scanned. */
			bool p1_proven = !best->stopped;
			for (int oi = 0; m->ob && oi < m->nopt; oi++)
				p1_proven = p1_proven && m->ob[oi] == INF;
			m->cost_lb = p1_proven ? INF : 0;
		}
	}
	/* Stopped before the second phase took a plan: the fastest one
	 * stands, with its own objective value. */
	if (rc == 0 && goal != GP_OBJ_TIME && Tstar < INF && best->T == INF) {
		*best = (struct pm_best){ .T = Tstar, .opt = p1.opt, .d = p1.d, .lo = p1.lo,
					  .stopped = true };
		last_d = -1;
		if (pm_enum_classes(m, best->d) < 0)
			rc = gp_errf(e, "out of memory");
		else
			best->obj = pm_sol_objective(m, &m->opt[best->opt], sol, goal);
	}
	/* Leave the classes split for the winner. */
	if (rc == 0 && best->opt >= 0 && last_d != best->d && pm_enum_classes(m, best->d) < 0)
		rc = gp_errf(e, "out of memory");
	free(redo);
	free(idx);
	free(cur.y);
	free(cur.x);
	free(last.y);
	free(last.x);
	return rc;
}

/* The model is exact only for itself: its optimum can simulate a few per
 * cent slower than a plan the model ranks a little worse (lockstep link
 * sharing, deep pipelines with few micro-batches, plans outside its
 * space). So the plan is simulated and polished by the search: the search
 * engine as it is (seeded with the reference engines: the warm start from
 * the heuristics), then the search seeded with both its plan and the
 * MILP's; whichever of the three simulates fastest is returned, the MILP's
 * own on ties. The proof (objective, bound, gap) stays the model's; the
 * report keeps the MILP's own plan's simulated time beside it. */
static double sim_time(const struct gp_scenario *s, const struct gp_plan_opts *o,
		       const struct gp_plan *p)
{
	struct gp_sim_opts so = { .time_limit = o->time_limit, .gap = o->gap };
	struct gp_result r;
	struct gp_err e = { "" };
	double t = INF;
	if (gp_simulate(s, p, &so, &r, &e) == 0) {
		if (r.fits)
			t = r.iteration_time;
		gp_result_free(&r);
	}
	return t;
}

static void polish(const struct gp_scenario *s, const struct gp_plan_opts *o,
		   const struct gp_plan *warm, struct gp_plan *out, struct gp_plan_report *rep)
{
	double t0 = pm_now_s(), own = sim_time(s, o, out);
	struct gp_plan_opts so = *o;
	so.polish = false;
	/* The search's own limit (2 s) for each run, not the MILP's. */
	so.time_limit = o->time_limit > 0 && o->time_limit < 2 ? o->time_limit : 2;
	/* Seeds of the second search: the MILP's plan, the search's, and
	 * the warm plan when there is one (so a plan given to improve on is
	 * never lost). */
	struct gp_plan w[3] = { *out, { 0 }, { 0 } }, ps = { 0 };   /* ps: the search's, ours */
	struct gp_plan_report r;
	struct gp_err e = { "" };
	double ts = INF, tg = INF;
	int nw = 1;
	if (gp_plan_search(s, &so, &ps, &r, &e) == 0) {
		ts = r.estimate_s;
		w[nw++] = ps;
	}
	if (warm)
		w[nw++] = *warm;   /* (shallow: the caller's, never freed here) */
	struct gp_plan pg = { 0 };
	if (gp_plan_search_from(s, &so, w, nw, &pg, &r, &e) == 0)
		tg = r.estimate_s;
	rep->has_own = true;
	rep->own_sim_s = own;
	const char *kept = "the MILP's";
	if (fmin(ts, tg) < own * (1 - 1e-9)) {
		gp_plan_free(out);
		rep->polished = true;
		if (tg <= ts) {
			*out = pg;
			pg = (struct gp_plan){ 0 };
			kept = "the polish's";
		} else {
			*out = ps;
			ps = (struct gp_plan){ 0 };
			kept = "the search's";
		}
	}
	gp_plan_free(&ps);
	gp_plan_free(&pg);
	rep->seconds += pm_now_s() - t0;
	size_t l = strlen(rep->note);
	snprintf(rep->note + l, sizeof rep->note - l,
		 "; simulated: MILP's plan %.4g s, search %.4g s, search seeded with %s %.4g s: %s plan kept",
		 own, ts, warm ? "them and the warm plan" : "both", tg, kept);
}

int gp_plan_milp(const struct gp_scenario *s, const struct gp_plan_opts *o,
		 const struct gp_plan *warm, struct gp_plan *out,
		 struct gp_plan_report *rep, struct gp_err *e)
{
	struct gp_plan_report rloc;
	struct pm m;

	if (!rep)
		rep = &rloc;
	memset(rep, 0, sizeof *rep);
	memset(out, 0, sizeof *out);
	rep->engine = "milp";
	rep->status = GP_MILP_ERROR;
	rep->objective = rep->estimate_s = INF;
	rep->bound = -INF;
	rep->gap = INF;
	enum gp_objective goal = o ? o->objective : GP_OBJ_TIME;
	int init = pm_init(&m, s, o, e);
	m.warm = warm;
	m.warm_T = INF;
	if (init) {
		rep->status = GP_MILP_INFEASIBLE;
		snprintf(rep->note, sizeof rep->note, "%s", e->msg);
		pm_free(&m);
		return -1;
	}
	struct pm_sol sol = { 0 };
	struct pm_best best = { .opt = -1 };
	int rc = pm_search(&m, goal, &sol, &best, e);
	if (rc == 0 && best.opt < 0) {
		rc = explain(&m, rep, e);
	} else if (rc == 0 && make_plan(&m, &sol, out)) {
		rc = gp_errf(e, "out of memory");
	} else if (rc == 0 && out->npipes == 0) {
		/* The winning option's classes were rebuilt without the
		 * one the solution used (a cap or the deadline cut them):
		 * no plan is better than an empty one. */
		gp_plan_free(out);
		rep->status = GP_MILP_NOSOL;
		rc = gp_errf(e, "milp: the classes of the best option could not be rebuilt within the time limit; try a larger --time-limit");
	} else if (rc == 0) {
		char od[96];
		int used = 0, pipes = out->npipes;
		for (int i = 0; i < m.nc; i++)
			used += sol.y[i] > 0;
		rep->estimate_s = best.T;
		rep->seconds = pm_now_s() - m.t0;
		double ob = INF;   /* the lowest T an option may still hold */
		for (int oi = 0; m.ob && oi < m.nopt; oi++)
			ob = fmin(ob, m.ob[oi]);
		bool proven = !best.stopped && ob == INF;
		rep->status = proven ? GP_MILP_OPTIMAL : GP_MILP_FEASIBLE;
		if (goal == GP_OBJ_TIME) {
			rep->objective = best.T;
			/* Stopped by the time limit: options not searched yet
			 * are bounded by the work bound only. */
			rep->bound = proven ? best.T : best.stopped ? m.Tlb :
				     fmin(best.T, ob);
			if (!proven && rep->bound < m.Tlb)
				rep->bound = fmin(m.Tlb, best.T);
		} else {
			rep->objective = best.obj;
			/* Cost: what the search left out (open intervals, gap
			 * drops, the deadline) costs at least cost_lb; proven when
			 * that reaches the objective. */
			if (goal == GP_OBJ_COST) {
				rep->bound = fmin(best.obj, fmax(m.cost_lb, pm_work_cost_bound(&m)));
				proven = rep->bound >= best.obj * (1 - 1e-12);
				rep->status = proven ? GP_MILP_OPTIMAL : GP_MILP_FEASIBLE;
				if (proven)
					rep->bound = best.obj;
			} else {
				rep->bound = proven ? best.obj : 0;
			}
		}
		rep->gap = rep->objective > 0 ? (rep->objective - rep->bound) / rep->objective : 0;
		snprintf(rep->note, sizeof rep->note,
			 "milp: T = %.6g s by %d covering MILPs (%d undecided in %.0f s, %d screened out, %d settled by the rounded LP, %d warm) in %.3f s over %d options (winner: %s); %d classes, %d used, %d pipelines; S <= %d%s%s",
			 best.T, m.probes, m.undecided, PM_PROBE_TL, m.screened, m.rounded, m.warm_used, rep->seconds, m.nopt,
			 opt_desc(&m, &m.opt[best.opt], od, sizeof od), m.nc, used, pipes,
			 m.Smax, m.no_two ? "; two-segment classes dropped (too many)" :
			 m.trunc_two ? "; two-segment classes only inside a DC (too many)" : "",
			 m.trunc_chain ? "; chain classes cut (count or time)" : "");
		if (warm) {
			size_t l = strlen(rep->note);
			if (m.warm_T < INF)
				snprintf(rep->note + l, sizeof rep->note - l,
					 "; warm start: the given plan as classes at %.9g s", m.warm_T);
			else
				snprintf(rep->note + l, sizeof rep->note - l,
					 "; warm start: the given plan maps to no option's classes");
		}
	}
	if (rc && rep->status == GP_MILP_ERROR && e->msg[0])
		snprintf(rep->note, sizeof rep->note, "%s", e->msg);
	free(sol.y);
	free(sol.x);
	pm_free(&m);
	/* The search minimises time: it polishes time plans only. */
	if (rc == 0 && o && o->polish && goal == GP_OBJ_TIME)
		polish(s, o, warm, out, rep);
	return rc;
}

/* For the CBC cross-check (place_milp.h). */
int gp_place_milp_probe_lp(const struct gp_scenario *s, const struct gp_plan_opts *o,
			   int which, const char *path, double *T, double *glpk,
			   struct gp_err *e)
{
	struct gp_plan p;
	struct gp_plan_report r;
	struct gp_plan_opts oc = o ? *o : (struct gp_plan_opts){ 0 };
	oc.covering_only = true;   /* the winner must be a covering option */
	o = &oc;
	if (gp_plan_milp(s, o, NULL, &p, &r, e))
		return -1;
	gp_plan_free(&p);
	struct pm m;
	int rc = pm_init(&m, s, o, e);
	int *idx = NULL;
	int oi = -1;
	double best = INF, Tp = INF;
	/* Find the winning option again: the one whose breakpoints hold T*. */
	for (int d = 1; rc == 0 && oi < 0 && d <= (s->job.zero ? m.gpus : 1); d *= 2) {
		if (pm_enum_classes(&m, d) < 0)
			rc = gp_errf(e, "out of memory");
		free(idx);
		idx = gp_xcalloc((size_t)m.nc + 1, sizeof *idx);
		for (int i = 0; rc == 0 && idx && i < m.nopt; i++) {
			if ((s->job.zero ? m.opt[i].d : 1) != d)
				continue;
			int n = pm_set_option(&m, &m.opt[i], INF, idx);
			if (n && pm_prev_bp(&m, idx, n, r.estimate_s) == r.estimate_s &&
			    pm_probe(&m, i, idx, n, r.estimate_s, PM_FEAS, NULL, e) == 1) {
				oi = i;
				break;
			}
		}
	}
	if (rc == 0 && oi >= 0) {
		int n = pm_set_option(&m, &m.opt[oi], INF, idx);
		Tp = which ? pm_prev_bp(&m, idx, n, nextafter(r.estimate_s, -INF)) : r.estimate_s;
		int *cy = gp_xcalloc((size_t)n + 1, sizeof *cy), *cx = gp_xcalloc((size_t)n + 1, sizeof *cx);
		struct gp_milp *lp = cy && cx ? pm_cover_build(&m, &m.opt[oi], idx, n, Tp, PM_PRICE, false, cy, cx, NULL, NULL) : NULL;
		if (!lp) {
			rc = gp_errf(e, "out of memory");
		} else {
			struct gp_milp_params pp = { .time_limit = 30 };
			struct gp_milp_report rr;
			rc = gp_milp_write_lp(lp, path, e);
			if (rc == 0 && gp_milp_solve(lp, &pp, &rr, e) == 0) {
				best = rr.status == GP_MILP_OPTIMAL ? rr.objective : INF;
				gp_milp_report_free(&rr);
			} else if (rc == 0) {
				rc = -1;
			}
			gp_milp_free(lp);
		}
		free(cy);
		free(cx);
	} else if (rc == 0) {
		rc = gp_errf(e, "milp: the winning option was not found again");
	}
	free(idx);
	pm_free(&m);
	*T = Tp;
	*glpk = best;
	return rc;
}

/* For tests (place_milp.h): every option's classes as the covering
 * MILP sees them before any pruning. */
int gp_place_milp_classes(const struct gp_scenario *s, const struct gp_plan_opts *o,
			  gp_place_visit visit, void *ud, struct gp_err *e)
{
	struct pm m;
	int rc = pm_init(&m, s, o, e), last_d = -1;
	struct gp_place_class *pc = NULL;
	for (int oi = 0; rc == 0 && oi < m.nopt; oi++) {
		const struct pm_opt *op = &m.opt[oi];
		int d = s->job.zero ? op->d : 1;
		if (d != last_d) {
			if (pm_enum_classes(&m, d) < 0) {
				rc = gp_errf(e, "out of memory");
				break;
			}
			last_d = d;
			free(pc);
			pc = gp_xcalloc((size_t)m.nc + 1, sizeof *pc);
			if (!pc) {
				rc = gp_errf(e, "out of memory");
				break;
			}
		}
		int n = 0;
		for (int i = 0; i < m.nc; i++) {
			struct pm_class *c = &m.c[i];
			bool xdc = c->nseg == 2 && m.k[c->kind[0]].dc != m.k[c->kind[1]].dc;
			if (!op->one && op->K == 1 && xdc)
				continue;
			if (!op->one && op->K >= 2 && xdc &&
			    !pm_scenario_pair_ok(s, m.k[c->kind[0]].dc, m.k[c->kind[1]].dc, op->wbw))
				continue;
			c->E = pm_class_tail(&m, c, op);
			struct gp_place_class *x = &pc[n++];
			pm_class_use(&m, c, x->pool, x->gpus);
			for (int q = 0; q < 2; q++) {
				x->cnt[q] = x->pool[q] >= 0 ? m.pl[x->pool[q]]->count : 0;
				x->dc[q] = x->pool[q] >= 0 ? m.pl_dc[x->pool[q]] : -1;
			}
			x->la = c->la;
			x->lb = c->lb;
			x->U = c->U;
			x->sig = c->sig;
			x->E = c->E;
			x->price = c->price;
			x->ymax = c->ymax;
		}
		struct gp_place_opt po = { op->one, op->one ? 1 : op->d, op->one ? 1 : op->dhi, op->K, m.N, op->wbw,
					   pm_grad_ring_bytes(&m, op), m.bb, op->mode };
		if (n && visit(ud, &po, pc, n))
			break;
	}
	free(pc);
	pm_free(&m);
	return rc;
}
