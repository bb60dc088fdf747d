/*
 * cmd_tui.c: geoplan [FILE] and geoplan tui FILE: the terminal planner.
 * Without a terminal on standard input and output it says so and prints
 * the batch summary instead, so scripts (and make run in one) never
 * hang.
 *
 * Planning runs on a worker thread (the only other thread; it touches
 * nothing but the run) while this one keeps the screen: it shows the
 * engine's progress, and Esc, C-c or q cancel through gp_run_cancel.
 * Only this thread calls ncurses.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
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

/* The engine's latest progress, written by the worker. */
struct progress_slot {
	pthread_mutex_t mu;
	struct gp_progress p;
	bool has;
};

static void on_progress(void *ud, const struct gp_progress *p)
{
	struct progress_slot *s = ud;
	pthread_mutex_lock(&s->mu);
	s->p = *p;
	s->has = true;
	pthread_mutex_unlock(&s->mu);
}

struct job {
	gp_app_step_fn step;
	void *arg;
	atomic_bool done;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	j->step(j->arg);
	atomic_store(&j->done, true);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* "planning...: 2.1 s, search, best 2.34s, gap 3.1 %; Esc cancels" (the
 * best in the objective's unit). */
static void progress_line(struct progress_slot *s, const char *what, double t, bool cancelling,
			  enum gp_objective goal, char *buf, size_t n)
{
	pthread_mutex_lock(&s->mu);
	struct gp_progress p = s->p;
	bool has = s->has;
	pthread_mutex_unlock(&s->mu);
	int o = snprintf(buf, n, "%s %.1f s", what, t);
	if (has && p.phase)
		o += snprintf(buf + o, n - (size_t)o, ", %s", p.phase);
	if (has && isfinite(p.incumbent) && p.incumbent < HUGE_VAL) {
		char v[32];
		if (goal == GP_OBJ_TIME)
			gp_unit_format(p.incumbent, GP_U_TIME, v, sizeof v);
		else if (goal == GP_OBJ_COST)
			gp_unit_format(p.incumbent, GP_U_USD, v, sizeof v);
		else
			gp_unit_bytes10(p.incumbent, v, sizeof v);
		o += snprintf(buf + o, n - (size_t)o, ", best %s", v);
	}
	if (has && isfinite(p.gap) && p.gap < HUGE_VAL)
		o += snprintf(buf + o, n - (size_t)o, ", gap %.1f %%", 100 * p.gap);
	snprintf(buf + o, n - (size_t)o, "%s", cancelling ? "; cancelling..." : "; Esc cancels");
}

static void run_long(struct gp_app *a, const char *what, gp_app_step_fn step, void *arg)
{
	struct gp_display *d = a->ud;
	struct progress_slot slot = { .has = false };
	struct job j = { step, arg, false };
	pthread_t th;
	pthread_mutex_init(&slot.mu, NULL);
	a->run.progress = on_progress;
	a->run.progress_ud = &slot;
	/* The last full frame, with a one-line status, under the progress. */
	a->status[0] = 0;
	if (a->cv.cells)
		gp_app_draw(a);
	if (pthread_create(&th, NULL, worker, &j)) {
		step(arg);   /* no thread: the screen waits */
	} else {
		bool cancelling = false;
		double t0 = now_s();
		while (!atomic_load(&j.done)) {
			char line[512];
			progress_line(&slot, what, now_s() - t0, cancelling, a->run.sc->objective, line,
				      sizeof line);
			gp_frame_busy(a, line);
			gp_display_blit(d, &a->cv, -1, -1);
			struct gp_key k;
			if (gp_display_key(d, &k, 100) != 0)
				continue;
			if (k.code == GP_K_RESIZE)
				gp_app_key(a, &k);   /* only the size: the run is the worker's */
			else if (k.code == GP_K_ESC || k.code == GP_K_CTRL('c') || k.code == 'q')
				cancelling = true;
			if (cancelling)
				gp_run_cancel(&a->run);
		}
		pthread_join(th, NULL);
	}
	a->run.progress = NULL;
	a->run.progress_ud = NULL;
	pthread_mutex_destroy(&slot.mu);
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
				 .heuristic = a->heuristic, .run_long = run_long, .ud = d };
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
