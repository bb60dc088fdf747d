/*
 * view_help.c: the help screen, generated from the action table and the
 * key map (actions.c), so it never disagrees with the keys: the keys of
 * every screen, what typed values look like, the key notation.
 */
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "app.h"
#include "form.h"

/* The keys of act on a screen (ctx) as names, config.lua's first (they
 * apply on every screen), less the built-in ones it gives another
 * action; how many. */
static int key_names(const struct gp_config *cfg, int view, int act, char *names, size_t n)
{
	int keys[8], nk = gp_keymap_keys(view, act, keys, 8), shown = 0;
	names[0] = 0;
	for (int i = 0; view == GP_CTX_GLOBAL && i < cfg->nkeys; i++)
		if (cfg->keys[i].action == act && nk < 8)
			keys[nk++] = cfg->keys[i].key;
	for (int i = 0; i < nk; i++) {
		int mine = gp_config_action(cfg, keys[i]), seen = 0;
		if (mine != GP_A_NONE && mine != act)
			continue;   /* config.lua took the key for another action */
		for (int j = 0; j < i; j++)
			seen |= keys[j] == keys[i];
		if (seen)
			continue;
		char k[16];
		gp_key_name(keys[i], k, sizeof k);
		size_t l = strlen(names);
		snprintf(names + l, n - l, "%s%s", shown++ ? " " : "", k);
	}
	return shown;
}

/* The actions bound on a screen (ctx) that the screen before did not
 * bind the same way. */
static void keys_of(struct gp_form *fm, const struct gp_config *cfg, int view, bool only_own)
{
	for (int act = 0; act < GP_A__N; act++) {
		char names[64], global[64];
		if (!key_names(cfg, view, act, names, sizeof names))
			continue;
		if (only_own && key_names(cfg, GP_CTX_GLOBAL, act, global, sizeof global) &&
		    !strcmp(global, names))
			continue;
		gp_form_row(fm);
		gp_form_cell(fm, 0, 22, GP_R_VALUE, "%s", names)->sel = true;
		gp_form_cell(fm, 23, 15, GP_R_HEADER, "%s", gp_action_name(act));
		gp_form_cell_wrap(fm, 39, fm->width - 39, GP_R_TEXT, gp_action_help(act));
	}
}

static void build(struct gp_app *a, struct gp_form *fm)
{
	gp_form_init(fm);
	fm->width = a->w - 3;
	gp_form_section(fm, "Keys on every screen");
	keys_of(fm, &a->cfg, GP_CTX_GLOBAL, false);
	gp_form_section(fm, "Keys of the Gantt screen");
	keys_of(fm, &a->cfg, GP_V_GANTT, true);
	gp_form_section(fm, "Keys of the compare screen");
	keys_of(fm, &a->cfg, GP_V_COMPARE, true);
	gp_form_section(fm, "Typing a value");
	gp_form_text(fm, GP_R_TEXT, "Enter on a value opens it in the status line; Enter sets it, Esc keeps the old one.");
	gp_form_text(fm, GP_R_TEXT, "Bandwidths: 100G (Gbit/s), 12.5GB/s, or Gbps(100); times: 35ms, 20us, 1.5s;");
	gp_form_text(fm, GP_R_TEXT, "memory: 80GiB, 40GB; peaks: 989T (TFLOP/s); fractions: 0.45 or 45%%; prices: $2.50.");
	gp_form_text(fm, GP_R_TEXT, "A value the scenario refuses keeps the old one; the status line says why.");
	gp_form_text(fm, GP_R_TEXT, "Each edit is one step of undo (u): the plan is simulated again at once, marked stale, and a new one is made in the background (4 shows the solver; Esc cancels; a newer edit starts it again). u takes back an edit with the plan made for it.");
	gp_form_section(fm, "Key notation (the man page's and geoplan shot --keys)");
	/* One paragraph, so it wraps as one (two lines wrapped apart left
	 * "<Down>" and "<lt>" alone at 80 columns). */
	gp_form_text(fm, GP_R_TEXT, "a character stands for itself; <Enter> <Esc> <Tab> <S-Tab> <BS> "
		     "<Del> <Up> <Down> <Left> <Right> <PgUp> <PgDn> <Home> <End> <F1>..<F12> "
		     "<C-a>..<C-z> <Space> <lt>");
}

static void draw(struct gp_app *a, struct gp_canvas *cv, struct gp_rect r)
{
	struct gp_form fm;
	build(a, &fm);
	a->help.read = true;
	gp_form_draw(&fm, &a->help, cv, r, a->th);
	gp_form_free(&fm);
}

static bool action(struct gp_app *a, int act, const struct gp_key *k)
{
	(void)k;
	if (act == GP_A_CANCEL) {
		a->view = GP_V_SCENARIO;
		return true;
	}
	struct gp_form fm;
	build(a, &fm);
	a->help.read = true;
	bool done = gp_form_act(a, &fm, &a->help, act);
	gp_form_free(&fm);
	return done;
}

static void status(struct gp_app *a, char *buf, size_t n)
{
	(void)a;
	snprintf(buf, n, "Esc or ? goes back; 1 to 5 open the screens");
}

const struct gp_view_ops gp_view_help = {
	"help", "Help", draw, action, NULL, NULL, status,
};
