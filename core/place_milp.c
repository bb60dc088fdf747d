/*
 * place_milp.c: the network-aware heterogeneous placement engine
 * (gp_plan_milp, planner.h; in the line of Sailor, SOSP '25, and Metis,
 * USENIX ATC '24), and what place_milp.h shows the tests: the classes each
 * option offers, and a probe as an LP file.
 *
 * The model and its parts are described in place_int.h. This file runs
 * them: the engine's state (pm_init, pm_free), the search (pm_search),
 * the plan and report made of its solution, the message when nothing
 * fits.
 */
#include "fmt.h"
#include "place_int.h"
#include "oom.h"
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Frees what pm_init and the search gave m. */
static void pm_free(struct pm *m)
{
	free(m->pl);
	free(m->pl_dc);
	free(m->dc_gpus);
	free(m->k);
	free(m->qbw);
	free(m->capn);
	free(m->deep);
	free(m->lmat);
	free(m->wan);
	gp_costtab_free(m->own_ct);
	free(m->opt);
	free(m->ob);
	free(m->ksame);
	pm_sets_free(m);
	if (m->memo) {
		free(m->memo->at);
		free(m->memo->v);
		free(m->memo);
	}
}

/* m for scenario s under options o (NULL: the defaults): the pools,
 * kinds, link classes, tables and options; the classes come later, per
 * replica bound d (pm_enum_classes). */
