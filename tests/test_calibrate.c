/*
 * test_calibrate.c: geoplan calibrate's fit (core/calibrate.h).
 *
 * Nelder-Mead finds known minima inside and on the bounds of its box;
 * MAPE and Spearman match hand-worked values; the calibratable form at
 * its defaults is the C default to the bit on every sample; runs
 * "measured" under a known cost model (efficiency 0.6 and 0.7, 2 ms per
 * layer pass, a 3 GB reserve, activations x 1.3) calibrate back to it and
 * predict held-out runs within 1 %; OUT.lua, loaded as --cost-model
 * loads it, reproduces every fitted prediction exactly; a BASE's own
 * params are fitted and written over its text; the data's blind spots
 * and too few runs are said.
 */
#include <unistd.h>

#include "testutil.h"
#include "calibrate_int.h"
#include "fit.h"
#include "report.h"
#include "run.h"

/* --- Nelder-Mead ------------------------------------------------------ */

struct bowl {
	double c[3];
	int calls;
};

static double bowl(void *ud, const double *x, int *stop)
{
	(void)stop;
	struct bowl *b = ud;
	b->calls++;
	double s = 0;
	for (int i = 0; i < 3; i++)
		s += (i + 1) * (x[i] - b->c[i]) * (x[i] - b->c[i]);
	return s;
}

/* Rosenbrock over [-2, 2]^2 mapped to the unit box: minimum at u = 0.75. */
static double banana(void *ud, const double *u, int *stop)
{
	(void)ud;
	(void)stop;
	double x = 4 * u[0] - 2, y = 4 * u[1] - 2;
	return 100 * (y - x * x) * (y - x * x) + (1 - x) * (1 - x);
}

static void test_nelder_mead(void **state)
{
	(void)state;
	/* A bowl inside the box. */
	struct bowl b = { { 0.3, 0.8, 0.6 }, 0 };
	double x[3] = { 0.5, 0.5, 0.5 };
	int evals = 0;
	double v = gp_fit_nelder_mead(bowl, &b, 3, x, NULL, &evals);
	for (int i = 0; i < 3; i++)
		assert_true(fabs(x[i] - b.c[i]) < 1e-6);
	assert_true(v < 1e-12);
	assert_int_equal(evals, b.calls);
	/* The same search twice: the same evaluations. */
	struct bowl b2 = { { 0.3, 0.8, 0.6 }, 0 };
	double y[3] = { 0.5, 0.5, 0.5 };
	gp_fit_nelder_mead(bowl, &b2, 3, y, NULL, NULL);
	assert_memory_equal(x, y, sizeof x);
	assert_int_equal(b.calls, b2.calls);

	/* Rosenbrock's valley, from two starts and a polish. */
	double starts[4] = { 0.1, 0.9, 0.5, 0.5 }, u[2];
	struct gp_fit_plan plan = { .starts = starts, .nstarts = 2,
				    .explore = { .step = 0.25, .xtol = 1e-2 },
				    .polish = { { .step = 0.02 } }, .npolish = 1 };
	double r = gp_fit_search(banana, NULL, 2, &plan, u, NULL);
	assert_true(fabs(u[0] - 0.75) < 1e-4 && fabs(u[1] - 0.75) < 1e-4);
	assert_true(r < 1e-8);
	/* A bowl whose centre is beyond the face x2 = 1: the barrier keeps
	 * every point evaluated inside, the polish rebuilds a simplex
	 * flattened on the face, the snap puts x2 on the face exactly. */
	struct bowl b3 = { { 0.3, 0.8, 1.7 }, 0 };
	double s3[3] = { 0.5, 0.5, 0.5 }, z[3];
	struct gp_fit_plan p3 = { .starts = s3, .nstarts = 1, .explore = { .step = 0.25 },
				  .polish = { { .step = 0.05 } }, .npolish = 1, .snap = 1e-3 };
	r = gp_fit_search(bowl, &b3, 3, &p3, z, NULL);
	assert_true(fabs(z[0] - 0.3) < 1e-6 && fabs(z[1] - 0.8) < 1e-6);
	assert_true(z[2] == 1);
	assert_close(r, 3 * 0.7 * 0.7, 1e-9);
}

