/*
 * cmd_check.c: geoplan check: load and validate a scenario, one line,
 * and a line for each script it uses (a cost model is checked pure).
 */
#include "cli.h"

/* The scripts the run uses: a cost model must be pure (its tables come
 * out the same twice). */
static int check_scripts(const struct gp_run *r)
{
	struct gp_err e = { "" };
	if (r->script) {
		if (gp_run_check_pure(r, &e))
			return cli_error(EXIT_INPUT, "%s", e.msg);
		const char *d = gp_lua_cost_description(r->script);
		printf("%s: ok: a cost model%s%s, %ld calls, the same figures twice\n",
		       r->script_path, d[0] ? ": " : "", d, gp_lua_cost_calls(r->script) / 2);
	}
	if (r->heur) {
		const char *d = gp_lua_heur_description(r->heur);
		printf("%s: ok: heuristic %s%s%s\n", r->heur_loaded, gp_lua_heur_name(r->heur),
		       d[0] ? ": " : "", d);
	}
	return EXIT_OK;
}

static int run(const struct args *a)
{
	struct gp_run r;
	gp_run_init(&r);
	int rc = cli_load(&r, a, false);
	if (rc == EXIT_OK) {
		const struct gp_scenario *s = r.sc;
		int gpus = 0;
		for (int i = 0; i < s->ndcs; i++)
			for (int j = 0; j < s->dcs[i].npools; j++)
				gpus += s->dcs[i].pools[j].count;
		printf("%s: ok: %d DCs, %d GPUs, %d link directions, model %s (%d layers)%s\n",
		       a->file, s->ndcs, gpus, s->nlinks, s->model.name, s->model.layers,
		       s->has_plan ? ", with a plan" : "");
		rc = check_scripts(&r);
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
