/*
 * app_plan.c: planning anew from the terminal planner (app.h): p, and
 * the re-plan an edit starts (app_live.c), and what is done with the
 * plan a job brings back.
 *
 * The plan an engine makes becomes an edit like any other: the override
 * plan = { ... } in the scenario's own schema, so the title shows [+],
 * q asks before losing it, u goes back to the plan before, and s and S
 * write it. The plan looked at is then the scenario's, exactly what a
 * save writes and a reload reads. A re-plan after an edit is undone
 * with that edit (one step: the scenario and its plan as they were);
 * p's plan is a step of its own. How the engine found it (bound, gap,
 * polish) is kept beside the override, for the plan screen, and comes
 * back with it on undo and redo. The one exception: the plan a
 * plan-less file gets on opening is counted as saved (the user made no
 * edit; u does not take it back; s still writes it).
 *
 * A re-plan after an edit never answers with a plan worse by the job's
 * objective (time, cost or WAN bytes) than the one shown, as simulated
 * in the edited scenario, unless the plan shown breaks its budget: the
 * engine's plan is then not taken, and the status line says so; p takes
 * it all the same.
 */
#include "app.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "plan.h"
#include "report.h"

/* Plans made this session that undo and redo can bring back. */
#define GP_APP_MADE 64

/* The plan override set (taken) and its report, the newest of a->made;
 * when there is no room, set is the one forgotten. */
static void remember(struct gp_app *a, char *set, int pos, const struct gp_plan_report *rep)
{
	if (!a->made) {
		a->made = calloc(GP_APP_MADE, sizeof *a->made);
		if (!a->made) {
			free(set);
			return;
		}
	}
	if (a->nmade == GP_APP_MADE) {
		free(a->made[0].set);
		memmove(a->made, a->made + 1, sizeof *a->made * (GP_APP_MADE - 1));
		a->nmade--;
	}
	a->made[a->nmade++] = (struct gp_plan_made){ set, pos, *rep };
}

/* "plan={ schedule = ... }" on one line, malloc'ed; NULL on failure. */
static char *plan_override(const struct gp_scenario *sc, const struct gp_plan *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	int bad = gp_plan_write_lua(f, sc, p, "");
	if (fclose(f) || bad || strncmp(text, "plan = ", 7)) {
		free(text);
		return NULL;
	}
	/* "plan = {\n  schedule = ..." -> "plan={ schedule = ...": names
	 * hold no line breaks, so only the layout goes. */
	size_t o = 0;
	for (size_t i = 0; text[i]; i++) {
		if (i == 4) {
			text[o++] = '=';
			i = 6;
			continue;
		}
		if (text[i] == '\n') {
			while (text[i + 1] == ' ')
				i++;
			if (text[i + 1])
				text[o++] = ' ';
			continue;
		}
		text[o++] = text[i];
	}
	text[o] = 0;
	return text;
}

void gp_app_plan(struct gp_app *a)
{
	char label[64];
	const struct gp_engine *eng = a->engine ? a->engine : gp_engine_default();
	snprintf(label, sizeof label, "planning with %s", eng->name);
	gp_app_submit(a, GP_JOB_ASKED, label);
	gp_app_say(a, GP_R_DIM, "%s in the background; Esc cancels, 4 shows the solver", label);
}

/* The same overrides, in the same order. */
static bool same_sets(const struct gp_run *x, const struct gp_run *y)
{
	if (x->nsets != y->nsets || strcmp(x->path, y->path))
		return false;
	for (int i = 0; i < x->nsets; i++)
		if (strcmp(x->sets[i], y->sets[i]))
			return false;
	return true;
}

/* The job's plan as the override plan = {...} of the app's run: 0; 1
 * when the scenario's plan is that plan already and not stale; -1 with
 * why when the scenario cannot hold it. (A stale plan an engine makes
 * again is written again: it is no longer stale.) */