static void test_mape_spearman(void **state)
{
	(void)state;
	double m[] = { 1, 2, 4, 0, 8 }, p[] = { 1.1, 1.8, 4, 99, 6 };
	/* (10 % + 10 % + 0 % + 25 %) / 4; the unmeasured entry left out. */
	assert_close(gp_cal_mape(m, p, 5), 11.25, 1e-12);
	/* Ranks 1 2 3 4 against 1 2 3 4 (99 is not measured). */
	assert_close(gp_cal_spearman(m, p, 5), 1, 1e-12);
	double rev[] = { 4, 3, 2, 0, 1 };
	assert_close(gp_cal_spearman(m, rev, 5), -1, 1e-12);
	/* Ties take their mean rank: ranks (1, 2.5, 2.5, 4) against
	 * (1, 2, 3, 4): sum of d^2 = 0.5, sd of tied ranks sqrt(4.5/4). */
	double a[] = { 1, 2, 3, 4 }, t[] = { 1, 5, 5, 9 };
	double want = 4.5 / sqrt(5.0 * 4.5);
	assert_close(gp_cal_spearman(a, t, 4), want, 1e-12);
	assert_true(isnan(gp_cal_spearman(a, t, 1)));
	double none[] = { 0, 0 };
	assert_true(isnan(gp_cal_mape(none, a, 2)));
}

/* --- the form is the default ------------------------------------------ */

static const char *const samples[] = { "samples/default.lua", "samples/p1.lua",
	"samples/p2.lua", "samples/p3.lua", "samples/p4.lua", "samples/p5.lua",
	"samples/p6.lua" };

static void test_form_at_defaults_is_the_default(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
		struct gp_err e = { "" };
		struct gp_scenario *s = gp_scenario_load(samples[i], &e);
		assert_non_null(s);
		struct cal_form f = { .reserve_max = 1e10 };
		for (int g = 0; g < s->ngpus && f.ngpus < CAL_MAX_GPUS; g++, f.ngpus++) {
			snprintf(f.gpus[g].gpu, sizeof f.gpus[g].gpu, "%s", s->gpus[g].name);
			snprintf(f.gpus[g].param, sizeof f.gpus[g].param, "efficiency_%d", g);
			f.gpus[g].efficiency = s->gpus[g].efficiency;
		}
		size_t len;
		char *text = cal_form_text(&f, NULL, 0, NULL, &len);
		assert_non_null(text);
		struct gp_lua_cost *lc = gp_lua_cost_from_text("form", text, len, &e);
		if (!lc)
			fail_msg("%s: %s", samples[i], e.msg);
		struct gp_sim_opts a = { 0 }, b = { .cost = gp_lua_cost_model(lc) };
		struct gp_result x, y;
		assert_int_equal(gp_simulate(s, &s->plan, &a, &x, &e), 0);
		assert_int_equal(gp_simulate(s, &s->plan, &b, &y, &e), 0);
		assert_true(x.iteration_time == y.iteration_time);
		assert_int_equal(x.ndevs, y.ndevs);
		for (int d = 0; d < x.ndevs; d++)
			assert_true(x.devs[d].mem_peak == y.devs[d].mem_peak);
		gp_result_free(&x);
		gp_result_free(&y);
		gp_lua_cost_free(lc);
		free(text);
		gp_scenario_free(s);
	}
}

/* --- synthetic truth -------------------------------------------------- */

static const char truth[] =
	"return {\n"
	"  efficiency = function(gpu, layer, ctx)\n"
	"    if gpu.name == 'H100' then return 0.7 end\n"
	"    return 0.6\n"
	"  end,\n"
	"  compute = function(layer, gpu, ctx)\n"
	"    local f, b, w = geoplan.default.compute(layer, gpu, ctx)\n"
	"    if layer.kind == 'block' then return f + 0.002, b + 0.002, w + 0.002 end\n"
	"    return f, b, w\n"
	"  end,\n"
	"  memory = function(layer, gpu, ctx)\n"
	"    local a, w = geoplan.default.memory(layer, gpu, ctx)\n"
	"    return 1.3 * a, 1.3 * w\n"
	"  end,\n"
	"  reserve = function(gpu, ctx) return geoplan.default.reserve(gpu, ctx) + 3e9 end,\n"
	"}\n";

