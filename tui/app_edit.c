/*
 * app_edit.c: what changes the scenario or leaves the program from the
 * terminal planner (app.h): an edit becomes one override of the run
 * (so undo drops the last one and redo puts it back), each edit
 * re-simulates the plan, planning anew, saving as canonical Lua, and
 * the screenshot.
 */
#include "app.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

/* A loader's message without the file name it starts with. */
static const char *bare(const struct gp_app *a, const char *msg)
{
	size_t n = a->run.path ? strlen(a->run.path) : 0;
	if (n && !strncmp(msg, a->run.path, n) && msg[n] == ':' && msg[n + 1] == ' ')
		return msg + n + 2;
	return msg;
}

void gp_field_show(struct gp_field *f)
{
	if (!f->text)
		gp_unit_format(f->value, f->unit, f->shown, sizeof f->shown);
}

void gp_app_simulate(struct gp_app *a)
{
	if (a->has_gantt) {
		gp_gantt_free(&a->gantt);
		a->has_gantt = false;
	}
	struct gp_sim_req rq = { .schedule = -1, .record = true };
	struct gp_err e = { "" };
	if (gp_run_simulate(&a->run, &rq, &e)) {
		gp_app_say(a, GP_R_ERROR, "the plan does not simulate: %s", bare(a, e.msg));
		snprintf(a->problem, sizeof a->problem, "%s", a->status);
		/* The last result was of the scenario before the edit: the
		 * screens show none rather than a stale one. */
		if (a->run.has_res)
			gp_result_free(&a->run.res);
		a->run.has_res = false;
		return;
	}
	a->problem[0] = 0;
	if (gp_gantt_build(&a->gantt, a->run.sc, &a->run.res, &e) == 0)
		a->has_gantt = true;
	else
		gp_app_say(a, GP_R_ERROR, "Gantt: %s", e.msg);
	a->gt.fitted = true;
}

/* An override as people read it: "links[ams>fra].bandwidth = 10G", the
 * unit guessed from the field's name (only for the message). */
static void describe(const char *set, char *buf, size_t n)
{
	static const struct {
		const char *field;
		enum gp_unit unit;
	} guess[] = {
		{ ".bandwidth", GP_U_BANDWIDTH }, { ".network", GP_U_BANDWIDTH },
		{ ".nvlink", GP_U_BYTERATE }, { ".hbm_bandwidth", GP_U_BYTERATE },
		{ ".latency", GP_U_TIME }, { ".memory", GP_U_BYTES }, { ".tflops", GP_U_FLOPS },
		{ ".efficiency", GP_U_RATIO }, { ".price_per_hour", GP_U_USD },
		{ ".usd_per_hour", GP_U_USD },
	};
	const char *eq = strchr(set, '=');
	if (!eq) {
		snprintf(buf, n, "%s", set);
		return;
	}
	char *end;
	double v = strtod(eq + 1, &end);
	for (size_t i = 0; !*end && end != eq + 1 && i < sizeof guess / sizeof guess[0]; i++) {
		size_t fl = strlen(guess[i].field), pl = (size_t)(eq - set);
		if (pl > fl && !strncmp(eq - fl, guess[i].field, fl)) {
			char shown[48];
			gp_unit_format(v, guess[i].unit, shown, sizeof shown);
			snprintf(buf, n, "%.*s = %s", (int)pl, set, shown);
			return;
		}
	}
	snprintf(buf, n, "%.*s = %s", (int)(eq - set), set, eq + 1);
}

/* "iteration 2.34 s -> 2.81 s (+20.1 %)" after an edit. */
static void say_change(struct gp_app *a, const char *what, double before)
{
	if (!a->run.has_res)
		return;   /* gp_app_simulate said why */
	double t = a->run.res.iteration_time;
	const char *fit = a->run.res.fits ? "" : "; does not fit in memory";
	if (isfinite(before) && before > 0)
		gp_app_say(a, a->run.res.fits ? GP_R_OK : GP_R_WARN,
			   "%s: iteration %.4g s -> %.4g s (%+.1f %%)%s", what, before, t,
			   100 * (t - before) / before, fit);
	else
		gp_app_say(a, GP_R_OK, "%s: iteration %.4g s%s", what, t, fit);
}

