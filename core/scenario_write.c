/*
 * scenario_write.c: a scenario as the Lua file geoplan reads
 * (geoplan-scenario(5)), such that loading it gives the same scenario
 * back: every field explicit, both directions of every link (so an
 * asymmetric link survives the loader's mirroring), numbers exact (a
 * unit helper only where it gives the very same double, else the
 * shortest decimal that does, the human unit in a comment). The same
 * scenario always gives the same bytes, whatever the order of its GPU
 * types, so a file geoplan wrote can be told from one a person wrote,
 * which saving over would flatten (gp_scenario_file_is_canonical).
 *
 * Saving is atomic (ofile.h): a temporary file beside the target,
 * synced, loaded back through the sandbox and checked, then renamed over
 * the target.
 */
#include "scenario.h"
#include "lua_host.h"
#include "escape.h"
#include "ofile.h"
#include "report.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* What a number measures: which helpers may show it, which unit the
 * comment gives. */
enum qty { Q_PLAIN, Q_BITS, Q_BYTES_S, Q_TIME, Q_MEM, Q_FLOPS };

struct helper {
	const char *name;
	double mul, div;   /* as scripts/prelude.lua: x * mul / div */
};

struct wr {
	FILE *f;
	struct gp_err *e;
	const char *where;   /* the table being written, for errors */
	int failed;
};

__attribute__((format(printf, 2, 3)))
static void w_fail(struct wr *w, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	if (w->failed++)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	gp_errf(w->e, "cannot write the scenario: %s: %s", w->where, msg);
}

/* One number per call: snprintf wrote the locale's point, Lua wants '.'. */
void gp_c_point(char *buf)
{
	const char *dp = localeconv()->decimal_point;
	size_t k = strlen(dp);
	char *p = k && strcmp(dp, ".") ? strstr(buf, dp) : NULL;
	if (p) {
		*p = '.';
		memmove(p + 1, p + k, strlen(p + k) + 1);
	}
}

/* v with p significant digits, as "80" rather than "8e+01". */
static void digits(char *buf, size_t n, double v, int p)
{
	snprintf(buf, n, "%.*g", p, v);
	const char *e = strchr(buf, 'e');
	int x = e ? atoi(e + 1) : -1;
	if (x >= p && x < 17)
		snprintf(buf, n, "%.*g", x + 1, v);
}

/* The shortest decimal that reads back as v. */
static void exact(char *buf, size_t n, double v)
{
	for (int p = 1; p <= 17; p++) {
		digits(buf, n, v, p);
		if (strtod(buf, NULL) == v)
			break;
	}
	gp_c_point(buf);
}

static const struct helper *helpers_of(enum qty q)
{
	static const struct helper bits[] = { { "Gbps", 1e9, 8 }, { "GBps", 1e9, 1 }, { NULL, 0, 0 } };
	static const struct helper bytes_s[] = { { "GBps", 1e9, 1 }, { "Gbps", 1e9, 8 }, { NULL, 0, 0 } };
	static const struct helper time[] = { { "ms", 1e-3, 1 }, { "us", 1e-6, 1 }, { NULL, 0, 0 } };
	static const struct helper mem[] = { { "GiB", 1073741824.0, 1 }, { "GB", 1e9, 1 },
		{ "MiB", 1048576.0, 1 }, { NULL, 0, 0 } };
	static const struct helper flops[] = { { "TFLOPS", 1e12, 1 }, { NULL, 0, 0 } };
	switch (q) {
	case Q_BITS: return bits;
	case Q_BYTES_S: return bytes_s;
	case Q_TIME: return time;
	case Q_MEM: return mem;
	case Q_FLOPS: return flops;
	default: return NULL;
	}
}

/* "Gbps(100)" when a helper of q with at most 9 digits gives exactly v.
 * The arithmetic is the prelude's, in the same order, so the loader's
 * double is this one. */
static bool helper_text(char *buf, size_t n, double v, enum qty q)
{
	for (const struct helper *h = helpers_of(q); h && h->name; h++) {
		double x = v / h->mul * h->div;
		for (int p = 1; p <= 9; p++) {
			char s[40];
			digits(s, sizeof s, x, p);
			if (strtod(s, NULL) * h->mul / h->div == v) {
				gp_c_point(s);
				snprintf(buf, n, "%s(%s)", h->name, s);
				return true;
			}
		}
	}
	return false;
}