/* A run: stages of one GPU type each (a: A100-80, h: H100), 8 layers
 * shared evenly, and the job's shape; the attention scores materialised,
 * so that the form's attention_scores has score work to see. */
struct spec {
	const char *gpus;
	int tp, seq, mb, m, replicas;
	const char *recompute;
};

static const struct spec fitted[] = {
	{ "aa", 1, 1024, 1, 8, 1, "none" },
	{ "aa", 2, 2048, 2, 8, 2, "selective" },
	{ "a", 4, 4096, 1, 4, 1, "full" },
	{ "hh", 1, 2048, 1, 8, 1, "none" },
	{ "h", 2, 1024, 4, 4, 2, "none" },
	{ "hh", 4, 4096, 2, 4, 1, "selective" },
};

static const struct spec held_out[] = {
	{ "aaaa", 2, 2048, 1, 16, 1, "none" },
	{ "h", 1, 512, 8, 4, 1, "selective" },
	{ "aahh", 2, 2048, 2, 8, 1, "none" },
};

struct dir {
	char path[64];
	char files[16][128];
	int n;
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void scenario_text(char *buf, size_t n, const struct spec *sp, double t, double m)
{
	char stages[1024] = "", measured[256] = "", pools[256] = "";
	if (strchr(sp->gpus, 'a'))
		strcat(pools, "{ gpu = 'A100-80', count = 16 }, ");
	if (strchr(sp->gpus, 'h'))
		strcat(pools, "{ gpu = 'H100', count = 16 }, ");
	int ns = (int)strlen(sp->gpus), per = 8 / ns;
	for (int i = 0; i < ns; i++) {
		size_t l = strlen(stages);
		snprintf(stages + l, sizeof stages - l,
			 "{ dc = 'dc', gpu = '%s', tp = %d, layers = { %d, %d } }, ",
			 sp->gpus[i] == 'a' ? "A100-80" : "H100", sp->tp, i * per + 1, (i + 1) * per);
	}
	if (t > 0 && m > 0)
		snprintf(measured, sizeof measured, "  measured = { iteration_time = %.17g, peak_memory = %.17g },\n",
			 t, m);
	else if (t > 0)
		snprintf(measured, sizeof measured, "  measured = { iteration_time = %.17g },\n", t);
	else if (m > 0)
		snprintf(measured, sizeof measured, "  measured = { peak_memory = %.17g },\n", m);
	snprintf(buf, n,
		 "return {\n"
		 "  name = 'run-%s-%d-%d-%d',\n"
		 "  dcs = { { name = 'dc', pools = { %s} } },\n"
		 "  model = { name = 'small', layers = 8, hidden = 2048, heads = 8, ffn = 8192, vocab = 32000 },\n"
		 "  job = { seq = %d, global_batch = %d, micro_batch = %d, recompute = '%s',\n"
		 "          attention = 'materialised' },\n"
		 "%s"
		 "  plan = { schedule = '1f1b', pipelines = { { micro_batches = %d, replicas = %d, stages = { %s } } } },\n"
		 "}\n",
		 sp->gpus, sp->tp, sp->seq, sp->mb, pools, sp->seq, sp->m * sp->mb * sp->replicas, sp->mb,
		 sp->recompute, measured, sp->m, sp->replicas, stages);
}

/* Simulates path's own plan under the cost-model script at model (NULL:
 * the default), as sim --cost-model does. */
static void predict(const char *path, const char *model, double *t, double *m)
{
	struct gp_run r;
	struct gp_err e = { "" };
	gp_run_init(&r);
	r.cost_path = model;
	struct gp_sim_req rq = { .schedule = -1 };
	if (gp_run_load(&r, path, NULL, 0, &e) || gp_run_simulate(&r, &rq, &e))
		fail_msg("%s: %s", path, e.msg);
	*t = r.res.iteration_time;
	*m = gp_result_peak_memory(&r.res);
	gp_run_free(&r);
}

/* Writes the runs into d, measured under the truth (flags: 1 time, 2
 * memory). */
static void make_runs(struct dir *d, const struct spec *sp, int n, int flags, const char *tag)
{
	char truth_path[128], text[4096];
	snprintf(truth_path, sizeof truth_path, "%s/truth.lua", d->path);
	write_file(truth_path, truth);
	for (int i = 0; i < n; i++) {
		char p[128];
		snprintf(p, sizeof p, "%s/%s%d.lua", d->path, tag, i);
		memcpy(d->files[d->n++], p, sizeof p);
		scenario_text(text, sizeof text, &sp[i], 0, 0);
		write_file(p, text);
		double t, m;
		predict(p, truth_path, &t, &m);
		scenario_text(text, sizeof text, &sp[i], flags & 1 ? t : 0, flags & 2 ? m : 0);
		write_file(p, text);
	}
}

static void open_dir(struct dir *d)
{
	memset(d, 0, sizeof *d);
	snprintf(d->path, sizeof d->path, "/tmp/gp_calibrate_XXXXXX");
	assert_non_null(mkdtemp(d->path));
}

static void close_dir(struct dir *d)
{
	char p[192];
	for (int i = 0; i < d->n; i++)
		unlink(d->files[i]);
	static const char *const extra[] = { "truth.lua", "out.lua", "base.lua" };
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof p, "%s/%s", d->path, extra[i]);
		unlink(p);
	}
	rmdir(d->path);
}

