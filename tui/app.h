/*
 * app.h: the terminal planner as one value: the run it shows (core's
 * pipeline), its screens (views), the key map, the editor, undo and the
 * status line, and the planning thread that re-plans after each edit.
 * The app knows nothing of the terminal: it takes keys and draws into a
 * canvas, so the interactive face (cmd_tui.c, display.c), the headless
 * replay and `geoplan shot` drive the very same code.
 */
#ifndef GP_APP_H
#define GP_APP_H

#include <stdbool.h>
#include "canvas.h"
#include "cmdline.h"
#include "editor.h"
#include "gantt.h"
#include "keys.h"
#include "log.h"
#include "pin.h"
#include "run.h"
#include "theme.h"
#include "units.h"
#include "worker.h"

enum gp_view_id { GP_V_SCENARIO, GP_V_PLAN, GP_V_GANTT, GP_V_SOLVER, GP_V_COMPARE, GP_V_HELP,
		  GP_V__N };

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
	bool none;                   /* 0 means there is none: shown and typed as "none" */
	double value;
	char shown[48];              /* as the screen shows it */
	char choices[384];           /* text: what it can be, "a|b|c" ("": any name) */
	bool command;                /* path is a command line to start from (a
				      * link not there yet: :set links[a-b]=...) */
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
	       GP_MODE_EXPORT, GP_MODE_QUIT, GP_MODE_OVERWRITE, GP_MODE_COMMAND };

/* config.lua (config.c): what the user wrote; -1: not said. */
#define GP_CONFIG_KEYS 64
struct gp_config {
	char theme[32];
	int mouse, live;
	struct {
		int key, action;
	} keys[GP_CONFIG_KEYS];
	int nkeys;
};

/* $XDG_CONFIG_HOME/geoplan/config.lua, else ~/.config/geoplan/config.lua. */
void gp_config_path(char *buf, size_t n);
/* Reads path (none there: the defaults, 0); -1 with e when it is wrong. */
int gp_config_load(const char *path, struct gp_config *c, struct gp_err *e);
/* The action config binds key to, or GP_A_NONE. */
int gp_config_action(const struct gp_config *c, int key);

/* What a planning job is for (app_plan.c). */
enum gp_purpose {
	GP_JOB_LIVE,                 /* re-planning after an edit: undone with it */
	GP_JOB_ASKED,                /* p, :plan: an edit of its own */
	GP_JOB_COMPARE,              /* :compare ENGINE: the compare screen's A */
};

/* An override undone with the one before it (a live re-plan with its
 * edit), kept beside redo's. */
struct gp_redo {
	char *set;
	bool joined;
};

/* Where the solver screen's log pane is. */
struct gp_log_cursor {
	int top;                     /* the first line shown, -1: follow the end */
	int line;                    /* the line searched to, -1: none */
	int vw, vh;                  /* the pane's size at the last draw */
	bool focus;                  /* Tab: the log pane has the keys */
};