static void clear_redo(struct gp_app *a)
{
	for (int i = 0; i < a->nredo; i++)
		free(a->redo[i]);
	a->nredo = 0;
}

static double now_time(const struct gp_app *a)
{
	return a->run.has_res ? a->run.res.iteration_time : NAN;
}

bool gp_app_set(struct gp_app *a, const char *set)
{
	double before = now_time(a);
	struct gp_err e = { "" };
	if (gp_run_set(&a->run, set, &e)) {
		gp_app_say(a, GP_R_ERROR, "refused, old value kept: %s", bare(a, e.msg));
		return false;
	}
	clear_redo(a);
	gp_app_simulate(a);
	char what[600];
	describe(set, what, sizeof what);
	say_change(a, what, before);
	return true;
}

/* The override a field's typed text makes; -1 with a->status set. */
static int field_set(struct gp_app *a, const struct gp_field *f, const char *text, char *set,
		     size_t n)
{
	if (f->text) {
		if (!text[0] || strpbrk(text, "\"\\\n")) {
			gp_app_say(a, GP_R_ERROR, "refused: expected a name (no quotes or backslashes)");
			return -1;
		}
		snprintf(set, n, "%s=\"%s\"", f->path, text);
		return 0;
	}
	char lua[128], why[256];
	double v;
	if (gp_unit_parse(text, f->unit, &v, lua, sizeof lua, why, sizeof why)) {
		gp_app_say(a, GP_R_ERROR, "refused, %s kept: %s", f->shown, why);
		return -1;
	}
	snprintf(set, n, "%s=%s", f->path, lua);
	return 0;
}

bool gp_app_commit(struct gp_app *a, const char *text)
{
	const struct gp_field *f = &a->editing;
	char set[512], lua[128], why[256];
	double v;
	bool same = f->text ? !strcmp(text, f->shown)
			    : gp_unit_parse(text, f->unit, &v, lua, sizeof lua, why, sizeof why) == 0 &&
				      v == f->value;
	if (same) {
		gp_app_say(a, GP_R_DIM, "%s is already %s: nothing changed", f->path, f->shown);
		return true;
	}
	if (field_set(a, f, text, set, sizeof set))
		return false;
	return gp_app_set(a, set);
}

void gp_app_check_typed(struct gp_app *a)
{
	const struct gp_field *f = &a->editing;
	if (f->text) {
		gp_app_say(a, GP_R_DIM, "a name; Enter sets it, Esc keeps %s", f->shown);
		return;
	}
	char lua[128], why[256], shown[48];
	double v;
	if (gp_unit_parse(a->ed.buf, f->unit, &v, lua, sizeof lua, why, sizeof why)) {
		gp_app_say(a, GP_R_WARN, "%s", why);
	} else if (strchr(lua, '(')) {
		gp_app_say(a, GP_R_DIM, "= %s (the loader checks it); Enter sets, Esc keeps %s",
			   lua, f->shown);
	} else {
		gp_unit_format(v, f->unit, shown, sizeof shown);
		gp_app_say(a, GP_R_DIM, "= %s (%.6g); Enter sets, Esc keeps %s", shown, v, f->shown);
	}
}

void gp_app_undo(struct gp_app *a)
{
	int n = a->run.nsets;
	if (n == 0) {
		gp_app_say(a, GP_R_WARN, "nothing to undo");
		return;
	}
	char *last = strdup(a->run.sets[n - 1]);
	double before = now_time(a);
	struct gp_err e = { "" };
	if (!last || gp_run_truncate(&a->run, n - 1, &e)) {
		free(last);
		gp_app_say(a, GP_R_ERROR, "cannot undo: %s", last ? bare(a, e.msg) : "out of memory");
		return;
	}
	if (a->nredo == a->capredo) {
		int nc = a->capredo ? 2 * a->capredo : 16;
		char **nr = realloc(a->redo, sizeof *nr * (size_t)nc);
		if (!nr) {
			free(last);
			last = NULL;
		} else {
			a->redo = nr;
			a->capredo = nc;
		}
	}
	if (last)
		a->redo[a->nredo++] = last;
	gp_app_simulate(a);
	char what[600] = "undone ";
	describe(a->redo[a->nredo - 1], what + 7, sizeof what - 7);
	say_change(a, what, before);
}