static const struct gp_cal_param *param(const struct gp_cal_fit *f, const char *name)
{
	for (int i = 0; i < f->nparams; i++)
		if (!strcmp(f->params[i].name, name))
			return &f->params[i];
	fail_msg("no parameter %s", name);
	return NULL;
}

static void calibrate(struct dir *d, int from, int n, const char *base, bool loo,
		      struct gp_cal_fit *f)
{
	const char *paths[16];
	for (int i = 0; i < n; i++)
		paths[i] = d->files[from + i];
	struct gp_cal_opts o = { .base = base, .no_loo = !loo };
	struct gp_err e = { "" };
	if (gp_calibrate(paths, n, &o, f, &e))
		fail_msg("calibrate: %s", e.msg);
}

/* OUT.lua written, and each run simulated under it as sim
 * --cost-model does: the very doubles the fit printed. */
static void assert_reproduces(struct dir *d, const struct gp_cal_fit *f)
{
	char out[128];
	snprintf(out, sizeof out, "%s/out.lua", d->path);
	FILE *w = fopen(out, "w");
	assert_non_null(w);
	assert_int_equal(fwrite(f->text, 1, f->len, w), f->len);
	assert_int_equal(fclose(w), 0);
	for (int j = 0; j < f->nruns; j++) {
		double t, m;
		predict(f->runs[j].path, out, &t, &m);
		assert_true(t == f->runs[j].t_pred);
		assert_true(m == f->runs[j].m_pred);
	}
}

