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
#include "override.h"
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
	gp_unit_time4(base, b, sizeof b);   /* 4 digits, zeros kept: a column */
	fprintf(f, "iteration %s now; each row one figure 10 %% better\n\n", b);
	/* Saved as the batch gives it, in seconds and percent. */
	/* 72 columns: the box fits an 80-column terminal whole. */
	fprintf(f, "%-26s %-16s %9s %9s %8s\n", "", "made better", "iteration", "saved", "%");
	for (int i = 0; i < n && i < SENS_ROWS; i++) {
		char sv[24];
		gp_unit_time4(g[i].t, t, sizeof t);
		gp_unit_time4(g[i].saved, sv, sizeof sv);
		if (isnan(g[i].t))
			fprintf(f, "%-26.26s %-16.16s %9s\n", g[i].what, g[i].knob, "failed");
		else
			fprintf(f, "%-26.26s %-16.16s %9s %9s %6.2f %%\n", g[i].what, g[i].knob, t,
				sv, 100 * g[i].saved / base);
	}
	if (n > SENS_ROWS)
		fprintf(f, "(%d more: geoplan sensitivity lists them all)\n", n - SENS_ROWS);
	if (left_out)
		fprintf(f, "(%d links and pools the iteration does not use left out)", left_out);
	table_show(a, "sensitivity", f, &text);
	free(g);
}

#define SWEEP_LABEL 28   /* the value column's width at most */
#define SWEEP_WRAP 60    /* an error's lines, so they fit at 80 columns */

/* The path of set "PATH=v" as buf. */
static void path_of(const char *set, char *buf, size_t n)
{
	const char *eq = strchr(set, '=');
	snprintf(buf, n, "%.*s", eq ? (int)(eq - set) : (int)strlen(set), set);
}

/* The value of set "PATH=v" in the short form of the path's unit
 * ("10G", not "1250000000"), or as it was written. */
static void value_of(const char *set, char *buf, size_t n)
{
	char path[200], *end;
	path_of(set, path, sizeof path);
	const char *v = strchr(set, '=');
	v = v ? v + 1 : set;
	enum gp_unit u = gp_ov_unit_of(path);
	double x = strtod(v, &end);
	if (u != GP_U_NUMBER && end != v && !*end)
		gp_unit_format(x, u, buf, n);
	else
		snprintf(buf, n, "%s", v);
}

/* The loader's message naming the entry as the point's overrides wrote
 * it (gp_ov_as_written). */
static void as_written(const struct gp_sweep *sw, long k, const char *msg, char *buf, size_t n)
{
	for (int i = 0; i < sw->npt[k]; i++)
		if (gp_ov_as_written(sw->pts[k][i], msg, buf, n))
			return;
	snprintf(buf, n, "%s", msg);
}

/* Text wrapped to SWEEP_WRAP columns, each line indented. */
static void wrapped(FILE *f, const char *text)
{
	while (*text) {
		int next, l = gp_cv_wrap(text, SWEEP_WRAP, &next);
		fprintf(f, "    %.*s\n", l, text);
		if (next <= 0)
			break;
		text += next;
	}
}

/* Point k's values, in the short form of their units: "10G 35ms". */
static void label_of(const struct gp_sweep *sw, long k, char *lab, size_t n)
{
	lab[0] = 0;
	for (int i = 0; i < sw->npt[k]; i++) {
		char v[64];
		size_t l = strlen(lab);
		value_of(sw->pts[k][i], v, sizeof v);
		snprintf(lab + l, n - l, "%s%s", i ? " " : "", v);
	}
}

/* A point's row: its values (w columns), then the figures (or why there
 * are none, on the lines below). */
static void sweep_row(struct gp_app *a, FILE *f, const struct gp_sweep *sw, long k, int w,
		      const struct gp_metrics *m, const char *err)
{
	char lab[120], t[24], tok[24];
	label_of(sw, k, lab, sizeof lab);
	if (err) {
		char bare[sizeof ((struct gp_err *)0)->msg], named[sizeof bare];
		gp_app_bare(a, err, bare, sizeof bare);
		as_written(sw, k, bare, named, sizeof named);
		fprintf(f, "%-*.*s failed:\n", w, w, lab);
		wrapped(f, named);
		return;
	}
	gp_unit_time4(m->iteration_time, t, sizeof t);
	gp_unit_rate(m->tokens_per_s, tok, sizeof tok);
	fprintf(f, "%-*.*s %10s %10s %6.1f %% %4s\n", w, w, lab, t, tok, 100 * m->mfu,
		m->fits ? "yes" : "no");
}

/* arg "PATH=v1,v2,..." with each value read as :set reads it
 * (gp_ov_units): "PATH=1.25e+09,..." (malloc'd; NULL when out of
 * memory or, why said, when a value is refused); *nv the number of
 * values, 0 when there is no '='. */
