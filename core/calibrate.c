/*
 * calibrate.c: geoplan calibrate's pipeline (calibrate.h): load the
 * runs, make the model (BASE, or the default's calibratable form for
 * the runs' GPU types), find what the data can see, fit, leave each run
 * out, measure each parameter's sensitivity, write OUT.lua and check
 * that it reproduces the fit.
 *
 * Every prediction is a run object's (run.h): the run's scenario loaded
 * as sim loads it (its own cost_model set aside: one model is fitted
 * for all runs), its cost tables rebuilt from the model whenever the
 * params change, its plan simulated. The fit itself (objective, search,
 * leave-one-out, sensitivity) is calibrate_fit.c.
 */
#include "calibrate_fit.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char *const no_script[] = { "cost_model=nil" };

/* --- predictions ------------------------------------------------------ */

int cal_eval_run(struct cal *c, int j, struct gp_err *e)
{
	struct cal_run *cr = &c->runs[j];
	struct gp_run *r = &cr->r;
	const struct gp_cost_model *cm = gp_lua_cost_model(c->lc);
	struct gp_costtab *ct = gp_costtab_new(r->sc, cm, e);
	if (!ct) {
		gp_err_prefix(e, cr->path);
		return -1;
	}
	gp_costtab_free(r->costs);
	r->costs = ct;
	r->cm = cm;
	struct gp_sim_req rq = { .schedule = -1 };
	if (gp_run_simulate(r, &rq, e))
		return -1;
	c->evals++;
	cr->t = r->res.iteration_time;
	cr->m = gp_result_peak_memory(&r->res);
	cr->fits = r->res.fits;
	snprintf(cr->fit_msg, sizeof cr->fit_msg, "%s", r->res.fit_msg);
	return 0;
}

int cal_eval(struct cal *c, const bool *use, struct gp_err *e)
{
	for (int j = 0; j < c->n; j++)
		if ((!use || use[j]) && cal_eval_run(c, j, e))
			return -1;
	return 0;
}

int cal_set(struct cal *c, int i, double v, struct gp_err *e)
{
	struct gp_cal_param *p = &c->par[i];
	p->value = fmin(p->max, fmax(p->min, v));
	return gp_lua_cost_set_param(c->lc, i, p->value, e);
}

/* --- loading ---------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int load_runs(struct cal *c, const char *const *paths, struct gp_err *e)
{
	for (int j = 0; j < c->n; j++)
		gp_run_init(&c->runs[j].r);
	for (int j = 0; j < c->n; j++) {
		struct cal_run *cr = &c->runs[j];
		cr->path = paths[j];
		cr->r.log = c->o->log;
		cr->r.log_ud = c->o->log_ud;
		if (gp_run_load(&cr->r, paths[j], no_script, 1, e))
			return -1;
		const struct gp_scenario *s = cr->r.sc;
		if (!s->has_plan)
			return gp_errf(e, "%s: no plan = { ... }: calibrate predicts each run from the plan that was measured",
				       paths[j]);
		cr->t_meas = s->measured.iteration_time;
		cr->m_meas = s->measured.peak_memory;
		if (!(cr->t_meas > 0) && !(cr->m_meas > 0))
			return gp_errf(e, "%s: no measured = { iteration_time = seconds, peak_memory = bytes }: nothing to calibrate against",
				       paths[j]);
		if (s->cost_model[0] && c->o->log) {
			char line[1200];
			snprintf(line, sizeof line, "%s: its cost_model \"%s\" is set aside: calibrate fits one model to every run",
				 paths[j], s->cost_model);
			c->o->log(c->o->log_ud, line);
		}
	}
	return 0;
}

/* A parameter name for GPU type `gpu`: efficiency_ and the name with
 * every byte outside [A-Za-z0-9_] as '_', unique among the first n. */
static void gpu_param(const struct cal_form *f, int n, const char *gpu, char *out, size_t len)
{
	char base[40];
	size_t k = 0;
	for (const char *p = gpu; *p && k < 33; p++)
		base[k++] = isalnum((unsigned char)*p) && !((unsigned char)*p & 0x80) ? *p : '_';
	base[k] = 0;
	for (int tries = 1;; tries++) {
		if (tries == 1)
			snprintf(out, len, "efficiency_%s", base);
		else
			snprintf(out, len, "efficiency_%s_%d", base, tries);
		int clash = 0;
		for (int i = 0; i < n; i++)
			clash |= !strcmp(f->gpus[i].param, out);
		if (!clash)
			return;
	}
}

/* Run j gives GPU type g another efficiency than the first run that
 * uses it (the form's default for the type's parameter). */
static void differs(const struct cal *c, int j, const struct gp_gpu *g, const char *param,
		    double def)
{
	if (!c->o->log)
		return;
	char line[1024];
	snprintf(line, sizeof line, "%s: its %s has efficiency %g, an earlier run's %g: one %s is fitted for both, from %g",
		 c->runs[j].path, g->name, g->efficiency, def, param, def);
	c->o->log(c->o->log_ud, line);
}

