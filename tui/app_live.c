/*
 * app_live.c: the planning thread as the app sees it (app.h): an edit
 * leaves the plan stale and asks for a new one at once; a newer edit
 * supersedes a job still running; undo drops a job that no longer
 * applies; Esc cancels. The plan shown stays until the new one comes,
 * marked stale.
 *
 * Only results of the job awaited are taken (a->job): a cancelled or
 * superseded job's plan is dropped when it arrives. Progress is read
 * from the worker's coalesced slot whenever the face polls, so a burst
 * of reports costs one redraw.
 */
#include "app.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_plan_set(const char *set)
{
	return !strncmp(set, "plan=", 5) || !strncmp(set, "plan.", 5) ||
	       !strncmp(set, "plan[", 5);
}

int gp_app_stale(const struct gp_app *a)
{
	const struct gp_run *r = &a->run;
	int n = 0;
	for (int i = r->nsets - 1; i >= a->base_sets && i >= 0; i--) {
		if (is_plan_set(r->sets[i]))
			break;
		n++;
	}
	return n;
}

bool gp_app_busy(const struct gp_app *a)
{
	return a->job != 0 || a->cmp_job != 0;
}

bool gp_app_joined(const struct gp_app *a, int i)
{
	return i >= 0 && i < a->capjoined && a->joined[i];
}

void gp_app_set_joined(struct gp_app *a, int i, bool joined)
{
	if (i < 0)
		return;
	if (i >= a->capjoined) {
		int nc = a->capjoined ? 2 * a->capjoined : 32;
		while (nc <= i)
			nc *= 2;
		unsigned char *nj = realloc(a->joined, (size_t)nc);
		if (!nj)
			return;   /* out of memory: undone one at a time */
		memset(nj + a->capjoined, 0, (size_t)(nc - a->capjoined));
		a->joined = nj;
		a->capjoined = nc;
	}
	a->joined[i] = joined;
}

void gp_app_plan_for(const struct gp_app *a, enum gp_sched *sched, int *chunks)
{
	/* The schedule :plan picked, else the one the plan shown runs
	 * (plan.schedule, its chunks), as the user chose it; 1F1B without
	 * a plan. */
	const struct gp_plan *shown = gp_run_plan_of(&a->run);
	*sched = a->schedule_picked || !shown ? a->schedule : shown->schedule;
	*chunks = a->chunks ? a->chunks : a->schedule_picked || !shown ? 0 : shown->chunks;
}

void gp_app_submit(struct gp_app *a, enum gp_purpose why, const char *label)
{
	a->open_plan = false;   /* a newer job: not the plan on opening */
	enum gp_sched sched;
	int chunks;
	gp_app_plan_for(a, &sched, &chunks);
	if (!a->worker) {
		gp_app_say(a, GP_R_ERROR, "no planning thread: %s", label);
		return;
	}
	struct gp_plan_job j = {
		.purpose = why, .path = a->run.path, .sets = (const char *const *)a->run.sets,
		.nsets = a->run.nsets, .cost_path = a->run.cost_path, .heur_path = a->run.heur_path,
		.engine = a->engine, .time_limit = a->time_limit, .gap = a->gap,
		.work_limit = a->work_limit,
		.schedule = sched, .chunks = chunks, .polish = true,
		.label = label,
	};
	unsigned id = gp_worker_submit(a->worker, &j);
	if (!id) {
		gp_app_say(a, GP_R_ERROR, "cannot plan: out of memory");
		return;
	}
	a->job = id;
	a->job_purpose = why;
	a->job_top = a->run.nsets;
	a->job_note[0] = 0;
	gp_worker_status(a->worker, &a->js);   /* queued: nothing runs it yet */
}

/* The job the app waited for is no longer awaited. Its status is not
 * read again here (the worker may be finishing it this very moment):
 * the pane shows it as last polled, ended by note. */
static void drop_job(struct gp_app *a, const char *note)
{
	gp_worker_cancel(a->worker, a->job);
	a->job = 0;
	a->js.cancelling = true;
	snprintf(a->job_note, sizeof a->job_note, "%s", note);
}

void gp_app_changed(struct gp_app *a)
{
	gp_app_compare_stale(a);
	if (a->live && gp_app_stale(a) > 0) {
		gp_app_submit(a, GP_JOB_LIVE, "re-planning");
		return;
	}
	if (a->job && a->job_purpose == GP_JOB_LIVE)
		/* The edit it was for is gone (undone): the plan is as it was. */
		drop_job(a, "dropped: its edit was undone");
}

bool gp_app_cancel_job(struct gp_app *a)
{
	if (!a->job)
		return false;
	drop_job(a, "cancelled");
	if (gp_app_stale(a))
		gp_app_say(a, GP_R_WARN, "re-planning cancelled: the plan shown is the last one, made "
			   "before the last edit (stale); p plans again");
	else
		gp_app_say(a, GP_R_WARN, "planning cancelled: the plan is as it was");
	return true;
}

/* A result: the awaited job's plan is taken, anything else dropped. */
static void take(struct gp_app *a, struct gp_job_result *res)
{
	if (res->id != a->job || res->cancelled) {
		gp_worker_free_result(res);
		return;
	}
	a->job = 0;
	gp_app_take_plan(a, res);
	gp_worker_free_result(res);
}

bool gp_app_poll(struct gp_app *a)
{
	if (!a->worker)
		return false;
	gp_worker_ack(a->worker);
	bool changed = gp_log_drain(a->log) > 0;
	struct gp_job_status st;
	gp_worker_status(a->worker, &st);
	if (!a->job && st.running)
		gp_worker_cancel(a->worker, st.id);   /* again: see worker.c */
	if (memcmp(&st, &a->js, sizeof st)) {
		a->js = st;
		changed = true;
	}
	struct gp_job_result *res;
	while ((res = gp_worker_take(a->worker))) {
		take(a, res);
		changed = true;
	}
	while (a->cmp && (res = gp_worker_take(a->cmp))) {
		gp_app_take_compare(a, res);
		gp_worker_free_result(res);
		changed = true;
	}
	gp_log_drain(a->log);   /* what taking it said */
	return changed;
}

void gp_app_wait(struct gp_app *a, int reports)
{
	if (!a->worker)
		return;
	if (a->job)
		gp_worker_wait(a->worker, reports);
	if (a->cmp_job)
		gp_worker_wait(a->cmp, 0);
	gp_app_poll(a);
}
