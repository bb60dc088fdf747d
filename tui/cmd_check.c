/*
 * cmd_check.c: geoplan check: load and validate a scenario, one line,
 * and a line for each script it uses (a cost model is checked pure,
 * first: a check that fails says no ok).
 */
#include "cli.h"

/* A cost model must be pure (its tables come out the same twice): one
 * that is not fails the check before anything says ok. */
static int check_pure(const struct gp_run *r)
{
	struct gp_err e = { "" };
	if (r->script && gp_run_check_pure(r, &e))
		return cli_error(EXIT_INPUT, "%s", e.msg);
	return EXIT_OK;
}

/* A line for each script the run uses (the cost model checked pure). */
static void say_scripts(const struct gp_run *r)
{
	if (r->script) {
		const char *d = gp_lua_cost_description(r->script);
		printf("%s: ok: a cost model%s%s, %ld calls, the same figures twice\n",
		       r->script_path, d[0] ? ": " : "", d, gp_lua_cost_calls(r->script) / 2);
	}
	if (r->heur) {
		const char *d = gp_lua_heur_description(r->heur);
		printf("%s: ok: heuristic %s%s%s\n", r->heur_loaded, gp_lua_heur_name(r->heur),
		       d[0] ? ": " : "", d);
	}
}

/* "no link directions", "1 DC", "32 GPUs" (word is the singular;
 * the plural adds an s). */
static const char *count(int n, const char *word, char *buf, size_t len)
{
	if (n == 0)
		snprintf(buf, len, "no %ss", word);
	else
		snprintf(buf, len, "%d %s%s", n, word, n == 1 ? "" : "s");
	return buf;
}

static int run(const struct args *a)
{
	struct gp_run r;
	gp_run_init(&r);
	int rc = cli_load(&r, a, false);
	if (rc == EXIT_OK)
		rc = check_pure(&r);
	if (rc == EXIT_OK) {
		const struct gp_scenario *s = r.sc;
		int gpus = 0;
		for (int i = 0; i < s->ndcs; i++)
			for (int j = 0; j < s->dcs[i].npools; j++)
				gpus += s->dcs[i].pools[j].count;
		char d[32], g[32], l[40], y[32];
		printf("%s: ok: %s, %s, %s, model %s (%s)%s\n", a->file,
		       count(s->ndcs, "DC", d, sizeof d), count(gpus, "GPU", g, sizeof g),
		       count(s->nlinks, "link direction", l, sizeof l), s->model.name,
		       count(s->model.layers, "layer", y, sizeof y), s->has_plan ? ", with a plan" : "");
		say_scripts(&r);
	}
	gp_run_free(&r);
	return rc;
}

const struct cmd cmd_check = {
	.name = "check",
	.help = "load and validate a scenario",
	.opts = "set cost-model heuristic",
	.file = true,
	.run = run,
};
