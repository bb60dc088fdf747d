/*
 * actions.h: everything a key can do, as one table (name, help, where it
 * applies), and the key map that binds keys to actions per screen. Keys,
 * clicks on the function-key bar and the help screen all go through
 * these tables, so help never disagrees with the keys.
 */
#ifndef GP_ACTIONS_H
#define GP_ACTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include "keys.h"

/* X(id, name, help): the action table. */
#define GP_ACTIONS(X) \
	X(QUIT, "quit", "quit (asks when edits are unsaved)") \
	X(HELP, "help", "this help: every key of every screen") \
	X(VIEW_SCENARIO, "view-scenario", "the scenario: DCs, pools, GPUs, links, model, job") \
	X(VIEW_PLAN, "view-plan", "the plan: pipelines, stages, memory, metrics") \
	X(VIEW_GANTT, "view-gantt", "the Gantt chart of the simulated iteration") \
	X(VIEW_SOLVER, "view-solver", "the solver: the planning job live, and the log") \
	X(VIEW_COMPARE, "view-compare", "compare: plan A (pinned, or before the last edit) beside the plan shown") \
	X(NEXT_PANE, "next-pane", "the next pane (section) of the screen") \
	X(PREV_PANE, "prev-pane", "the previous pane") \
	X(UP, "up", "up one row") \
	X(DOWN, "down", "down one row") \
	X(LEFT, "left", "left one cell (Gantt: one column earlier)") \
	X(RIGHT, "right", "right one cell (Gantt: one column later)") \
	X(PAGE_UP, "page-up", "up one page") \
	X(PAGE_DOWN, "page-down", "down one page") \
	X(TOP, "top", "the first row") \
	X(BOTTOM, "bottom", "the last row") \
	X(EDIT, "edit", "edit the value under the cursor (Enter commits, Esc cancels)") \
	X(SEARCH, "search", "search the screen's rows for text") \
	X(SEARCH_NEXT, "search-next", "the next match") \
	X(SEARCH_PREV, "search-prev", "the previous match") \
	X(UNDO, "undo", "undo the last edit") \
	X(REDO, "redo", "redo what was undone") \
	X(SAVE, "save", "save the scenario (canonical Lua, atomically)") \
	X(SAVE_AS, "save-as", "save the scenario to another file (asks before replacing one)") \
	X(EXPORT, "export", "write the screen as SVG, HTML, text or ANSI (asks for the file)") \
	X(PLAN, "plan", "plan anew in the background (an edit re-plans by itself; Esc cancels)") \
	X(PIN, "pin", "pin the plan shown as the compare screen's A") \
	X(COMPARE_ENGINE, "compare-engine", "compare: A becomes the next engine's plan for this scenario") \
	X(ZOOM_IN, "zoom-in", "Gantt: zoom in about the cursor") \
	X(ZOOM_OUT, "zoom-out", "Gantt: zoom out about the cursor") \
	X(FIT, "fit", "Gantt: the whole iteration in view") \
	X(PAN_LEFT, "pan-left", "Gantt: one page earlier") \
	X(PAN_RIGHT, "pan-right", "Gantt: one page later") \
	X(NEXT_TASK, "next-task", "Gantt: the next task on the row") \
	X(PREV_TASK, "prev-task", "Gantt: the previous task on the row") \
	X(CRIT_NEXT, "critical-next", "Gantt: the next task on the critical path") \
	X(CRIT_PREV, "critical-prev", "Gantt: the previous task on the critical path") \
	X(COMMAND, "command", "the command line: :set, :plan, :compare, :sweep ... (Tab completes, Up recalls; :help)") \
	X(CANCEL, "cancel", "cancel: the planning job, editing, searching, quitting")

enum gp_action {
	GP_A_NONE = -1,
#define GP_ACTION_ENUM(id, name, help) GP_A_##id,
	GP_ACTIONS(GP_ACTION_ENUM)
#undef GP_ACTION_ENUM
	GP_A__N
};

/* Where a binding applies: every screen, or one. */
enum gp_keyctx { GP_CTX_GLOBAL = -1 };   /* else a view id (app.h) */

const char *gp_action_name(int action);
const char *gp_action_help(int action);
int gp_action_find(const char *name);      /* GP_A_NONE if none */

/* The action key k means on screen view (its own bindings first). */
int gp_keymap_lookup(int view, int key);
/* The keys bound to action on view (its own, then the global ones), as
 * names ("j", "<Down>"), into keys[0..max); returns how many. */
int gp_keymap_keys(int view, int action, int *keys, int max);

/* The function-key bar of a screen: F-key n (1..10) and its action, or
 * GP_A_NONE. */
int gp_fkey_action(int view, int n);
/* The bar's short label of an action ("Help", "Save"). */
const char *gp_action_label(int action);

#endif