static void human(char *buf, size_t n, double v, enum qty q)
{
	char x[40];
	static const char *const units[] = { "", "Gbit/s", "GB/s", "ms", "GiB", "TFLOP/s" };
	static const double scale[] = { 1, 8e-9, 1e-9, 1e3, 1.0 / 1073741824, 1e-12 };
	const char *u = units[q];
	double s = scale[q];
	if (q == Q_TIME && v < 1e-3) {
		u = "us";
		s = 1e6;
	}
	snprintf(x, sizeof x, "%.4g", v * s);
	gp_c_point(x);
	snprintf(buf, n, "%s %s", x, u);
}

static void put_num(struct wr *w, const char *ind, const char *key, double v, enum qty q)
{
	char val[64], note[64] = "";
	if (!isfinite(v)) {
		w_fail(w, "%s is %g, not a finite number", key, v);
		return;
	}
	if (v == 0) {
		snprintf(val, sizeof val, "0");
	} else if (!helper_text(val, sizeof val, v, q)) {
		exact(val, sizeof val, v);
		if (q != Q_PLAIN)
			human(note, sizeof note, v, q);
	}
	fprintf(w->f, "%s%s = %s,%s%s\n", ind, key, val, note[0] ? " -- " : "", note);
}

static void put_int(struct wr *w, const char *ind, const char *key, long v)
{
	fprintf(w->f, "%s%s = %ld,\n", ind, key, v);
}

static void put_str(struct wr *w, const char *ind, const char *key, const char *s)
{
	fprintf(w->f, "%s%s = ", ind, key);
	gp_esc_lua(w->f, s);
	fprintf(w->f, ",\n");
}

static void put_bool(struct wr *w, const char *ind, const char *key, bool v)
{
	fprintf(w->f, "%s%s = %s,\n", ind, key, v ? "true" : "false");
}

/* names[i], the name of an enum value. */
static void put_name(struct wr *w, const char *ind, const char *key, const char *const *names,
		     int nnames, int i)
{
	if (i < 0 || i >= nnames)
		w_fail(w, "%s is %d, not one of the %d known", key, i, nnames);
	else
		put_str(w, ind, key, names[i]);
}

/* --- GPUs ------------------------------------------------------------ */

/* The catalog as the prelude defines it: a scenario of nothing else. */
static struct gp_scenario *catalog(struct gp_err *e)
{
	static const char text[] =
		"return { dcs = { { name = 'c', pools = { { gpu = next(catalog.gpus), count = 1,"
		" per_node = 1 } } } }, model = { layers = 1, hidden = 1, heads = 1 },"
		" job = { seq = 1, global_batch = 1 } }";
	struct gp_lua *h = gp_lua_new(NULL, e);
	struct gp_scenario *c = h ? gp_lua_scenario(h, "catalog", text, sizeof text - 1, e) : NULL;
	gp_lua_free(h);
	return c;
}

static bool same_numbers(const struct gp_gpu *a, const struct gp_gpu *b)
{
	return a->flops == b->flops && a->fp8_flops == b->fp8_flops && a->memory == b->memory &&
	       a->hbm_bw == b->hbm_bw &&
	       a->nvlink == b->nvlink && a->efficiency == b->efficiency &&
	       a->price_per_hour == b->price_per_hour;
}

/* A GPU type the file must name: one a pool uses, one not in the
 * catalog, or a catalog type with other numbers. The rest the loader
 * adds anyway. */
static bool gpu_needed(const struct gp_scenario *s, int i, const struct gp_scenario *cat)
{
	for (int d = 0; d < s->ndcs; d++)
		for (int p = 0; p < s->dcs[d].npools; p++)
			if (s->dcs[d].pools[p].gpu == i)
				return true;
	for (int k = 0; k < cat->ngpus; k++)
		if (!strcmp(cat->gpus[k].name, s->gpus[i].name))
			return !same_numbers(&cat->gpus[k], &s->gpus[i]) ||
			       cat->gpus[k].eff_src != s->gpus[i].eff_src ||
			       strcmp(cat->gpus[k].eff_ref, s->gpus[i].eff_ref);
	return true;
}