static int pm_init(struct pm *m, const struct gp_scenario *s, const struct gp_plan_opts *o,
		   struct gp_err *e)
{
	memset(m, 0, sizeof *m);
	m->sc = s;
	m->o = o;
	m->t0 = pm_now_s();
	m->deadline = m->t0 + (o && o->time_limit > 0 ? o->time_limit : 60);
	m->work_limit = o && o->work_limit > 0 ? o->work_limit :
			PM_WORK_RATE * (o && o->work_s > 0 ? o->work_s :
					o && o->time_limit > 0 ? o->time_limit : 60);
	m->probe_tl = PM_PROBE_TL;
	m->budget = o ? o->budget_usd_per_hour : 0;
	m->miss = INF;
	m->cutoff = INF;
	m->L = s->model.layers;
	double N = s->job.global_batch / s->job.micro_batch;
	if (!(N >= 1 && N == floor(N)))
		return gp_errf(e, "milp: job.global_batch %.0f cannot be split into micro-batches of %.0f sequences",
			       s->job.global_batch, s->job.micro_batch);
	if (N > 1e7)
		return gp_errf(e, "milp: job.global_batch %.0f makes %.3g micro-batches of %.0f sequences, more than the 1e7 it plans for",
			       s->job.global_batch, N, s->job.micro_batch);
	m->N = (int)N;
	m->bb = gp_boundary_bytes(s);
	m->prec = s->job.precision_bytes;
	m->Lp = gp_layer_params(&s->model);
	m->Ep = gp_embedding_params(&s->model);
	m->ct = o && o->costs ? o->costs : (m->own_ct = gp_costtab_new(s, NULL, e));
	if (!m->ct || gp_costtab_check(m->ct, s, e))
		return -1;
	m->wan = gp_xcalloc((size_t)s->nlinks + 1, sizeof *m->wan);
	if (!m->wan)
		return gp_errf(e, "out of memory");
	for (int l = 0; l < s->nlinks; l++)
		m->wan[l] = gp_costtab_wan(m->ct, l);
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
	if (pm_full_rows(m))
		return gp_errf(e, "out of memory");
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

/* What option o is, in words (the note's winner). */
static const char *opt_desc(const struct pm *m, const struct pm_opt *o, char *buf, size_t n)
{
	if (o->one)
		snprintf(buf, n, "one replica");
	else if (o->uni)
		snprintf(buf, n, "the option of %d-%d replicas of one class, DP inside each DC",
			 o->d, o->dhi);
	else if (o->K < 2)
		snprintf(buf, n, "the option of %d-%d replicas in one DC", o->d, o->dhi);
	else if (o->set)
		snprintf(buf, n, "the option of %d-%d replicas on all %d DCs of a ring whose links are >= %.3g GB/s%s",
			 o->d, o->dhi, o->K, o->wbw / 1e9, m->sc->job.sync_mode != GP_SYNC_AUTO ? ""
			 : o->mode == GP_SYNC_FLAT ? ", flat sync" : ", hierarchical sync");
	else
		snprintf(buf, n, "the option of %d-%d replicas, <= %d DCs on links >= %.3g GB/s%s",
			 o->d, o->dhi, o->K,
			 o->wbw / 1e9, m->sc->job.sync_mode != GP_SYNC_AUTO ? ""
			 : o->mode == GP_SYNC_FLAT ? ", flat sync" : ", hierarchical sync");
	return buf;
}

/* The proof of the search's solution: status, objective, bound, gap. */
static void report_proof(const struct pm *m, enum gp_objective goal, const struct pm_best *best,
			 struct gp_plan_report *rep)
{
	double ob = INF;   /* the lowest T an option may still hold */
	for (int oi = 0; m->ob && oi < m->nopt; oi++)
		ob = fmin(ob, m->ob[oi]);
	bool proven = !best->stopped && ob == INF;
	rep->status = proven ? GP_MILP_OPTIMAL : GP_MILP_FEASIBLE;
	if (goal == GP_OBJ_TIME) {
		rep->objective = best->T;
		/* Stopped by the time limit: options not searched yet
		 * are bounded by the work bound only. */
		rep->bound = proven ? best->T : best->stopped ? m->Tlb :
			     fmin(best->T, ob);
		if (!proven && rep->bound < m->Tlb)
			rep->bound = fmin(m->Tlb, best->T);
	} else {
		rep->objective = best->obj;
		/* Cost: what the search left out (open intervals, gap
		 * drops, the deadline) costs at least cost_lb; proven when
		 * that reaches the objective. */
		if (goal == GP_OBJ_COST) {
			rep->bound = fmin(best->obj, fmax(m->cost_lb, pm_work_cost_bound(m)));
			proven = rep->bound >= best->obj * (1 - 1e-12);
			rep->status = proven ? GP_MILP_OPTIMAL : GP_MILP_FEASIBLE;
			if (proven)
				rep->bound = best->obj;
		} else {
			rep->bound = proven ? best->obj : 0;
		}
	}
	rep->gap = rep->objective > 0 ? (rep->objective - rep->bound) / rep->objective : 0;
}

/* The proof holds under the simulator's model only if the MILP's model
 * agrees with the simulator on the plan it returns (own: that plan
 * simulated) and no family of the stated space was cut (m->cut):
 * otherwise the status is feasible and the bound falls back to the work
 * bound, which holds for every plan, searched or not (rep->floor). The
 * space the proof covers goes to rep->space, the reason it fails to the
 * note. */
static void report_honest(const struct pm *m, enum gp_objective goal, double own, int Splan,
			  struct gp_plan_report *rep)
{
	int Sp = m->Sproof ? m->Sproof : m->Smax;
	double est = rep->estimate_s;
	bool agree = own < INF && fabs(own - est) <= PM_AGREE * est;
	rep->floor = goal == GP_OBJ_TIME ? fmin(m->Tlb, own) :
		     goal == GP_OBJ_COST ? pm_work_cost_bound(m) : 0;
	const char *stop = m->work > m->work_limit ? " (the search stopped by the work limit)" :
			   pm_now_s() > m->deadline ? " (the search stopped by the time limit)" : "";
	snprintf(rep->space, sizeof rep->space,
		 "1F1B plans (the schedule the model times) of <= %d stages: 1 or 2 segments (a pool, TP and recomputation each) in any mix, or one chain class of 3-%d segments on distinct pools (one TP and recomputation) replicated alone; each class's layer split the fastest of its greedy, levelled and window splits%s%s",
		 Sp, PM_CHAINSEG, Splan > Sp ?
		 " (the plan found is deeper: a class that takes all of its pools' GPUs, searched beyond the space)" : "", stop);
	if (goal == GP_OBJ_WAN) {
		size_t n = strlen(rep->space);
		snprintf(rep->space + n, sizeof rep->space - n,
			 "; the fewest WAN bytes among those the model puts within %.0f %% of the fastest's time",
			 100 * (PM_WAN_SLACK - 1));
	}
	const char *why = m->cut ? "some classes of the space were cut (count or time)" :
			  isnan(own) ? "its own plan's simulation was cut short by the time limit" :
			  !agree ? "the model's estimate differs from the simulated time of its own plan" :
			  goal == GP_OBJ_WAN && m->sc->ndcs > 2 ?
			  "over three DCs or more the model charges the DP ring's bytes on every pair of DCs used, more than a ring sends" :
			  NULL;
	size_t l = strlen(rep->note);
	char ob[32];
	if (own < INF)
		snprintf(rep->note + l, sizeof rep->note - l, "; own plan simulated %s (%+.2f %%)",
			 gp_fmt_time(own, 4, ob, sizeof ob), 100 * (est - own) / own);
	else if (isnan(own)) {
		rep->clock_stopped = true;
		snprintf(rep->note + l, sizeof rep->note - l,
			 "; own plan not simulated: the time limit came first; results may differ run to run");
	}
	if (!why)
		return;
	l = strlen(rep->note);
	snprintf(rep->note + l, sizeof rep->note - l, "; no proof: %s, bound = the work bound", why);
	rep->status = GP_MILP_FEASIBLE;
	rep->bound = fmin(rep->bound, rep->floor);
	rep->gap = rep->objective > 0 ? (rep->objective - rep->bound) / rep->objective : INF;
}

/* The proof's second half: the search's tails are upper bounds where
 * the plan is not known yet (each ring at the worst size the option
 * allows, the option's slowest link, K DCs), so its optimum bounds only
 * the plans it charges exactly. The same search over a relaxation, each
 * tail at its least (m->lower), bounds every plan of the space: the
 * proof stands when that bound reaches T (rep->objective), else the
 * status is feasible with that bound, and the note says so. A search a
 * gap or a limit stopped gets the relaxation's bound where it is lower. */
static void verify_bound(struct pm *m, const struct gp_plan_opts *o,
			 const struct gp_plan *plan, struct gp_plan_report *rep)
{
	/* What is left of both limits: the work one keeps runs repeatable. */
	double left = m->deadline - pm_now_s(), B = m->Tlb;
	struct gp_plan_opts lo = o ? *o : (struct gp_plan_opts){ 0 };
	lo.warm = NULL;
	lo.progress = NULL;
	lo.time_limit = left;
	/* At most the search's own work again, or half the limit when that
	 * is more (a search the screens settled leaves the check's covering
	 * MILPs, whose simplex iterations count, little): what is left of
	 * the limit at most. */
	lo.work_limit = fmin(m->work_limit - m->work,
			     fmax(m->work, fmax(0.5 * m->work_limit, PM_WORK_RATE * 0.1)));
	if (lo.work_limit <= 0)
		left = 0;
	struct pm r = { 0 };
	struct gp_err e = { "" };
	struct pm_sol sol = { 0 };
	struct pm_best best = { .opt = -1 };
	bool done = false, closed = false;
	bool took = false;
	if (left > 0 && pm_init(&r, m->sc, &lo, &e) == 0 && pm_keep_use(&r, m->from) == 0) {
		/* The search's classes, not rebuilt (nor cut) at the smaller
		 * limits (place_keep.c); handed back below. */
		if (!m->no_keep) {
			pm_keep_move(&r, m);
			took = true;
		}
		r.lower = true;
		r.warm = plan;   /* an incumbent near T: the screens dismiss most options */
		r.warm_T = INF;
		r.wan_bw_max = 0;
		r.wan_lat_min = INF;
		for (int l = 0; l < m->sc->nlinks; l++) {
			r.wan_bw_max = fmax(r.wan_bw_max, r.wan[l].bw);
			r.wan_lat_min = fmin(r.wan_lat_min, r.wan[l].lat);
		}
		if (pm_search(&r, GP_OBJ_TIME, &sol, &best, &e) == 0 && !pm_cancelled(&r)) {
			struct gp_plan_report rr = { 0 };
			report_proof(&r, GP_OBJ_TIME, &best, &rr);
			/* No plan at all in the relaxation: nothing to bound by. */
			done = best.opt >= 0 && !r.cut;
			closed = done && rr.status == GP_MILP_OPTIMAL;
			B = done ? fmax(rr.bound, m->Tlb) : B;
		}
	}
	/* Its wall clock, not its work, decided the check: it may not repeat. */
	bool clock = r.clock_stops || (best.stopped && r.work <= r.work_limit &&
				       !pm_cancelled(&r) && pm_now_s() > r.deadline);
	if (took)
		pm_keep_move(m, &r);
	free(sol.y);
	free(sol.x);
	pm_free(&r);
	char tb[32], bb[32];
	size_t l = strlen(rep->note);
	if (clock) {
		rep->clock_stopped = true;
		snprintf(rep->note + l, sizeof rep->note - l,
			 "; the check stopped by the time limit; results may differ run to run");
		l = strlen(rep->note);
	}
	if (rep->status != GP_MILP_OPTIMAL) {
		/* A gap or a limit stopped the search: its bound, too, is
		 * the model's, valid only as far as the relaxation's. */
		if (B < rep->bound * (1 - 1e-9)) {
			snprintf(rep->note + l, sizeof rep->note - l,
				 "; bound %s, with each DP sync at its least (ring sizes, links)",
				 gp_fmt_time(B, 4, bb, sizeof bb));
			rep->bound = B;
			rep->gap = rep->objective > 0 ? (rep->objective - B) / rep->objective : INF;
		}
		return;
	}
	if (done && B >= rep->objective * (1 - 1e-9))
		return;
	if (closed) {
		/* As many digits as it takes to tell the two apart. */
		for (int d = 4; d <= 9; d++) {
			gp_fmt_time(B, d, bb, sizeof bb);
			if (strcmp(bb, gp_fmt_time(rep->objective, d, tb, sizeof tb)))
				break;
		}
		snprintf(rep->note + l, sizeof rep->note - l,
			 "; no proof: with each DP sync at its least (ring sizes, links) a plan of the space could take %s, below %s",
			 bb, tb);
	} else
		snprintf(rep->note + l, sizeof rep->note - l,
			 "; no proof: the check with each DP sync at its least stopped at its limits (the search's own work again, or half the work limit), bound %s",
			 gp_fmt_time(B, 4, bb, sizeof bb));
	rep->status = GP_MILP_FEASIBLE;
	rep->bound = fmin(B, rep->objective);
	rep->gap = rep->objective > 0 ? (rep->objective - rep->bound) / rep->objective : INF;
}

/* The simulated iteration time of the engine's plan p (INF: it fails;
 * NAN: the deadline came first, as it may with millions of micro-batches). */
double pm_own_sim(const struct pm *m, const struct gp_plan *p)
{
	struct gp_sim_opts so = { .costs = m->ct, .cancel = m->o ? m->o->cancel : NULL,
				  .deadline = m->deadline };
	struct gp_result r;
	struct gp_err e = { "" };
	double t = pm_now_s() > m->deadline ? NAN : INF;
	if (isnan(t))
		return t;
	if (gp_simulate(m->sc, p, &so, &r, &e)) {
		if (pm_now_s() > m->deadline)
			t = NAN;
	} else {
		if (r.fits)
			t = r.iteration_time;
		gp_result_free(&r);
	}
	return t;
}

/* The report's note on the search's solution (pipes pipelines): its
 * counts, the winning option, what was cut, the warm start. */
static void report_note(const struct pm *m, const struct pm_best *best, const struct pm_sol *sol,
			int pipes, bool warm, struct gp_plan_report *rep)
{
	char od[112], tb[32], sp[64] = "";
	int used = 0;
	for (int i = 0; i < m->nc; i++)
		used += sol->y[i] > 0;
	if (m->Sproof && m->Sproof < m->Smax)   /* the proof's space is the shallower */
		snprintf(sp, sizeof sp, " (<= %d in every class set: the proof's)", m->Sproof);
	snprintf(rep->note, sizeof rep->note,
		 "milp: T = %s by %d covering MILPs (%d undecided, %d screened out, %d settled by the rounded LP, %d warm) in %.3f s over %d options (winner: %s); %d classes, %d used, %d pipeline%s; S <= %d%s%s%s",
		 gp_fmt_time(best->T, 4, tb, sizeof tb), m->probes, m->undecided, m->screened, m->rounded, m->warm_used, rep->seconds, m->nopt,
		 opt_desc(m, &m->opt[best->opt], od, sizeof od), m->nc, used, pipes,
		 pipes == 1 ? "" : "s", m->Smax, sp, m->no_two ? "; two-segment classes dropped (too many)" :
		 m->trunc_two ? "; two-segment classes only inside a DC (too many)" : "",
		 m->trunc_chain ? "; chain classes cut (count or time)" : "");
	size_t l0 = strlen(rep->note);
	if (m->work_probes)
		snprintf(rep->note + l0, sizeof rep->note - l0,
			 "; %d probe%s stopped at the node limit (%d nodes)", m->work_probes,
			 m->work_probes == 1 ? "" : "s", PM_PROBE_NODES);
	l0 = strlen(rep->note);
	/* Which limit stopped the search: the work limit repeats. */
	if (m->work > m->work_limit)
		snprintf(rep->note + l0, sizeof rep->note - l0,
			 "; stopped by the work limit (%s units%s%s)",
			 gp_fmt_grouped(m->work_limit, tb, sizeof tb),
			 m->o && m->o->work_limit > 0 ? "" :
			 m->o && m->o->work_s > 0 ? ", the work limit's" : ", the time limit's",
			 m->it_stops ? ", in a GLPK solve's simplex iterations" : "");
	/* A search left open (best->stopped) by the clock only when the
	 * deadline passed: the cost phase's narrow intervals and the DP
	 * sync's barrier leave parts open too, with time to spare. */
	bool clock = m->clock_stops ||
		     (best->stopped && m->work <= m->work_limit && pm_now_s() > m->deadline);
	if (m->work <= m->work_limit && clock)
		snprintf(rep->note + l0, sizeof rep->note - l0,
			 "; stopped by the time limit; results may differ run to run");
	else if (m->work <= m->work_limit && best->stopped)
		snprintf(rep->note + l0, sizeof rep->note - l0,
			 "; parts of the space left open at their bounds (no proof), with time to spare");
	/* (A stop by the work limit repeats: not the clock's.) */
	rep->clock_stopped = clock && m->work <= m->work_limit;
	l0 = strlen(rep->note);
	if (m->barrier)
		snprintf(rep->note + l0, sizeof rep->note - l0,
			 "; %d option%s mix%s slower under the DP sync's barrier than the model (bound: its model T)",
			 m->barrier, m->barrier == 1 ? "'s" : "s'", m->barrier == 1 ? "" : "es");
	if (warm) {
		size_t l = strlen(rep->note);
		if (m->warm_T < INF)
			snprintf(rep->note + l, sizeof rep->note - l,
				 "; warm start: the given plan as classes at %s",
				 gp_fmt_time(m->warm_T, 4, tb, sizeof tb));
		else
			snprintf(rep->note + l, sizeof rep->note - l,
				 "; warm start: the given plan maps to no option's classes");
	}
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
		char why[600];
		if (gp_oom_explain(s, m->ct, why, sizeof why))   /* oom.h: the GPUs there are */
			snprintf(msg, sizeof msg, "milp: %s", why);
		else if (bk && best > 1)
			snprintf(msg, sizeof msg,
				 "milp: the model does not fit in GPU memory: even one layer per stage over %d stages at TP %d on %s needs %.2f GiB per GPU in the first stage, %.2f GiB available (%.1fx too much)",
				 m->L < 64 ? m->L : 64, bk->tp, bk->g->name,
				 best * bk->g->memory / 1073741824.0, bk->g->memory / 1073741824.0, best);
		else if (bk)   /* it fits, but in no class the MILP builds */
			snprintf(msg, sizeof msg,
				 "milp: no pipeline of the MILP's classes fits in GPU memory, though one replica over all the GPUs would (--engine search may find it)");
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
			/* Each option on the classes of its own replica bound: ZeRO's
			 * state shrinks with d, so another d's classes may not fit. */
			if (m->opt[oi].d != m->cur_d && s->job.zero && pm_enum_classes(m, m->opt[oi].d))
				break;
			int n = pm_set_option(m, &m->opt[oi], INF, idx);
			if (n && pm_probe(m, oi, idx, n, INF, PM_PRICE, &sol, NULL) == 1 &&
			    sol.obj < cheapest)
				cheapest = sol.obj;
		}
		free(idx);
		free(sol.y);
		free(sol.x);
		m->budget = save;
		char over[48];
		if (cheapest >= 2 * save)
			snprintf(over, sizeof over, "%.1fx the budget", cheapest / save);
		else
			snprintf(over, sizeof over, "%.1f %% over the budget", 100 * (cheapest / save - 1));
		if (cheapest < INF)
			snprintf(msg, sizeof msg,
				 "milp: the budget $%.2f/hour is too small: the cheapest plan that fits needs $%.2f/hour (%s)",
				 save, cheapest, over);
		else
			snprintf(msg, sizeof msg,
				 "milp: no plan fits the GPUs and links even without the budget $%.2f/hour",
				 save);
	} else if (gp_oom_explain(s, m->ct, msg + 6, sizeof msg - 6)) {   /* oom.h: memory */
		memcpy(msg, "milp: ", 6);
	} else {
		snprintf(msg, sizeof msg,
			 "milp: no plan of up to %d stages covers %d micro-batches with the GPUs (%d) and links available%s%s",
			 m->Smax, m->N, m->gpus, m->why[0] ? ": " : "", m->why);
	}
	snprintf(rep->note, sizeof rep->note, "%s", msg);
	rep->seconds = pm_now_s() - m->t0;
	return gp_errf(e, "%s", msg);
}

