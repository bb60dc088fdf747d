/*
 * app.c: the terminal planner's state and its keys (app.h): loading,
 * the modes (normal, editing a value, searching, naming a file,
 * confirming quit) and the dispatch of actions to the screen shown, then
 * to the global ones (app_edit.c does the edits, saves and exports).
 */
#include "app.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "override.h"

static const struct gp_view_ops *const views[GP_V__N] = {
	[GP_V_SCENARIO] = &gp_view_scenario, [GP_V_PLAN] = &gp_view_plan,
	[GP_V_GANTT] = &gp_view_gantt, [GP_V_SOLVER] = &gp_view_solver,
	[GP_V_COMPARE] = &gp_view_compare, [GP_V_HELP] = &gp_view_help,
};

const struct gp_view_ops *gp_app_view(int id)
{
	return id >= 0 && id < GP_V__N ? views[id] : NULL;
}

void gp_app_say(struct gp_app *a, enum gp_role role, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->status, sizeof a->status, fmt, ap);
	va_end(ap);
	/* One line: a message's own line breaks become spaces. */
	for (char *p = a->status; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	a->status_role = role;
}

/* The log (log.h) and the planning thread (worker.h). */
static int start_worker(struct gp_app *a, bool hold, struct gp_err *e)
{
	a->log = gp_log_new();
	if (!a->log)
		return gp_errf(e, "out of memory");
	a->worker = gp_worker_new(hold, -1, gp_log_script, a->log, e);
	if (!a->worker)
		return -1;
	gp_log_set_wake(a->log, gp_worker_fd(a->worker));
	a->hold = hold;
	a->live = true;
	a->job_top = -1;
	a->lg.top = a->lg.line = -1;
	a->lg.focus = true;   /* the log is what scrolls */
	return 0;
}

/* The themes, config.lua and what they say; what is wrong with them
 * goes to the log and the status line (the planner still starts). */
static void setup_looks(struct gp_app *a, const struct gp_app_opts *o)
{
	gp_themes_load(&a->themes, gp_log_script, a->log);
	struct gp_err ce = { "" };
	if (gp_config_load(o->config, &a->cfg, &ce)) {
		gp_log_post(a->log, GP_LOG_ERROR, ce.msg);
		gp_config_load(NULL, &a->cfg, &ce);
		a->config_refused = true;
	}
	if (a->cfg.mouse >= 0)
		a->mouse = a->cfg.mouse;
	if (a->cfg.live >= 0)
		a->live = a->cfg.live;
	const char *name = o->theme_name ? o->theme_name : a->cfg.theme[0] ? a->cfg.theme : "dark";
	a->th = o->theme ? o->theme : gp_themes_find(&a->themes, name);
	if (!a->th) {
		char msg[128];
		snprintf(msg, sizeof msg, "no theme '%s': dark instead", name);
		gp_log_post(a->log, GP_LOG_WARN, msg);
		a->th = gp_themes_find(&a->themes, "dark");
	}
	if (!a->th)
		a->th = gp_theme_default();
}

int gp_app_init(struct gp_app *a, const struct gp_app_opts *o, struct gp_err *e)
{
	memset(a, 0, sizeof *a);
	gp_run_init(&a->run);
	if (start_worker(a, o->hold, e))
		return -1;
	a->run.plan_optional = true;
	a->run.cost_path = o->cost_model;
	a->run.heur_path = o->heuristic;
	a->run.xlate = gp_ov_xlate;
	/* A script's prints and warnings: the log pane. */
	a->run.log = gp_log_script;
	a->run.log_ud = a->log;
	gp_cl_init(&a->cl, o->history);
	a->mouse = true;
	setup_looks(a, o);
	a->ascii = o->ascii;
	a->w = o->w > 0 ? o->w : 80;
	a->h = o->h > 0 ? o->h : 24;
	a->view = GP_V_SCENARIO;
	a->gt.fitted = true;
	a->gt.span = a->gt.pick = -1;
	if (gp_run_load(&a->run, o->file, o->sets, o->nsets, e))
		return -1;
	a->base_sets = a->run.nsets;
	gp_app_mark_saved(a);
	/* What the batch commands warn of on loading (steps.c): the log,
	 * and the status line while nothing newer is said. */
	char doubt[256], line[600];
	bool doubts = gp_scenario_doubt(a->run.sc, doubt, sizeof doubt);
	if (doubts) {
		snprintf(a->open_warn, sizeof a->open_warn, "warning: %s: %s", o->file, doubt);
		gp_log_post(a->log, GP_LOG_WARN, a->open_warn);
	}
	if (!gp_run_plan_of(&a->run) && a->run.plan_note[0]) {
		gp_app_bare(a, a->run.plan_note, a->open_note, sizeof a->open_note);
		snprintf(line, sizeof line, "%s: the file's plan is left out: %s", o->file,
			 a->open_note);
		gp_log_post(a->log, GP_LOG_WARN, line);
	}
	if (gp_run_plan_of(&a->run)) {
		gp_app_simulate(a);
		char t[24];
		gp_unit_format(gp_app_now_time(a), GP_U_TIME, t, sizeof t);
		const char *cfg = a->config_refused ? "; config.lua refused, its defaults used (4 shows why)"
						    : "";
		if (a->run.has_res && doubts)
			gp_app_say(a, GP_R_WARN, "%s: iteration %s; warning: %s%s", o->file, t, doubt, cfg);
		else if (a->run.has_res && cfg[0])
			gp_app_say(a, GP_R_WARN, "%s: iteration %s%s", o->file, t, cfg);
		else if (a->run.has_res)
			gp_app_say(a, GP_R_STATUS, "%s: iteration %s; ? for help", o->file, t);
	} else {
		gp_app_plan(a);
		a->open_plan = true;
	}
	return 0;
}