struct gp_app {
	struct gp_run run;
	struct gp_gantt gantt;
	bool has_gantt;
	const struct gp_theme *th;
	bool ascii;
	int view;
	int w, h;
	bool quit;
	bool quit_armed;             /* too small, an edit open: q asked once */
	bool no_cursor;              /* shot --no-cursor: the Gantt's cursor undrawn */
	enum gp_mode mode;
	struct gp_editor ed;
	struct gp_field editing;     /* the field the editor commits to */
	char status[512];
	enum gp_role status_role;
	char problem[512];           /* why there is no plan or iteration, or "" */
	struct gp_redo *redo;        /* overrides undone, the last first */
	int nredo, capredo;
	char **saved;                /* the overrides as saved (file and sets at the
				      * last save, or at loading) */
	int nsaved;
	char open_warn[400];         /* what loading the file warned of: the
				      * log's, and standard error's at the end */
	bool config_refused;         /* config.lua had errors: its defaults used */
	char open_note[300];         /* why the file's plan was left out on
				      * opening (said with the plan made then) */
	bool saved_open_plan;        /* saved's last is the plan made on
				      * opening a plan-less file: without it
				      * the scenario is the file's too */
	char save_path[512];         /* the last file saved as */
	char pending[512];           /* GP_MODE_OVERWRITE: the file to write */
	enum gp_mode pending_mode;   /* what writes it: GP_MODE_SAVE_AS or _EXPORT */
	/* The plans engines made this session, each kept as its override
	 * (so undo, save and the quit prompt treat it as an edit) with how
	 * it was found, the newest last: undo and redo bring an older plan
	 * back, and its report with it (known by its text and its place:
	 * one text may be two engines' answers to two scenarios) (at most GP_APP_MADE, the oldest
	 * forgotten). */
	struct gp_plan_made {
		char *set;
		int pos;                 /* its place in the overrides */
		struct gp_plan_report rep;
	} *made;
	int nmade;
	char search[128];
	double prev_time;            /* the iteration before the last edit */
	struct gp_form_cursor sc, pl, help;
	struct gp_gantt_state gt;
	struct gp_log_cursor lg;
	struct gp_canvas cv;         /* the screen as last drawn */
	struct gp_rect view_rect;    /* where its view went */
	/* Planning in the background (app_live.c, app_plan.c). */
	struct gp_worker *worker;
	struct gp_log *log;
	bool live;                   /* an edit re-plans at once (else only p) */
	bool hold;                   /* headless: jobs run when the keys wait */
	unsigned job;                /* the job whose plan is awaited, 0: none */
	/* The last live re-plan taken: the plan it replaced, as simulated in
	 * the edited scenario, while the overrides end with that re-plan's
	 * (replan_set, a copy; NULL: none), for the compare screen's B. */
	double replan_before;
	char *replan_set;
	enum gp_purpose job_purpose;
	int job_top;                 /* overrides when it was asked for (-1: saved since) */
	char job_note[160];          /* how the last job ended, for the solver pane */
	const struct gp_engine *engine;   /* what plans (NULL: the default) */
	double time_limit, gap;      /* its limits (0: the engine's) */
	double work_limit;           /* seconds of counted work (0: the default) */
	enum gp_sched schedule;      /* the schedule it plans for, once :plan
				      * schedule= picks one (schedule_picked);
				      * else the plan shown's, 1F1B without one */
	bool schedule_picked;
	int chunks;                  /* :plan chunks=: its chunks (0: the plan
				      * shown's, or the schedule's default) */
	struct gp_job_status js;     /* the job's status as last read */
	int base_sets;               /* overrides given at start: not edits */
	bool open_plan;              /* the job is the plan a plan-less file
				      * gets on opening: not the user's edit */
	/* Compare (app_compare.c): A is pin, else prev; B the plan shown. */
	struct gp_pin *pin;          /* P, :pin, :compare ENGINE */
	struct gp_pin *prev;         /* the plan before the last edit */
	struct gp_worker *cmp;       /* plans other engines' plans for A */
	unsigned cmp_job;
	const struct gp_engine *cmp_engine;
	struct gp_gantt_state cg;    /* the compare screen's chart rows */
	unsigned char *joined;       /* [i]: override i undoes with override i - 1 */
	int capjoined;
	/* The command line (app_cmd.c, app_complete.c). */
	struct gp_cmdline cl;
	bool mouse;                  /* clicks and the wheel are the planner's */
	char *table;                 /* a command's answer over the screen, or NULL */
	char table_title[64];
	/* Themes (theme_file.c) and config.lua (config.c). */
	struct gp_themes themes;
	struct gp_config cfg;
};

extern const struct gp_view_ops gp_view_scenario, gp_view_plan, gp_view_gantt, gp_view_solver,
	gp_view_compare, gp_view_help;
