/*
 * fidelity.c: the default cost model and the simulator against measured
 * iterations, data set by data set (tests/data: vTrain and Korthikanti et
 * al. on A100, NeMo on H100), and the fit of the model's constants to all
 * of them at once.
 *
 * Every CSV row becomes a scenario: one DC with one pool of the row's
 * GPUs, one pipeline of `pp` equal stages of `tp` GPUs with `dp`
 * replicas, 1F1B (interleaved when virtual_stages > 1), the job the row
 * ran. Columns are found by name (cols[] below: the vTrain headers and
 * the Korthikanti and NeMo ones); what a row does not say comes from
 * --stack, and what that does not say either from the scenario defaults
 * (today's stack), so the rows say what they ran through the same job
 * fields a user writes.
 *
 * usage: fidelity [--rows] [--check] [--fit NAMES] [--cost-model FILE]
 *                 [--constants K=V,...] [--scenarios DIR]
 *                 { --sets FILE | [--name N] [--stack K=V,...] CSV } ...
 * --name and --stack apply to the CSV after them; a sets file
 * (tests/data/sets) lists data sets a line each: name, CSV, the limits
 * --check holds it to (MAPE at most, Spearman at least) and its stack.
 * Prints per data set and overall the rows, MAPE, Spearman's rank
 * correlation and how many of the configurations fit in memory; with
 * --check, exits 1 when a data set misses its limits or a configuration
 * that ran does not fit.
 * --fit a,b,...: Nelder-Mead over those constants of the default model
 * (names of geoplan.default.constants, or eff.GPU for a catalog
 * efficiency), minimising the mean of the data sets' MAPEs; prints the
 * constants found and the fidelity with them; --constants a=V,... sets
 * some first (names as for --fit). --scenarios DIR writes
 * each row's scenario as DIR/SET-LINE.lua, for geoplan sim or gantt.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "cost.h"
#include "lua_cost.h"
#include "lua_host.h"
#include "scenario.h"
#include "sim.h"

#define MAX_SETS 8
#define MAX_ROWS 512
#define MAX_FIT 32
#define VAL 48

/* What a row may say; K_ stacks are the keys --stack takes. */
enum col {
	K_LAYERS, K_HIDDEN, K_HEADS, K_KV, K_FFN, K_VOCAB, K_MLP, K_SEQ, K_GPUS, K_PER_NODE,
	K_NIC, K_GPU, K_TP, K_PP, K_DP, K_MB, K_GBS, K_VS, K_RC, K_SP, K_SYNC_OV, K_PREC,
	K_ATT, K_TPOV, K_P2POV, K_P2PSC, K_GRED, K_CE, K_DEFER, K_ZERO, K_OPT, K_SEC, K_MSEC, K_MODEL, K_RUN, K_PARAMS, NCOL
};

static const struct {
	const char *key, *alias[3];
} cols[NCOL] = {
	[K_LAYERS] = { "layers", { "# layers" } },
	[K_HIDDEN] = { "hidden", { "hidden size" } },
	[K_HEADS] = { "heads", { "attention heads" } },
	[K_KV] = { "kv_heads", { 0 } },
	[K_FFN] = { "ffn", { 0 } },
	[K_VOCAB] = { "vocab", { 0 } },
	[K_MLP] = { "mlp", { 0 } },
	[K_SEQ] = { "seq", { "sequence length" } },
	[K_GPUS] = { "gpus", { "# GPUs" } },
	[K_PER_NODE] = { "gpus_per_node", { 0 } },
	[K_NIC] = { "nic_gbps_per_gpu", { 0 } },
	[K_GPU] = { "gpu", { 0 } },
	[K_TP] = { "tp", { "tensor parallelism" } },
	[K_PP] = { "pp", { "pipeline parallelism" } },
	[K_DP] = { "dp", { "data parallelism" } },
	[K_MB] = { "micro_batch", { "micro batch" } },
	[K_GBS] = { "global_batch", { "global batch" } },
	[K_VS] = { "virtual_stages", { 0 } },
	[K_RC] = { "recompute", { "recompute_stated" } },
	[K_SP] = { "sequence_parallel", { 0 } },
	[K_SYNC_OV] = { "grad_sync_overlapped", { 0 } },
	[K_PREC] = { "precision", { 0 } },
	[K_ATT] = { "attention", { 0 } },
	[K_TPOV] = { "tp_overlap", { 0 } },
	[K_P2POV] = { "p2p_overlap", { 0 } },
	[K_P2PSC] = { "p2p_scatter", { 0 } },
	[K_GRED] = { "grad_reduce", { 0 } },
	[K_CE] = { "cross_entropy", { 0 } },
	[K_DEFER] = { "defer_embedding_wgrad", { 0 } },
	[K_ZERO] = { "zero", { 0 } },
	[K_OPT] = { "optimizer", { 0 } },
	[K_SEC] = { "iteration_s", { "step_s" } },
	[K_MSEC] = { "iteration time (ms)", { 0 } },
	[K_MODEL] = { "model", { 0 } },
	[K_RUN] = { "run", { 0 } },
	[K_PARAMS] = { "Parameters (billion)", { 0 } },
};