void gp_app_free(struct gp_app *a)
{
	gp_worker_free(a->cmp);      /* first: they may still post to the log */
	gp_worker_free(a->worker);
	gp_log_free(a->log);
	gp_pin_free(a->pin);
	gp_pin_free(a->prev);
	free(a->joined);
	if (a->has_gantt)
		gp_gantt_free(&a->gantt);
	for (int i = 0; i < a->nredo; i++)
		free(a->redo[i].set);
	free(a->redo);
	gp_app_free_saved(a);
	free(a->replan_set);
	for (int i = 0; i < a->nmade; i++)
		free(a->made[i].set);
	free(a->made);
	gp_cv_free(&a->cv);
	gp_cl_free(&a->cl);
	free(a->table);
	gp_run_free(&a->run);
	memset(a, 0, sizeof *a);
}

bool gp_app_too_small(const struct gp_app *a)
{
	return a->w < GP_APP_MIN_W || a->h < GP_APP_MIN_H;
}

/* Enter or Esc in the editor. */
static void editor_done(struct gp_app *a, bool enter)
{
	enum gp_mode m = a->mode;
	a->status[0] = 0;
	if (!enter) {
		a->mode = GP_MODE_NORMAL;
		gp_app_say(a, GP_R_DIM, m == GP_MODE_EDIT ? "edit cancelled: %s kept" : "cancelled",
			   a->editing.shown);
		return;
	}
	if (m == GP_MODE_EDIT) {
		/* Committed or refused: the status line has the whole line
		 * for what happened (the old value stays on refusal). */
		a->mode = GP_MODE_NORMAL;
		gp_app_commit(a, a->ed.buf);
	} else if (m == GP_MODE_SEARCH) {
		snprintf(a->search, sizeof a->search, "%s", a->ed.buf);
		a->mode = GP_MODE_NORMAL;
		struct gp_key k = { 0 };
		if (!a->search[0])
			gp_app_say(a, GP_R_DIM, "no search");
		else if (!views[a->view]->action(a, GP_A_SEARCH_NEXT, &k))
			gp_app_say(a, GP_R_WARN, "nothing to search on this screen");
	} else if (m == GP_MODE_SAVE_AS) {
		a->mode = GP_MODE_NORMAL;
		gp_app_save_as(a, a->ed.buf);
	} else if (m == GP_MODE_EXPORT) {
		a->mode = GP_MODE_NORMAL;
		gp_app_export(a, a->ed.buf);
	} else if (m == GP_MODE_COMMAND) {
		a->mode = GP_MODE_NORMAL;
		char line[GP_ED_MAX];
		snprintf(line, sizeof line, "%s", a->ed.buf);
		if (gp_cl_add(&a->cl, line))
			gp_log_post(a->log, GP_LOG_WARN, "the command history file cannot be written");
		gp_app_command(a, line);
	}
}

static void editor_key(struct gp_app *a, const struct gp_key *k)
{
	if (k->code == GP_K_ENTER) {
		editor_done(a, true);
	} else if (k->code == GP_K_ESC || k->code == GP_K_CTRL('c')) {
		editor_done(a, false);
	} else if ((k->code == GP_K_UP || k->code == GP_K_DOWN) && a->mode == GP_MODE_EDIT &&
		   a->editing.choices[0]) {
		gp_app_cycle_choice(a, k->code == GP_K_DOWN ? 1 : -1);
	} else if ((k->code == GP_K_UP || k->code == GP_K_DOWN) && a->mode == GP_MODE_COMMAND) {
		const char *h = gp_cl_browse(&a->cl, k->code == GP_K_DOWN ? 1 : -1, a->ed.buf);
		if (h) {
			gp_ed_set(&a->ed, h);
			a->ed.fresh = false;
		}
	} else if (k->code == GP_K_TAB && a->mode == GP_MODE_COMMAND) {
		gp_app_complete(a);
	} else if (gp_ed_key(&a->ed, k) && a->mode == GP_MODE_EDIT) {
		gp_app_check_typed(a);   /* validated as it is typed */
	}
}