/* GPU type g of run j into the form, once (said: the types run j has
 * been checked against already). */
static int add_gpu(struct cal *c, int j, const struct gp_gpu *g, bool *said, struct gp_err *e)
{
	struct cal_form *f = &c->form;
	int i = 0;
	while (i < f->ngpus && strcmp(f->gpus[i].gpu, g->name))
		i++;
	if (i < f->ngpus) {
		if (g->efficiency != f->gpus[i].efficiency && !said[i])
			differs(c, j, g, f->gpus[i].param, f->gpus[i].efficiency);
		said[i] = true;
		return 0;
	}
	if (f->ngpus == CAL_MAX_GPUS)
		return gp_errf(e, "the runs use more than %d GPU types", CAL_MAX_GPUS);
	snprintf(f->gpus[i].gpu, sizeof f->gpus[i].gpu, "%s", g->name);
	gpu_param(f, i, g->name, f->gpus[i].param, sizeof f->gpus[i].param);
	f->gpus[i].efficiency = g->efficiency;
	said[i] = true;
	f->ngpus++;
	return 0;
}

/* The GPU types the runs' plans use, in the order they first appear,
 * and the bound on the reserve. */
static int make_form(struct cal *c, struct gp_err *e)
{
	double least = HUGE_VAL;
	for (int j = 0; j < c->n; j++) {
		const struct gp_scenario *s = c->runs[j].r.sc;
		bool said[CAL_MAX_GPUS] = { false };
		for (int q = 0; q < s->plan.npipes; q++)
			for (int t = 0; t < s->plan.pipes[q].nstages; t++) {
				const struct gp_stage *st = &s->plan.pipes[q].stages[t];
				const struct gp_gpu *g = &s->gpus[s->dcs[st->dc].pools[st->pool].gpu];
				least = fmin(least, g->memory);
				if (add_gpu(c, j, g, said, e))
					return -1;
			}
	}
	c->form.reserve_max = 0.4 * least;
	return 0;
}

/* The model: BASE, or the form; its params mirrored in c->par. */
static int make_model(struct cal *c, struct gp_err *e)
{
	if (c->o->base) {
		c->text = gp_read_file(c->o->base, &c->len, e);
		if (!c->text)
			return -1;
		c->lc = gp_lua_cost_from_text(c->o->base, c->text, c->len, e);
	} else {
		if (make_form(c, e))
			return -1;
		size_t len;
		char *t = cal_form_text(&c->form, NULL, 0, NULL, &len);
		if (!t)
			return gp_errf(e, "out of memory");
		c->lc = gp_lua_cost_from_text("(the default's calibratable form)", t, len, e);
		free(t);
	}
	if (!c->lc)
		return -1;
	gp_lua_cost_set_log(c->lc, c->o->log, c->o->log_ud);
	c->np = gp_lua_cost_nparams(c->lc);
	if (c->np == 0)
		return gp_errf(e, "%s: no params to fit: a cost-model script declares them as params = { name = { default, min = ..., max = ... } } (geoplan-lua(7))",
			       c->o->base);
	c->par = calloc((size_t)c->np, sizeof *c->par);
	if (!c->par)
		return gp_errf(e, "out of memory");
	for (int i = 0; i < c->np; i++) {
		const struct gp_cost_param *q = gp_lua_cost_param(c->lc, i);
		struct gp_cal_param *p = &c->par[i];
		snprintf(p->name, sizeof p->name, "%s", q->name);
		p->unit = cal_form_unit(q->name);
		p->def = p->value = q->value;
		p->min = q->min;
		p->max = q->max;
	}
	return 0;
}

/* --- the result ------------------------------------------------------- */

static int collect(struct cal *c, struct gp_cal_fit *out, struct gp_err *e)
{
	out->runs = calloc((size_t)c->n, sizeof *out->runs);
	out->params = malloc(sizeof *out->params * (size_t)c->np);
	if (!out->runs || !out->params)
		return gp_errf(e, "out of memory");
	memcpy(out->params, c->par, sizeof *out->params * (size_t)c->np);
	out->nparams = c->np;
	out->nruns = c->n;
	double *tm = calloc((size_t)c->n * 4 + 1, sizeof *tm);
	if (!tm)
		return gp_errf(e, "out of memory");
	double *tp = tm + c->n, *mm = tp + c->n, *mp = mm + c->n;
	for (int j = 0; j < c->n; j++) {
		const struct cal_run *cr = &c->runs[j];
		struct gp_cal_run *o = &out->runs[j];
		snprintf(o->path, sizeof o->path, "%s", cr->path);
		snprintf(o->name, sizeof o->name, "%s", cr->r.sc->name);
		o->t_meas = tm[j] = cr->t_meas;
		o->m_meas = mm[j] = cr->m_meas;
		o->t_pred = tp[j] = cr->t;
		o->m_pred = mp[j] = cr->m;
		o->t_loo = cr->t_loo;
		o->m_loo = cr->m_loo;
		o->fits = cr->fits;
		out->n_time += cr->t_meas > 0;
		out->n_mem += cr->m_meas > 0;
	}
	out->mape_time = gp_cal_mape(tm, tp, c->n);
	out->mape_mem = gp_cal_mape(mm, mp, c->n);
	out->spearman = gp_cal_spearman(tm, tp, c->n);
	free(tm);
	return 0;
}

