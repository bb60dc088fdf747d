/*
 * place_search.c: the placement MILP's search over the iteration time T
 * (place_int.h), and the phases of the objectives around it.
 *
 * Feasibility is monotone in T, and the optimum T* is a breakpoint
 * t_c(m) + E_c (place_time.c): per option a binary search over the
 * breakpoints below the best T so far (by rank, counted in closed form;
 * below a known best, first galloping down from it), one probe each
 * (place_screen.c). T* is then optimal for this model: OPTIMAL,
 * objective = bound = T*. With a gap g, an option below an incumbent T
 * is first probed at its last breakpoint <= (1 - g) T: infeasible there,
 * it cannot beat T by more than g (and such a probe, with room to spare,
 * is proven sooner). Before its tails are computed, an option is
 * screened with no tail: dhi replicas of the class fitting the most
 * micro-batches below the best must take N.
 *
 * The options are searched twice: first with probes of at most
 * PM_QUICK_TL (easy options give an incumbent early), then with
 * PM_PROBE_TL the options a short probe left undecided. A probe
 * undecided in the second pass counts as infeasible for the search; each
 * option keeps the lowest T it may still hold (m->ob: undecided probes,
 * gap stops), and the bound is the least of those, and at least the
 * work bound (pm_work_bound).
 *
 * Phase 1 finds T* (from the warm start's incumbent, when given); the
 * wan_bytes and cost objectives then start a phase 2 from the fastest
 * plan (place_objective.c). The classes of the option being searched
 * are built for its replica bound d (ZeRO-1: memory depends on d).
 */
#include "place_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The search's state across phases, passes and options. */
struct pm_run {
	enum gp_objective goal;
	int phase, pass;
	struct pm_sol *sol;            /* the incumbent's plan */
	struct pm_best *best;
	struct gp_err *e;
	double Tstar;                  /* phase 2: the fastest plan's T */
	char *redo;                    /* options a short probe left undecided */
	int *idx;                      /* scratch for the m->nc classes of d: */
	struct pm_sol cur, last;
	int last_d;                    /* the d the classes are built for (-1: none) */
};

/* The option being searched may still hold a plan at b. */
static void bound_option(struct pm *m, double b)
{
	if (m->ob && b < m->ob[m->cur_oi])
		m->ob[m->cur_oi] = b;
}

/* A probe timed out: optimality is no longer proven below what is known
 * infeasible (lo) at that point. */
static void mark_undecided(struct pm *m, double lo)
{
	bound_option(m, lo == -INF ? 0 : lo);
	m->undecided++;
}

/* One option's search over its breakpoints: hi the least known
 * feasible, lo the largest known infeasible (-INF: none). */
struct pm_scan {
	struct pm *m;
	int oi;
	const int *idx;
	int n;
	struct pm_sol *sol;
	struct gp_err *e;
	double hi, lo;
};

/* With a gap g, an option matters only if it beats the best by more
 * than g: probe first at the last breakpoint t <= (1 - g) best. No plan
 * there, and none of the option's is below the next breakpoint, which is
 * above (1 - g) best: within the gap, and such a probe, with room to
 * spare, is proven infeasible sooner. 0: nothing to search (*lo set when
 * probed), 1: search on from s->hi, -1 error. */
static int gap_probe(struct pm_scan *s, double below, double g, double *lo)
{
	struct pm *m = s->m;
	double t = pm_prev_bp(m, s->idx, s->n, below * (1 - g));
	if (t == -INF) {
		/* Not even the fastest breakpoint is that far down: the
		 * option holds nothing below it. */
		double f = pm_next_bp(m, s->idx, s->n, -1);
		if (f < below)
			bound_option(m, f);
		return 0;
	}
	if (t < s->hi) {
		int r0 = pm_probe(m, s->oi, s->idx, s->n, t, PM_FEAS, s->sol, s->e);
		if (r0 < 0)
			return -1;
		if (r0 == 0) {
			bound_option(m, pm_next_bp(m, s->idx, s->n, t));
			*lo = t;
			return 0;
		}
		if (r0 == 1)
			s->hi = t;   /* far below the best: search on from here */
	}
	return 1;
}

/* Below a known best, the option's optimum is usually close to it:
 * gallop down from hi (steps of 0.1 %, 0.4 %, ...) until a probe fails.
 * 0 done, 2 stopped by the deadline, -1 error. */