static void test_synthetic_truth(void **state)
{
	(void)state;
	struct dir d;
	open_dir(&d);
	make_runs(&d, fitted, 6, 3, "fit");
	make_runs(&d, held_out, 3, 3, "held");
	struct gp_cal_fit f;
	calibrate(&d, 0, 6, NULL, false, &f);
	assert_int_equal(f.nparams, 6);
	assert_int_equal(f.nfitted, 6);
	/* The times pin the efficiencies to about 1e-3 only: a trade with
	 * attention_scores leaves the time MAPE under 0.003 %. */
	assert_close(param(&f, "efficiency_A100_80")->value, 0.6, 2e-3);
	assert_close(param(&f, "efficiency_H100")->value, 0.7, 2e-3);
	assert_close(param(&f, "layer_overhead")->value, 0.002, 1e-2);
	assert_close(param(&f, "reserve")->value, 3e9, 1e-3);
	assert_close(param(&f, "activations")->value, 1.3, 1e-3);
	assert_true(param(&f, "attention_scores")->value > 0.98);
	assert_string_equal(param(&f, "layer_overhead")->unit, "s");
	assert_true(f.mape_time < 0.1 && f.mape_mem < 0.1);
	assert_true(isnan(f.loo_time) && isnan(f.runs[0].t_loo));
	assert_int_equal(f.n_time, 6);
	assert_true(f.spearman > 0.99);
	/* Sensitivity: 10 % more efficiency on one GPU type speeds up the
	 * runs that use it, and touches no peak. */
	const struct gp_cal_param *ea = param(&f, "efficiency_A100_80");
	assert_close(ea->step, 0.1 * ea->value, 1e-9);
	assert_true(ea->dtime < -1 && ea->dmem == 0);
	assert_true(param(&f, "activations")->dmem > 1);
	assert_reproduces(&d, &f);

	/* The calibrated model predicts runs it never saw. */
	char out[128];
	snprintf(out, sizeof out, "%s/out.lua", d.path);
	for (int i = 6; i < 9; i++) {
		double t, m, tt, mt;
		predict(d.files[i], out, &t, &m);
		char truth_path[128];
		snprintf(truth_path, sizeof truth_path, "%s/truth.lua", d.path);
		predict(d.files[i], truth_path, &tt, &mt);
		assert_close(t, tt, 0.01);
		assert_close(m, mt, 0.01);
	}
	/* Same inputs, same text. */
	struct gp_cal_fit g;
	calibrate(&d, 0, 6, NULL, false, &g);
	assert_int_equal(f.len, g.len);
	assert_memory_equal(f.text, g.text, f.len);
	gp_cal_fit_free(&g);
	gp_cal_fit_free(&f);
	close_dir(&d);
}

/* --- a BASE's own params ---------------------------------------------- */

static const char base_model[] =
	"-- one calibratable factor on compute, one on a GPU no run uses\n"
	"return {\n"
	"  params = { speed = { 1, min = 0.2, max = 2 }, l40s = { 1, min = 0.5, max = 2 },\n"
	"             fixed = { 3, min = 3, max = 3 } },\n"
	"  compute = function(layer, gpu, ctx)\n"
	"    local f, b, w = geoplan.default.compute(layer, gpu, ctx)\n"
	"    local s = gpu.name == 'L40S' and ctx.params.l40s or ctx.params.speed\n"
	"    return f / s, b / s, w / s\n"
	"  end,\n"
	"}\n";

/* The truth runs fitted by a one-factor BASE: the factor moves, the one
 * for a GPU type no plan uses and the one fixed by its bounds stay, and
 * OUT.lua is BASE's text with the fitted value over its params. */
static void test_base_params(void **state)
{
	(void)state;
	struct dir d;
	open_dir(&d);
	make_runs(&d, fitted, 6, 1, "fit");
	char base[128];
	snprintf(base, sizeof base, "%s/base.lua", d.path);
	write_file(base, base_model);
	struct gp_cal_fit f;
	calibrate(&d, 0, 6, base, true, &f);
	assert_int_equal(f.nparams, 3);
	assert_int_equal(f.nfitted, 1);
	const struct gp_cal_param *s = param(&f, "speed");
	assert_true(s->state == GP_CAL_FITTED && s->seen_time && !s->seen_mem);
	assert_true(s->value > 0.3 && s->value < 0.9);   /* the truth is slower */
	const struct gp_cal_param *l = param(&f, "l40s");
	assert_true(l->state == GP_CAL_UNSEEN && l->value == 1);
	assert_string_equal(l->why, "moves no prediction of these runs");
	assert_true(param(&f, "fixed")->state == GP_CAL_FIXED);
	assert_non_null(strstr(f.text, "local model = (function(...)\n-- one calibratable"));
	char want[128], num[40];
	cal_number(num, sizeof num, s->value);
	snprintf(want, sizeof want, "\nmodel.params.speed = { %s, min = 0.2, max = 2 }\n", num);
	assert_non_null(strstr(f.text, want));
	assert_null(strstr(f.text, "model.params.l40s"));
	assert_true(isnan(f.mape_mem) && f.n_mem == 0);
	assert_reproduces(&d, &f);
	/* Leave-one-out is the same fit without the run: run 0 predicted by
	 * a calibration on runs 1-5, to the bit. */
	struct gp_cal_fit g;
	calibrate(&d, 1, 5, base, false, &g);
	char out[128];
	snprintf(out, sizeof out, "%s/out.lua", d.path);
	FILE *w = fopen(out, "w");
	assert_non_null(w);
	assert_int_equal(fwrite(g.text, 1, g.len, w), g.len);
	assert_int_equal(fclose(w), 0);
	double t, m;
	predict(d.files[0], out, &t, &m);
	assert_true(t == f.runs[0].t_loo);
	assert_int_equal(f.loo_n_time, 6);
	assert_true(f.loo_time >= f.mape_time);
	gp_cal_fit_free(&g);
	gp_cal_fit_free(&f);
	close_dir(&d);
}