/* The catalog's entry for g's name, or NULL. */
static const struct gp_gpu *cat_gpu(const struct gp_scenario *cat, const struct gp_gpu *g)
{
	for (int k = 0; k < cat->ngpus; k++)
		if (!strcmp(cat->gpus[k].name, g->name))
			return &cat->gpus[k];
	return NULL;
}

/* Where the efficiency comes from, when the loader would not find it
 * again: measured or borrowed, and not the catalog's own source. */
static void put_eff_src(struct wr *w, const struct gp_gpu *g, const struct gp_gpu *c)
{
	if (g->eff_src != GP_EFF_MEASURED && g->eff_src != GP_EFF_BORROWED)
		return;
	if (c && c->eff_src == g->eff_src && !strcmp(c->eff_ref, g->eff_ref))
		return;
	put_str(w, "      ", g->eff_src == GP_EFF_MEASURED ? "efficiency_data" : "efficiency_borrows",
		g->eff_ref);
}

static void write_gpu(struct wr *w, const struct gp_gpu *g, const struct gp_gpu *c)
{
	fprintf(w->f, "    [");
	gp_esc_lua(w->f, g->name);
	fprintf(w->f, "] = {\n");
	put_num(w, "      ", "tflops", g->flops, Q_FLOPS);
	put_num(w, "      ", "fp8_tflops", g->fp8_flops, Q_FLOPS);
	put_num(w, "      ", "memory", g->memory, Q_MEM);
	put_num(w, "      ", "hbm_bandwidth", g->hbm_bw, Q_BYTES_S);
	put_num(w, "      ", "nvlink", g->nvlink, Q_BYTES_S);
	put_num(w, "      ", "efficiency", g->efficiency, Q_PLAIN);
	put_eff_src(w, g, c);
	if (g->price_per_hour > 0)   /* none is no field, not "free" */
		put_num(w, "      ", "price_per_hour", g->price_per_hour, Q_PLAIN);
	fprintf(w->f, "    },\n");
}

/* In name order: the loader sorts them, so indices do not survive and
 * must not shape the file. */
static void write_gpus(struct wr *w, const struct gp_scenario *s, const struct gp_scenario *cat)
{
	int *ord = gp_xcalloc((size_t)s->ngpus, sizeof *ord), n = 0;
	if (!ord) {
		w_fail(w, "out of memory");
		return;
	}
	for (int i = 0; i < s->ngpus; i++) {
		if (!gpu_needed(s, i, cat))
			continue;
		int j = n++;
		for (; j > 0 && strcmp(s->gpus[ord[j - 1]].name, s->gpus[i].name) > 0; j--)
			ord[j] = ord[j - 1];
		ord[j] = i;
	}
	w->where = "gpus";
	fprintf(w->f, "  gpus = {\n");
	for (int k = 0; k < n; k++)
		write_gpu(w, &s->gpus[ord[k]], cat_gpu(cat, &s->gpus[ord[k]]));
	fprintf(w->f, "  },\n");
	free(ord);
}

/* --- DCs, links ------------------------------------------------------ */

static void write_dcs(struct wr *w, const struct gp_scenario *s)
{
	char where[300];
	fprintf(w->f, "  dcs = {\n");
	for (int d = 0; d < s->ndcs; d++) {
		const struct gp_dc *dc = &s->dcs[d];
		fprintf(w->f, "    {\n");
		put_str(w, "      ", "name", dc->name);
		fprintf(w->f, "      pools = {\n");
		for (int p = 0; p < dc->npools; p++) {
			const struct gp_pool *q = &dc->pools[p];
			snprintf(where, sizeof where, "dcs[%d].pools[%d]", d + 1, p + 1);
			w->where = where;
			fprintf(w->f, "        {\n");
			if (q->gpu < 0 || q->gpu >= s->ngpus)
				w_fail(w, "gpu is %d, not one of the %d types", q->gpu, s->ngpus);
			else
				put_str(w, "          ", "gpu", s->gpus[q->gpu].name);
			put_int(w, "          ", "count", q->count);
			put_int(w, "          ", "per_node", q->per_node);
			put_num(w, "          ", "nvlink", q->nvlink, Q_BYTES_S);
			put_num(w, "          ", "network", q->network, Q_BITS);
			put_num(w, "          ", "latency", q->latency, Q_TIME);
			fprintf(w->f, "        },\n");
		}
		fprintf(w->f, "      },\n    },\n");
	}
	fprintf(w->f, "  },\n");
	w->where = "dcs";
}