/* ------------------------------------------------------------------ */

/* The search, then the plan and report of its solution, or why nothing
 * fits, with the straggler term at o's pool counts; *stopped: a limit
 * (work, time, a cancel) ended the search or came before its end. With
 * keep (not NULL) the check takes the search's class sets, classes are
 * copied from keep's where their kinds cost the same, and the sets are
 * left in keep (place_keep.c); without, every set is built anew. */
static int milp_once(const struct gp_scenario *s, const struct gp_plan_opts *o,
		     struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e,
		     bool *stopped, struct pm_keep *keep)
{
	const struct gp_plan *warm = o ? o->warm : NULL;
	struct gp_plan_report rloc;
	struct pm m;

	if (!rep)
		rep = &rloc;
	memset(rep, 0, sizeof *rep);
	memset(out, 0, sizeof *out);
	rep->engine = "milp";
	rep->status = GP_MILP_ERROR;
	rep->objective = rep->estimate_s = INF;
	rep->bound = rep->floor = -INF;
	rep->gap = INF;
	enum gp_objective goal = o ? o->objective : GP_OBJ_TIME;
	if (gp_plan_cancelled(o)) {
		rep->status = GP_MILP_NOSOL;
		snprintf(rep->note, sizeof rep->note, "milp: cancelled");
		return gp_errf(e, "milp: cancelled");
	}
	int init = pm_init(&m, s, o, e);
	m.no_keep = !keep;
	if (!init && keep && pm_keep_use(&m, keep))
		init = gp_errf(e, "out of memory");
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
	*stopped = m.work > m.work_limit || pm_now_s() > m.deadline || pm_cancelled(&m);
	if (rc == 0 && best.opt < 0 && pm_cancelled(&m)) {
		rep->status = GP_MILP_NOSOL;
		rc = gp_errf(e, "milp: cancelled before a plan was found");
	} else if (rc == 0 && best.opt < 0) {
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
		bool ring;
		rep->estimate_s = pm_plan_estimate(&m, &sol, best.T, &ring);
		rep->seconds = pm_now_s() - m.t0;
		report_proof(&m, goal, &best, rep);
		/* The plan's own ring charges otherwise than its option did:
		 * the proof is checked against what the plan takes
		 * (verify_bound), above or below the search's T. */
		if (goal == GP_OBJ_TIME && ring) {
			rep->objective = rep->estimate_s;
			rep->bound = fmin(rep->bound, rep->objective);
			if (rep->bound < rep->objective * (1 - 1e-9))
				rep->status = GP_MILP_FEASIBLE;
			rep->gap = (rep->objective - rep->bound) / rep->objective;
		}
		report_note(&m, &best, &sol, out->npipes, warm != NULL, rep);
		rep->closed = rep->status == GP_MILP_OPTIMAL;
		int Splan = 0;
		for (int i = 0; i < out->npipes; i++)
			Splan = out->pipes[i].nstages > Splan ? out->pipes[i].nstages : Splan;
		double own = pm_own_sim(&m, out);
		rep->own_known = !isnan(own);
		rep->own_sim_s = own;   /* (the polish's, when it follows) */
		report_honest(&m, goal, own, Splan, rep);
		/* A bound above the work bound is the model's: checked. */
		if (goal == GP_OBJ_TIME && rep->bound > rep->floor * (1 + 1e-9))
			verify_bound(&m, o, out, rep);
		/* "Optimal" must survive the plans one layer away (two splits
		 * of a class, outside the space). */
		if (goal == GP_OBJ_TIME && rep->status == GP_MILP_OPTIMAL)
			pm_refute_near(&m, out, rep);
		rep->seconds = pm_now_s() - m.t0;
		if (pm_cancelled(&m)) {
			/* Stopped early: the best so far, not a proof. */
			rep->status = GP_MILP_FEASIBLE;
			size_t l = strlen(rep->note);
			snprintf(rep->note + l, sizeof rep->note - l, "; cancelled");
		}
	}
	if (rc && rep->status == GP_MILP_ERROR && e->msg[0])
		snprintf(rep->note, sizeof rep->note, "%s", e->msg);
	free(sol.y);
	free(sol.x);
	m.from = NULL;   /* (keep's sets go now: ours take their place) */
	if (keep && (rc || pm_keep_store(keep, &m)))
		pm_keep_free(keep);
	pm_free(&m);
	return rc;
}

