/*
 * cmd_calibrate.c: geoplan calibrate: fit a cost model's params to
 * measured runs (core/calibrate.h), print the fit and write OUT.lua.
 *
 * The report goes to standard output (to standard error when OUT.lua
 * itself does, -o -); OUT.lua is written beside its name and renamed
 * over it, so a failed write leaves what was there.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "cli.h"

static void log_stderr(void *ud, const char *line)
{
	(void)ud;
	fprintf(stderr, "geoplan: %s\n", line);
}

/* Seconds with three or four significant digits and a unit. */
static const char *fmt_time(double t, char *buf, size_t n)
{
	if (!isfinite(t))
		snprintf(buf, n, "-");
	else if (t >= 1 || t == 0)
		snprintf(buf, n, "%.4g s", t);
	else if (t >= 1e-3)
		snprintf(buf, n, "%.4g ms", t * 1e3);
	else
		snprintf(buf, n, "%.4g us", t * 1e6);
	return buf;
}

static const char *fmt_mem(double b, char *buf, size_t n)
{
	if (!isfinite(b) || b <= 0)
		snprintf(buf, n, b == 0 ? "0 GiB" : "-");
	else
		snprintf(buf, n, "%.2f GiB", b / 1073741824.0);
	return buf;
}

static const char *fmt_value(double v, const char *unit, char *buf, size_t n)
{
	if (!strcmp(unit, "s"))
		return fmt_time(v, buf, n);
	if (!strcmp(unit, "B"))
		return fmt_mem(v, buf, n);
	snprintf(buf, n, "%.4g", v);
	return buf;
}

/* "+1.2 %" of pred against meas, or "-" when not measured. */
static const char *fmt_err(double pred, double meas, char *buf, size_t n)
{
	if (meas > 0 && isfinite(pred))
		snprintf(buf, n, "%+.1f %%", 100 * (pred - meas) / meas);
	else
		snprintf(buf, n, "-");
	return buf;
}

static const char *fmt_pct(double v, char *buf, size_t n)
{
	if (isfinite(v))
		snprintf(buf, n, "%.2f %%", v);
	else
		snprintf(buf, n, "-");
	return buf;
}

static void print_params(FILE *f, const struct gp_cal_fit *r)
{
	char a[32], b[32], c[32], d[32], t[32];
	fprintf(f, "%-22s %11s %11s %11s  %-11s %8s %8s  %s\n", "parameter", "value", "min", "max",
		"moved by", "time", "peak", "time MAPE after");
	for (int i = 0; i < r->nparams; i++) {
		const struct gp_cal_param *p = &r->params[i];
		fprintf(f, "%-22s %11s %11s %11s  ", p->name, fmt_value(p->value, p->unit, a, sizeof a),
			fmt_value(p->min, p->unit, b, sizeof b), fmt_value(p->max, p->unit, c, sizeof c));
		if (p->state != GP_CAL_FITTED) {
			fprintf(f, "default: %s\n", p->why);
			continue;
		}
		if (p->value != 0 && fabs(fabs(p->step) - 0.1 * fabs(p->value)) <= 1e-9 * fabs(p->value))
			snprintf(d, sizeof d, "%+.0f %%", p->step > 0 ? 10.0 : -10.0);
		else
			fmt_value(p->step, p->unit, d, sizeof d);
		fprintf(f, "%-11s %+7.2f%% %+7.2f%%  %s\n", d, p->dtime, p->dmem,
			fmt_pct(p->mape_after, t, sizeof t));
	}
}

