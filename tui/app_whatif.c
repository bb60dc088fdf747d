/*
 * app_whatif.c: the command line's questions that answer with a table
 * (app.h's gp_app_table): :sensitivity, :sweep and :calibrate. They run
 * on the main thread: each is simulations of the plan shown (no
 * planning), milliseconds a point, and a sweep is capped at
 * GP_CMD_SWEEP_MAX points so the screen never waits long.
 */
#include "app.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "whatif.h"

#define GP_CMD_SWEEP_MAX 40
#define SENS_ROWS 12


static FILE *table_open(char **text, size_t *len)
{
	*text = NULL;
	*len = 0;
	return open_memstream(text, len);
}

/* Closes f (which writes *text) and shows what it holds. */
static void table_show(struct gp_app *a, const char *title, FILE *f, char **text)
{
	if (!fclose(f))
		gp_app_table(a, title, *text);
	free(*text);
}

void gp_cmd_sensitivity(struct gp_app *a, int argc, char **argv)
{
	(void)argc, (void)argv;
	if (!a->run.has_res)
		return (void)gp_app_say(a, GP_R_WARN, "no simulated plan to ask about");
	struct gp_sim_req sim = { .schedule = -1 };
	struct gp_knob *g = NULL;
	int n = 0, left_out = 0;
	double base;
	struct gp_err e = { "" };
	if (gp_whatif_sensitivity(&a->run, &sim, &base, &g, &n, &left_out, &e)) {
		gp_app_say(a, GP_R_ERROR, "sensitivity: %s", e.msg);
		return;
	}
	char *text, b[24], t[24];
	size_t len;
	FILE *f = table_open(&text, &len);
	if (!f) {
		free(g);
		return;
	}
	gp_unit_format(base, GP_U_TIME, b, sizeof b);
	fprintf(f, "iteration %s now; each row one figure 10 %% better\n\n", b);
	fprintf(f, "%-30s %-16s %10s %8s\n", "", "made better", "iteration", "saved");
	for (int i = 0; i < n && i < SENS_ROWS; i++) {
		gp_unit_format(g[i].t, GP_U_TIME, t, sizeof t);
		fprintf(f, "%-30.30s %-16.16s %10s %7.2f%%\n", g[i].what, g[i].knob,
			isnan(g[i].t) ? "failed" : t, isnan(g[i].t) ? 0 : 100 * g[i].saved / base);
	}
	if (n > SENS_ROWS)
		fprintf(f, "(%d more: geoplan sensitivity lists them all)\n", n - SENS_ROWS);
	if (left_out)
		fprintf(f, "(%d links and pools the iteration does not use left out)", left_out);
	table_show(a, "sensitivity", f, &text);
	free(g);
}

/* A point's row: its values, then the figures. */
static void sweep_row(FILE *f, const struct gp_sweep *sw, long k, const struct gp_metrics *m,
		      const char *err)
{
	char lab[120] = "", t[24], tok[24];
	for (int i = 0; i < sw->npt[k]; i++) {
		const char *v = strchr(sw->pts[k][i], '=');
		size_t l = strlen(lab);
		snprintf(lab + l, sizeof lab - l, "%s%s", i ? " " : "", v ? v + 1 : sw->pts[k][i]);
	}
	if (err) {
		fprintf(f, "%-28.28s %s\n", lab, err);
		return;
	}
	gp_unit_format(m->iteration_time, GP_U_TIME, t, sizeof t);
	gp_unit_format(m->tokens_per_s, GP_U_COUNT, tok, sizeof tok);
	fprintf(f, "%-28.28s %10s %10s %5.1f%% %s\n", lab, t, tok, 100 * m->mfu,
		m->fits ? "" : "does not fit");
}