/* The GPUs p uses of each pool, DC by DC, in n[]; whether they differ
 * from what the kinds were costed at (`had`, or the pools' counts). */
static bool pool_use(const struct gp_scenario *s, const struct gp_plan *p, const int *had,
		     int *n)
{
	bool differ = false;
	for (int d = 0, f = 0; d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++, f++) {
			n[f] = gp_plan_pool_gpus(p, d, q);
			int was = had && had[f] > 0 ? had[f] : s->dcs[d].pools[q].count;
			differ |= n[f] > 0 && n[f] != was;
		}
	return differ;
}

/* planner.h. The straggler term's N is the GPUs a plan uses of a pool
 * (gp_costtab_pace), which the MILP cannot know before it has a plan:
 * it costs the kinds at the pools' counts, and when its plan leaves GPUs
 * of a pool it uses idle, solves once more with the plan's counts (warm
 * from that plan) and keeps that solution: its estimate is the
 * simulator's model of its plan when it uses the same counts (else the
 * proof fails its check, report_honest). The proof is for plans costed
 * at those counts. (The polish is a step of gp_plan_make, plan.c.) */
static int milp_solve(const struct gp_scenario *s, const struct gp_plan_opts *o,
		      struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e,
		      struct pm_keep *keep)
{
	bool stopped = true;
	int rc = milp_once(s, o, out, rep, e, &stopped, keep);
	/* Only after a search that ran to its end: a limit would stop the
	 * second where the machine's load says, and the answer not repeat. */
	if (rc || stopped || !o || o->pool_gpus)
		return rc;
	int np = 0;
	for (int d = 0; d < s->ndcs; d++)
		np += s->dcs[d].npools;
	int *n = calloc((size_t)np + 1, sizeof *n), *had = calloc((size_t)np + 1, sizeof *had);
	if (n && had && pool_use(s, out, NULL, n)) {
		struct gp_plan prev = *out, next;
		struct gp_plan_report r2;
		struct gp_err e2 = { "" };
		struct gp_plan_opts o2 = *o;
		memcpy(had, n, sizeof *n * (size_t)np);
		o2.pool_gpus = had;
		o2.warm = &prev;
		if (!milp_once(s, &o2, &next, &r2, &e2, &stopped, keep)) {
			gp_plan_free(&prev);
			*out = next;
			if (rep) {
				r2.seconds += rep->seconds;
				r2.pool_paced = true;
				*rep = r2;
			}
		}   /* else the first solution stays */
	}
	free(n);
	free(had);
	return rc;
}