/* "-- fitted to N runs: a.lua, b.lua\n-- time MAPE ...\n" */
static char *header(const struct cal *c, const struct gp_cal_fit *f)
{
	char *buf = NULL;
	size_t len;
	FILE *h = open_memstream(&buf, &len);
	if (!h)
		return NULL;
	fprintf(h, "--\n-- Fitted to %d run%s:", c->n, c->n == 1 ? "" : "s");
	int col = 80;
	for (int j = 0; j < c->n; j++) {
		const char *b = base_name(c->runs[j].path);
		if (col + (int)strlen(b) > 76)
			col = fprintf(h, "\n--  ");
		fputc(' ', h);
		for (const char *p = b; *p; p++)
			fputc(*p >= 0x20 && *p < 0x7f ? *p : '?', h);
		col += (int)strlen(b) + 1;
	}
	fprintf(h, "\n-- fit: time MAPE %.2f %% over %d, memory MAPE %.2f %% over %d\n",
		f->mape_time, f->n_time, f->mape_mem, f->n_mem);
	if (!c->o->no_loo)
		fprintf(h, "-- leave-one-out: time MAPE %.2f %% over %d, memory MAPE %.2f %% over %d\n",
			f->loo_time, f->loo_n_time, f->loo_mem, f->loo_n_mem);
	if (fclose(h)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* OUT.lua's text, loaded again: every run's prediction must be the
 * fitted one, to the bit. */
static int write_and_check(struct cal *c, struct gp_cal_fit *f, struct gp_err *e)
{
	char *h = header(c, f);
	if (!h)
		return gp_errf(e, "out of memory");
	if (c->o->base)
		f->text = cal_wrap_text(c->text, c->len, c->o->base, c->par, c->np, h, &f->len);
	else
		f->text = cal_form_text(&c->form, c->par, c->np, h, &f->len);
	free(h);
	if (!f->text)
		return gp_errf(e, "out of memory");
	struct gp_lua_cost *lc = gp_lua_cost_from_text("(the calibrated model)", f->text, f->len, e);
	if (!lc) {
		gp_err_prefix(e, "the calibrated model does not load");
		return -1;
	}
	struct gp_lua_cost *fitted = c->lc;
	c->lc = lc;
	int rc = 0;
	for (int j = 0; j < c->n && !rc; j++) {
		double t = c->runs[j].t, m = c->runs[j].m;
		rc = cal_eval_run(c, j, e);
		if (!rc && (c->runs[j].t != t || c->runs[j].m != m))
			rc = gp_errf(e, "%s: the written model predicts %.17g s and %.17g B, the fit %.17g s and %.17g B: a BASE that reads its params other than as ctx.params?",
				     c->runs[j].path, c->runs[j].t, c->runs[j].m, t, m);
	}
	c->lc = fitted;
	gp_lua_cost_free(lc);
	return rc;
}

static void cal_free(struct cal *c)
{
	for (int j = 0; c->runs && j < c->n; j++)
		gp_run_free(&c->runs[j].r);
	free(c->runs);
	free(c->par);
	free(c->seen);
	free(c->text);
	gp_lua_cost_free(c->lc);
}

int gp_calibrate(const char *const *paths, int n, const struct gp_cal_opts *o,
		 struct gp_cal_fit *out, struct gp_err *e)
{
	static const struct gp_cal_opts none;
	memset(out, 0, sizeof *out);
	struct cal c = { .o = o ? o : &none, .n = n };
	if (n < 1)
		return gp_errf(e, "no runs to calibrate on");
	snprintf(out->model, sizeof out->model, "%s",
		 c.o->base ? c.o->base : "the default's calibratable form");
	c.runs = calloc((size_t)n, sizeof *c.runs);
	int rc = c.runs ? 0 : gp_errf(e, "out of memory");
	if (!rc)
		rc = load_runs(&c, paths, e);
	if (!rc)
		rc = make_model(&c, e);
	if (!rc)
		rc = cal_fit_all(&c, out, e);
	if (!rc)
		rc = collect(&c, out, e);
	if (!rc)
		rc = write_and_check(&c, out, e);
	out->evals = c.evals;
	cal_free(&c);
	return rc;
}

void gp_cal_fit_free(struct gp_cal_fit *f)
{
	free(f->params);
	free(f->runs);
	free(f->text);
	memset(f, 0, sizeof *f);
}