static void print_runs(FILE *f, const struct gp_cal_fit *r)
{
	int w = 4;
	for (int j = 0; j < r->nruns; j++)
		w = (int)fmax(w, (double)strlen(r->runs[j].name));
	char s[10][32];
	fprintf(f, "%-*s  %-45s  %s\n", w, "", "iteration time", "peak memory");
	fprintf(f, "%-*s  %9s %9s %7s %9s %7s  %9s %9s %7s %9s %7s\n", w, "run", "measured",
		"predicted", "error", "left out", "error", "measured", "predicted", "error",
		"left out", "error");
	for (int j = 0; j < r->nruns; j++) {
		const struct gp_cal_run *x = &r->runs[j];
		bool lt = x->t_meas > 0 && isfinite(x->t_loo), lm = x->m_meas > 0 && isfinite(x->m_loo);
		fprintf(f, "%-*s  %9s %9s %7s %9s %7s  %9s %9s %7s %9s %7s%s\n", w, x->name,
			x->t_meas > 0 ? fmt_time(x->t_meas, s[0], 32) : "-",
			fmt_time(x->t_pred, s[1], 32), fmt_err(x->t_pred, x->t_meas, s[2], 32),
			lt ? fmt_time(x->t_loo, s[3], 32) : "-", fmt_err(x->t_loo, x->t_meas, s[4], 32),
			x->m_meas > 0 ? fmt_mem(x->m_meas, s[5], 32) : "-",
			fmt_mem(x->m_pred, s[6], 32), fmt_err(x->m_pred, x->m_meas, s[7], 32),
			lm ? fmt_mem(x->m_loo, s[8], 32) : "-", fmt_err(x->m_loo, x->m_meas, s[9], 32),
			x->fits ? "" : "  DOES NOT FIT");
	}
}

static void print_fit(FILE *f, const struct gp_cal_fit *r, const char *out)
{
	char a[32], b[32], c[32], d[32];
	fprintf(f, "calibrate  %d run%s (%d measured iteration time%s, %d peak memor%s), %s\n",
		r->nruns, r->nruns == 1 ? "" : "s", r->n_time, r->n_time == 1 ? "" : "s",
		r->n_mem, r->n_mem == 1 ? "y" : "ies", r->model);
	fprintf(f, "fitted     %d of %d parameters, %ld simulations; RMS relative error %.3g %%\n\n",
		r->nfitted, r->nparams, r->evals, 100 * sqrt(r->objective));
	print_params(f, r);
	fprintf(f, "(sensitivity: each fitted parameter moved as shown; the mean change of the\n"
		   "predicted times and peaks over the runs, and the time MAPE then)\n\n");
	fprintf(f, "fit            time MAPE %s, Spearman %s; memory MAPE %s\n",
		fmt_pct(r->mape_time, a, sizeof a),
		isfinite(r->spearman) ? (snprintf(b, sizeof b, "%.3f", r->spearman), b) : "-",
		fmt_pct(r->mape_mem, c, sizeof c));
	fprintf(f, "leave-one-out  time MAPE %s over %d run%s; memory MAPE %s over %d\n",
		fmt_pct(r->loo_time, a, sizeof a), r->loo_n_time, r->loo_n_time == 1 ? "" : "s",
		fmt_pct(r->loo_mem, d, sizeof d), r->loo_n_mem);
	fprintf(f, "\n");
	print_runs(f, r);
	fprintf(f, "\nwrote %s (sim --cost-model %s reproduces the predictions above)\n",
		out, out);
}

/* The text over path, through a temporary file renamed over it. */
static int write_out(const char *path, const char *text, size_t len)
{
	if (!strcmp(path, "-"))
		return fwrite(text, 1, len, stdout) == len && !fflush(stdout) ? EXIT_OK :
		       cli_error(EXIT_INPUT, "standard output: write failed");
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return cli_error(EXIT_INPUT, "%s: %s", tmp, strerror(errno));
	bool ok = fwrite(text, 1, len, f) == len;
	ok = !fclose(f) && ok;
	if (!ok || rename(tmp, path)) {
		int err = errno;
		remove(tmp);
		return cli_error(EXIT_INPUT, "%s: %s", path, ok ? strerror(err) : "write failed");
	}
	return EXIT_OK;
}

static int run(const struct args *a)
{
	if (!a->out)
		return cli_usage_error(a, "calibrate needs -o OUT.lua (the calibrated cost model)");
	struct gp_cal_opts o = { .base = a->cost_model, .log = log_stderr };
	struct gp_cal_fit r;
	struct gp_err e = { "" };
	int rc = EXIT_OK;
	if (gp_calibrate(a->files, a->nfiles, &o, &r, &e))
		rc = cli_error(EXIT_INPUT, "calibrate: %s", e.msg);
	if (rc == EXIT_OK)
		rc = write_out(a->out, r.text, r.len);
	if (rc == EXIT_OK)
		print_fit(strcmp(a->out, "-") ? stdout : stderr, &r, a->out);
	gp_cal_fit_free(&r);
	return rc;
}

const struct cmd cmd_calibrate = {
	.name = "calibrate",
	.help = "fit a cost model's params to measured runs; write OUT.lua",
	.opts = "out cost-model",
	.file = true,
	.many = true,
	.run = run,
};
