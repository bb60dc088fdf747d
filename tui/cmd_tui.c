/*
 * cmd_tui.c: geoplan [FILE] and geoplan tui FILE: the terminal planner.
 * Without a terminal on standard input and output it says so and prints
 * the batch summary instead, so scripts (and make run in one) never
 * hang.
 *
 * Planning runs on the worker thread (worker.h) while this one keeps
 * the screen: it waits on the keyboard, the worker's eventfd and the
 * pipe stderr goes to, all at once, so keys never wait for the solver.
 * Only this thread calls ncurses.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Progress redraws at most this often, so a solver that reports
 * constantly never starves the keys. */
#define FRAME_S (1.0 / 30)

/* Keys first (each answered with a frame at once), then what the
 * worker and stderr sent, redrawn at most FRAME_S apart; while a job
 * runs, a frame each tenth of a second keeps its clock moving. */
static int loop(struct gp_app *app, struct gp_display *d)
{
	bool dirty = true, mouse = true;
	double last = 0;
	while (!app->quit) {
		if (app->mouse != mouse)
			gp_display_mouse(d, mouse = app->mouse);
		double now = now_s();
		if (dirty && now - last >= FRAME_S) {
			int x, y;
			gp_app_draw(app);
			gp_app_cursor(app, &x, &y);
			gp_display_blit(d, &app->cv, x, y);
			dirty = false;
			last = now;
		}
		int wait = dirty ? (int)((FRAME_S - (now - last)) * 1000) + 1
			   : gp_app_busy(app) ? 100 : -1;
		struct gp_key k;
		int rc = gp_display_next(d, &k, wait, gp_worker_fd(app->worker));
		if (rc == 0) {
			gp_app_key(app, &k);
			dirty = true;
			last = 0;   /* a key is answered at once */
		} else if (rc == 2) {
			char line[GP_LOG_WIDTH];
			while (gp_display_stderr(d, line, sizeof line))
				gp_log_post(app->log, GP_LOG_WARN, line);
			dirty |= gp_app_poll(app);
		} else {
			dirty |= gp_app_poll(app) || gp_app_busy(app);
		}
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
	char history[512];
	gp_cl_default_path(history, sizeof history);
	char config[512];
	gp_config_path(config, sizeof config);
	struct gp_app_opts o = { .file = a->file, .sets = a->sets, .nsets = a->nsets,
				 .theme_name = cli_theme_name(a, gp_display_colors(d)), .ascii = a->ascii ||
				 !cli_utf8(), .cost_model = a->cost_model,
				 .heuristic = a->heuristic, .history = history, .config = config };
	gp_display_size(d, &o.w, &o.h);
	int rc;
	if (gp_app_init(&app, &o, &e)) {
		gp_display_close(d);
		gp_app_free(&app);
		return cli_error(EXIT_INPUT, "%s", e.msg);
	}
	if (a->view)
		app.view = cli_view_id(a->view);
	rc = loop(&app, d);
	gp_display_close(d);
	if (app.open_warn[0])   /* as every command that loads the file warns */
		fprintf(stderr, "geoplan: %s\n", app.open_warn);
	int left = gp_app_unsaved(&app);
	if (left)
		fprintf(stderr, "geoplan: %d unsaved edit%s left\n", left, left == 1 ? "" : "s");
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