static int gallop(struct pm_scan *s)
{
	struct pm *m = s->m;
	for (double step = 1e-3; step < 0.5; step *= 4) {
		double t = pm_prev_bp(m, s->idx, s->n, s->hi * (1 - step));
		if (!(t > s->lo && t < s->hi))
			break;
		if (pm_stop(m))
			return 2;
		int r = pm_probe(m, s->oi, s->idx, s->n, t, PM_FEAS, s->sol, s->e);
		if (r < 0)
			return -1;
		if (r == 3)
			mark_undecided(m, s->lo);
		if (r == 1) {
			s->hi = t;
		} else {
			s->lo = t;
			break;
		}
	}
	return 0;
}

/* About the median breakpoint in (lo, hi), by bisection on counts (cl
 * at lo, ch below hi). */
static double median_bp(const struct pm_scan *s, double cl, double ch)
{
	const struct pm *m = s->m;
	double want = cl + floor((ch - cl + 1) / 2), a = s->lo == -INF ? 0 : s->lo, b = s->hi;
	double ca = cl;
	/* Until (a, b] holds the wanted breakpoint and no earlier one,
	 * or 8 halvings: near the median is as good for the search. */
	for (int it = 0; it < 8 && b - a > 1e-15 * b && ca < want - 1; it++) {
		double mid = 0.5 * (a + b), cm = pm_count_bp(m, s->idx, s->n, mid);
		if (cm >= want) {
			b = mid;
		} else {
			a = mid;
			ca = cm;
		}
	}
	/* (a, b] holds the wanted breakpoint and a has want - 1 below
	 * it: the next one after a. */
	double t = pm_next_bp(m, s->idx, s->n, a);
	if (!(t > s->lo && t < s->hi))
		t = pm_next_bp(m, s->idx, s->n, s->lo == -INF ? -1 : s->lo);
	return t;
}

/* Bisects between lo and hi, down to one breakpoint or the gap g.
 * 0 done, 2 stopped by the deadline, -1 error. */
static int bisect(struct pm_scan *s, double g)
{
	struct pm *m = s->m;
	for (;;) {
		/* Within the requested gap: stop; lo bounds this option. */
		if (g > 0 && s->lo > -INF && s->hi - s->lo <= g * s->hi) {
			bound_option(m, s->lo);
			break;
		}
		double cl = s->lo == -INF ? 0 : pm_count_bp(m, s->idx, s->n, s->lo);
		double ch = pm_count_bp(m, s->idx, s->n, nextafter(s->hi, -INF));
		if (ch - cl < 0.5)
			break;
		double t = median_bp(s, cl, ch);
		if (!(t > s->lo && t < s->hi))
			break;
		if (pm_stop(m))
			return 2;   /* stopped */
		int r = pm_probe(m, s->oi, s->idx, s->n, t, PM_FEAS, s->sol, s->e);
		if (r < 0)
			return -1;
		if (r == 3)
			mark_undecided(m, s->lo);
		if (r == 1)
			s->hi = t;
		else
			s->lo = t;
	}
	return 0;
}

/* The smallest feasible breakpoint of option oi below `below` (INF: any);
 * *T gets it, or INF when none; *lo the largest infeasible one seen.
 * 1 found (sol filled if given), 0 none, 2 stopped by the deadline (*T
 * the best found), -1 error. */
static int solve_option(struct pm *m, int oi, const int *idx, int n, double below,
			struct pm_sol *sol, double *T, double *lo, struct gp_err *e)
{
	*T = INF;
	*lo = -INF;
	if (m->opt[oi].one)
		return pm_solve_one(m, oi, idx, n, below, sol, T, lo);
	struct pm_scan s = { .m = m, .oi = oi, .idx = idx, .n = n, .sol = sol, .e = e,
			     .lo = -INF };
	s.hi = pm_prev_bp(m, idx, n, below == INF ? INF : below);
	if (below < INF && s.hi >= below)
		s.hi = pm_prev_bp(m, idx, n, nextafter(below, -INF));
	if (s.hi == -INF)
		return 0;
	double g = m->o ? m->o->gap : 0;
	if (g > 0 && below < INF) {
		int r0 = gap_probe(&s, below, g, lo);
		if (r0 <= 0)
			return r0;
	}
	int r = pm_probe(m, oi, idx, n, s.hi, PM_FEAS, sol, e);
	if (r == 3)
		mark_undecided(m, -INF);
	if (r <= 0 || r == 3) {
		*lo = s.hi;
		return r < 0 ? -1 : 0;
	}
	int st = below < INF ? gallop(&s) : 0;
	if (st == 0)
		st = bisect(&s, g);
	if (st == 2) {
		*lo = s.lo;
		*T = s.hi;
		return 2;
	}
	if (st < 0)
		return -1;
	if (sol && sol->T != s.hi && pm_probe(m, oi, idx, n, s.hi, PM_FEAS, sol, e) != 1)
		return gp_errf(e, "milp: a feasible probe at T = %.6g s failed again", s.hi);
	*T = s.hi;
	*lo = s.lo;
	return 1;
}