struct row {
	char v[NCOL][VAL];      /* "" where neither the row nor --stack says */
	double measured, pred;  /* seconds */
	bool fits;
	char *text;             /* the scenario, when no constant is fitted */
	struct gp_scenario *sc;
};

struct dset {
	char name[64], path[256], stack[1024];
	double max_mape, min_rho;
	struct row *rows;
	int n;
	double mape, rho;
	int fit;
};

/* A constant being fitted: one of the default model's, or a catalog
 * efficiency (eff.GPU), within the range that keeps it physical. */
struct fitp {
	char name[64];
	double *at;
	double eff;
	char gpu[GP_NAME_MAX];
	double lo, hi;
};

/* What each constant may be (cost_default.c says what it stands for). */
static const struct {
	const char *name;
	double lo, hi;
} ranges[] = {
	{ "gemm_x0", 0, 1000 }, { "gemm_y0", 0, 10000 }, { "k_rep", 0, 100 },
	{ "k_att", 0, 100 }, { "k_bwd", 0.5, 3 }, { "flash_eff", 0.7, 1.2 },
	{ "flash_bwd", 2, 3.5 }, { "tp_ov", 0, 1 }, { "fp8_eff", 0.3, 1 },
	{ "ce_bytes", 0, 40 }, { "eta_nvlink", 0.5, 0.9 }, { "eta_net", 0.4, 0.96 },
	{ "ring_step", 0, 1e-4 }, { "opt_bytes", 12, 80 }, { "reserve", 0, 1e10 },
	{ "frag", 0, 0.3 }, { "dp_cont", 0, 1 }, { "jitter", 0, 0.2 }, { "k_fp8", 0, 40 },
	{ "eff.", 0.2, 0.9 },
};

struct run {
	int show, check;
	const char *fit, *cost_model, *dump, *kset;
	struct dset sets[MAX_SETS];
	int nsets;
	struct gp_default_k k;
	struct gp_cost_model model;
	struct gp_lua_cost *lc;
	struct fitp fp[MAX_FIT];
	int nfp, nfit;          /* constants given; the first nfit are fitted */
};

/* --- reading the CSV files ------------------------------------------ */

static int find_col(const char *name)
{
	for (int c = 0; c < NCOL; c++) {
		if (!strcmp(name, cols[c].key))
			return c;
		for (int a = 0; a < 3 && cols[c].alias[a]; a++)
			if (!strcmp(name, cols[c].alias[a]))
				return c;
	}
	return -1;
}

/* Splits a CSV line in place (no quoted fields in these files). */
static int split(char *line, char **f, int max)
{
	int n = 0;
	line[strcspn(line, "\r\n")] = 0;
	for (char *p = line; n < max;) {
		f[n++] = p;
		char *c = strchr(p, ',');
		if (!c)
			break;
		*c = 0;
		p = c + 1;
	}
	return n;
}

/* KEY=VALUE,... into the row's empty columns. */
static int apply_stack(struct row *r, const char *stack)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", stack);
	char *f[64];
	int n = buf[0] ? split(buf, f, 64) : 0;
	for (int i = 0; i < n; i++) {
		char *eq = strchr(f[i], '=');
		int c = eq ? (*eq = 0, find_col(f[i])) : -1;
		if (c < 0) {
			fprintf(stderr, "--stack: unknown key in \"%s\"\n", f[i]);
			return -1;
		}
		if (!r->v[c][0])
			snprintf(r->v[c], VAL, "%s", eq + 1);
	}
	return 0;
}