void gp_app_redo(struct gp_app *a)
{
	if (a->nredo == 0) {
		gp_app_say(a, GP_R_WARN, "nothing to redo");
		return;
	}
	char *set = a->redo[--a->nredo];
	double before = now_time(a);
	struct gp_err e = { "" };
	if (gp_run_set(&a->run, set, &e)) {
		gp_app_say(a, GP_R_ERROR, "cannot redo %s: %s", set, bare(a, e.msg));
		free(set);
		return;
	}
	gp_app_simulate(a);
	char what[600] = "redone ";
	describe(set, what + 7, sizeof what - 7);
	say_change(a, what, before);
	free(set);
}

void gp_app_plan(struct gp_app *a)
{
	if (a->busy)
		a->busy(a, "planning with the placement MILP...");
	double before = now_time(a);
	struct gp_plan_req rq = { .o = { .polish = true } };
	struct gp_err e = { "" };
	if (gp_run_plan(&a->run, &rq, &e)) {
		gp_app_say(a, GP_R_ERROR, "no plan: %s", bare(a, e.msg));
		snprintf(a->problem, sizeof a->problem, "%s", a->status);
		return;
	}
	gp_app_simulate(a);
	char what[128];
	snprintf(what, sizeof what, "planned by %s (%s) in %.2g s", a->run.rep.engine,
		 gp_milp_status_name(a->run.rep.status), a->run.rep.seconds);
	say_change(a, what, before);
}

/* Saves to path: over the file itself only when nothing would be lost. */
static void save_to(struct gp_app *a, const char *path)
{
	struct gp_err e = { "" };
	bool self = !strcmp(path, a->run.path);
	if (self) {
		struct gp_scenario *orig = gp_scenario_load(path, &e);
		bool same = orig && gp_scenario_file_is_canonical(path, orig);
		gp_scenario_free(orig);
		if (!same) {
			gp_app_say(a, GP_R_WARN, "not saved: %s has comments or written-out values a save would drop; S saves to another file",
				   path);
			return;
		}
	}
	if (gp_scenario_save(path, a->run.sc, &e)) {
		gp_app_say(a, GP_R_ERROR, "not saved: %s", e.msg);
		return;
	}
	if (!self) {
		/* The saved file is the one edited from now on. */
		struct gp_err le = { "" };
		int n = a->run.nsets;
		if (gp_run_load(&a->run, path, NULL, 0, &le)) {
			gp_app_say(a, GP_R_ERROR, "saved %s, but it does not load back: %s", path, le.msg);
			return;
		}
		clear_redo(a);
		gp_app_simulate(a);
		gp_app_say(a, GP_R_OK, "saved %d edit%s to %s (now the file edited; undo starts afresh)",
			   n, n == 1 ? "" : "s", path);
	} else {
		gp_app_say(a, GP_R_OK, "saved %s", path);
	}
	a->saved = a->run.nsets;
}

void gp_app_save(struct gp_app *a)
{
	save_to(a, a->run.path);
}

void gp_app_save_as(struct gp_app *a, const char *path)
{
	if (!path[0]) {
		gp_app_say(a, GP_R_WARN, "not saved: no file name");
		return;
	}
	snprintf(a->save_path, sizeof a->save_path, "%s", path);
	save_to(a, path);
}

void gp_app_export(struct gp_app *a)
{
	char path[64];
	snprintf(path, sizeof path, "geoplan-%s.svg", gp_app_view(a->view)->name);
	a->status[0] = 0;
	gp_app_draw(a);
	FILE *f = fopen(path, "w");
	int rc = f ? gp_export(f, &a->cv, GP_EXPORT_SVG, a->th->paper_fg, a->th->paper_bg,
			       a->run.sc ? a->run.sc->name : "geoplan") : -1;
	if (f && fclose(f))
		rc = -1;
	if (rc)
		gp_app_say(a, GP_R_ERROR, "%s: %s", path, f ? "write failed" : strerror(errno));
	else
		gp_app_say(a, GP_R_OK, "wrote %s (%d x %d cells)", path, a->cv.w, a->cv.h);
}