bool gp_app_editing(const struct gp_app *a)
{
	return a->mode == GP_MODE_EDIT || a->mode == GP_MODE_SEARCH ||
	       a->mode == GP_MODE_SAVE_AS || a->mode == GP_MODE_EXPORT || a->mode == GP_MODE_COMMAND;
}

/* The quit prompt: S when s would refuse (the file is not canonical). */
static void ask_quit(struct gp_app *a)
{
	struct gp_err e = { "" };
	struct gp_scenario *orig = gp_scenario_load(a->run.path, &e);
	bool canonical = orig && gp_scenario_file_is_canonical(a->run.path, orig);
	gp_scenario_free(orig);
	int n = gp_app_unsaved(a);
	a->mode = GP_MODE_QUIT;
	gp_app_say(a, GP_R_WARN, "%d unsaved edit%s: q quits and loses %s, %s, Esc stays", n,
		   n == 1 ? "" : "s", n == 1 ? "it" : "them",
		   canonical ? "s saves" : "S saves as another file");
}

static void start_prompt(struct gp_app *a, enum gp_mode m, const char *prompt, const char *text)
{
	a->mode = m;
	gp_ed_start(&a->ed, prompt, text);
	gp_app_say(a, GP_R_DIM, "%s", text[0] ? "Enter takes it, typing replaces it, Esc cancels"
					      : "Enter takes it, Esc cancels");
}

static void quit_key(struct gp_app *a, const struct gp_key *k)
{
	a->mode = GP_MODE_NORMAL;
	if (k->code == 'q' || k->code == 'y' || k->code == GP_K_F(10) || k->code == GP_K_CTRL('c'))
		a->quit = true;
	else if (k->code == 's')
		gp_app_save(a);
	else if (k->code == 'S')
		start_prompt(a, GP_MODE_SAVE_AS, "save as", a->save_path);
	else
		gp_app_say(a, GP_R_DIM, "not quitting");
}

static void start_edit(struct gp_app *a)
{
	const struct gp_field *f = views[a->view]->field ? views[a->view]->field(a) : NULL;
	if (!f || !f->path[0]) {
		gp_app_say(a, GP_R_WARN, "nothing to edit here%s",
			   a->view == GP_V_SCENARIO ? " (this value is read-only)"
						    : "; the scenario screen (1) edits values");
		return;
	}
	if (f->command) {   /* a value not there yet: the command that adds it */
		a->mode = GP_MODE_COMMAND;
		gp_cl_reset(&a->cl);
		gp_ed_start(&a->ed, ":", f->path);
		a->ed.fresh = false;   /* typing fills in, the caret at the first "()" */
		const char *gap = strstr(a->ed.buf, "()");
		if (gap)
			a->ed.cur = (int)(gap - a->ed.buf) + 1;
		gp_app_say(a, GP_R_DIM, "fill in the figures; Enter adds it, Esc cancels");
		return;
	}
	a->editing = *f;
	a->mode = GP_MODE_EDIT;
	gp_ed_start(&a->ed, f->path, f->shown);
	gp_app_check_typed(a);
}

/* The actions every screen shares. */
static void global_action(struct gp_app *a, int act)
{
	switch (act) {
	case GP_A_QUIT:
		if (gp_app_dirty(a))
			ask_quit(a);
		else
			a->quit = true;
		break;
	case GP_A_HELP: a->view = a->view == GP_V_HELP ? GP_V_SCENARIO : GP_V_HELP; break;
	case GP_A_VIEW_SCENARIO: a->view = GP_V_SCENARIO; break;
	case GP_A_VIEW_PLAN: a->view = GP_V_PLAN; break;
	case GP_A_VIEW_GANTT: a->view = GP_V_GANTT; break;
	case GP_A_VIEW_SOLVER: a->view = GP_V_SOLVER; break;
	case GP_A_VIEW_COMPARE: a->view = GP_V_COMPARE; break;
	case GP_A_PIN: gp_app_pin(a); break;
	case GP_A_EDIT: start_edit(a); break;
	case GP_A_SEARCH: start_prompt(a, GP_MODE_SEARCH, "/", a->search); break;
	case GP_A_SEARCH_NEXT: case GP_A_SEARCH_PREV:
		gp_app_say(a, GP_R_WARN, a->search[0] ? "nothing to search on this screen"
						      : "no search yet: / searches");
		break;
	case GP_A_UNDO: gp_app_undo(a); break;
	case GP_A_REDO: gp_app_redo(a); break;
	case GP_A_SAVE: gp_app_save(a); break;
	case GP_A_SAVE_AS: start_prompt(a, GP_MODE_SAVE_AS, "save as", a->save_path); break;
	case GP_A_EXPORT: {
		char name[256];
		gp_app_export_name(a, name, sizeof name);
		start_prompt(a, GP_MODE_EXPORT, "write the screen to", name);
		break;
	}
	case GP_A_PLAN: gp_app_plan(a); break;
	case GP_A_COMMAND:
		a->mode = GP_MODE_COMMAND;
		gp_cl_reset(&a->cl);
		gp_ed_start(&a->ed, ":", "");
		gp_app_say(a, GP_R_DIM, "Tab completes, Up recalls, Enter runs, Esc cancels; :help");
		break;
	case GP_A_CANCEL:
		if (!gp_app_cancel_job(a))
			a->status[0] = 0;
		break;
	default: break;
	}
}