/* A lower bound on T for every plan of the model, searched or not: each
 * stage of a replica running m micro-batches is busy m n x_k <= t_c(m)
 * <= T, so the GPU-seconds of all N L layer passes (at the fewest per
 * layer any kind of the pool needs, x_k tp_k; logits left out) fit in the
 * pools' GPUs x T: T >= N L / sum_p (count_p / w_p). */
double pm_work_bound(const struct pm *m)
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
	gp_plan_progress(m->o, "milp", "search", T, m->Tlb, m->t0);
	sol->T = T;
	sol->opt = oi;
	memcpy(sol->y, cur->y, (size_t)m->nc * sizeof *sol->y);
	memcpy(sol->x, cur->x, (size_t)m->nc * sizeof *sol->x);
	return 0;
}

/* The classes for replica bound d, and the run's scratch sized for
 * them. */
static int run_classes(struct pm *m, struct pm_run *r, int d)
{
	if (pm_enum_classes(m, d) < 0)
		return gp_errf(r->e, "out of memory");
	r->last_d = d;
	free(r->idx);
	free(r->cur.y);
	free(r->cur.x);
	free(r->last.y);
	free(r->last.x);
	r->idx = gp_xcalloc((size_t)m->nc, sizeof *r->idx);
	r->cur.y = gp_xcalloc((size_t)m->nc, sizeof *r->cur.y);
	r->cur.x = gp_xcalloc((size_t)m->nc, sizeof *r->cur.x);
	r->last.y = gp_xcalloc((size_t)m->nc, sizeof *r->last.y);
	r->last.x = gp_xcalloc((size_t)m->nc, sizeof *r->last.x);
	if (!r->idx || !r->cur.y || !r->cur.x || !r->last.y || !r->last.x)
		return gp_errf(r->e, "out of memory");
	return 0;
}

/* A uniform option, in closed form: the fastest plan (phase 1), then
 * (wan, cost) the best one within the phase's limit on T. */
static int uni_option(struct pm *m, struct pm_run *r, int oi, int d)
{
	struct pm_best *best = r->best;
	double T;
	if (r->phase == 1 && pm_solve_uni(m, oi, best->T, &r->cur, &T) && T < best->T) {
		if (pm_take_incumbent(m, best, r->sol, &r->cur, T, oi, d))
			return gp_errf(r->e, "out of memory");
		best->lo = -INF;
	}
	if (r->phase == 2 &&
	    pm_uni_obj(m, oi, r->goal, r->goal == GP_OBJ_WAN ? r->Tstar * PM_WAN_SLACK : INF, best, r->sol,
		       &r->cur, d) < 0)
		return gp_errf(r->e, "out of memory");
	return 0;
}

/* Screened before the tails are computed: even with no tail, dhi
 * replicas of the class fitting the most micro-batches below the best
 * (within the gap) cannot take N. */
static bool screen_option(struct pm *m, const struct pm_best *best, int oi)
{
	const struct pm_opt *o = &m->opt[oi];
	double g = m->o ? m->o->gap : 0, Tg = best->T * (1 - g);
	long mmax = 0;
	for (int j = 0; j < m->nc; j++) {
		const struct pm_class *c = &m->c[j];
		if (c->nseg > 2 || c->sig >= Tg)
			continue;
		double f = c->ulin > 0 ? floor((Tg - c->sig) / c->ulin) + 1 : m->N;
		if (f > mmax)
			mmax = f > m->N ? m->N : (long)f;
	}
	if (mmax * o->dhi >= m->N)
		return false;
	m->screened++;
	if (g > 0 && Tg < m->ob[oi])
		m->ob[oi] = Tg;
	return true;
}

