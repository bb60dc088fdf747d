/*
 * cmd_check.c: geoplan check: load and validate a scenario, one line.
 */
#include "cli.h"

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
