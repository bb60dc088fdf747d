/*
 * actions.c: the action table and the key map (actions.h).
 *
 * Bindings follow htop, tig and mc: F1/? help, q/F10 quit, arrows and
 * hjkl, PgUp/PgDn, g/G, / with n and N, Enter to edit, Esc to cancel;
 * every function key has a letter as well.
 */
#include "actions.h"

#include <string.h>

#include "app.h"

static const struct {
	const char *name, *help;
} table[GP_A__N] = {
#define GP_ACTION_ROW(id, nm, hp) [GP_A_##id] = { nm, hp },
	GP_ACTIONS(GP_ACTION_ROW)
#undef GP_ACTION_ROW
};

static const struct {
	int ctx, key, action;
} keymap[] = {
	{ GP_CTX_GLOBAL, 'q', GP_A_QUIT }, { GP_CTX_GLOBAL, GP_K_F(10), GP_A_QUIT },
	{ GP_CTX_GLOBAL, GP_K_CTRL('c'), GP_A_QUIT },
	{ GP_CTX_GLOBAL, '?', GP_A_HELP }, { GP_CTX_GLOBAL, GP_K_F(1), GP_A_HELP },
	{ GP_CTX_GLOBAL, '1', GP_A_VIEW_SCENARIO }, { GP_CTX_GLOBAL, '2', GP_A_VIEW_PLAN },
	{ GP_CTX_GLOBAL, '3', GP_A_VIEW_GANTT }, { GP_CTX_GLOBAL, '4', GP_A_VIEW_SOLVER },
	{ GP_CTX_GLOBAL, '5', GP_A_VIEW_COMPARE }, { GP_CTX_GLOBAL, 'P', GP_A_PIN },
	{ GP_V_COMPARE, 'E', GP_A_COMPARE_ENGINE },
	{ GP_CTX_GLOBAL, GP_K_TAB, GP_A_NEXT_PANE }, { GP_CTX_GLOBAL, GP_K_BTAB, GP_A_PREV_PANE },
	{ GP_CTX_GLOBAL, 'k', GP_A_UP }, { GP_CTX_GLOBAL, GP_K_UP, GP_A_UP },
	{ GP_CTX_GLOBAL, 'j', GP_A_DOWN }, { GP_CTX_GLOBAL, GP_K_DOWN, GP_A_DOWN },
	{ GP_CTX_GLOBAL, 'h', GP_A_LEFT }, { GP_CTX_GLOBAL, GP_K_LEFT, GP_A_LEFT },
	{ GP_CTX_GLOBAL, 'l', GP_A_RIGHT }, { GP_CTX_GLOBAL, GP_K_RIGHT, GP_A_RIGHT },
	{ GP_CTX_GLOBAL, GP_K_PGUP, GP_A_PAGE_UP }, { GP_CTX_GLOBAL, GP_K_CTRL('b'), GP_A_PAGE_UP },
	{ GP_CTX_GLOBAL, GP_K_PGDN, GP_A_PAGE_DOWN },
	{ GP_CTX_GLOBAL, GP_K_CTRL('f'), GP_A_PAGE_DOWN },
	{ GP_CTX_GLOBAL, ' ', GP_A_PAGE_DOWN },
	{ GP_CTX_GLOBAL, 'g', GP_A_TOP }, { GP_CTX_GLOBAL, GP_K_HOME, GP_A_TOP },
	{ GP_CTX_GLOBAL, 'G', GP_A_BOTTOM }, { GP_CTX_GLOBAL, GP_K_END, GP_A_BOTTOM },
	{ GP_CTX_GLOBAL, GP_K_ENTER, GP_A_EDIT }, { GP_CTX_GLOBAL, 'e', GP_A_EDIT },
	{ GP_CTX_GLOBAL, GP_K_F(4), GP_A_EDIT },
	{ GP_CTX_GLOBAL, '/', GP_A_SEARCH }, { GP_CTX_GLOBAL, GP_K_F(3), GP_A_SEARCH },
	{ GP_CTX_GLOBAL, 'n', GP_A_SEARCH_NEXT }, { GP_CTX_GLOBAL, 'N', GP_A_SEARCH_PREV },
	{ GP_CTX_GLOBAL, 'u', GP_A_UNDO }, { GP_CTX_GLOBAL, GP_K_CTRL('z'), GP_A_UNDO },
	{ GP_CTX_GLOBAL, GP_K_F(8), GP_A_UNDO },
	{ GP_CTX_GLOBAL, 'U', GP_A_REDO }, { GP_CTX_GLOBAL, GP_K_CTRL('r'), GP_A_REDO },
	{ GP_CTX_GLOBAL, GP_K_CTRL('y'), GP_A_REDO }, { GP_CTX_GLOBAL, GP_K_F(9), GP_A_REDO },
	{ GP_CTX_GLOBAL, 's', GP_A_SAVE }, { GP_CTX_GLOBAL, GP_K_F(2), GP_A_SAVE },
	{ GP_CTX_GLOBAL, 'S', GP_A_SAVE_AS },
	{ GP_CTX_GLOBAL, 'x', GP_A_EXPORT }, { GP_CTX_GLOBAL, GP_K_F(5), GP_A_EXPORT },
	{ GP_CTX_GLOBAL, 'p', GP_A_PLAN }, { GP_CTX_GLOBAL, GP_K_F(6), GP_A_PLAN },
	{ GP_CTX_GLOBAL, GP_K_ESC, GP_A_CANCEL }, { GP_CTX_GLOBAL, ':', GP_A_COMMAND },
	{ GP_V_GANTT, '+', GP_A_ZOOM_IN }, { GP_V_GANTT, '=', GP_A_ZOOM_IN },
	{ GP_V_GANTT, '-', GP_A_ZOOM_OUT }, { GP_V_GANTT, 'z', GP_A_FIT },
	{ GP_V_GANTT, GP_K_F(7), GP_A_FIT },
	{ GP_V_GANTT, 'H', GP_A_PAN_LEFT }, { GP_V_GANTT, 'L', GP_A_PAN_RIGHT },
	{ GP_V_GANTT, ']', GP_A_NEXT_TASK }, { GP_V_GANTT, 'w', GP_A_NEXT_TASK },
	{ GP_V_GANTT, '[', GP_A_PREV_TASK }, { GP_V_GANTT, 'b', GP_A_PREV_TASK },
	{ GP_V_GANTT, 'c', GP_A_CRIT_NEXT }, { GP_V_GANTT, 'C', GP_A_CRIT_PREV },
};
#define NKEYMAP (int)(sizeof keymap / sizeof keymap[0])

