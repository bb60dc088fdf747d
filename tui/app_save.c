/*
 * app_save.c: what leaves the terminal planner as a file (app.h):
 * saving the scenario as canonical Lua, and the screenshot. Nothing is
 * overwritten without asking: s writes over the file edited only when
 * that file is already canonical (nothing in it would be lost), S and x
 * ask before they replace a file that exists.
 *
 * After a save the file holds every edit, so the run is reloaded from
 * it with no overrides: undo starts afresh there (undoing an override
 * the file now holds would undo nothing).
 */
#include "app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "export.h"
#include "ofile.h"

static void free_saved(struct gp_app *a)
{
	for (int i = 0; i < a->nsaved; i++)
		free(a->saved[i]);
	free(a->saved);
	a->saved = NULL;
	a->nsaved = 0;
}

void gp_app_mark_saved(struct gp_app *a)
{
	free_saved(a);
	a->saved_open_plan = false;
	int n = a->run.nsets;
	a->saved = n ? malloc(sizeof *a->saved * (size_t)n) : NULL;
	for (int i = 0; a->saved && i < n; i++) {
		a->saved[i] = strdup(a->run.sets[i]);
		if (a->saved[i])
			a->nsaved++;
	}
}

int gp_app_unsaved(const struct gp_app *a)
{
	int common = 0, n = a->run.nsets;
	while (common < n && common < a->nsaved && !strcmp(a->run.sets[common], a->saved[common]))
		common++;
	if (a->saved_open_plan && common == n && a->nsaved == n + 1)
		return 0;   /* the opening's plan undone: the file as it is */
	/* A re-plan joined to its edit (u undoes both) is no edit of its
	 * own: one :set and its plan count 1. */
	int edits = 0;
	for (int i = common; i < n; i++)
		edits += i == common || !gp_app_joined(a, i);
	return edits + (a->nsaved - common);
}

bool gp_app_opening_plan(const struct gp_app *a)
{
	return a->saved_open_plan && a->run.nsets == a->nsaved &&
	       a->run.nsets == a->base_sets + 1 && gp_app_unsaved(a) == 0;
}