static char *sweep_axis(const char *arg, int *nv, char *why, size_t nwhy)
{
	char **vals;
	*nv = gp_whatif_split(arg, &vals);
	if (*nv <= 0)
		return *nv ? NULL : strdup(arg);
	char *out = malloc((size_t)*nv * GP_ED_MAX + 1);
	size_t o = 0;
	for (int i = 0; out && i < *nv; i++) {
		char one[GP_ED_MAX], no[200];
		if (gp_ov_units(vals[i], true, one, sizeof one, no, sizeof no)) {
			const char *eq = strchr(vals[i], '=');
			snprintf(why, nwhy, "%.*s: %s", (int)(eq - vals[i]), vals[i], no);
			free(out);
			out = NULL;
			break;
		}
		const char *v = i ? strchr(one, '=') + 1 : one;
		o += (size_t)sprintf(out + o, "%s%s", i ? "," : "", v);
	}
	for (int i = 0; i < *nv; i++)
		free(vals[i]);
	free(vals);
	return out;
}

/* The header over the value column: the paths that vary, whole (on a
 * line of their own when they would not fit over it); the width of
 * that column, returned, fits the paths or the widest point's values. */
static int sweep_head(FILE *f, const struct gp_sweep *sw)
{
	char head[400] = "", lab[120];
	for (int i = 0; sw->n && i < sw->npt[0]; i++) {
		char p[200];
		size_t l = strlen(head);
		path_of(sw->pts[0][i], p, sizeof p);
		snprintf(head + l, sizeof head - l, "%s%s", i ? " " : "", p);
	}
	int w = 6;   /* "values" */
	for (long k = 0; k < sw->n; k++) {
		label_of(sw, k, lab, sizeof lab);
		if ((int)strlen(lab) > w)
			w = (int)strlen(lab);
	}
	w = w < SWEEP_LABEL ? w : SWEEP_LABEL;
	int hl = (int)strlen(head);
	fprintf(f, "the plan shown, simulated at each point\n");
	if (hl > SWEEP_LABEL)
		fprintf(f, "values of %s\n", head);
	else if (hl > w)
		w = hl;
	fprintf(f, "\n%-*s %10s %10s %8s %4s\n", w, hl > SWEEP_LABEL ? "values" : head, "iteration",
		"tokens/s", "MFU", "fits");
	return w;
}

/* The file's overrides and the command's axes, each value read with
 * units; NULL (having said why) when no axis has two values. */
static char **sweep_sets(struct gp_app *a, int argc, char **argv, int *n)
{
	char **sets = calloc((size_t)(a->run.nsets + argc), sizeof *sets);
	int axes = 0, ok = sets != NULL;
	*n = 0;
	for (int i = 0; ok && i < a->run.nsets; i++)
		ok = (sets[(*n)++] = strdup(a->run.sets[i])) != NULL;
	char why[300] = "";
	for (int i = 1; ok && i < argc; i++) {
		int nv;
		ok = (sets[(*n)++] = sweep_axis(argv[i], &nv, why, sizeof why)) != NULL;
		axes += nv > 1;
	}
	if (ok && axes)
		return sets;
	for (int i = 0; sets && i < *n; i++)
		free(sets[i]);
	free(sets);
	if (ok)
		gp_app_say(a, GP_R_WARN, "usage: :sweep PATH=v1,v2,... (two values or more)");
	else if (why[0])
		gp_app_say(a, GP_R_ERROR, "sweep: refused: %s", why);
	return NULL;
}

void gp_cmd_sweep(struct gp_app *a, int argc, char **argv)
{
	int n;
	char **sets = sweep_sets(a, argc, argv, &n);
	if (!sets)
		return;
	struct gp_sweep sw;
	struct gp_err e = { "" };
	int rc = gp_sweep_product(&sw, (const char *const *)sets, n, &e);
	for (int i = 0; i < n; i++)
		free(sets[i]);
	free(sets);
	if (rc) {
		const char *m = !strncmp(e.msg, "sweep: ", 7) ? e.msg + 7 : e.msg;
		return (void)gp_app_say(a, GP_R_ERROR, "sweep: %s", m);
	}
	if (sw.n > GP_CMD_SWEEP_MAX) {
		gp_app_say(a, GP_R_WARN, "sweep: %ld points; here at most %d (geoplan sweep -j runs more)",
			   sw.n, GP_CMD_SWEEP_MAX);
		gp_sweep_free(&sw);
		return;
	}
	sw.cost_path = a->run.cost_path;
	sw.heur_path = a->run.heur_path;
	sw.xlate = gp_ov_xlate;
	char *text;
	size_t len;
	FILE *f = table_open(&text, &len);
	if (f) {
		int w = sweep_head(f, &sw);
		for (long k = 0; k < sw.n; k++) {
			struct gp_metrics m;
			struct gp_sim_req sim = { .schedule = -1 };
			e.msg[0] = 0;
			int bad = gp_sweep_point(&sw, k, a->run.path, NULL, &sim, &m, &e);
			sweep_row(a, f, &sw, k, w, &m, bad ? e.msg : NULL);
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
