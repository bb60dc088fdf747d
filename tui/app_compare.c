/*
 * app_compare.c: what the compare screen sets side by side (app.h): A,
 * the plan pinned (P, :pin), else the plan as it was before the last
 * edit (kept at every edit, so "what did halving that link do?" needs
 * no pin); B, the plan shown now. :compare ENGINE makes A another
 * engine's plan for the scenario as it is, on a second worker thread,
 * so a re-plan running meanwhile goes on.
 */
#include "app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gp_pin *gp_app_side_a(struct gp_app *a)
{
	return a->pin ? a->pin : a->prev;
}

static void set_pin(struct gp_pin **slot, struct gp_pin *p)
{
	gp_pin_free(*slot);
	*slot = p;
}

void gp_app_keep_before(struct gp_app *a, struct gp_pin *before, const char *what)
{
	if (before)
		snprintf(before->label, sizeof before->label, "before %s", what);
	set_pin(&a->prev, before);
}

void gp_app_pin(struct gp_app *a)
{
	int since;
	const struct gp_plan_report *rep = gp_app_plan_report(a, &since);
	char label[200];
	snprintf(label, sizeof label, "pinned: %s%s", rep ? rep->engine : "the file's plan",
		 gp_app_stale(a) ? " (stale)" : rep ? "'s plan" : "");
	struct gp_pin *p = gp_pin_of_run(&a->run, label);
	if (!p) {
		gp_app_say(a, GP_R_WARN, "nothing to pin: no simulated plan");
		return;
	}
	set_pin(&a->pin, p);
	gp_app_say(a, GP_R_OK, "pinned the plan shown as A; edit, and 5 compares it with the new one");
}

void gp_app_unpin(struct gp_app *a)
{
	if (!a->pin) {
		gp_app_say(a, GP_R_DIM, "nothing pinned");
		return;
	}
	set_pin(&a->pin, NULL);
	gp_app_say(a, GP_R_OK, "unpinned: A is the plan before the last edit again");
}

static int start_cmp(struct gp_app *a, struct gp_err *e)
{
	if (a->cmp)
		return 0;
	a->cmp = gp_worker_new(a->hold, gp_worker_fd(a->worker), gp_log_script, a->log, e);
	return a->cmp ? 0 : -1;
}

void gp_app_compare_engine(struct gp_app *a, const struct gp_engine *eng)
{
	struct gp_err e = { "" };
	if ((eng->flags & GP_ENGINE_SCRIPT) && !a->run.heur) {
		gp_app_say(a, GP_R_WARN, "no heuristic script: --heuristic FILE, or the scenario's heuristic");
		return;
	}
	if (start_cmp(a, &e)) {
		gp_app_say(a, GP_R_ERROR, "%s", e.msg);
		return;
	}
	char label[64];
	snprintf(label, sizeof label, "planning with %s to compare", eng->name);
	enum gp_sched sched;
	int chunks;
	gp_app_plan_for(a, &sched, &chunks);
	struct gp_plan_job j = {
		.purpose = GP_JOB_COMPARE, .path = a->run.path,
		.sets = (const char *const *)a->run.sets, .nsets = a->run.nsets,
		.cost_path = a->run.cost_path, .heur_path = a->run.heur_path, .engine = eng,
		.time_limit = a->time_limit, .gap = a->gap, .work_limit = a->work_limit,
		.schedule = sched, .chunks = chunks,
		.polish = true, .simulate = true, .label = label,
	};
	a->cmp_job = gp_worker_submit(a->cmp, &j);
	a->cmp_engine = eng;
	gp_app_say(a, GP_R_DIM, "%s; 5 shows A (%s) beside the plan shown", label, eng->name);
}

/* The next engine of the table after the one compared last (the default
 * and scripts without a script left out). */
void gp_app_compare_next(struct gp_app *a)
{
	int n = gp_engine_count(), at = -1;
	for (int i = 0; i < n; i++)
		if (gp_engine_at(i) == a->cmp_engine)
			at = i;
	for (int k = 1; k <= n; k++) {
		const struct gp_engine *e = gp_engine_at((at + k) % n);
		if ((e->flags & GP_ENGINE_DEFAULT) || ((e->flags & GP_ENGINE_SCRIPT) && !a->run.heur))
			continue;
		gp_app_compare_engine(a, e);
		return;
	}
}

void gp_app_take_compare(struct gp_app *a, struct gp_job_result *res)
{
	if (res->id != a->cmp_job || res->cancelled)
		return;
	a->cmp_job = 0;
	const char *name = a->cmp_engine ? a->cmp_engine->name : "the engine";
	if (res->rc) {
		char msg[sizeof res->e.msg];
		gp_app_bare(a, res->e.msg, msg, sizeof msg);
		gp_log_post(a->log, GP_LOG_ERROR, res->e.msg);
		gp_app_say(a, GP_R_ERROR, "%s: no plan to compare: %s", name, msg);
		return;
	}
	char label[200];
	snprintf(label, sizeof label, "%s's plan (for the scenario when compared)", name);
	struct gp_pin *p = gp_pin_of_run(res->run, label);
	if (!p) {
		gp_app_say(a, GP_R_ERROR, "%s: out of memory", name);
		return;
	}
	set_pin(&a->pin, p);
	double ta = p->res.iteration_time, tb = gp_app_now_time(a);
	char x[24], y[24];
	gp_unit_format(ta, GP_U_TIME, x, sizeof x);
	gp_unit_format(tb, GP_U_TIME, y, sizeof y);
	gp_app_say(a, GP_R_OK, "A is %s's plan: iteration %s, the plan shown %s; 5 compares them",
		   name, x, y);
}

void gp_app_compare_stale(struct gp_app *a)
{
	if (a->cmp_job) {
		gp_worker_cancel(a->cmp, a->cmp_job);
		a->cmp_job = 0;
	}
}