int gp_plan_milp(const struct gp_scenario *s, const struct gp_plan_opts *o,
		 struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e)
{
	struct pm_keep *keep = gp_xcalloc(1, sizeof *keep);
	if (!keep)
		return gp_errf(e, "out of memory");
	int rc = milp_solve(s, o, out, rep, e, keep);
	pm_keep_free(keep);
	free(keep);
	return rc;
}

/* For tests (place_milp.h): gp_plan_milp with every class set built
 * anew (the check's and the second solve's too). */
int gp_place_milp_rebuild(const struct gp_scenario *s, const struct gp_plan_opts *o,
			  struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e)
{
	return milp_solve(s, o, out, rep, e, NULL);
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
	if (gp_plan_milp(s, o, &p, &r, e))
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
			if (c->nseg > 2)
				continue;   /* chains: the uniform options' only */
			if (!op->one && op->K == 1 && xdc)
				continue;
			if (!op->one && op->K >= 2 && xdc &&
			    !pm_pair_ok(&m, m.k[c->kind[0]].dc, m.k[c->kind[1]].dc, op->wbw))
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
			x->pm = &m;
			x->ci = i;
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

double gp_place_class_t(const struct gp_place_class *c, int mb)
{
	const struct pm *m = c->pm;
	return pm_curve(m, &m->c[c->ci], mb);
}

/* Class i of m and class j of x are the same class, layer split and
 * figures alike. */
static bool class_eq(const struct pm *m, int i, const struct pm *x, int j)
{
	const struct pm_class *a = &m->c[i], *b = &x->c[j];
	return a->nseg == b->nseg && a->S == b->S &&
	       !memcmp(a->kind, b->kind, (size_t)a->nseg * sizeof *a->kind) &&
	       !memcmp(a->n, b->n, (size_t)a->nseg * sizeof *a->n) &&
	       !memcmp(m->lay + a->off, x->lay + b->off, (size_t)a->S * sizeof *m->lay) &&
	       a->U == b->U && a->sig == b->sig && a->ymax == b->ymax && a->price == b->price;
}

/* For tests (place_milp.h): d2's classes built after d1's (reusing
 * them where their stage capacities agree) against d2's built alone. */
int gp_place_milp_reuse(const struct gp_scenario *s, const struct gp_plan_opts *o, int d1,
			int d2, struct gp_place_reuse *r, struct gp_err *e)
{
	struct pm a, b;
	memset(r, 0, sizeof *r);
	int rc = pm_init(&a, s, o, e);
	if (rc == 0)
		rc = pm_init(&b, s, o, e);
	else
		memset(&b, 0, sizeof b);
	if (rc == 0 && (pm_enum_classes(&a, d1) < 0 || pm_enum_classes(&a, d2) < 0 ||
			pm_enum_classes(&b, d2) < 0))
		rc = gp_errf(e, "out of memory");
	if (rc == 0) {
		r->reused = a.prev != NULL;
		r->nc = a.nc;
		r->same = a.nc == b.nc && a.nlay == b.nlay;
		for (int i = 0; i < a.nc; i++) {
			r->chains += a.c[i].nseg >= 3;
			r->same = r->same && class_eq(&a, i, &b, i);
		}
	}
	pm_free(&a);
	pm_free(&b);
	return rc;
}