static void write_link(struct wr *w, const struct gp_scenario *s, const struct gp_link *l)
{
	fprintf(w->f, "    {\n      ");
	gp_esc_lua(w->f, s->dcs[l->from].name);
	fprintf(w->f, ", ");
	gp_esc_lua(w->f, s->dcs[l->to].name);
	fprintf(w->f, ",\n");
	put_num(w, "      ", "bandwidth", l->bandwidth, Q_BITS);
	put_num(w, "      ", "latency", l->latency, Q_TIME);
	if (l->price_per_gb > 0)
		put_num(w, "      ", "price_per_gb", l->price_per_gb, Q_PLAIN);
	put_int(w, "      ", "streams", l->streams);
	fprintf(w->f, "    },\n");
}

/* Each link, then its reverse: the order the loader builds, so the
 * links come back in the same order. A link without its reverse cannot
 * be written (the loader mirrors a link given once). */
static void write_links(struct wr *w, const struct gp_scenario *s)
{
	char where[64];
	if (!s->nlinks)
		return;
	char *done = gp_xcalloc((size_t)s->nlinks, 1);
	if (!done) {
		w_fail(w, "out of memory");
		return;
	}
	fprintf(w->f, "  links = {\n");
	for (int i = 0; i < s->nlinks && !w->failed; i++) {
		const struct gp_link *l = &s->links[i];
		snprintf(where, sizeof where, "links[%d]", i + 1);
		w->where = where;
		if (l->from < 0 || l->from >= s->ndcs || l->to < 0 || l->to >= s->ndcs ||
		    l->from == l->to) {
			w_fail(w, "joins DCs %d and %d of %d", l->from + 1, l->to + 1, s->ndcs);
			break;
		}
		const struct gp_link *r = gp_find_link(s, l->to, l->from);
		if (gp_find_link(s, l->from, l->to) != l)
			w_fail(w, "%s -> %s is given twice", s->dcs[l->from].name, s->dcs[l->to].name);
		else if (!r)
			w_fail(w, "%s -> %s has no reverse, and a scenario file cannot say so (a link given once goes both ways)",
			       s->dcs[l->from].name, s->dcs[l->to].name);
		else if (!done[i])
			for (int k = 0; k < 2; k++) {
				int at = k ? (int)(r - s->links) : i;
				snprintf(where, sizeof where, "links[%d]", at + 1);
				write_link(w, s, &s->links[at]);
				done[at] = 1;
			}
	}
	fprintf(w->f, "  },\n");
	free(done);
}

/* --- model, job, the rest --------------------------------------------- */

static void write_model(struct wr *w, const struct gp_model *m)
{
	w->where = "model";
	fprintf(w->f, "  model = {\n");
	put_str(w, "    ", "name", m->name);
	put_int(w, "    ", "layers", m->layers);
	put_num(w, "    ", "hidden", m->hidden, Q_PLAIN);
	put_num(w, "    ", "heads", m->heads, Q_PLAIN);
	put_num(w, "    ", "kv_heads", m->kv_heads, Q_PLAIN);
	put_num(w, "    ", "ffn", m->ffn, Q_PLAIN);
	put_num(w, "    ", "vocab", m->vocab, Q_PLAIN);
	fprintf(w->f, "    gated = %s,\n  },\n", m->gated ? "true" : "false");
}

