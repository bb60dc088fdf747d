/*
 * app.h: the terminal planner as one value: the run it shows (core's
 * pipeline), its screens (views), the key map, the editor, undo and the
 * status line. The app knows nothing of the terminal: it takes keys and
 * draws into a canvas, so the interactive face (cmd_tui.c, display.c),
 * the headless replay and `geoplan shot` drive the very same code.
 */
#ifndef GP_APP_H
#define GP_APP_H

#include <stdbool.h>
#include "canvas.h"
#include "editor.h"
#include "gantt.h"
#include "keys.h"
#include "run.h"
#include "theme.h"
#include "units.h"

enum gp_view_id { GP_V_SCENARIO, GP_V_PLAN, GP_V_GANTT, GP_V_HELP, GP_V__N };

/* The smallest terminal the screens are laid out for. */
#define GP_APP_MIN_W 60
#define GP_APP_MIN_H 16

/* An editable value of a screen: what it shows and how an edit becomes
 * a scenario override ("PATH=VALUE"). */
struct gp_field {
	char path[160];              /* override path; "" read-only */
	enum gp_unit unit;
	bool text;                   /* a name or an enum: written as a quoted string */
	bool positive;               /* 0 is refused too (an efficiency) */
	double value;
	char shown[48];              /* as the screen shows it */
	char choices[384];           /* text: what it can be, "a|b|c" ("": any name) */
};

struct gp_app;

/* A screen: a table of operations, as tig's views and htop's panels. */
struct gp_view_ops {
	const char *name;            /* "scenario": --view, :export */
	const char *title;           /* the tab's label */
	void (*draw)(struct gp_app *a, struct gp_canvas *cv, struct gp_rect r);
	/* An action (actions.h) or a typed key: true if handled. */
	bool (*action)(struct gp_app *a, int action, const struct gp_key *k);
	/* A left click at (x, y) in the view's rectangle. */
	void (*click)(struct gp_app *a, int x, int y);
	/* The field under the cursor, for editing (NULL: none). */
	const struct gp_field *(*field)(struct gp_app *a);
	/* What the status line says when nothing else does. */
	void (*status)(struct gp_app *a, char *buf, size_t n);
};

/* Where a form screen (form.h) is: its cursor and how it scrolls. */
struct gp_form_cursor {
	int line, cell;              /* a line of the form, a cell in it */
	int top;                     /* the first line shown */
	int left;                    /* columns the cursor's section is scrolled by */
	int lsec;                    /* the section left applies to */
	int vw, vh;                  /* the form's width and height at the last draw */
	bool read;                   /* no cursor: the lines scroll (help) */
};

struct gp_gantt_state {
	double t0, dt;               /* the viewport: start, seconds per column */
	double tc;                   /* the cursor's time */
	int row, top;                /* the cursor's row, the first row shown */
	int cols, rows;              /* chart size at the last draw */
	int span;                    /* the span under the cursor, -1 none */
	int pick;                    /* the span a jump put the cursor on (where
				      * spans overlap, the one meant), -1 none */
	int pick_row;
	double pick_tc;
	bool fitted;                 /* fit at the next draw */
	bool zoomed;                 /* the user zoomed or panned: keep it on resizes */
};

enum gp_mode { GP_MODE_NORMAL, GP_MODE_EDIT, GP_MODE_SEARCH, GP_MODE_SAVE_AS,
	       GP_MODE_EXPORT, GP_MODE_QUIT, GP_MODE_OVERWRITE };

/* A long step (planning) as the face runs it: step(arg) must not touch
 * the screen or the app's state but a->run. */
typedef void (*gp_app_step_fn)(void *arg);

struct gp_app {
	struct gp_run run;
	struct gp_gantt gantt;
	bool has_gantt;
	const struct gp_theme *th;
	bool ascii;
	int view;
	int w, h;
	bool quit;
	enum gp_mode mode;
	struct gp_editor ed;
	struct gp_field editing;     /* the field the editor commits to */
	char status[512];
	enum gp_role status_role;
	char problem[512];           /* why there is no plan or iteration, or "" */
	char **redo;                 /* overrides undone, the last first */
	int nredo, capredo;
	char **saved;                /* the overrides as saved (file and sets at the
				      * last save, or at loading) */
	int nsaved;
	char save_path[512];         /* the last file saved as */
	char pending[512];           /* GP_MODE_OVERWRITE: the file to write */
	enum gp_mode pending_mode;   /* what writes it: GP_MODE_SAVE_AS or _EXPORT */
	/* The plan p made, kept as the override plan_set (so undo, save
	 * and the quit prompt treat it as an edit), and how it was found. */
	char *plan_set;
	struct gp_plan_report plan_rep;
	char search[128];
	double prev_time;            /* the iteration before the last edit */
	struct gp_form_cursor sc, pl, help;
	struct gp_gantt_state gt;
	struct gp_canvas cv;         /* the screen as last drawn */
	struct gp_rect view_rect;    /* where its view went */
	/* Runs a long step, what (the status line) saying what it is: the
	 * terminal runs it on a worker thread, reading keys meanwhile (Esc
	 * and C-c cancel it through gp_run_cancel) and showing the run's
	 * progress; NULL: run it here (headless). */
	void (*run_long)(struct gp_app *a, const char *what, gp_app_step_fn step, void *arg);
	void *ud;
};