static int read_set(struct dset *d)
{
	FILE *f = fopen(d->path, "r");
	if (!f) {
		fprintf(stderr, "%s: cannot open\n", d->path);
		return -1;
	}
	char line[2048], *fl[64];
	int map[64], nh = fgets(line, sizeof line, f) ? split(line, fl, 64) : 0;
	for (int i = 0; i < nh; i++)
		map[i] = find_col(fl[i]);
	d->rows = calloc(MAX_ROWS, sizeof *d->rows);
	int rc = d->rows ? 0 : -1;
	while (rc == 0 && d->n < MAX_ROWS && fgets(line, sizeof line, f)) {
		int nf = split(line, fl, 64);
		if (nf < 2)
			continue;
		struct row *r = &d->rows[d->n++];
		for (int i = 0; i < nf && i < nh; i++)
			if (map[i] >= 0)
				snprintf(r->v[map[i]], VAL, "%s", fl[i]);
		rc = apply_stack(r, d->stack);
		r->measured = r->v[K_SEC][0] ? atof(r->v[K_SEC]) : atof(r->v[K_MSEC]) / 1e3;
		if (rc == 0 && !(r->measured > 0)) {
			fprintf(stderr, "%s:%d: no measured time (iteration_s, step_s or iteration time (ms))\n",
				d->path, d->n + 1);
			rc = -1;
		}
	}
	fclose(f);
	return rc;
}

/* --- rows as scenarios ----------------------------------------------- */

static double num(const struct row *r, enum col c, double def)
{
	return r->v[c][0] ? atof(r->v[c]) : def;
}

static bool yes(const char *v)
{
	return !strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1");
}

/* `key = true|false, ` when the row says, else nothing. */
static void opt_bool(char *out, size_t n, const char *key, const char *v)
{
	if (v[0])
		snprintf(out, n, "%s = %s, ", key, yes(v) ? "true" : "false");
	else
		out[0] = 0;
}

static void opt_int(char *out, size_t n, const char *key, const char *v)
{
	if (v[0])
		snprintf(out, n, "%s = %d, ", key, atoi(v));
	else
		out[0] = 0;
}

static void opt_str(char *out, size_t n, const char *key, const char *v)
{
	if (v[0])
		snprintf(out, n, "%s = '%s', ", key, v);
	else
		out[0] = 0;
}

/* The catalog efficiencies being fitted, as a gpus table. */
static void gpus_text(const struct run *run, char *out, size_t n)
{
	size_t l = 0;
	out[0] = 0;
	for (int i = 0; i < run->nfp; i++) {
		bool seen = false;   /* the first of a GPU's is the one fitted */
		for (int j = 0; j < i; j++)
			seen |= !strcmp(run->fp[j].gpu, run->fp[i].gpu);
		if (run->fp[i].gpu[0] && !seen && l < n)
			l += (size_t)snprintf(out + l, n - l, "%s[\"%s\"] = { efficiency = %.17g }",
					      l ? ", " : " gpus = { ", run->fp[i].gpu, run->fp[i].eff);
	}
	if (l && l < n)
		snprintf(out + l, n - l, " },");
}

static void stages_text(const struct row *r, char *out, size_t n)
{
	int L = (int)num(r, K_LAYERS, 0), P = (int)num(r, K_PP, 1), first = 1;
	size_t l = 0;
	out[0] = 0;
	for (int i = 0; i < P && l < n; i++) {
		int k = L / P + (i < L % P);
		l += (size_t)snprintf(out + l, n - l, "{ dc = 'dc', tp = %d, layers = { %d, %d } },",
				      (int)num(r, K_TP, 1), first, first + k - 1);
		first += k;
	}
}