const char *gp_action_name(int action)
{
	return action >= 0 && action < GP_A__N ? table[action].name : "none";
}

const char *gp_action_help(int action)
{
	return action >= 0 && action < GP_A__N ? table[action].help : "";
}

int gp_action_find(const char *name)
{
	for (int i = 0; i < GP_A__N; i++)
		if (!strcmp(table[i].name, name))
			return i;
	return GP_A_NONE;
}

int gp_keymap_lookup(int view, int key)
{
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < NKEYMAP; i++)
			if (keymap[i].key == key &&
			    keymap[i].ctx == (pass == 0 ? view : GP_CTX_GLOBAL))
				return keymap[i].action;
	return GP_A_NONE;
}

int gp_keymap_keys(int view, int action, int *keys, int max)
{
	int n = 0;
	for (int pass = view == GP_CTX_GLOBAL ? 1 : 0; pass < 2; pass++)
		for (int i = 0; i < NKEYMAP && n < max; i++) {
			int ctx = pass == 0 ? view : GP_CTX_GLOBAL;
			if (keymap[i].action != action || keymap[i].ctx != ctx)
				continue;
			/* A key the screen binds to something else is not this. */
			if (ctx == GP_CTX_GLOBAL && gp_keymap_lookup(view, keymap[i].key) != action)
				continue;
			keys[n++] = keymap[i].key;
		}
	return n;
}

/* Where each action applies, for the bar: a view that has no use for an
 * action does not show it. */
static bool applies(int view, int action)
{
	switch (action) {
	case GP_A_EDIT: return view == GP_V_SCENARIO;
	case GP_A_FIT: return view == GP_V_GANTT;
	case GP_A_SEARCH: return view != GP_V_HELP;
	default: return true;
	}
}

int gp_fkey_action(int view, int n)
{
	if (n < 1 || n > 12)
		return GP_A_NONE;
	int a = gp_keymap_lookup(view, GP_K_F(n));
	return a != GP_A_NONE && applies(view, a) ? a : GP_A_NONE;
}

const char *gp_action_label(int action)
{
	switch (action) {
	case GP_A_QUIT: return "Quit";
	case GP_A_HELP: return "Help";
	case GP_A_SAVE: return "Save";
	case GP_A_SEARCH: return "Search";
	case GP_A_EDIT: return "Edit";
	case GP_A_EXPORT: return "Shot";
	case GP_A_PLAN: return "Plan";
	case GP_A_FIT: return "Fit";
	case GP_A_UNDO: return "Undo";
	case GP_A_REDO: return "Redo";
	default: return gp_action_name(action);
	}
}