static void write_job(struct wr *w, const struct gp_job *j)
{
	static const char *const rc[] = { "none", "selective", "full", "auto" };
	static const char *const modes[] = { "flat", "hierarchical", "auto" };
	static const char *const precs[] = { "bf16", "fp16", "fp8" };
	static const char *const atts[] = { "flash", "materialised" };
	static const char *const opts[] = { "adam", "adam-bf16" };
	static const char *const greds[] = { "bf16", "fp16", "fp32" };
	static const char *const ces[] = { "fused", "unfused" };
	w->where = "job";
	fprintf(w->f, "  job = {\n");
	put_num(w, "    ", "seq", j->seq, Q_PLAIN);
	put_num(w, "    ", "global_batch", j->global_batch, Q_PLAIN);
	put_num(w, "    ", "micro_batch", j->micro_batch, Q_PLAIN);
	if (j->precision_bytes != 2)
		w_fail(w, "precision of %d bytes: the file knows bf16 and fp16 (2 bytes)",
		       j->precision_bytes);
	put_name(w, "    ", "precision", precs, 3, (int)j->precision);
	put_name(w, "    ", "optimizer", opts, 2, (int)j->optimizer);
	put_int(w, "    ", "zero", j->zero);
	put_name(w, "    ", "recompute", rc, 4, (int)j->recompute);
	put_name(w, "    ", "attention", atts, 2, (int)j->attention);
	put_bool(w, "    ", "sequence_parallel", j->sequence_parallel);
	put_bool(w, "    ", "tp_overlap", j->tp_overlap);
	put_bool(w, "    ", "p2p_overlap", j->p2p_overlap);
	put_bool(w, "    ", "p2p_scatter", !j->p2p_whole);
	put_name(w, "    ", "grad_reduce", greds, 3, (int)j->grad_reduce);
	put_int(w, "    ", "defer_embedding_wgrad", j->defer_wgrad);
	put_name(w, "    ", "cross_entropy", ces, 2, (int)j->cross_entropy);
	fprintf(w->f, "    sync = {\n");
	put_name(w, "      ", "mode", modes, 3, (int)j->sync_mode);
	put_int(w, "      ", "every", j->sync_every);
	fprintf(w->f, "      overlap = %s,\n    },\n  },\n", j->sync_overlap ? "true" : "false");
}

/* The plan names a stage's pool by its GPU type: refuse what would not
 * read back. */
static int check_stage(struct wr *w, const struct gp_scenario *s, const struct gp_stage *st,
		       int i, int j)
{
	if (st->dc < 0 || st->dc >= s->ndcs || st->pool < 0 || st->pool >= s->dcs[st->dc].npools) {
		w_fail(w, "pipelines[%d].stages[%d] names no pool", i + 1, j + 1);
		return -1;
	}
	const struct gp_dc *dc = &s->dcs[st->dc];
	int g = dc->pools[st->pool].gpu;
	/* The loader takes the last pool of that GPU type. */
	for (int k = st->pool + 1; k < dc->npools; k++)
		if (dc->pools[k].gpu == g) {
			w_fail(w, "pipelines[%d].stages[%d]: DC \"%s\" has another pool of %s after this one, and a plan names a pool by its GPU",
			       i + 1, j + 1, dc->name, s->gpus[g].name);
			return -1;
		}
	return 0;
}

static void write_plan(struct wr *w, const struct gp_scenario *s, const struct gp_plan *p)
{
	w->where = "plan";
	for (int i = 0; i < p->npipes; i++)
		for (int j = 0; j < p->pipes[i].nstages; j++)
			if (check_stage(w, s, &p->pipes[i].stages[j], i, j))
				return;
	if (gp_plan_write_lua(w->f, s, p, "  "))
		w_fail(w, "write error");
}

/* The scripts it names and what was measured of it. */
static void write_scripts(struct wr *w, const struct gp_scenario *s)
{
	w->where = "top level";
	if (s->cost_model[0])
		put_str(w, "  ", "cost_model", s->cost_model);
	if (s->heuristic[0])
		put_str(w, "  ", "heuristic", s->heuristic);
	if (s->measured.iteration_time > 0 || s->measured.peak_memory > 0) {
		w->where = "measured";
		fprintf(w->f, "  measured = {\n");
		if (s->measured.iteration_time > 0)
			put_num(w, "    ", "iteration_time", s->measured.iteration_time, Q_TIME);
		if (s->measured.peak_memory > 0)
			put_num(w, "    ", "peak_memory", s->measured.peak_memory, Q_MEM);
		fprintf(w->f, "  },\n");
	}
}