static char *row_text(const struct run *run, const struct row *r)
{
	size_t n = 1 << 16;
	char *buf = malloc(n), *stages = malloc(n / 2), gpus[1024], att[64], sp[64], tpo[64],
	     p2p[64], p2ps[64], prec[64], opt[64], gred[64], ce[64], defer[64];
	if (!buf || !stages) {
		free(buf);
		free(stages);
		return NULL;
	}
	stages_text(r, stages, n / 2);
	gpus_text(run, gpus, sizeof gpus);
	opt_str(att, sizeof att, "attention", r->v[K_ATT]);
	opt_str(prec, sizeof prec, "precision", r->v[K_PREC]);
	opt_str(opt, sizeof opt, "optimizer", r->v[K_OPT]);
	opt_str(gred, sizeof gred, "grad_reduce", r->v[K_GRED]);
	opt_str(ce, sizeof ce, "cross_entropy", r->v[K_CE]);
	opt_int(defer, sizeof defer, "defer_embedding_wgrad", r->v[K_DEFER]);
	opt_bool(sp, sizeof sp, "sequence_parallel", r->v[K_SP]);
	opt_bool(tpo, sizeof tpo, "tp_overlap", r->v[K_TPOV]);
	opt_bool(p2p, sizeof p2p, "p2p_overlap", r->v[K_P2POV]);
	opt_bool(p2ps, sizeof p2ps, "p2p_scatter", r->v[K_P2PSC]);
	double tp = num(r, K_TP, 1), pp = num(r, K_PP, 1), dp = num(r, K_DP, 1);
	double h = num(r, K_HIDDEN, 0), heads = num(r, K_HEADS, 1), mb = num(r, K_MB, 1);
	double gbs = num(r, K_GBS, 1), vs = num(r, K_VS, 1);
	const char *mlp = r->v[K_MLP];
	bool gated = strstr(mlp, "glu") != NULL;
	snprintf(buf, n,
		 "return { name = 'row',%s\n"
		 " dcs = { { name = 'dc', pools = { { gpu = '%s', count = %.0f, per_node = %.0f,\n"
		 "   network = Gbps(%g) } } } },\n"
		 " model = { layers = %.0f, hidden = %.0f, heads = %.0f, kv_heads = %.0f, ffn = %.0f,\n"
		 "   vocab = %.0f, gated = %s },\n"
		 " job = { seq = %.0f, global_batch = %.0f, micro_batch = %.0f, recompute = '%s',\n"
		 "   zero = %.0f, %s%s%s%s%s%s%s%s%s%s sync = { overlap = %s } },\n"
		 " plan = { schedule = '%s', chunks = %.0f, pipelines = { { micro_batches = %.0f,\n"
		 "   replicas = %.0f, stages = { %s } } } } }\n",
		 gpus, r->v[K_GPU][0] ? r->v[K_GPU] : "H100", tp * pp * dp, num(r, K_PER_NODE, 8),
		 num(r, K_NIC, 400), num(r, K_LAYERS, 0), h, heads, num(r, K_KV, heads),
		 num(r, K_FFN, 4 * h), num(r, K_VOCAB, 50257), gated ? "true" : "false",
		 num(r, K_SEQ, 2048), gbs, mb, r->v[K_RC][0] ? r->v[K_RC] : "none",
		 num(r, K_ZERO, 1), prec, opt, att, sp, tpo, p2p, p2ps, gred, ce, defer,
		 r->v[K_SYNC_OV][0] && !yes(r->v[K_SYNC_OV]) ? "false" : "true",
		 vs > 1 ? "interleaved" : "1f1b", vs, gbs / (mb * dp), dp, stages);
	free(stages);
	return buf;
}

static struct gp_scenario *row_scenario(const struct run *run, const struct row *r,
					struct gp_err *e)
{
	char *text = row_text(run, r);
	struct gp_lua *h = text ? gp_lua_new(NULL, e) : NULL;
	struct gp_scenario *s = h ? gp_lua_scenario(h, "row", text, strlen(text), e) : NULL;
	gp_lua_free(h);
	free(text);
	if (s && gp_scenario_validate(s, e)) {
		gp_scenario_free(s);
		s = NULL;
	}
	return s;
}

/* --- statistics ------------------------------------------------------ */

/* MAPE and Spearman of rows [0, n) of a set (or of all sets: all). */
static void score(struct row *const *rows, int n, double *mape, double *rho)
{
	double *m = calloc((size_t)n + 1, sizeof *m), *p = calloc((size_t)n + 1, sizeof *p);
	double ape = 0;
	for (int i = 0; m && p && i < n; i++) {
		m[i] = rows[i]->measured;
		p[i] = rows[i]->pred;
		ape += fabs(p[i] - m[i]) / m[i];
	}
	*mape = n ? 100 * ape / n : 0;
	*rho = m && p ? gp_cal_spearman(m, p, n) : 0;   /* calibrate.c's, ties averaged */
	free(m);
	free(p);
}