static void click(struct gp_app *a, const struct gp_key *k)
{
	if (k->y == 0) {
		int v = gp_frame_tab_at(a, k->x);
		if (v >= 0)
			a->view = v;
	} else if (k->y == a->h - 1) {
		int act = gp_frame_bar_at(a, k->x);
		if (act != GP_A_NONE)
			global_action(a, act);
	} else if (k->y >= a->view_rect.y && k->y < a->view_rect.y + a->view_rect.h &&
		   views[a->view]->click) {
		views[a->view]->click(a, k->x, k->y - a->view_rect.y);
	}
}

/* The wheel scrolls rows; with Shift it moves in time (the Gantt's,
 * and across on the other screens), WHEEL_STEP columns a notch. */
#define WHEEL_STEP 4

static void wheel(struct gp_app *a, const struct gp_key *k)
{
	bool up = k->button == 4;
	if (!k->shift) {
		views[a->view]->action(a, up ? GP_A_UP : GP_A_DOWN, k);
		return;
	}
	for (int i = 0; i < WHEEL_STEP; i++)
		views[a->view]->action(a, up ? GP_A_LEFT : GP_A_RIGHT, k);
}

void gp_app_key(struct gp_app *a, const struct gp_key *k)
{
	if (k->code == GP_K_RESIZE) {
		a->w = k->x;
		a->h = k->y;
		if (a->quit_armed && !gp_app_too_small(a)) {   /* the edit goes on */
			a->quit_armed = false;
			a->status[0] = 0;
			if (a->mode == GP_MODE_EDIT)
				gp_app_check_typed(a);
		}
		return;
	}
	if (k->code == GP_K_WAIT) {
		gp_app_wait(a, k->x);
		return;
	}
	if (gp_app_too_small(a)) {
		/* q and resizes still work (and quitting still asks, of an
		 * edit half typed too: a larger terminal finishes it). */
		bool q = k->code == 'q' || k->code == GP_K_F(10);
		if (a->mode == GP_MODE_QUIT) {
			quit_key(a, k);
		} else if (q && gp_app_editing(a) && !a->quit_armed) {
			a->quit_armed = true;
			gp_app_say(a, GP_R_WARN, "an edit is half typed: q again quits and loses it");
		} else if (q) {
			global_action(a, GP_A_QUIT);
		}
		return;
	}
	a->quit_armed = false;
	if (gp_app_editing(a)) {
		editor_key(a, k);
		return;
	}
	if (a->mode == GP_MODE_QUIT) {
		quit_key(a, k);
		return;
	}
	if (a->mode == GP_MODE_OVERWRITE) {
		gp_app_overwrite_key(a, k);
		return;
	}
	if (a->table && k->code != GP_K_MOUSE) {
		free(a->table);   /* a command's answer: any key closes it */
		a->table = NULL;
		return;
	}
	a->status[0] = 0;   /* a message lasts until the next key */
	if (k->code == GP_K_MOUSE) {
		if (!a->mouse)
			return;
		free(a->table);
		a->table = NULL;
		if (k->button == 1)
			click(a, k);
		else if (k->button == 4 || k->button == 5)
			wheel(a, k);
		return;
	}
	int act = gp_config_action(&a->cfg, k->code);
	if (act == GP_A_NONE)
		act = gp_keymap_lookup(a->view, k->code);
	if (views[a->view]->action(a, act, k))
		return;
	if (act == GP_A_NONE) {
		char nm[16];
		gp_key_name(k->code, nm, sizeof nm);
		gp_app_say(a, GP_R_DIM, "%s does nothing here; ? lists the keys", nm);
		return;
	}
	global_action(a, act);
}
