/*
 * cmd_tui.c: geoplan [FILE] and geoplan tui FILE: the terminal planner.
 * Without a terminal on standard input and output it says so and prints
 * the batch summary instead, so scripts (and make run in one) never
 * hang.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "cli.h"
#include "display.h"
#include "report.h"

/* Not a terminal: the summary of the file's plan (or of a new one). */
static int batch(const struct args *a)
{
	fprintf(stderr, "geoplan: standard %s is not a terminal: the summary instead of the planner\n",
		isatty(0) ? "output" : "input");
	struct gp_run r;
	gp_run_init(&r);
	int rc = cli_load(&r, a, true);
	if (rc == EXIT_OK && !gp_run_plan_of(&r))
		rc = cli_plan(&r, a);
	if (rc == EXIT_OK)
		rc = cli_simulate(&r, a, r.src == GP_SRC_FILE, false);
	if (rc == EXIT_OK) {
		gp_report_text(stdout, r.sc, gp_run_plan_of(&r), &r.res);
		rc = cli_result_code(&r, a);
	}
	gp_run_free(&r);
	return rc;
}

static void show_busy(struct gp_app *a, const char *what)
{
	gp_app_say(a, GP_R_WARN, "%s", what);
	gp_app_draw(a);
	gp_display_blit(a->ud, &a->cv, -1, -1);
}

static int loop(struct gp_app *app, struct gp_display *d)
{
	while (!app->quit) {
		int x, y;
		gp_app_draw(app);
		gp_app_cursor(app, &x, &y);
		gp_display_blit(d, &app->cv, x, y);
		struct gp_key k;
		if (gp_display_key(d, &k, -1) == 0)
			gp_app_key(app, &k);
	}
	return EXIT_OK;
}

static int run(const struct args *a)
{
	if (!isatty(0) || !isatty(1))
		return batch(a);
	struct gp_err e = { "" };
	enum gp_color_mode cm = !a->color ? GP_COLOR_AUTO : !strcmp(a->color, "never") ? GP_COLOR_NEVER
						: !strcmp(a->color, "always") ? GP_COLOR_ALWAYS : GP_COLOR_AUTO;
	struct gp_display *d = gp_display_open(cm, &e);
	if (!d)
		return cli_error(EXIT_INPUT, "%s", e.msg);
	struct gp_app app;
	struct gp_app_opts o = { .file = a->file, .sets = a->sets, .nsets = a->nsets,
				 .theme = cli_theme(a, gp_display_colors(d)), .ascii = a->ascii ||
				 !cli_utf8(), .cost_model = a->cost_model,
				 .heuristic = a->heuristic };
	gp_display_size(d, &o.w, &o.h);
	int rc;
	if (gp_app_init(&app, &o, &e)) {
		gp_display_close(d);
		gp_app_free(&app);
		return cli_error(EXIT_INPUT, "%s", e.msg);
	}
	app.busy = show_busy;
	app.ud = d;
	if (a->view)
		app.view = cli_view_id(a->view);
	rc = loop(&app, d);
	gp_display_close(d);
	if (gp_app_dirty(&app))
		fprintf(stderr, "geoplan: %d unsaved edit%s left\n", app.run.nsets - app.saved,
			app.run.nsets - app.saved == 1 ? "" : "s");
	gp_app_free(&app);
	return rc;
}

const struct cmd cmd_tui = {
	.name = "tui",
	.help = "the terminal planner (also: geoplan FILE, and geoplan alone)",
	.opts = "set theme color ascii view cost-model heuristic",
	.file = true,
	.run = run,
	.default_file = "samples/default.lua",
};
