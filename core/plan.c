/*
 * plan.c: the engine table, the polish, and the checks every plan
 * passes before a face sees it (plan.h).
 *
 * The polish: the placement MILP's proof is for its model; its plan is
 * then judged by the simulator like any other, and the search runs as it
 * is and once more seeded with the MILP's plan (and a warm plan, when one
 * was given, so a plan given to improve on is never lost). Whichever
 * simulates fastest is returned, the MILP's own on ties. The proof
 * (objective, bound, gap) stays the model's; the report keeps the MILP's
 * own plan's simulated time beside it. The search minimises time, so
 * only time plans are polished.
 */
#include "plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fmt.h"
#include "lua_heur.h"
#include "schedule.h"
#include "sim.h"

static const struct gp_engine engines[] = {
	{ "milp", GP_ENGINE_EXACT | GP_ENGINE_WARM | GP_ENGINE_POLISH | GP_ENGINE_DEFAULT,
	  "the placement MILP (proven for its model), polished by the search",
	  gp_plan_milp, 10 },
	{ "megatron", GP_ENGINE_HEURISTIC,
	  "uniform TP x PP x DP on one GPU type, blind to the WAN", gp_plan_megatron, 0 },
	{ "dp-across-dcs", GP_ENGINE_HEURISTIC,
	  "pipelines inside each DC, data parallelism across DCs", gp_plan_dp_across_dcs, 0 },
	{ "atlas", GP_ENGINE_HEURISTIC,
	  "pipelines over chains of linked DCs, DP inside each DC", gp_plan_atlas, 0 },
	{ "search", GP_ENGINE_HEURISTIC | GP_ENGINE_WARM,
	  "a genetic search judged by the simulator", gp_plan_search, 0 },
	{ "heuristic", GP_ENGINE_HEURISTIC | GP_ENGINE_SCRIPT,
	  "the Lua heuristic script (--heuristic FILE or the scenario's)", gp_plan_heuristic, 0 },
};
#define NENGINES (int)(sizeof engines / sizeof engines[0])

int gp_engine_count(void)
{
	return NENGINES;
}

const struct gp_engine *gp_engine_at(int i)
{
	return i >= 0 && i < NENGINES ? &engines[i] : NULL;
}

const struct gp_engine *gp_engine_find(const char *name)
{
	for (int i = 0; name && i < NENGINES; i++)
		if (!strcmp(engines[i].name, name))
			return &engines[i];
	return NULL;
}

const struct gp_engine *gp_engine_script(void)
{
	for (int i = 0; i < NENGINES; i++)
		if (engines[i].flags & GP_ENGINE_SCRIPT)
			return &engines[i];
	return NULL;
}

const struct gp_engine *gp_engine_default(void)
{
	for (int i = 0; i < NENGINES; i++)
		if (engines[i].flags & GP_ENGINE_DEFAULT)
			return &engines[i];
	return &engines[0];
}