/* --- evaluation ------------------------------------------------------ */

static int simulate_row(struct run *run, struct row *r, struct gp_err *e)
{
	struct gp_scenario *s = r->sc;
	if (!s)
		s = row_scenario(run, r, e);
	if (!s)
		return -1;
	struct gp_sim_opts o = { .cost = &run->model };
	struct gp_result res;
	int rc = gp_simulate(s, &s->plan, &o, &res, e);
	if (rc == 0) {
		r->pred = res.iteration_time;
		r->fits = res.fits;
		gp_result_free(&res);
	}
	if (s != r->sc)
		gp_scenario_free(s);
	return rc;
}

/* Every row of every set; the scores. */
static int evaluate(struct run *run)
{
	for (int d = 0; d < run->nsets; d++) {
		struct dset *ds = &run->sets[d];
		struct row **rp = calloc((size_t)ds->n + 1, sizeof *rp);
		if (!rp)
			return -1;
		ds->fit = 0;
		for (int i = 0; i < ds->n; i++) {
			struct gp_err e = { "" };
			rp[i] = &ds->rows[i];
			if (simulate_row(run, rp[i], &e)) {
				fprintf(stderr, "%s row %d: %s\n", ds->path, i + 2, e.msg);
				free(rp);
				return -1;
			}
			ds->fit += ds->rows[i].fits;
		}
		score(rp, ds->n, &ds->mape, &ds->rho);
		free(rp);
	}
	return 0;
}

/* --- the fit ---------------------------------------------------------- */

/* The default model's constants by name, from cost.h's list. */
static double *constant(struct gp_default_k *k, const char *name)
{
#define GP_K_FIND(n) if (!strcmp(name, #n)) return &k->n;
	GP_DEFAULT_K(GP_K_FIND)
#undef GP_K_FIND
	return NULL;
}

/* A catalog efficiency's value as the first scenario has it. */
static int catalog_eff(const struct run *run, struct fitp *p)
{
	for (const struct fitp *q = run->fp; q < p; q++)
		if (!strcmp(q->gpu, p->gpu)) {
			p->eff = q->eff;   /* set by --constants */
			return 0;
		}
	const struct gp_scenario *s = run->nsets && run->sets[0].n ? run->sets[0].rows[0].sc : NULL;
	for (int i = 0; s && i < s->ngpus; i++)
		if (!strcmp(s->gpus[i].name, p->gpu)) {
			p->eff = s->gpus[i].efficiency;
			return 0;
		}
	fprintf(stderr, "--fit: no GPU \"%s\" in the catalog\n", p->gpu);
	return -1;
}

/* NAME or NAME=VALUE, ...: the constants to fit or to set. */
static int fit_params(struct run *run, const char *list)
{
	char buf[512], *f[MAX_FIT];
	snprintf(buf, sizeof buf, "%s", list);
	int n = split(buf, f, MAX_FIT);
	for (int i = 0; i < n && run->nfp < MAX_FIT; i++) {
		char *eq = strchr(f[i], '=');
		if (eq)
			*eq = 0;
		struct fitp *p = &run->fp[run->nfp++];
		snprintf(p->name, sizeof p->name, "%s", f[i]);
		if (!strncmp(f[i], "eff.", 4)) {
			snprintf(p->gpu, sizeof p->gpu, "%s", f[i] + 4);
			if (catalog_eff(run, p))
				return -1;
		} else if (!(p->at = constant(&run->k, f[i]))) {
			fprintf(stderr, "--fit: no constant \"%s\"\n", f[i]);
			return -1;
		}
		p->lo = -HUGE_VAL;
		p->hi = HUGE_VAL;
		for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
			if (!strncmp(f[i], ranges[r].name, strlen(ranges[r].name))) {
				p->lo = ranges[r].lo;
				p->hi = ranges[r].hi;
			}
		if (eq)
			*(p->at ? p->at : &p->eff) = atof(eq + 1);
	}
	return 0;
}

static double *fit_value(struct fitp *p)
{
	return p->at ? p->at : &p->eff;
}

/* The objective: the mean of the data sets' MAPEs, plus ten times what
 * a set's MAPE exceeds its limit, at the constants clamped to their
 * ranges, plus how far outside them x is. */