static int adopt(struct gp_app *a, const struct gp_run *jr, char *why, size_t n)
{
	struct gp_run *r = &a->run;
	struct gp_err e = { "" };
	if (r->src == GP_SRC_FILE && gp_plan_same(&r->plan, &jr->plan) && !gp_app_stale(a))
		return 1;
	char *set = plan_override(jr->sc, &jr->plan);
	if (!set)
		return snprintf(why, n, "it cannot be written as Lua"), -1;
	if (gp_run_set(r, set, &e)) {
		gp_app_bare(a, e.msg, why, n);
		free(set);
		return -1;
	}
	if (!r->sc->has_plan || !gp_plan_same(&r->sc->plan, &jr->plan)) {
		/* A plan naming a pool by its GPU where the DC has two. */
		gp_run_truncate(r, r->nsets - 1, &e);
		free(set);
		return snprintf(why, n, "the scenario's plan schema cannot say it"), -1;
	}
	remember(a, set, r->nsets - 1, &jr->rep);
	/* A re-plan undoes with the edit it was for, when nothing came
	 * between. */
	gp_app_set_joined(a, r->nsets - 1, a->job_purpose == GP_JOB_LIVE &&
				 a->job_top == r->nsets - 1 && r->nsets - 1 > a->base_sets);
	gp_app_clear_redo(a);
	return 0;
}

/* A plan the scenario cannot hold is looked at as the engine's (not
 * saved): the job's run, when it is the app's scenario, takes the app's
 * place. */
static bool look_at_engine_plan(struct gp_app *a, struct gp_run *jr)
{
	if (!same_sets(&a->run, jr))
		return false;
	struct gp_run old = a->run;
	a->run = *jr;
	*jr = old;
	atomic_store(&a->run.cancel, 0);
	return true;
}

static void say_failed(struct gp_app *a, const struct gp_job_result *res)
{
	char msg[sizeof res->e.msg];
	gp_app_bare(a, res->e.msg, msg, sizeof msg);
	gp_log_post(a->log, GP_LOG_ERROR, res->e.msg);
	snprintf(a->job_note, sizeof a->job_note, "failed: %s", msg);   /* whole in the log */
	if (a->job_purpose == GP_JOB_LIVE)
		gp_app_say(a, GP_R_ERROR, "no new plan: %s; the plan shown is stale", msg);
	else
		gp_app_say(a, GP_R_ERROR, "no plan: %s", msg);
	if (!gp_run_plan_of(&a->run))
		snprintf(a->problem, sizeof a->problem, "%s", a->status);
}

/* The plan shown breaks the edited scenario's budget (the engines only
 * make plans within it): true, with "$65.60/h, over the budget of
 * $10.00/h" in buf. */
static bool over_budget(const struct gp_run *r, char *buf, size_t n)
{
	const struct gp_plan *p = gp_run_plan_of(r);
	double cap = r->sc ? r->sc->budget_usd_per_hour : 0;
	if (!p || !(cap > 0))
		return false;
	double usd = gp_plan_usd_per_hour(r->sc, p);
	if (!(usd > cap * (1 + 1e-9)))
		return false;
	snprintf(buf, n, "$%.2f/h, over the budget of $%.2f/h", usd, cap);
	return true;
}

/* What the scenario's objective ranks a simulated plan by, and the word
 * for more of it. */
static double objective_of(const struct gp_scenario *s, const struct gp_result *r,
			   const char **worse)
{
	switch (s->objective) {
	case GP_OBJ_COST:
		*worse = "costlier";
		return r->usd_per_iteration;
	case GP_OBJ_WAN:
		*worse = "heavier on the WAN";
		return r->wan_bytes;
	default:
		*worse = "slower";
		return r->iteration_time;
	}
}

/* A re-plan's plan that is worse by the scenario's objective (time,
 * cost or WAN bytes) than the plan shown, which still runs, fits and
 * keeps the budget in the edited scenario (before, its time): said, and
 * true (not taken). */