static int write_all(FILE *f, const struct gp_scenario *s, const struct gp_scenario *cat,
		     struct gp_err *e)
{
	static const char *const objectives[] = { "time", "cost", "wan_bytes" };
	struct wr w = { .f = f, .e = e, .where = "name" };
	fprintf(f, "-- Written by geoplan (the format: geoplan-scenario(5)). geoplan saves\n"
		   "-- over this file only while it reads exactly as geoplan writes it:\n"
		   "-- add a comment, and geoplan leaves the file alone.\n"
		   "return {\n");
	put_str(&w, "  ", "name", s->name);
	write_gpus(&w, s, cat);
	write_dcs(&w, s);
	write_links(&w, s);
	write_model(&w, &s->model);
	write_job(&w, &s->job);
	w.where = "top level";
	put_name(&w, "  ", "objective", objectives, 3, (int)s->objective);
	if (s->budget_usd_per_hour > 0) {
		w.where = "budget";
		fprintf(f, "  budget = {\n");
		put_num(&w, "    ", "usd_per_hour", s->budget_usd_per_hour, Q_PLAIN);
		fprintf(f, "  },\n");
	}
	write_scripts(&w, s);
	if (s->has_plan)
		write_plan(&w, s, &s->plan);
	fprintf(f, "}\n");
	return w.failed ? -1 : 0;
}

/* The file's text, malloc'ed; NULL and e on error. */
static char *render(const struct gp_scenario *s, size_t *len, struct gp_err *e)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f) {
		gp_errf(e, "out of memory");
		return NULL;
	}
	struct gp_scenario *cat = catalog(e);
	int rc = cat ? write_all(f, s, cat, e) : -1;
	gp_scenario_free(cat);
	if (fclose(f) && !rc)
		rc = gp_errf(e, "out of memory");
	if (rc) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

int gp_scenario_write_lua(FILE *f, const struct gp_scenario *s, struct gp_err *e)
{
	size_t len;
	char *text = render(s, &len, e);
	if (!text)
		return -1;
	int rc = fwrite(text, 1, len, f) == len && !fflush(f) ? 0
		 : gp_errf(e, "cannot write the scenario: %s", strerror(errno));
	free(text);
	return rc;
}

/* --- saving ------------------------------------------------------------ */

/* The temporary file loads through the sandbox and validation, and
 * writes back as the same bytes: what is renamed over path is a file
 * geoplan reads as this scenario. */
static int check_reload(const char *tmp, const char *path, const char *text, size_t len,
			struct gp_err *e)
{
	struct gp_err le = { "" };
	struct gp_scenario *back = gp_scenario_load(tmp, &le);
	if (!back)
		return gp_errf(e, "%s: not saved: the file written does not load back: %s", path,
			       le.msg);
	size_t blen;
	char *again = render(back, &blen, &le);
	gp_scenario_free(back);
	int same = again && blen == len && !memcmp(again, text, len);
	free(again);
	if (!same)
		return gp_errf(e, "%s: not saved: the file written loads back as another scenario",
			       path);
	return 0;
}

/* "PATH: not saved: " and why, less the "PATH: " ofile's messages open
 * with. */
static int not_saved(struct gp_err *e, const char *path, const char *why)
{
	size_t n = strlen(path);
	if (!strncmp(why, path, n) && !strncmp(why + n, ": ", 2))
		why += n + 2;
	return gp_errf(e, "%s: not saved: %s", path, why);
}

int gp_scenario_save(const char *path, const struct gp_scenario *s, struct gp_err *e)
{
	size_t len;
	char *text = render(s, &len, e);
	if (!text)
		return -1;
	struct gp_ofile o;
	struct gp_err oe = { "" };
	int rc = 0;
	if (gp_ofile_open(&o, path, &oe))
		rc = not_saved(e, path, oe.msg);
	else if (fwrite(text, 1, len, o.f) != len || gp_ofile_finish(&o, &oe))
		rc = not_saved(e, path, oe.msg[0] ? oe.msg : strerror(errno));
	/* In place (a device, a pipe) there is nothing to load back. */
	if (!rc && !o.in_place)
		rc = check_reload(o.tmp, path, text, len, e);
	if (!rc && gp_ofile_commit(&o, &oe))
		rc = not_saved(e, path, oe.msg);
	if (rc)
		gp_ofile_discard(&o);
	free(text);
	return rc;
}

bool gp_scenario_file_is_canonical(const char *path, const struct gp_scenario *s)
{
	struct gp_err e;
	size_t len;
	char *text = render(s, &len, &e);
	FILE *f = text ? fopen(path, "rb") : NULL;
	bool same = false;
	if (f) {
		char *got = malloc(len + 1);
		/* One byte more than expected: a longer file is not the same. */
		same = got && fread(got, 1, len + 1, f) == len && !memcmp(got, text, len);
		free(got);
		fclose(f);
	}
	free(text);
	return same;
}