static double objective(struct run *run, const double *x)
{
	double out = 0;
	for (int i = 0; i < run->nfit; i++) {
		struct fitp *p = &run->fp[i];
		double v = fmin(fmax(x[i], p->lo), p->hi);
		out += fabs(x[i] - v) / (fabs(v) + 1e-9);
		*fit_value(p) = v;
	}
	if (evaluate(run))
		return 1e9;
	double sum = 0;
	for (int d = 0; d < run->nsets; d++) {
		const struct dset *ds = &run->sets[d];
		sum += ds->mape / run->nsets;
		if (ds->max_mape >= 0 && ds->mape > ds->max_mape)
			sum += 10 * (ds->mape - ds->max_mape);
	}
	return sum + 100 * out;
}

/* Nelder-Mead (Lagarias et al. 1998 coefficients) from x, steps of 10 %. */
static void nelder_mead(struct run *run, double *x, int n, int iters)
{
	double s[MAX_FIT + 1][MAX_FIT], fv[MAX_FIT + 1], c[MAX_FIT], t[MAX_FIT], t2[MAX_FIT];
	for (int i = 0; i <= n; i++) {
		memcpy(s[i], x, sizeof *x * (size_t)n);
		if (i)
			s[i][i - 1] *= s[i][i - 1] ? 1.1 : 1, s[i][i - 1] += s[i][i - 1] ? 0 : 0.01;
		fv[i] = objective(run, s[i]);
	}
	for (int it = 0; it < iters; it++) {
		int hi = 0, lo = 0;
		for (int i = 1; i <= n; i++) {
			hi = fv[i] > fv[hi] ? i : hi;
			lo = fv[i] < fv[lo] ? i : lo;
		}
		for (int j = 0; j < n; j++) {
			c[j] = 0;
			for (int i = 0; i <= n; i++)
				c[j] += i == hi ? 0 : s[i][j] / n;
			t[j] = c[j] + (c[j] - s[hi][j]);
		}
		double ft = objective(run, t);
		if (ft < fv[lo]) {
			for (int j = 0; j < n; j++)
				t2[j] = c[j] + 2 * (c[j] - s[hi][j]);
			double f2 = objective(run, t2);
			memcpy(s[hi], f2 < ft ? t2 : t, sizeof t);
			fv[hi] = f2 < ft ? f2 : ft;
			continue;
		}
		int second = lo;
		for (int i = 0; i <= n; i++)
			second = i != hi && fv[i] > fv[second] ? i : second;
		if (ft < fv[second]) {
			memcpy(s[hi], t, sizeof t);
			fv[hi] = ft;
			continue;
		}
		for (int j = 0; j < n; j++)
			t[j] = c[j] + 0.5 * (s[hi][j] - c[j]);
		ft = objective(run, t);
		if (ft < fv[hi]) {
			memcpy(s[hi], t, sizeof t);
			fv[hi] = ft;
			continue;
		}
		for (int i = 0; i <= n; i++)
			for (int j = 0; i != lo && j < n; j++)
				s[i][j] = s[lo][j] + 0.5 * (s[i][j] - s[lo][j]);
		for (int i = 0; i <= n; i++)
			fv[i] = i == lo ? fv[i] : objective(run, s[i]);
	}
	int lo = 0;
	for (int i = 1; i <= n; i++)
		lo = fv[i] < fv[lo] ? i : lo;
	memcpy(x, s[lo], sizeof *x * (size_t)n);
	objective(run, x);
}

/* Catalog efficiencies live in the scenario text: parse it on every
 * evaluation then. */
static void reparse(struct run *run)
{
	bool text = false;
	for (int i = 0; i < run->nfp; i++)
		text |= run->fp[i].gpu[0] != 0;
	for (int d = 0; text && d < run->nsets; d++)
		for (int i = 0; i < run->sets[d].n; i++) {
			gp_scenario_free(run->sets[d].rows[i].sc);
			run->sets[d].rows[i].sc = NULL;
		}
}