const struct gp_view_ops *gp_app_view(int id);

struct gp_app_opts {
	const char *file;
	const char *const *sets;
	int nsets;
	const struct gp_theme *theme;   /* this one, else by theme_name */
	const char *theme_name;         /* else config.lua's, else dark */
	const char *config;             /* config.lua's path (NULL: none) */
	bool ascii;
	int w, h;
	const char *cost_model;   /* --cost-model */
	const char *heuristic;    /* --heuristic */
	bool hold;                /* headless: planning jobs run only when the
				   * keys wait (<Wait>), so a replay is the same
				   * every time */
	const char *history;      /* the command line's history file (NULL: none) */
};

/* Loads the scenario and simulates its plan (or starts planning it when
 * it has none). A scenario that does not load is an error (e says why);
 * a plan that fails is shown as a message, and the screens still work. */
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
/* Applies an override from a screen (an edit): one undo step; the plan
 * is then stale and re-planned in the background (app_live.c). */
bool gp_app_set(struct gp_app *a, const char *set);
/* Plans anew in the background with the engine chosen; the plan becomes
 * an edit: the override plan = { ... } (app_plan.c). */
void gp_app_plan(struct gp_app *a);

/* app_live.c: the planning thread seen from the app. */
/* After the overrides changed (an edit, undo, redo): re-plans when the
 * plan is stale and live, else drops a re-plan that no longer applies. */
void gp_app_changed(struct gp_app *a);
/* Submits a planning job for the scenario as it is now. */
/* The schedule and chunks a job plans for (see schedule above). */
void gp_app_plan_for(const struct gp_app *a, enum gp_sched *sched, int *chunks);
void gp_app_submit(struct gp_app *a, enum gp_purpose why, const char *label);
/* Takes what the worker has sent (log lines, progress, results): true
 * when the screen changed. */
bool gp_app_poll(struct gp_app *a);
/* Esc: cancels the job; the plan shown stays (stale when it is). */
bool gp_app_cancel_job(struct gp_app *a);
/* Headless: lets the job run until done (reports 0) or until its Nth
 * progress report, then takes what it sent. */
void gp_app_wait(struct gp_app *a, int reports);
/* The plan was made before the last edits (of the scenario, not of the
 * plan): how many of them. */
int gp_app_stale(const struct gp_app *a);
/* A job waits or runs for the plan. */
bool gp_app_busy(const struct gp_app *a);
/* The last override undoes with the one before it. */
bool gp_app_joined(const struct gp_app *a, int i);
void gp_app_set_joined(struct gp_app *a, int i, bool joined);
/* Takes a planning job's result (app_plan.c). */
void gp_app_take_plan(struct gp_app *a, struct gp_job_result *res);

/* app_compare.c: the compare screen's A. */
struct gp_pin *gp_app_side_a(struct gp_app *a);
/* An edit succeeded: before (the state it changed, or NULL) is the plan
 * before it. */
void gp_app_keep_before(struct gp_app *a, struct gp_pin *before, const char *what);
void gp_app_pin(struct gp_app *a);
void gp_app_unpin(struct gp_app *a);
/* A becomes eng's plan for the scenario as it is (in the background). */
void gp_app_compare_engine(struct gp_app *a, const struct gp_engine *eng);
/* The next engine after the one compared last. */
void gp_app_compare_next(struct gp_app *a);
void gp_app_take_compare(struct gp_app *a, struct gp_job_result *res);
/* The scenario changed: an engine's plan on its way is for the old one. */
void gp_app_compare_stale(struct gp_app *a);
/* Edits since the last save (or loading): overrides not saved (a
 * re-plan joined to its edit not counted) plus saved ones undone. */
int gp_app_unsaved(const struct gp_app *a);
/* The overrides are the ones given at start and the plan a plan-less
 * file got on opening, nothing since: that plan is no edit (u does not
 * take it back, the plan screen does not call it one). */
