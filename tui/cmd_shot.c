/*
 * cmd_shot.c: geoplan shot FILE: the terminal planner without a
 * terminal (headless: no ncurses), a screen of a given size after a
 * given sequence of keys, written exactly as it would show as SVG,
 * HTML, text or ANSI. The same keys and screens as geoplan FILE, so a
 * shot is a screenshot for a design review and a golden file for a
 * test. Time stands still between the keys: a planning job an edit
 * starts runs only where the keys say <Wait> (worker.h), so the same
 * keys give the same screen every time.
 */
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cli.h"
#include "export.h"

/* Presses the keys of script in order; stops when the app quits. */
static int press(struct gp_app *app, const char *script)
{
	int where, n = gp_keys_parse(script, NULL, 0, &where);
	struct gp_key *k = n > 0 ? malloc(sizeof *k * (size_t)n) : NULL;
	if (n > 0 && !k)
		return cli_error(EXIT_INPUT, "out of memory");
	gp_keys_parse(script, k, n, &where);
	for (int i = 0; i < n && !app->quit; i++) {
		gp_app_draw(app);   /* as on a terminal: each key sees the last frame */
		gp_app_key(app, &k[i]);
	}
	free(k);
	return EXIT_OK;
}

struct shot_out {
	const struct gp_app *app;
	enum gp_export_fmt fmt;
};

static int export_shot(FILE *f, const void *ud)
{
	const struct shot_out *s = ud;
	const struct gp_app *app = s->app;
	return gp_export(f, &app->cv, s->fmt, app->th->paper_fg, app->th->paper_bg,
			 app->run.sc->name);
}

static int write_shot(struct gp_app *app, const char *out)
{
	struct shot_out s = { app, GP_EXPORT_TEXT };   /* - : text on standard output */
	if (strcmp(out, "-") && gp_export_format_of(out, &s.fmt))
		return cli_usage_error(NULL, "shot: -o %s: expected a name ending in .svg, .html, .txt or .ans", out);
	return cli_write_file(out, export_shot, &s);   /* whole or not at all */
}

static int run(const struct args *a)
{
	if (!a->out)
		return cli_usage_error(a, "shot needs -o FILE (.svg, .html, .txt or .ans)");
	struct gp_app app;
	struct gp_err e = { "" };
	struct gp_app_opts o = { .file = a->file, .sets = a->sets, .nsets = a->nsets,
				 .theme_name = cli_theme_name(a, 256), .ascii = a->ascii,
				 .w = a->width ? a->width : 100, .h = a->height ? a->height : 30,
				 .cost_model = a->cost_model, .heuristic = a->heuristic,
				 .hold = true };
	if (gp_app_init(&app, &o, &e)) {
		gp_app_free(&app);
		return cli_error(EXIT_INPUT, "%s", e.msg);
	}
	/* A scenario without a plan is planned before the first key; later
	 * jobs run only where the keys say <Wait>. */
	gp_app_wait(&app, 0);
	if (a->view)
		app.view = cli_view_id(a->view);
	int rc = a->keys ? press(&app, a->keys) : EXIT_OK;
	if (rc == EXIT_OK) {
		/* --no-cursor: the last frame with the selection's roles drawn
		 * as plain text (the theme's copy) and no Gantt cursor. */
		struct gp_theme plain = *app.th;
		if (a->no_cursor) {
			plain.role[GP_R_SELECT] = plain.role[GP_R_VALUE];
			plain.role[GP_R_SELECT_DIM] = plain.role[GP_R_TEXT];
			plain.role[GP_R_CURSOR] = plain.role[GP_R_AXIS];
			app.th = &plain;
			app.no_cursor = true;
		}
		gp_app_draw(&app);
		rc = write_shot(&app, a->out);
	}
	gp_app_free(&app);
	return rc;
}

const struct cmd cmd_shot = {
	.name = "shot",
	.help = "the planner's screen after some keys, as SVG, HTML, text or ANSI",
	.opts = "out set view keys size theme color ascii no-cursor cost-model heuristic",
	.file = true,
	.run = run,
};