bool gp_app_dirty(const struct gp_app *a)
{
	return gp_app_unsaved(a) > 0;
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* The same file as the one edited (by name or by inode). */
static bool same_file(const char *a, const char *b)
{
	struct stat x, y;
	if (!strcmp(a, b))
		return true;
	return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev &&
	       x.st_ino == y.st_ino;
}

/* Reloads the run from the file just saved: no overrides, undo afresh.
 * path may be the run's own (s saves over a->run.path), which the
 * reload frees: everything after it names the copy. */
static void reload_saved(struct gp_app *a, const char *path, int n, bool other)
{
	struct gp_err le = { "" };
	char *p = strdup(path);
	void (*progress)(void *, const struct gp_progress *) = a->run.progress;
	void *ud = a->run.progress_ud;
	if (!p) {
		gp_app_say(a, GP_R_ERROR, "saved %s, but it does not load back: out of memory", path);
		return;
	}
	if (gp_run_load(&a->run, p, NULL, 0, &le)) {
		gp_app_say(a, GP_R_ERROR, "saved %s, but it does not load back: %s", p, le.msg);
		free(p);
		return;
	}
	a->run.progress = progress;
	a->run.progress_ud = ud;
	a->base_sets = 0;
	a->job_top = -1;   /* a re-plan on its way is no longer the edit's */
	gp_app_clear_redo(a);
	gp_app_mark_saved(a);
	gp_app_simulate(a);
	char what[64] = "no edits";
	if (n)
		snprintf(what, sizeof what, "%d edit%s; undo starts afresh", n, n == 1 ? "" : "s");
	gp_app_say(a, GP_R_OK, "saved %s (%s)%s", p, what, other ? ": the file edited from now on" : "");
	free(p);
}

/* Saves to path: over the file itself only when nothing would be lost. */
static void save_to(struct gp_app *a, const char *path)
{
	struct gp_err e = { "" };
	bool self = same_file(path, a->run.path);
	if (self) {
		struct gp_scenario *orig = gp_scenario_load(a->run.path, &e);
		bool same = orig && gp_scenario_file_is_canonical(a->run.path, orig);
		gp_scenario_free(orig);
		if (!same) {
			gp_app_say(a, GP_R_WARN, "not saved: %s has comments or written-out values a save would drop; S saves to another file",
				   a->run.path);
			return;
		}
	}
	if (gp_scenario_save(path, a->run.sc, &e)) {
		gp_app_say(a, GP_R_ERROR, "%s", e.msg);   /* "PATH: not saved: why" */
		return;
	}
	reload_saved(a, path, gp_app_unsaved(a), !self);
}

void gp_app_save(struct gp_app *a)
{
	save_to(a, a->run.path);
}

/* Asks before path is replaced: the answer comes to
 * gp_app_overwrite_key. */
static bool ask_first(struct gp_app *a, const char *path, enum gp_mode what)
{
	if (!exists(path) || (what == GP_MODE_SAVE_AS && same_file(path, a->run.path)))
		return false;
	snprintf(a->pending, sizeof a->pending, "%s", path);
	a->pending_mode = what;
	a->mode = GP_MODE_OVERWRITE;
	gp_app_say(a, GP_R_WARN, "%s exists: y replaces it, any other key keeps it", path);
	return true;
}

void gp_app_save_as(struct gp_app *a, const char *path)
{
	if (!path[0]) {
		gp_app_say(a, GP_R_WARN, "not saved: no file name");
		return;
	}
	snprintf(a->save_path, sizeof a->save_path, "%s", path);
	if (!ask_first(a, path, GP_MODE_SAVE_AS))
		save_to(a, path);
}

static void write_shot(struct gp_app *a, const char *path)
{
	enum gp_export_fmt fmt;
	if (gp_export_format_of(path, &fmt)) {
		gp_app_say(a, GP_R_ERROR, "not written: %s: the name must end in .svg, .html, .txt or .ans",
			   path);
		return;
	}
	a->status[0] = 0;
	enum gp_mode m = a->mode;
	a->mode = GP_MODE_NORMAL;   /* the screen without the prompt */
	gp_app_draw(a);
	a->mode = m;
	struct gp_ofile o;
	struct gp_err e = { "" };
	int rc = gp_ofile_open(&o, path, &e);
	if (rc == 0 && gp_export(o.f, &a->cv, fmt, a->th->paper_fg, a->th->paper_bg,
				 a->run.sc ? a->run.sc->name : "geoplan")) {
		gp_ofile_discard(&o);
		rc = gp_errf(&e, "%s: write failed", path);
	} else if (rc == 0) {
		rc = gp_ofile_commit(&o, &e);
	}
	if (rc)
		gp_app_say(a, GP_R_ERROR, "not written: %s", e.msg);
	else
		gp_app_say(a, GP_R_OK, "wrote %s (%d x %d cells)", path, a->cv.w, a->cv.h);
}

void gp_app_export(struct gp_app *a, const char *path)
{
	if (!path[0]) {
		gp_app_say(a, GP_R_WARN, "not written: no file name");
		return;
	}
	if (!ask_first(a, path, GP_MODE_EXPORT))
		write_shot(a, path);
}

void gp_app_export_name(const struct gp_app *a, char *buf, size_t n)
{
	const char *v = gp_app_view(a->view)->name;
	snprintf(buf, n, "geoplan-%s.svg", v);
	for (int k = 2; exists(buf) && k < 1000; k++)
		snprintf(buf, n, "geoplan-%s-%d.svg", v, k);
}

void gp_app_overwrite_key(struct gp_app *a, const struct gp_key *k)
{
	a->mode = GP_MODE_NORMAL;
	if (k->code != 'y' && k->code != 'Y') {
		gp_app_say(a, GP_R_DIM, "%s kept: nothing written", a->pending);
		return;
	}
	if (a->pending_mode == GP_MODE_SAVE_AS)
		save_to(a, a->pending);
	else
		write_shot(a, a->pending);
}

void gp_app_free_saved(struct gp_app *a)
{
	free_saved(a);
}