bool gp_app_opening_plan(const struct gp_app *a);
/* An engine's status as the screens say it: "optimal in its space"
 * where a proof names its space (the plan screen, the status line),
 * else gp_milp_status_name's word. */
const char *gp_app_status_word(const struct gp_plan_report *rep);
/* The batch's proof line for rep ("optimal over plans of ...", "none
 * (see the note), searched ..."), "" when it names no space. */
char *gp_app_proof(const struct gp_plan_report *rep, char *buf, size_t n);
bool gp_app_dirty(const struct gp_app *a);
/* The report of how the plan looked at was found when p made it (NULL:
 * the file's own); *since: edits made after it. */
const struct gp_plan_report *gp_app_plan_report(const struct gp_app *a, int *since);

/* The command line: runs one command (":set ..." without the colon);
 * Tab completes the editor's last word. */
void gp_app_command(struct gp_app *a, const char *line);
void gp_app_complete(struct gp_app *a);
/* A command's answer (lines of text), shown over the screen until the
 * next key. */
void gp_app_table(struct gp_app *a, const char *title, const char *text);
/* The commands (for help and the man page's check). */
int gp_cmd_count(void);
void gp_cmd_at(int i, const char **name, const char **args, const char **help);
/* Splits a command line into words at blanks outside quotes and
 * brackets (line is cut up); the count, or -1 past max. */
int gp_cmd_split(char *line, char **argv, int max);
/* app_whatif.c: the commands that answer with a table. */
void gp_cmd_sensitivity(struct gp_app *a, int argc, char **argv);
void gp_cmd_sweep(struct gp_app *a, int argc, char **argv);
void gp_cmd_calibrate(struct gp_app *a, int argc, char **argv);

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
/* The iteration time now (NAN: none). */
double gp_app_now_time(const struct gp_app *a);
/* What a change is said against: the iteration time (NAN: none) and the
 * tokens an iteration trains (0: no scenario). */
struct gp_app_then {
	double time, tokens;
};
struct gp_app_then gp_app_now(const struct gp_app *a);
/* The status line's "what: iteration 2.681s -> 3.385s (+26.3 %)" after
 * a change ("what; why" when nothing simulates now); when the job's
 * tokens per iteration changed, tokens/s first, the iterations being of
 * different work. */
void gp_app_say_change(struct gp_app *a, const char *what, struct gp_app_then before);
/* A loader's message without the file name it starts with (nor the
 * batch's "--set '...'": the path as typed), DCs named as the screens
 * name them (dcs[ams], not dcs[1]), on one line. */
void gp_app_bare(const struct gp_app *a, const char *msg, char *buf, size_t n);
/* A value in the objective's unit (view_solver.c): "28.57s", "$0.0162",
 * "4.86 GB"; "-" when not finite. */
void gp_app_objective_value(const struct gp_app *a, double v, char *buf, size_t n);
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
/* The solver screen's log pane (log_pane.c). */
void gp_log_pane_draw(struct gp_app *a, struct gp_canvas *cv, struct gp_rect r);
bool gp_log_pane_action(struct gp_app *a, int act);
/* The tab (view id) or the bar's action at column x, or -1 / GP_A_NONE. */
int gp_frame_tab_at(const struct gp_app *a, int x);
int gp_frame_bar_at(const struct gp_app *a, int x);
/* Where the screen shown goes (below the tabs, above the status lines
 * and the bar), for the message's lines; a frame also wraps the
 * screen's own status line, which can take one more. */
struct gp_rect gp_frame_view_rect(const struct gp_app *a);
/* The line between the screen and the status line while the plan is
 * stale or a job runs ("" when there is none). */
void gp_frame_live_text(const struct gp_app *a, char *buf, size_t n);
/* The frame: tabs, the view, the status line, the function-key bar. */
void gp_frame_draw(struct gp_app *a, struct gp_canvas *cv);

#endif
