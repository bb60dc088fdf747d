/*
 * cmd_sensitivity.c: geoplan sensitivity: which link or pool, 10 %
 * better, shortens the iteration most (core/whatif.h).
 */
#include <math.h>
#include <stdlib.h>

#include "cli.h"
#include "whatif.h"

static int run(const struct args *a)
{
	struct gp_run r;
	gp_run_init(&r);
	int rc = cli_load(&r, a, a->engine != NULL);
	if (rc == EXIT_OK && a->engine)
		rc = cli_plan(&r, a);
	if (rc == EXIT_OK)
		rc = cli_simulate(&r, a, !a->engine, false);
	double base;
	struct gp_knob *g = NULL;
	int n = 0;
	struct gp_err e = { "" };
	if (rc == EXIT_OK) {
		struct gp_sim_req sim = { .schedule = -1, .time_limit = a->time_limit, .gap = a->gap };
		enum gp_sched k;
		if (!a->engine && a->schedule && gp_sched_parse(a->schedule, &k) == 0)
			sim.schedule = (int)k;
		sim.chunks = a->engine ? 0 : a->chunks;
		if (gp_whatif_sensitivity(&r, &sim, &base, &g, &n, &e))
			rc = cli_error(EXIT_INPUT, "%s: %s", a->file, e.msg);
	}
	if (rc == EXIT_OK) {
		printf("iteration %.4g s with the plan as it is; each line: one thing 10 %% better\n"
		       "(link: bandwidth x 1.1, latency / 1.1; pool: GPU efficiency, NVLink and NIC x 1.1)\n\n",
		       base);
		printf("%-44s %12s %10s\n", "", "iteration", "saved");
		for (int i = 0; i < n; i++)
			printf("%-44s %11.4gs %9.2f%%\n", g[i].what, g[i].t,
			       isnan(g[i].t) ? NAN : 100 * g[i].saved / base);
	}
	free(g);
	gp_run_free(&r);
	return rc;
}

const struct cmd cmd_sensitivity = {
	.name = "sensitivity",
	.help = "which link or pool, 10 % better, shortens the iteration most",
	.opts = "set engine time-limit gap seed no-polish schedule chunks cost-model heuristic",
	.file = true,
	.run = run,
};