extern const struct gp_view_ops gp_view_scenario, gp_view_plan, gp_view_gantt, gp_view_help;
const struct gp_view_ops *gp_app_view(int id);

struct gp_app_opts {
	const char *file;
	const char *const *sets;
	int nsets;
	const struct gp_theme *theme;
	bool ascii;
	int w, h;
	const char *cost_model;   /* --cost-model */
	const char *heuristic;    /* --heuristic */
	/* The face's way of running long steps (struct gp_app), planning
	 * at start included. */
	void (*run_long)(struct gp_app *a, const char *what, gp_app_step_fn step, void *arg);
	void *ud;
};

/* Loads the scenario and simulates its plan (or plans it when it has
 * none). A scenario that does not load is an error (e says why); a plan
 * that fails is shown as a message, and the screens still work. */
int gp_app_init(struct gp_app *a, const struct gp_app_opts *o, struct gp_err *e);
void gp_app_free(struct gp_app *a);
/* One key (resizes and clicks included). */
void gp_app_key(struct gp_app *a, const struct gp_key *k);
/* The whole screen into a->cv (sized to the app). */
void gp_app_draw(struct gp_app *a);
/* Where the terminal's cursor goes (the editor's caret, else the
 * focused cell, for screen readers): -1 to hide. */
void gp_app_cursor(const struct gp_app *a, int *x, int *y);

/* Status line messages (printf). */
void gp_app_say(struct gp_app *a, enum gp_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Simulates the run's plan again (recording the timeline) and rebuilds
 * the Gantt's model; says what it costs when it fails. */
void gp_app_simulate(struct gp_app *a);
/* Applies an override from a screen (an edit): one undo step. */
bool gp_app_set(struct gp_app *a, const char *set);
/* Plans anew with the default engine (through run_long); the plan
 * becomes an edit: the override plan = { ... }. */
void gp_app_plan(struct gp_app *a);
/* Edits since the last save (or loading): overrides not saved plus
 * saved ones undone. */
int gp_app_unsaved(const struct gp_app *a);
bool gp_app_dirty(const struct gp_app *a);
/* The report of how the plan looked at was found when p made it (NULL:
 * the file's own); *since: edits made after it. */
const struct gp_plan_report *gp_app_plan_report(const struct gp_app *a, int *since);

/* The share of the GPUs' time idle over the iteration (the bubble is
 * over the compute only), and of it after the last backward (waiting
 * for DP sync and the optimizer): the plan screen's and the Gantt's. */
double gp_plan_idle(const struct gp_result *r);
double gp_plan_idle_after(const struct gp_result *r);

/* Formats the value of a field; fills f->shown. */
void gp_field_show(struct gp_field *f);

/* Internal to the app's files (app*.c, frame.c). */
bool gp_app_too_small(const struct gp_app *a);
/* The status line holds an editor (a value, a search, a file name). */
bool gp_app_editing(const struct gp_app *a);
/* The editor's text as the value of a->editing: true when committed. */
bool gp_app_commit(struct gp_app *a, const char *text);
/* Says what the text typed so far would be, or why it is refused. */
void gp_app_check_typed(struct gp_app *a);
/* Up/Down in the editor of a field with choices: the next one. */
void gp_app_cycle_choice(struct gp_app *a, int dir);
void gp_app_undo(struct gp_app *a);
void gp_app_redo(struct gp_app *a);
void gp_app_clear_redo(struct gp_app *a);
/* The iteration time now (NAN: none), and the status line's "what:
 * iteration 2.681s -> 3.385s (+26.3 %)" after a change. */
double gp_app_now_time(const struct gp_app *a);
void gp_app_say_change(struct gp_app *a, const char *what, double before);
/* A loader's message without the file name it starts with, DCs named
 * as the screens name them (dcs[ams], not dcs[1]). */
void gp_app_bare(const struct gp_app *a, const char *msg, char *buf, size_t n);
/* Records the overrides as saved. */
void gp_app_mark_saved(struct gp_app *a);
void gp_app_free_saved(struct gp_app *a);
void gp_app_save(struct gp_app *a);
/* Saving as and writing a screenshot ask before they overwrite a file
 * (the answer comes as a key in GP_MODE_OVERWRITE). */
void gp_app_save_as(struct gp_app *a, const char *path);
void gp_app_export(struct gp_app *a, const char *path);
void gp_app_overwrite_key(struct gp_app *a, const struct gp_key *k);
/* The first geoplan-VIEW[-N].svg that does not exist. */
void gp_app_export_name(const struct gp_app *a, char *buf, size_t n);
/* The tab (view id) or the bar's action at column x, or -1 / GP_A_NONE. */
int gp_frame_tab_at(const struct gp_app *a, int x);
int gp_frame_bar_at(const struct gp_app *a, int x);
/* Where the screen shown goes (below the tabs, above the status lines
 * and the bar). */
struct gp_rect gp_frame_view_rect(const struct gp_app *a);
/* While a long step runs: only the status lines of a->cv, over the
 * last frame (nothing of the run is read). */
void gp_frame_busy(struct gp_app *a, const char *text);
/* The frame: tabs, the view, the status line, the function-key bar. */
void gp_frame_draw(struct gp_app *a, struct gp_canvas *cv);

#endif