static bool worse_than_shown(struct gp_app *a, struct gp_job_result *res, double before)
{
	char why[96];
	if (a->job_purpose != GP_JOB_LIVE || !isfinite(before) || !a->run.has_res ||
	    !a->run.res.fits || !same_sets(&a->run, res->run) || over_budget(&a->run, why, sizeof why))
		return false;
	struct gp_sim_req rq = { .schedule = -1 };
	struct gp_err e = { "" };
	if (gp_run_simulate(res->run, &rq, &e) || !res->run->res.fits)
		return false;
	const char *worse;
	double was = objective_of(a->run.sc, &a->run.res, &worse);
	double now = objective_of(a->run.sc, &res->run->res, &worse);
	bool tied = a->run.sc->objective != GP_OBJ_TIME && fabs(now - was) <= 1e-9 * fmax(now, was);
	if (tied) {
		/* A tie in dollars or bytes (both 0 B in one DC): time decides. */
		was = a->run.res.iteration_time;
		now = res->run->res.iteration_time;
		worse = "slower at the same objective";
	}
	if (!(now > was * (1 + 1e-9)))
		return false;
	char t[32], b[32];
	if (a->run.sc->objective == GP_OBJ_COST && !tied) {
		gp_fmt_usd(now, t, sizeof t);
		gp_fmt_usd(was, b, sizeof b);
	} else if (a->run.sc->objective == GP_OBJ_WAN && !tied) {
		gp_fmt_bytes(now, t, sizeof t);
		gp_fmt_bytes(was, b, sizeof b);
	} else {
		gp_unit_time4(now, t, sizeof t);
		gp_unit_time4(was, b, sizeof b);
	}
	snprintf(a->job_note, sizeof a->job_note, "done, %s; %s than the plan shown: not taken",
		 gp_app_status_word(&res->run->rep), worse);
	gp_app_say(a, GP_R_WARN, "kept the plan shown (%s): %s's re-plan is %s (%s); p takes it",
		   b, res->run->rep.engine, worse, t);
	return true;
}

/* A live re-plan's "before" is the old plan in the edited scenario; the
 * compare screen's A (unpinned) is the iteration before the edit: say
 * that one too, where it differs, so the two read as two things. */
static void after_edit(struct gp_app *a, bool dropped, double before)
{
	if (a->job_purpose != GP_JOB_LIVE || dropped || !a->prev || !a->run.has_res ||
	    !(a->prev->res.iteration_time > 0) ||
	    fabs(a->prev->res.iteration_time - before) <= 1e-9 * before)
		return;   /* (an edit that left the time as it was: one figure) */
	char t[32];
	size_t l = strlen(a->status);
	const struct gp_job *was = &a->prev->sc->job, *now = &a->run.sc->job;
	double tokens = (double)was->global_batch * was->seq;
	if (tokens != (double)now->global_batch * now->seq) {   /* another job's iteration */
		gp_fmt_si(tokens / a->prev->res.iteration_time, 3, "", t, sizeof t);
		snprintf(a->status + l, sizeof a->status - l, "; tokens/s %s before the edit", t);
		return;
	}
	gp_unit_time4(a->prev->res.iteration_time, t, sizeof t);
	snprintf(a->status + l, sizeof a->status - l, "; %s before the edit", t);
}

