/*
 * app_complete.c: Tab on the command line: the last word completed as
 * far as the candidates agree (a space after it when only one fits),
 * and the candidates listed on the status line when several do. The
 * first word is a command; the others what the command takes: override
 * paths named as the scenario names its DCs, pools, GPUs and links, an
 * engine, a theme, a screen, a file.
 */
#include "app.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"


static void addf(struct gp_words *ws, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(struct gp_words *ws, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	gp_words_add(ws, buf);
}

static void pool_paths(const struct gp_scenario *s, struct gp_words *ws)
{
	static const char *const keys[] = { "gpu", "count", "per_node", "nvlink", "network",
					    "latency" };
	for (int d = 0; d < s->ndcs; d++)
		for (int p = 0; p < s->dcs[d].npools; p++)
			for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
				addf(ws, "dcs[%s].pools[%d].%s=", s->dcs[d].name, p + 1, keys[k]);
}

/* Every override path the screens edit, and the planner's switches. */
static void paths(const struct gp_app *a, struct gp_words *ws)
{
	/* The job's fields as the loader reads them (geoplan-scenario(5)). */
	static const char *const fixed[] = { "model=", "job.seq=", "job.global_batch=",
		"job.micro_batch=", "job.precision=", "job.optimizer=", "job.zero=",
		"job.recompute=", "job.attention=", "job.sequence_parallel=", "job.tp_overlap=",
		"job.p2p_overlap=", "job.p2p_scatter=", "job.grad_reduce=",
		"job.defer_embedding_wgrad=", "job.cross_entropy=", "job.sync.mode=", "job.sync.every=", "job.sync.overlap=",
		"budget.usd_per_hour=", "objective=", "cost_model=", "heuristic=", "mouse=", "live=",
		"ascii=" };
	static const char *const gk[] = { "tflops", "memory", "hbm_bandwidth", "efficiency",
					  "price_per_hour" };
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		gp_words_add(ws, fixed[i]);
	const struct gp_scenario *s = a->run.sc;
	if (!s)
		return;
	pool_paths(s, ws);
	for (int g = 0; g < s->ngpus; g++)
		for (size_t k = 0; k < sizeof gk / sizeof gk[0]; k++)
			addf(ws, "gpus[\"%s\"].%s=", s->gpus[g].name, gk[k]);
	for (int l = 0; l < s->nlinks; l++) {
		const char *x = s->dcs[s->links[l].from].name, *y = s->dcs[s->links[l].to].name;
		addf(ws, "links[%s>%s].bandwidth=", x, y);
		addf(ws, "links[%s>%s].latency=", x, y);
		addf(ws, "links[%s-%s].bandwidth=", x, y);   /* both ways */
		addf(ws, "links[%s-%s].latency=", x, y);
	}
}

static void engines(struct gp_words *ws, bool options)
{
	for (int i = 0; i < gp_engine_count(); i++)
		gp_words_add(ws, gp_engine_at(i)->name);
	if (!options)
		return;
	static const char *const opt[] = { "limit=", "work=", "gap=", "objective=time",
					   "objective=cost", "objective=wan_bytes" };
	for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++)
		gp_words_add(ws, opt[i]);
}

static void themes(const struct gp_app *a, struct gp_words *ws)
{
	char names[400];
	gp_themes_names(&a->themes, names, sizeof names);
	for (char *t = strtok(names, ", "); t; t = strtok(NULL, ", "))
		gp_words_add(ws, t);
}

/* The candidates for word number i of a line whose first word is cmd. */
static void candidates(const struct gp_app *a, const char *cmd, int i, const char *word,
		       struct gp_words *ws)
{
	const char *name, *args, *help;
	bool first = i == 0;
	for (int c = 0; c < gp_cmd_count(); c++) {
		gp_cmd_at(c, &name, &args, &help);
		if (first || !strcmp(cmd, "help"))
			gp_words_add(ws, name);
	}
	if (first || !strcmp(cmd, "help"))
		return;
	if (!strcmp(cmd, "set") || !strcmp(cmd, "sweep"))
		paths(a, ws);
	else if (!strcmp(cmd, "plan") || !strcmp(cmd, "compare"))
		engines(ws, !strcmp(cmd, "plan"));
	else if (!strcmp(cmd, "theme"))
		themes(a, ws);
	else if (!strcmp(cmd, "view"))
		for (int v = 0; v < GP_V__N; v++)
			gp_words_add(ws, gp_app_view(v)->name);
	else if (!strcmp(cmd, "save") || !strcmp(cmd, "export") || !strcmp(cmd, "calibrate"))
		gp_cl_files(word, ws);
}

static int by_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* "a  b  c ..." on the status line, as many as its lines hold, then
 * how many more fit: a list cut says so. */
static void list(struct gp_app *a, struct gp_words *ws, const char *word)
{
	qsort(ws->w, (size_t)ws->n, sizeof *ws->w, by_name);
	char buf[400];
	int o = snprintf(buf, sizeof buf, "%s", ""), shown = 0, fit = 0;
	size_t wl = strlen(word);
	for (int i = 0; i < ws->n; i++) {
		if (strncmp(ws->w[i], word, wl) || (i && !strcmp(ws->w[i], ws->w[i - 1])))
			continue;
		fit++;
		int need = (shown ? 2 : 0) + (int)strlen(ws->w[i]);
		if (fit != shown + 1 || o + need >= (int)sizeof buf - 40)
			continue;   /* the rest only counted */
		o += snprintf(buf + o, sizeof buf - (size_t)o, "%s%s", shown ? "  " : "", ws->w[i]);
		shown++;
	}
	if (fit > shown)
		snprintf(buf + o, sizeof buf - (size_t)o, "  (%d more of %d: type more to narrow)",
			 fit - shown, fit);
	gp_app_say(a, GP_R_DIM, "%s", buf);
}

void gp_app_complete(struct gp_app *a)
{
	char line[GP_ED_MAX], *argv[16];
	snprintf(line, sizeof line, "%s", a->ed.buf);
	bool fresh_word = !line[0] || line[strlen(line) - 1] == ' ';
	int argc = gp_cmd_split(line, argv, 16);
	if (argc < 0)
		return;
	int i = fresh_word ? argc : argc - 1;
	const char *word = fresh_word ? "" : argv[argc - 1];
	struct gp_words ws = { 0 };
	candidates(a, i > 0 ? argv[0] : "", i, word, &ws);
	char common[GP_ED_MAX];
	int hits = gp_cl_complete(&ws, word, common, sizeof common);
	if (hits == 0) {
		gp_app_say(a, GP_R_DIM, "nothing completes '%s'", word);
	} else {
		/* The line up to the word, then the word completed. */
		char out[GP_ED_MAX];
		size_t keepn = strlen(a->ed.buf) - strlen(word);
		char end = common[strlen(common) - 1];
		bool done = hits == 1 && end != '=' && end != '/';
		snprintf(out, sizeof out, "%.*s%s%s", (int)keepn, a->ed.buf, common, done ? " " : "");
		gp_ed_set(&a->ed, out);
		a->ed.fresh = false;
		if (hits > 1)
			list(a, &ws, common);
		else
			a->status[0] = 0;
	}
	gp_words_free(&ws);
}