static int fit(struct run *run)
{
	int n0 = run->nfp;
	if (fit_params(run, run->fit))
		return 2;
	reparse(run);
	double x[MAX_FIT];
	/* The set ones stay; the fitted ones move. */
	struct fitp *fp = run->fp + n0;
	int nf = run->nfp - n0;
	for (int i = 0; i < nf; i++)
		x[i] = *fit_value(&fp[i]);
	struct fitp keep[MAX_FIT];
	memcpy(keep, run->fp, sizeof keep);
	memmove(run->fp, fp, sizeof *fp * (size_t)nf);
	memcpy(run->fp + nf, keep, sizeof *fp * (size_t)n0);
	run->nfit = nf;
	nelder_mead(run, x, nf, 60 * nf);
	printf("fitted:");
	for (int i = 0; i < nf; i++)
		printf(" %s=%.5g", run->fp[i].name, *fit_value(&run->fp[i]));
	printf("\n");
	return 0;
}

/* --- driver ---------------------------------------------------------- */

/* --scenarios DIR: row i of set ds as DIR/NAME-ROW.lua (ROW its line). */
static int dump_row(const struct run *run, const struct dset *ds, int i)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s-%d.lua", run->dump, ds->name, i + 2);
	char *text = row_text(run, &ds->rows[i]);
	FILE *f = text ? fopen(path, "w") : NULL;
	if (f) {
		fputs(text, f);
		fclose(f);
	} else {
		fprintf(stderr, "%s: cannot write\n", path);
	}
	free(text);
	return f ? 0 : -1;
}

static int load(struct run *run)
{
	run->k = *gp_default_constants();
	run->model = (struct gp_cost_model){ gp_default_cost.ops, &run->k };
	if (run->cost_model) {
		struct gp_err e = { "" };
		run->lc = gp_lua_cost_load(run->cost_model, &e);
		if (!run->lc) {
			fprintf(stderr, "%s\n", e.msg);
			return 1;
		}
		run->model = *gp_lua_cost_model(run->lc);
	}
	for (int d = 0; d < run->nsets; d++) {
		struct dset *ds = &run->sets[d];
		if (read_set(ds))
			return 1;
		for (int i = 0; i < ds->n; i++) {
			struct gp_err e = { "" };
			if (run->dump && dump_row(run, ds, i))
				return 1;
			ds->rows[i].sc = row_scenario(run, &ds->rows[i], &e);
			if (!ds->rows[i].sc) {
				fprintf(stderr, "%s row %d: %s\n", ds->path, i + 2, e.msg);
				return 1;
			}
		}
	}
	return 0;
}

static void label(const struct row *r, char *out, size_t n)
{
	if (r->v[K_MODEL][0] || r->v[K_RUN][0])
		snprintf(out, n, "%s%s%s", r->v[K_MODEL], r->v[K_MODEL][0] ? " " : "", r->v[K_RUN]);
	else
		snprintf(out, n, "%sB", r->v[K_PARAMS]);
}

static void show_row(const struct row *r)
{
	char l[64];
	label(r, l, sizeof l);
	printf("  %-24.24s %5s gpus tp%-2s pp%-2s dp%-4s mb%-3s v%-2s %-9s measured %9.4g s predicted %9.4g s %+6.1f%%%s\n",
	       l, r->v[K_GPUS][0] ? r->v[K_GPUS] : "-", r->v[K_TP], r->v[K_PP], r->v[K_DP],
	       r->v[K_MB], r->v[K_VS][0] ? r->v[K_VS] : "1", r->v[K_RC][0] ? r->v[K_RC] : "none",
	       r->measured, r->pred, 100 * (r->pred - r->measured) / r->measured,
	       r->fits ? "" : "  DOES NOT FIT");
}

static int report(struct run *run)
{
	if (evaluate(run))
		return 1;
	int ok = 1, total = 0;
	for (int d = 0; d < run->nsets; d++)
		total += run->sets[d].n;
	struct row **all = calloc((size_t)total + 1, sizeof *all);
	if (!all)
		return 1;
	int k = 0, fits = 0;
	for (int d = 0; d < run->nsets; d++) {
		struct dset *ds = &run->sets[d];
		for (int i = 0; i < ds->n; i++) {
			all[k++] = &ds->rows[i];
			if (run->show)
				show_row(&ds->rows[i]);
		}
		fits += ds->fit;
		printf("fidelity: %-12s %4d rows, MAPE %5.2f %%, Spearman %.4f, %d of %d fit in memory\n",
		       ds->name, ds->n, ds->mape, ds->rho, ds->fit, ds->n);
		bool bad = run->check && ((ds->max_mape >= 0 && ds->mape > ds->max_mape) ||
					  (ds->min_rho > -2 && ds->rho < ds->min_rho) ||
					  ds->fit < ds->n);
		if (bad) {
			printf("fidelity: %s misses its limits (MAPE <= %.2f %%, Spearman >= %.4f, all fit)\n",
			       ds->name, ds->max_mape, ds->min_rho);
			ok = 0;
		}
	}
	double mape, rho;
	score(all, total, &mape, &rho);
	if (run->nsets > 1)
		printf("fidelity: %-12s %4d rows, MAPE %5.2f %%, Spearman %.4f, %d of %d fit in memory\n",
		       "all", total, mape, rho, fits, total);
	free(all);
	return ok ? 0 : 1;
}