/* Times only: the memory params stay and say why; four runs cannot
 * carry the four time params (k + 1 needed), nor three the three that
 * three A100 runs see. */
static void test_what_the_data_sees(void **state)
{
	(void)state;
	struct dir d;
	open_dir(&d);
	make_runs(&d, fitted, 6, 1, "fit");
	struct gp_cal_fit f;
	calibrate(&d, 0, 6, NULL, false, &f);
	assert_int_equal(f.nfitted, 4);
	const struct gp_cal_param *r = param(&f, "reserve");
	assert_true(r->state == GP_CAL_UNSEEN && r->value == 0);
	assert_string_equal(r->why, "moves only peak memory, and no run measures peak_memory");
	assert_true(param(&f, "activations")->state == GP_CAL_UNSEEN);
	assert_close(param(&f, "efficiency_H100")->value, 0.7, 2e-3);
	gp_cal_fit_free(&f);

	/* The three A100 runs and one H100 run: 4 params, 4 figures. */
	const char *paths[] = { d.files[0], d.files[1], d.files[2], d.files[3] };
	struct gp_err e = { "" };
	struct gp_cal_opts o = { 0 };
	assert_int_equal(gp_calibrate(paths, 4, &o, &f, &e), -1);
	assert_non_null(strstr(e.msg, "4 parameters move the measured iteration_time (attention_scores, efficiency_A100_80, efficiency_H100, layer_overhead) but 4 runs measure it"));
	assert_non_null(strstr(e.msg, "Add 1 more run with measured iteration_time"));
	gp_cal_fit_free(&f);

	/* Three A100 runs: 3 params (no H100 parameter at all), 3 figures. */
	assert_int_equal(gp_calibrate(paths, 3, &o, &f, &e), -1);
	assert_non_null(strstr(e.msg, "3 parameters move"));
	gp_cal_fit_free(&f);
	close_dir(&d);
}

static void test_bad_runs(void **state)
{
	(void)state;
	struct dir d;
	open_dir(&d);
	make_runs(&d, fitted, 1, 0, "bare");
	struct gp_cal_fit f;
	struct gp_err e = { "" };
	const char *paths[] = { d.files[0] };
	assert_int_equal(gp_calibrate(paths, 1, NULL, &f, &e), -1);
	assert_non_null(strstr(e.msg, "bare0.lua: no measured = { iteration_time = seconds, peak_memory = bytes }"));
	gp_cal_fit_free(&f);
	assert_int_equal(gp_calibrate(paths, 0, NULL, &f, &e), -1);
	assert_string_equal(e.msg, "no runs to calibrate on");
	gp_cal_fit_free(&f);
	close_dir(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nelder_mead),
		cmocka_unit_test(test_mape_spearman),
		cmocka_unit_test(test_form_at_defaults_is_the_default),
		cmocka_unit_test(test_synthetic_truth),
		cmocka_unit_test(test_base_params),
		cmocka_unit_test(test_what_the_data_sees),
		cmocka_unit_test(test_bad_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