void gp_app_take_plan(struct gp_app *a, struct gp_job_result *res)
{
	if (res->warm.msg[0])   /* the note says it in a phrase; the log whole */
		gp_log_post(a->log, GP_LOG_ERROR, res->warm.msg);
	if (res->rc) {
		a->open_plan = false;
		say_failed(a, res);
		return;
	}
	struct gp_app_then then = gp_app_now(a);
	double before = then.time;
	/* An edit that dropped the file's plan left nothing to time: the
	 * re-plan's "before" is the iteration before that edit (A's). */
	bool dropped = !isfinite(before) && a->job_purpose == GP_JOB_LIVE && a->prev &&
		       a->prev->res.iteration_time > 0;
	if (dropped) {
		before = then.time = a->prev->res.iteration_time;
		then.tokens = (double)a->prev->sc->job.global_batch * a->prev->sc->job.seq;
	}
	else if (worse_than_shown(a, res, before)) {
		a->open_plan = false;
		return;
	}
	char why[300] = "", ob[96];
	bool over = a->job_purpose == GP_JOB_LIVE && !dropped && over_budget(&a->run, ob, sizeof ob);
	struct gp_plan_report rep = res->run->rep;
	/* p's plan is an edit of its own: the compare screen's A is then
	 * the plan it replaced (a re-plan's A is the one before its edit). */
	struct gp_pin *was = a->job_purpose == GP_JOB_ASKED ? gp_pin_of_run(&a->run, "") : NULL;
	int how = adopt(a, res->run, why, sizeof why);
	free(a->replan_set);
	a->replan_set = NULL;
	if (how == 0 && a->job_purpose == GP_JOB_LIVE && !dropped && isfinite(before) &&
	    a->run.nsets > 0) {
		a->replan_before = before;
		a->replan_set = strdup(a->run.sets[a->run.nsets - 1]);
	}
	if (how == 0 && was) {
		char what[64];
		snprintf(what, sizeof what, "the plan by %s", rep.engine);
		gp_app_keep_before(a, was, what);
	} else {
		gp_pin_free(was);
	}
	/* A plan-less file's plan on opening is no edit of the user's: no
	 * [+], q does not ask, u does not take it back (s still writes it). */
	if (how == 0 && a->open_plan && a->run.nsets == a->base_sets + 1) {
		gp_app_mark_saved(a);
		a->saved_open_plan = true;
	}
	a->open_plan = false;
	if (how < 0 && !look_at_engine_plan(a, res->run))
		snprintf(why + strlen(why), sizeof why - strlen(why), "; the scenario changed meanwhile");
	gp_app_simulate(a);
	snprintf(a->job_note, sizeof a->job_note, "done, %s%s", gp_app_status_word(&rep),
		 how < 0 ? "; the plan cannot be saved" : "");
	char head[500];
	/* (How long it took is on the plan and solver screens: a status
	 * line stays the same from run to run.) */
	int o = snprintf(head, sizeof head, "%s by %s (%s)%s%s",
			 a->job_purpose == GP_JOB_LIVE ? "re-planned" : "planned", rep.engine,
			 gp_app_status_word(&rep),
			 dropped ? ", old plan invalid" : over ? ", old plan at " : "", over ? ob : "");
	if (a->open_note[0] && o < (int)sizeof head - 1)   /* the file's plan, refused on opening */
		o += snprintf(head + o, sizeof head - (size_t)o, ", the file's plan left out (%s)",
			      a->open_note);
	a->open_note[0] = 0;
	if (strstr(rep.note, " chunks left out, the plan runs one") && o < (int)sizeof head - 1)
		o += snprintf(head + o, sizeof head - (size_t)o,
			      ", one chunk: no plan holds the chunks asked for (the solver's note says why)");
	if (o >= (int)sizeof head)
		o = (int)sizeof head - 1;
	snprintf(head + o, sizeof head - (size_t)o, "%s%s%s",
		 how == 0 ? "; u undoes" : how > 0 ? ", the same plan as shown" : " (s cannot save it: ",
		 how < 0 ? why : "", how < 0 ? ")" : "");
	gp_app_say_change(a, head, then);
	after_edit(a, dropped, before);
}

const char *gp_app_status_word(const struct gp_plan_report *rep)
{
	/* "optimal" holds only over the space its proof names (README):
	 * the qualifier goes with it; the proof line names the space. */
	if (rep->status == GP_MILP_OPTIMAL && rep->space[0])
		return "optimal in its space";
	return gp_milp_status_name(rep->status);
}

char *gp_app_proof(const struct gp_plan_report *rep, char *buf, size_t n)
{
	/* The batch's words (report_text.c, "proof"). */
	if (!rep->space[0])
		snprintf(buf, n, "%s", "");
	else
		snprintf(buf, n, "%s %s", rep->status == GP_MILP_OPTIMAL ? "optimal over"
					  : "none (see the note), searched", rep->space);
	return buf;
}

const struct gp_plan_report *gp_app_plan_report(const struct gp_app *a, int *since)
{
	const struct gp_run *r = &a->run;
	*since = 0;
	if (r->src == GP_SRC_ENGINE && r->has_rep)
		return &r->rep;
	if (r->src != GP_SRC_FILE)
		return NULL;
	/* The last plan override decides the scenario's plan: the report
	 * of the newest plan made with that text (undo and redo bring
	 * plans back as they were). */
	for (int i = r->nsets - 1; i >= 0; i--)
		if (!strncmp(r->sets[i], "plan=", 5)) {
			for (int k = a->nmade - 1; k >= 0; k--)
				if (a->made[k].pos == i && !strcmp(r->sets[i], a->made[k].set)) {
					*since = r->nsets - 1 - i;
					return &a->made[k].rep;
				}
			return NULL;
		}
	return NULL;
}