static struct dset *add_set(struct run *run, const char *name, const char *path,
			    const char *stack)
{
	if (run->nsets == MAX_SETS)
		return NULL;
	struct dset *s = &run->sets[run->nsets++];
	const char *base = strrchr(path, '/');
	snprintf(s->path, sizeof s->path, "%s", path);
	snprintf(s->stack, sizeof s->stack, "%s", stack);
	snprintf(s->name, sizeof s->name, "%s", name ? name : base ? base + 1 : path);
	s->max_mape = -1;
	s->min_rho = -2;
	return s;
}

/* A sets file: "name csv max_mape min_spearman stack" a line, # comments;
 * CSV paths as they are (relative to where the tool runs). */
static int read_sets(struct run *run, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: cannot open\n", path);
		return -1;
	}
	char line[2048], name[64], csv[256], stack[1024];
	double mape, rho;
	int rc = 0;
	while (rc == 0 && fgets(line, sizeof line, f)) {
		if (line[0] == '#' || line[strspn(line, " \t")] == '\n')
			continue;
		stack[0] = 0;
		struct dset *s = NULL;
		if (sscanf(line, "%63s %255s %lf %lf %1023s", name, csv, &mape, &rho, stack) < 4 ||
		    !(s = add_set(run, name, csv, strcmp(stack, "-") ? stack : ""))) {
			fprintf(stderr, "%s: cannot read \"%s\"\n", path, line);
			rc = -1;
		} else {
			s->max_mape = mape;
			s->min_rho = rho;
		}
	}
	fclose(f);
	return rc;
}

static int parse_args(int argc, char **argv, struct run *run)
{
	const char *name = NULL, *stack = "";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc;
		if (!strcmp(a, "--rows"))
			run->show = 1;
		else if (!strcmp(a, "--check"))
			run->check = 1;
		else if (!strcmp(a, "--fit") && more)
			run->fit = argv[++i];
		else if (!strcmp(a, "--cost-model") && more)
			run->cost_model = argv[++i];
		else if (!strcmp(a, "--constants") && more)
			run->kset = argv[++i];
		else if (!strcmp(a, "--scenarios") && more)
			run->dump = argv[++i];
		else if (!strcmp(a, "--sets") && more) {
			if (read_sets(run, argv[++i]))
				return 1;
		} else if (!strcmp(a, "--name") && more)
			name = argv[++i];
		else if (!strcmp(a, "--stack") && more)
			stack = argv[++i];
		else if (a[0] == '-' || !add_set(run, name, a, stack))
			return 2;
		else
			name = NULL;
	}
	return run->nsets ? 0 : 2;
}

static void free_run(struct run *run)
{
	for (int d = 0; d < run->nsets; d++) {
		for (int i = 0; run->sets[d].rows && i < run->sets[d].n; i++)
			gp_scenario_free(run->sets[d].rows[i].sc);
		free(run->sets[d].rows);
	}
	gp_lua_cost_free(run->lc);
}

int main(int argc, char **argv)
{
	struct run *run = calloc(1, sizeof *run);
	if (!run)
		return 1;
	int rc = parse_args(argc, argv, run);
	if (rc == 2)
		fprintf(stderr, "usage: fidelity [--rows] [--check] [--fit NAMES] [--cost-model FILE] [--scenarios DIR]\n"
				"  { --sets FILE | [--name N] [--stack K=V,...] CSV } ...\n");
	if (rc == 0)
		rc = load(run);
	if (rc == 0 && run->kset) {
		rc = fit_params(run, run->kset) ? 2 : 0;
		reparse(run);
	}
	if (rc == 0 && run->fit)
		rc = fit(run);
	if (rc == 0)
		rc = report(run);
	free_run(run);
	free(run);
	return rc;
}
