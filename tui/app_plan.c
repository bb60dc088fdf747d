/*
 * app_plan.c: p, planning anew from the terminal planner (app.h).
 *
 * The plan an engine makes becomes an edit like any other: the override
 * plan = { ... } in the scenario's own schema, so the title shows [+],
 * q asks before losing it, u goes back to the file's plan, and s and S
 * write it. The run is then reloaded with that override, so the plan
 * looked at is the scenario's, exactly what a save writes and a reload
 * reads. How the engine found it (bound, gap, polish) is kept beside
 * the override, for the plan screen.
 *
 * The engine runs through the face's run_long: on a terminal, on a
 * worker thread while the screen shows its progress and Esc cancels.
 */
#include "app.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

struct plan_job {
	struct gp_run *run;
	int rc;
	struct gp_err e;
};

static void plan_step(void *arg)
{
	struct plan_job *j = arg;
	struct gp_plan_req rq = { .o = { .polish = true } };
	j->rc = gp_run_plan(j->run, &rq, &j->e);
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

/* Reloads the run with its overrides (the plan looked at is then the
 * scenario's own), keeping what the face set on it. */
static int reload(struct gp_app *a, struct gp_err *e)
{
	struct gp_run *r = &a->run;
	void (*progress)(void *, const struct gp_progress *) = r->progress;
	void *ud = r->progress_ud;
	char *path = strdup(r->path);
	int n = r->nsets, rc = -1;
	char **sets = malloc(sizeof *sets * (size_t)(n + 1));
	if (path && sets) {
		for (int i = 0; i < n; i++)
			sets[i] = r->sets[i];
		r->nsets = 0;   /* the strings move to sets */
		rc = gp_run_load(r, path, (const char *const *)sets, n, e);
		for (int i = 0; i < n; i++)
			free(sets[i]);
	} else {
		gp_errf(e, "out of memory");
	}
	free(sets);
	free(path);
	r->progress = progress;
	r->progress_ud = ud;
	return rc;
}

/* Makes the engine's plan (the one looked at) the override plan = {...}:
 * 0; 1 when the scenario's plan is that plan already; -1 with why when
 * the scenario cannot hold it (then the engine's plan stays looked at,
 * unsaved). */
static int adopt(struct gp_app *a, char *why, size_t n)
{
	struct gp_run *r = &a->run;
	struct gp_plan_report rep = r->rep;
	struct gp_err e = { "" };
	if (r->sc->has_plan && gp_plan_same(&r->sc->plan, &r->plan))
		/* The plan the scenario has already: nothing to edit. */
		return reload(a, &e) ? snprintf(why, n, "%s", e.msg), -1 : 1;
	char *set = plan_override(r->sc, &r->plan);
	if (!set)
		return snprintf(why, n, "it cannot be written as Lua"), -1;
	if (gp_run_set(r, set, &e)) {
		gp_app_bare(a, e.msg, why, n);
		free(set);
		return -1;
	}
	if (!r->sc->has_plan || !gp_plan_same(&r->sc->plan, &r->plan)) {
		/* A plan naming a pool by its GPU where the DC has two. */
		gp_run_truncate(r, r->nsets - 1, &e);
		free(set);
		return snprintf(why, n, "the scenario's plan schema cannot say it"), -1;
	}
	if (reload(a, &e)) {
		free(set);
		return snprintf(why, n, "%s", e.msg), -1;
	}
	free(a->plan_set);
	a->plan_set = set;
	a->plan_rep = rep;
	gp_app_clear_redo(a);
	return 0;
}

void gp_app_plan(struct gp_app *a)
{
	double before = gp_app_now_time(a);
	struct plan_job j = { &a->run, 0, { "" } };
	const char *what = "planning with the placement MILP...";
	if (a->run_long)
		a->run_long(a, what, plan_step, &j);
	else
		plan_step(&j);
	char msg[sizeof j.e.msg];
	if (j.rc == 0 && atomic_load(&a->run.cancel)) {
		/* Cancelled with a plan in hand: back to the one before. */
		struct gp_err e = { "" };
		if (reload(a, &e) == 0) {
			gp_app_simulate(a);
			gp_app_say(a, GP_R_WARN, "planning cancelled: the plan is as it was");
			return;
		}
	}
	if (j.rc) {
		gp_app_bare(a, j.e.msg, msg, sizeof msg);
		if (atomic_load(&a->run.cancel))
			gp_app_say(a, GP_R_WARN, "planning cancelled: the plan is as it was");
		else
			gp_app_say(a, GP_R_ERROR, "no plan: %s", msg);
		if (!gp_run_plan_of(&a->run))
			snprintf(a->problem, sizeof a->problem, "%s", a->status);
		return;
	}
	char why[300] = "";
	struct gp_plan_report rep = a->run.rep;
	int how = adopt(a, why, sizeof why);
	gp_app_simulate(a);
	char head[500];
	/* (How long it took is on the plan screen: a status line stays the
	 * same from run to run.) */
	int o = snprintf(head, sizeof head, "planned by %s (%s)", rep.engine,
			 gp_milp_status_name(rep.status));
	snprintf(head + o, sizeof head - (size_t)o, "%s%s%s",
		 how == 0 ? "; u undoes" : how > 0 ? ", the scenario's own plan" : " (s cannot save it: ",
		 how < 0 ? why : "", how < 0 ? ")" : "");
	gp_app_say_change(a, head, before);
}

const struct gp_plan_report *gp_app_plan_report(const struct gp_app *a, int *since)
{
	const struct gp_run *r = &a->run;
	*since = 0;
	if (r->src == GP_SRC_ENGINE && r->has_rep)
		return &r->rep;
	if (!a->plan_set || r->src != GP_SRC_FILE)
		return NULL;
	/* The last plan override decides the scenario's plan. */
	for (int i = r->nsets - 1; i >= 0; i--)
		if (!strncmp(r->sets[i], "plan=", 5)) {
			if (strcmp(r->sets[i], a->plan_set))
				return NULL;
			*since = r->nsets - 1 - i;
			return &a->plan_rep;
		}
	return NULL;
}