/* Phase 1 on a covering option's n classes in r->idx: its fastest plan
 * below the best. 0 on, 1 stop the pass (the deadline), -1 error. */
static int time_option(struct pm *m, struct pm_run *r, int oi, int n, int d)
{
	struct pm_best *best = r->best;
	double T, lo;
	r->cur.T = -1;
	int u0 = m->undecided;
	m->cur_oi = oi;
	m->ob[oi] = INF;   /* (a redo supersedes the first pass) */
	int rs = solve_option(m, oi, r->idx, n, best->T, &r->cur, &T, &lo, r->e);
	if (r->pass == 0 && m->undecided > u0)
		r->redo[oi] = 1;
	if (rs < 0)
		return -1;
	if (rs == 2)
		best->stopped = true;
	/* The plan's own time: its pipelines' syncs wait for the latest
	 * class holding their layers, and layers held in one DC ring there
	 * (pm_barrier_T). Above T, the option may hold another mix in
	 * between, so below the best T only bounds it; below T, the mix is
	 * faster than the model's tails say, and that is its time. */
	if (rs >= 1) {
		double Tb = pm_barrier_T(m, &r->cur);
		if (Tb > T * (1 + 1e-12)) {
			if (T < best->T) {
				bound_option(m, T);
				m->barrier++;
			}
			T = Tb;
		} else if (Tb > -INF && Tb < T) {
			T = Tb;
		}
	}
	if (rs >= 1 && T < best->T) {
		if (pm_take_incumbent(m, best, r->sol, &r->cur, T, oi, d))
			return gp_errf(r->e, "out of memory");
		best->lo = lo;
	}
	return rs == 2;
}

/* Option oi in the current phase and pass: 0 on, 1 stop the pass, -1
 * error. */
static int search_option(struct pm *m, struct pm_run *r, int oi)
{
	const struct pm_opt *o = &m->opt[oi];
	struct pm_best *best = r->best;
	if (r->phase == 1 && r->pass == 1 && !r->redo[oi])
		return 0;
	if (pm_stop(m)) {
		best->stopped = true;
		if (r->phase == 2)
			m->cost_lb = 0;   /* options left unscanned */
		return 1;
	}
	int d = m->sc->job.zero ? o->d : 1;
	if (d != r->last_d && run_classes(m, r, d))
		return -1;
	if (o->uni && m->o && m->o->covering_only)
		return 0;
	if (r->phase == 1 && r->pass == 1)
		m->ob[oi] = INF;   /* the redo supersedes the first pass, screens too */
	if (o->uni)
		return uni_option(m, r, oi, d);
	if (r->phase == 1 && best->T < INF && !o->one && screen_option(m, best, oi))
		return 0;
	int n = pm_set_option(m, o, r->phase == 1 ? best->T : INF, r->idx);
	/* No T helps an option whose d replicas of its smallest class need
	 * more GPUs than there are. */
	if (n && !o->one && pm_fewest_gpus(m, r->idx, n) * o->d > m->gpus) {
		m->screened++;
		n = 0;
	}
	if (!n)
		return 0;
	if (r->phase == 1)
		return time_option(m, r, oi, n, d);
	if (r->goal == GP_OBJ_WAN)
		return pm_wan_option(m, oi, r->idx, n, r->Tstar, best, r->sol, &r->cur, d, r->e);
	return pm_cost_option(m, oi, r->idx, n, r->Tstar, best, r->sol, &r->cur, &r->last, d, r->e);
}

/* One pass over the options (phase 1 pass 1: those to redo). 0, or -1
 * on error. */
static int search_pass(struct pm *m, struct pm_run *r)
{
	for (int oi = 0; oi < m->nopt; oi++) {
		int x = search_option(m, r, oi);
		if (x < 0)
			return -1;
		if (x > 0)
			break;
	}
	return 0;
}

/* From phase 1 to phase 2 (wan, cost): T* is the fastest plan's T, and
 * that plan, at its own objective value, is the first incumbent (ties
 * keep it: the fastest of the best). 1 when there is no phase 2 (no
 * plan), -1 error. */