void gp_engine_names(char *buf, size_t n, unsigned with)
{
	size_t l = 0;
	buf[0] = 0;
	for (int i = 0; i < NENGINES && l < n; i++)
		if ((engines[i].flags & with) == with)
			l += (size_t)snprintf(buf + l, n - l, "%s%s", l ? ", " : "", engines[i].name);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

bool gp_plan_cancelled(const struct gp_plan_opts *o)
{
	return o && o->cancel && atomic_load_explicit(o->cancel, memory_order_relaxed);
}

void gp_plan_progress(const struct gp_plan_opts *o, const char *engine, const char *phase,
		      double incumbent, double bound, double t0)
{
	if (!o || !o->progress)
		return;
	struct gp_progress p = { engine, phase, incumbent, bound, HUGE_VAL, now_s() - t0 };
	if (isfinite(incumbent) && isfinite(bound) && incumbent > 0)
		p.gap = (incumbent - bound) / incumbent;
	o->progress(o->progress_ud, &p);
}

double gp_plan_usd_per_hour(const struct gp_scenario *s, const struct gp_plan *p)
{
	double usd = 0;
	for (int i = 0; i < p->npipes; i++)
		for (int j = 0; j < p->pipes[i].nstages; j++) {
			const struct gp_stage *st = &p->pipes[i].stages[j];
			const struct gp_pool *pool = &s->dcs[st->dc].pools[st->pool];
			usd += (double)st->tp * p->pipes[i].replicas *
			       s->gpus[pool->gpu].price_per_hour;
		}
	return usd;
}

void gp_solver_info_of(const struct gp_plan_report *rep, enum gp_objective goal,
		       struct gp_solver_info *si)
{
	*si = (struct gp_solver_info){ .present = true, .engine = rep->engine,
				       .status = gp_milp_status_name(rep->status),
				       .proven = rep->status == GP_MILP_OPTIMAL,
				       .objective = rep->estimate_s, .bound = rep->bound,
				       .gap = rep->gap, .seconds = rep->seconds,
				       .has_own = rep->has_own, .own_sim = rep->own_sim_s,
				       .polished = rep->polished,
				       .space = rep->space[0] ? rep->space : NULL };
	const struct gp_engine *eng = gp_engine_find(rep->engine);
	/* An exact engine's bound and gap are in its objective's unit. */
	if (goal != GP_OBJ_TIME && eng && (eng->flags & GP_ENGINE_EXACT)) {
		si->unit = goal == GP_OBJ_COST ? "usd" : "bytes";
		si->value = rep->objective;
		si->value_bound = rep->bound;
		si->bound = -HUGE_VAL;
	}
}

int gp_plan_opts_chunks(const struct gp_plan_opts *o)
{
	if (o->schedule != GP_SCHED_INTERLEAVED && o->schedule != GP_SCHED_XDC_GREEDY &&
	    o->schedule != GP_SCHED_XDC_MILP)
		return 1;
	return o->chunks > 0 ? o->chunks : o->schedule == GP_SCHED_INTERLEAVED ? 2 : 1;
}

/* The iteration of p as the request will run it: with the chunks it
 * asks for (the MILP builds plans of one; HUGE_VAL when p cannot hold
 * them), so the polish and the joined shapes judge plans as they run;
 * HUGE_VAL when it does not fit, NAN when the deadline `end` (HUGE_VAL:
 * none) came first. */
static double sim_time(const struct gp_scenario *s, const struct gp_plan_opts *o,
		       const struct gp_plan *p, double end)
{
	struct gp_sim_opts so = { .costs = o->costs, .time_limit = o->time_limit,
				  .gap = o->gap, .cancel = o->cancel,
				  .deadline = isfinite(end) ? end : 0 };
	struct gp_result r;
	struct gp_err e = { "" };
	double t = HUGE_VAL;
	if (isfinite(end) && now_s() > end)
		return NAN;
	struct gp_plan q = *p;   /* shallow: only read */
	if (gp_plan_opts_chunks(o) > 1 && p->schedule == o->schedule && p->chunks == 1) {
		q.chunks = gp_plan_opts_chunks(o);
		if (gp_plan_validate(s, &q, &e))
			return HUGE_VAL;   /* it cannot run them: not a plan of the request */
	}
	if (gp_simulate(s, &q, &so, &r, &e)) {
		if (isfinite(end) && now_s() > end)
			t = NAN;
	} else {
		if (r.fits)
			t = r.iteration_time;
		gp_result_free(&r);
	}
	return t;
}

/* Seconds as the reports write them; "none" for no plan, "cut short"
 * for a simulation the deadline stopped (NAN). */
static const char *fmt_or_none(double t, char *buf, size_t n)
{
	if (isnan(t)) {
		snprintf(buf, n, "cut short (time limit)");
		return buf;
	}
	if (!isfinite(t)) {
		snprintf(buf, n, "none");
		return buf;
	}
	return gp_fmt_time(t, 4, buf, n);
}

/* planner.h. The times with 4 digits, 6 where 4 would print them alike. */
void gp_plan_refute(struct gp_plan_report *rep, double low, const char *by)
{
	if (!(low < rep->bound * (1 - 1e-9)))
		return;
	char a[32], b[32], c[32];
	size_t l = strlen(rep->note);
	double floor = fmin(rep->floor, low);
	int dg = strcmp(gp_fmt_time(low, 4, a, sizeof a), gp_fmt_time(rep->bound, 4, b, sizeof b)) ? 4 : 6;
	snprintf(rep->note + l, sizeof rep->note - l,
		 "; no proof: a plan %s (%s) beats the least time the MILP proved over its space (%s), which missed it; bound = the work bound (%s)",
		 by, gp_fmt_time(low, dg, a, sizeof a), gp_fmt_time(rep->bound, dg, b, sizeof b),
		 gp_fmt_time(floor, 4, c, sizeof c));
	rep->status = GP_MILP_FEASIBLE;
	rep->bound = floor;
	rep->gap = rep->objective > 0 ? (rep->objective - rep->bound) / rep->objective : INFINITY;
}

/* The polish's two searches: each the search's own limit
 * (GP_SEARCH_WORK_S of counted work), or half the request's (o->work_s, else its time limit)
 * when that is less, so that they repeat whatever the machine's load;
 * their wall-clock safety net is the request's deadline `end` (the
 * first half of what is left). */
static void polish(const struct gp_scenario *s, const struct gp_plan_opts *o,
		   struct gp_plan *out, struct gp_plan_report *rep, double end)
{
	/* The engine's own simulation of its plan (place_milp.c's) stands:
	 * the same plan, cost tables and simulator; but it ran one chunk. */
	bool reuse = rep->own_known && gp_plan_opts_chunks(o) == 1;
	double t0 = now_s(), own = reuse ? rep->own_sim_s : sim_time(s, o, out, end);
	if (now_s() > end) {
		/* Nothing left of the request's time: no search, said so (and
		 * no has_own: the reports would say "with the polish"). */
		rep->own_sim_s = own;
		rep->clock_stopped = true;
		rep->seconds += now_s() - t0;
		size_t l = strlen(rep->note);
		snprintf(rep->note + l, sizeof rep->note - l,
			 "; the polish skipped: the time limit came first%s; results may differ run to run",
			 isnan(own) ? " (the MILP's plan not simulated)" : "");
		return;
	}
	struct gp_plan_opts so = *o;
	so.polish = false;
	so.warm = NULL;
	double work = o->work_s > 0 ? o->work_s : o->time_limit > 0 ? o->time_limit : 4;
	so.work_s = fmin(GP_SEARCH_WORK_S, work / 2);
	so.time_limit = isfinite(end) ? fmax(end - now_s(), 0.02) / 2 : 0;
	gp_plan_progress(o, rep->engine, "polish", own, -HUGE_VAL, t0);
	struct gp_plan w[3] = { *out, { 0 }, { 0 } }, ps = { 0 }, pg = { 0 };
	struct gp_plan_report r;
	struct gp_err e = { "" };
	double ts = HUGE_VAL, tg = HUGE_VAL;
	int nw = 1;
	bool clock = false, by_work = false;
	if (gp_plan_search(s, &so, &ps, &r, &e) == 0) {
		ts = r.estimate_s;
		w[nw++] = ps;
		clock = r.clock_stopped;
		by_work = strstr(r.note, "stopped by the work limit") != NULL;
	}
	if (o->warm)
		w[nw++] = *o->warm;   /* (shallow: the caller's, never freed here) */
	if (isfinite(end))
		so.time_limit = fmax(end - now_s(), 0.02);
	if (gp_plan_search_from(s, &so, w, nw, &pg, &r, &e) == 0) {
		tg = r.estimate_s;
		clock |= r.clock_stopped;
		by_work |= strstr(r.note, "stopped by the work limit") != NULL;
	}
	if (gp_plan_opts_chunks(o) > 1) {   /* a warm plan returned as it came: as it will run */
		if (isfinite(ts) && ps.chunks == 1)
			ts = sim_time(s, o, &ps, end);
		if (isfinite(tg) && pg.chunks == 1)
			tg = sim_time(s, o, &pg, end);
		clock |= isnan(ts) || isnan(tg);
	}
	rep->has_own = true;
	rep->own_sim_s = own;
	/* The search returns a warm plan only when it finds nothing better,
	 * and it may not hold the plan as given: the warm plan competes as
	 * it is. */
	double tw = o->warm ? sim_time(s, o, o->warm, end) : HUGE_VAL;
	clock |= isnan(tw);
	bool warm_best = tw < fmin(fmin(ts, tg), own) * (1 - 1e-9);
	struct gp_plan wc = { 0 };
	if (warm_best && gp_plan_copy(&wc, o->warm) != 0)
		warm_best = false;
	if (o->objective == GP_OBJ_TIME)
		gp_plan_refute(rep, fmin(fmin(own, tw), fmin(ts, tg)), "the polish simulated");
	const char *kept = "the MILP's";
	if (warm_best) {
		gp_plan_free(out);
		rep->polished = true;
		*out = wc;
		kept = "the warm";
	} else if (fmin(ts, tg) < own * (1 - 1e-9)) {
		gp_plan_free(out);
		rep->polished = true;
		if (isnan(ts) || tg <= ts) {   /* (fmin passed over a NaN) */
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
	rep->seconds += now_s() - t0;
	char a1[32], a2[32], a3[32];
	size_t l = strlen(rep->note);
	snprintf(rep->note + l, sizeof rep->note - l,
		 "; simulated: MILP's plan %s, search %s, search seeded with %s %s%s: %s plan kept",
		 fmt_or_none(own, a1, sizeof a1), fmt_or_none(ts, a2, sizeof a2),
		 o->warm ? "them and the warm plan" : "both", fmt_or_none(tg, a3, sizeof a3),
		 warm_best ? ", the warm plan as given better" : "", kept);
	if (by_work) {
		l = strlen(rep->note);
		snprintf(rep->note + l, sizeof rep->note - l,
			 "; the polish stopped by the work limit (%.3g s of work a search)", so.work_s);
	}
	if (clock) {
		/* The wall clock decided the polish's answer (a proof stands:
		 * the polish cannot beat a valid bound). */
		rep->clock_stopped = true;
		l = strlen(rep->note);
		snprintf(rep->note + l, sizeof rep->note - l,
			 "; the polish stopped by the time limit; results may differ run to run");
	}
}

/* What every returned plan keeps: it validates, its GPUs cost no more
 * than the budget, and its DP sync mode is the job's when the job fixes
 * one. A breach is an engine's bug, reported as such, or a script's
 * mistake. */
static int check_plan(const struct gp_scenario *s, const struct gp_plan_opts *o,
		      const struct gp_engine *eng, const char *engine, const struct gp_plan *p,
		      struct gp_err *e)
{
	const char *why = eng->flags & GP_ENGINE_SCRIPT ? "the script's limit to keep"
							 : "an engine bug";
	if (gp_plan_validate(s, p, e)) {
		gp_err_prefix(e, engine);
		return -1;
	}
	double usd = gp_plan_usd_per_hour(s, p);
	if (o->budget_usd_per_hour > 0 && usd > o->budget_usd_per_hour * (1 + 1e-9))
		return gp_errf(e, "%s: its plan costs $%.2f/h, over the budget of $%.2f/h (%s)",
			       engine, usd, o->budget_usd_per_hour, why);
	if (s->job.sync_mode != GP_SYNC_AUTO && gp_plan_sync(s, p) != s->job.sync_mode)
		return gp_errf(e, "%s: its plan syncs %s, the job says %s (%s)", engine,
			       gp_sync_name(gp_plan_sync(s, p)), gp_sync_name(s->job.sync_mode), why);
	return 0;
}

/* Pipelines of one shape as one with their replicas summed ("3 shapes,
 * 15 stages" was one of 5), kept only when it simulates no slower: the
 * simulator orders separate pipelines' DP sync apart from one's
 * replicas (P3's polished plan: 905 ms as 5 pipelines, 909 ms as 4). */
static void join_shapes(const struct gp_scenario *s, const struct gp_plan_opts *o,
			struct gp_plan *p, struct gp_plan_report *rep, double end)
{
	struct gp_plan q = { 0 };
	if (gp_plan_copy(&q, p))
		return;
	if (gp_plan_merge_shapes(&q) > 0) {
		double tq = sim_time(s, o, &q, end), tp = isnan(tq) ? NAN : sim_time(s, o, p, end);
		if (tq <= tp * (1 + 1e-12)) {
			gp_plan_free(p);
			*p = q;
			return;
		}
		if (isnan(tp)) {
			size_t l = strlen(rep->note);
			rep->clock_stopped = true;
			snprintf(rep->note + l, sizeof rep->note - l,
				 "%spipelines of one shape left apart: the time limit came before both simulations ended",
				 l ? "; " : "");
		}
	}
	gp_plan_free(&q);
}

/* The warm plan from another engine, when asked: its failure only
 * leaves the engine cold, and says why in *we. */
static bool warm_from(const struct gp_scenario *s, const struct gp_plan_req *rq,
		      struct gp_plan *w, struct gp_err *we)
{
	if (!rq->warm)
		return false;
	struct gp_plan_opts wo = rq->o;
	wo.warm = NULL;
	wo.polish = false;
	wo.progress = NULL;
	struct gp_plan_report wr;
	bool mute = rq->quiet_warm && (rq->warm->flags & GP_ENGINE_SCRIPT) && wo.heuristic;
	if (mute)
		gp_lua_heur_mute(wo.heuristic, true);
	int rc = rq->warm->fn(s, &wo, w, &wr, we);
	if (mute)
		gp_lua_heur_mute(wo.heuristic, false);
	return rc == 0;
}

/* The note says the warm start failed and why, on one line. */
static void note_warm_failed(struct gp_plan_report *rep, const char *engine, const char *msg)
{
	char one[sizeof rep->note];
	size_t l = strlen(rep->note);
	snprintf(rep->note + l, sizeof rep->note - l, "%swarm start from %s failed, started without it: %s",
		 l ? "; " : "", engine, gp_fmt_one_line(msg, one, sizeof one));
}

/* The chunks asked for set on the plan found (the MILP times one chunk,
 * the schedule its model has; the other engines judge their candidates
 * with the chunks where a candidate can hold them): kept when the plan
 * can run them and fits, else the plan runs one and the note says why.
 * Interleaved micro-batch counts that are no multiple of the stages run
 * in the smallest micro-batch group that takes them (schedule.h). */
static void set_chunks(const struct gp_scenario *s, const struct gp_plan_opts *o,
		       struct gp_plan *p, struct gp_plan_report *rep, double end)
{
	int want = gp_plan_opts_chunks(o);
	if (want <= 1 || p->schedule != o->schedule || p->chunks == want)
		return;   /* (the engine planned with them) */
	p->chunks = want;
	struct gp_err e = { "" };
	const char *why = NULL;
	double t = HUGE_VAL;
	int bad = gp_plan_validate(s, p, &e);
	if (bad && p->schedule == GP_SCHED_INTERLEAVED && !p->microbatch_group &&
	    (p->microbatch_group = gp_plan_group_least(p)) > 0)
		bad = gp_plan_validate(s, p, &e);
	if (bad)
		why = e.msg;
	else if (!isnan(t = sim_time(s, o, p, end)) && !isfinite(t))
		why = "it does not fit in memory or does not simulate";
	char one[sizeof rep->note];
	size_t l = strlen(rep->note);
	if (!why) {   /* a plan that holds them; unchecked when the clock came first */
		char grp[64] = "";
		if (p->microbatch_group)
			snprintf(grp, sizeof grp, "in micro-batch groups of %d; ", p->microbatch_group);
		snprintf(rep->note + l, sizeof rep->note - l,
			 "%s%d chunks set on the plan found (%sits engine timed one%s)",
			 l ? "; " : "", want, grp,
			 isnan(t) ? "; not simulated with them: the time limit came first" : "");
		return;
	}
	p->chunks = 1;
	p->microbatch_group = 0;
	snprintf(rep->note + l, sizeof rep->note - l, "%s%d chunks left out, the plan runs one: %s",
		 l ? "; " : "", want, gp_fmt_one_line(why, one, sizeof one));
}

int gp_plan_make(const struct gp_scenario *s, const struct gp_plan_req *rq,
		 struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e)
{
	const struct gp_engine *eng = rq->engine ? rq->engine : gp_engine_default();
	struct gp_plan_opts o = rq->o;
	/* The work limit decides, so that runs repeat; the time limit is a
	 * wall-clock safety net. Without a time limit, the work limit (else
	 * the engine's default, as work) and the wall clock far off, at 4 x
	 * that work (done in about half of it on an idle 2-core machine). */
	if (o.time_limit <= 0 && eng->time_limit > 0) {
		if (o.work_s <= 0)
			o.work_s = eng->time_limit;
		o.time_limit = 4 * o.work_s;
	}
	if (!(eng->flags & GP_ENGINE_WARM))
		o.warm = NULL;
	o.objective = s->objective;
	o.budget_usd_per_hour = s->budget_usd_per_hour;
	memset(out, 0, sizeof *out);
	*rep = (struct gp_plan_report){ .engine = eng->name, .status = GP_MILP_ERROR };
	struct gp_plan w = { 0 };
	struct gp_err we = { "" };
	bool have = (eng->flags & GP_ENGINE_WARM) && warm_from(s, rq, &w, &we);
	if (have)
		o.warm = &w;
	/* The limit is the request's: an engine that is polished leaves
	 * the polish a quarter of it. */
	bool pol = (eng->flags & GP_ENGINE_POLISH) && o.polish && o.objective == GP_OBJ_TIME;
	double end = now_s() + o.time_limit;
	struct gp_plan_opts eo = o;
	if (pol && o.time_limit > 0)
		eo.time_limit = 0.75 * o.time_limit;
	if (pol && o.work_s > 0)
		eo.work_s = 0.75 * o.work_s;
	int rc = eng->fn(s, &eo, out, rep, e);
	if (rc == 0 && we.msg[0])
		note_warm_failed(rep, rq->warm->name, we.msg);
	if (rc == 0 && pol && !gp_plan_cancelled(&o))
		polish(s, &o, out, rep, o.time_limit > 0 ? end : HUGE_VAL);
	if (rc == 0 && check_plan(s, &o, eng, rep->engine ? rep->engine : eng->name, out, e)) {
		gp_plan_free(out);
		rep->status = GP_MILP_ERROR;
		rc = -1;
	}
	if (rc == 0) {
		/* The request's deadline holds after the engine, too. */
		double dl = o.time_limit > 0 ? end : HUGE_VAL;
		join_shapes(s, &o, out, rep, dl);
		set_chunks(s, &o, out, rep, dl);
	}
	gp_plan_free(&w);
	return rc;
}