void gp_cmd_sweep(struct gp_app *a, int argc, char **argv)
{
	int n = a->run.nsets + argc - 1;
	const char **sets = malloc((size_t)n * sizeof *sets);
	if (!sets)
		return;
	for (int i = 0; i < a->run.nsets; i++)
		sets[i] = a->run.sets[i];
	for (int i = 1; i < argc; i++)
		sets[a->run.nsets + i - 1] = argv[i];
	struct gp_sweep sw;
	struct gp_err e = { "" };
	int rc = gp_sweep_product(&sw, sets, n, &e);
	free(sets);
	if (rc)
		return (void)gp_app_say(a, GP_R_ERROR, "sweep: %s", e.msg);
	if (sw.n > GP_CMD_SWEEP_MAX) {
		gp_app_say(a, GP_R_WARN, "sweep: %ld points; here at most %d (geoplan sweep -j runs more)",
			   sw.n, GP_CMD_SWEEP_MAX);
		gp_sweep_free(&sw);
		return;
	}
	sw.cost_path = a->run.cost_path;
	sw.heur_path = a->run.heur_path;
	char *text;
	size_t len;
	FILE *f = table_open(&text, &len);
	if (f) {
		fprintf(f, "the plan shown, simulated at each point\n\n%-28s %10s %10s %6s\n",
			"", "iteration", "tokens/s", "MFU");
		for (long k = 0; k < sw.n; k++) {
			struct gp_metrics m;
			struct gp_sim_req sim = { .schedule = -1 };
			e.msg[0] = 0;
			int bad = gp_sweep_point(&sw, k, a->run.path, NULL, &sim, &m, &e);
			sweep_row(f, &sw, k, &m, bad ? e.msg : NULL);
		}
		table_show(a, "sweep", f, &text);
	}
	gp_sweep_free(&sw);
}

static int write_file(const char *path, const char *text, size_t len)
{
	char tmp[600];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	bool ok = fwrite(text, 1, len, f) == len;
	if (fclose(f) || !ok || rename(tmp, path)) {
		remove(tmp);
		return -1;
	}
	return 0;
}

static void cal_table(struct gp_app *a, const struct gp_cal_fit *r, const char *out)
{
	char *text;
	size_t len;
	FILE *f = table_open(&text, &len);
	if (!f)
		return;
	fprintf(f, "%s: %d of %d params fitted to %d runs\n\n", out, r->nfitted, r->nparams,
		r->nruns);
	for (int i = 0; i < r->nparams; i++)
		fprintf(f, "%-28.28s %12.6g %s\n", r->params[i].name, r->params[i].value,
			r->params[i].state == GP_CAL_FITTED ? "fitted" : r->params[i].why);
	if (isfinite(r->mape_time))
		fprintf(f, "\ntime MAPE %.2f %%", r->mape_time);   /* a percentage already */
	table_show(a, "calibrate", f, &text);
}

/* :calibrate RUN.lua... -o OUT.lua: what geoplan calibrate does, then
 * OUT.lua is the scenario's cost model (an edit). */
void gp_cmd_calibrate(struct gp_app *a, int argc, char **argv)
{
	const char *out = NULL, *runs[16];
	int nruns = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (nruns < 16)
			runs[nruns++] = argv[i];
	}
	if (!out || !nruns)
		return (void)gp_app_say(a, GP_R_WARN, "usage: :calibrate RUN.lua... -o OUT.lua");
	struct gp_cal_opts o = { .base = a->run.cost_path, .log = gp_log_script,
				 .log_ud = a->log };
	struct gp_cal_fit r;
	struct gp_err e = { "" };
	if (gp_calibrate(runs, nruns, &o, &r, &e)) {
		gp_app_say(a, GP_R_ERROR, "calibrate: %s", e.msg);
	} else if (write_file(out, r.text, r.len)) {
		gp_app_say(a, GP_R_ERROR, "%s: %s", out, strerror(errno));
	} else {
		cal_table(a, &r, out);
		/* The scenario's paths are its directory's: this one is absolute. */
		char set[PATH_MAX + 20], abs[PATH_MAX];
		snprintf(set, sizeof set, "cost_model=\"%s\"", realpath(out, abs) ? abs : out);
		if (a->run.cost_path)
			gp_app_say(a, GP_R_WARN, "wrote %s; --cost-model %s is used over it", out,
				   a->run.cost_path);
		else
			gp_app_set(a, set);
	}
	gp_cal_fit_free(&r);
}