static int end_phase1(struct pm *m, struct pm_run *r, struct pm_best *p1)
{
	struct pm_best *best = r->best;
	r->Tstar = best->T;
	if (r->Tstar == INF)
		return 1;
	*p1 = *best;
	best->T = INF;
	if (r->goal == GP_OBJ_COST || r->goal == GP_OBJ_WAN) {
		if (pm_enum_classes(m, p1->d) < 0)
			return gp_errf(r->e, "out of memory");
		r->last_d = -1;
		best->obj = pm_sol_objective(m, &m->opt[p1->opt], r->sol, r->goal);
		best->T = r->Tstar;
	}
	/* With T* unproven, plans below it are not scanned. */
	bool p1_proven = !best->stopped;
	for (int oi = 0; m->ob && oi < m->nopt; oi++)
		p1_proven = p1_proven && m->ob[oi] == INF;
	m->cost_lb = p1_proven ? INF : 0;
	return 0;
}

/* Stopped before the second phase took a plan: the fastest one stands,
 * with its own objective value. Then the classes are left split for the
 * winner. */
static int search_finish(struct pm *m, struct pm_run *r, const struct pm_best *p1)
{
	struct pm_best *best = r->best;
	if (r->goal != GP_OBJ_TIME && r->Tstar < INF && best->T == INF) {
		*best = (struct pm_best){ .T = r->Tstar, .opt = p1->opt, .d = p1->d, .lo = p1->lo,
					  .stopped = true };
		r->last_d = -1;
		if (pm_enum_classes(m, best->d) < 0)
			return gp_errf(r->e, "out of memory");
		best->obj = pm_sol_objective(m, &m->opt[best->opt], r->sol, r->goal);
	}
	if (best->opt >= 0 && r->last_d != best->d && pm_enum_classes(m, best->d) < 0)
		return gp_errf(r->e, "out of memory");
	return 0;
}

/* Runs the whole time search (and the objective's second phase); leaves
 * the winning classes in m (split for best->d) and the solution in sol. */
int pm_search(struct pm *m, enum gp_objective goal, struct pm_sol *sol, struct pm_best *best,
	      struct gp_err *e)
{
	struct pm_run r = { .goal = goal, .sol = sol, .best = best, .e = e, .Tstar = INF,
			    .last_d = -1 };
	int rc = 0;
	best->T = INF;
	best->obj = INF;
	best->lo = INF;
	best->opt = -1;
	best->stopped = false;
	if (m->warm && pm_warm_start(m, m->warm, best, sol, e) < 0)
		return -1;
	m->warm_T = best->T;
	struct pm_best p1 = { .opt = -1 };
	/* Phase 1 passes over the options twice: first with short probes
	 * (an incumbent from the easy options early), then again, with
	 * full-length probes, over the options a short probe left undecided;
	 * only the second pass's undecided probes stay in the proof. */
	r.redo = gp_xcalloc((size_t)m->nopt + 1, 1);
	m->ob = gp_xcalloc((size_t)m->nopt + 1, sizeof *m->ob);
	if (!r.redo || !m->ob) {
		free(r.redo);
		return gp_errf(e, "out of memory");
	}
	for (int oi = 0; oi < m->nopt; oi++)
		m->ob[oi] = INF;
	for (r.phase = 1; r.phase <= (goal == GP_OBJ_TIME ? 1 : 2) && rc == 0; r.phase++) {
		for (r.pass = 0; r.pass < (r.phase == 1 ? 2 : 1) && rc == 0 && !best->stopped; r.pass++) {
			m->probe_tl = r.phase == 1 && r.pass == 0 ? fmin(PM_QUICK_TL, PM_PROBE_TL)
								  : PM_PROBE_TL;
			if (r.phase == 1 && r.pass == 1) {
				bool any = false;
				for (int oi = 0; oi < m->nopt; oi++)
					any |= r.redo[oi];
				if (!any)
					break;
				m->undecided = 0;
			}
			rc = search_pass(m, &r);
		}
		if (r.phase == 1 && goal != GP_OBJ_TIME) {
			int x = end_phase1(m, &r, &p1);
			if (x) {
				rc = x < 0 ? x : rc;
				break;
			}
		}
	}
	if (rc == 0)
		rc = search_finish(m, &r, &p1);
	free(r.redo);
	free(r.idx);
	free(r.cur.y);
	free(r.cur.x);
	free(r.last.y);
	free(r.last.x);
	return rc;
}
