/*
 * cmd_compare.c: geoplan compare: every engine on the same scenario,
 * each plan judged by the simulator, side by side.
 */
#include <math.h>

#include "cli.h"
#include "report.h"

static void json_row(struct gp_json *j, const struct gp_run *r)
{
	gp_json_obj(j, false);
	gp_json_kstr(j, "engine", r->rep.engine);
	gp_json_knum(j, "iteration_time_s", r->res.iteration_time);
	gp_json_knum(j, "tokens_per_s", r->res.tokens_per_s);
	gp_json_knum(j, "usd_per_iteration", r->res.usd_per_iteration);
	gp_json_knum(j, "wan_bytes_per_iteration", r->res.wan_bytes);
	gp_json_kbool(j, "fits", r->res.fits);
	gp_json_key(j, "solver");
	gp_report_json_solver(j, &r->res.solver);
	gp_json_key(j, "plan");
	gp_report_json_plan(j, r->sc, gp_run_plan_of(r));
	gp_json_end(j);
}

static void text_row(const struct gp_run *r)
{
	char gap[16] = "-";
	if (isfinite(r->rep.gap))
		snprintf(gap, sizeof gap, "%.2f%%", 100 * r->rep.gap);
	printf("%-14s %11.4gs %12.4g %12.4g %12.4g %9.3gs %8s%s\n", r->rep.engine,
	       r->res.iteration_time, r->res.tokens_per_s, r->res.usd_per_iteration,
	       r->res.wan_bytes, r->rep.seconds, gap, r->res.fits ? "" : "  (does not fit)");
}

static int run(const struct args *a)
{
	struct gp_run r;
	gp_run_init(&r);
	int rc = cli_load(&r, a, true);
	if (rc) {
		gp_run_free(&r);
		return rc;
	}
	struct gp_json j;
	gp_json_init(&j, stdout);
	if (a->json)
		gp_json_arr(&j, true);
	else
		printf("%-14s %12s %12s %12s %12s %10s %8s\n", "engine", "iteration", "tokens/s",
		       "$/iteration", "WAN bytes", "plan time", "gap");
	for (int k = 0; k < gp_engine_count(); k++) {
		struct args ak = *a;
		ak.engine = gp_engine_at(k)->name;
		if ((gp_engine_at(k)->flags & GP_ENGINE_SCRIPT) && !r.heur)
			continue;
		if (cli_plan(&r, &ak) || cli_simulate(&r, &ak, false, false)) {
			if (!a->json)
				printf("%-14s %12s\n", ak.engine, "no plan");
			continue;
		}
		if (a->json)
			json_row(&j, &r);
		else
			text_row(&r);
	}
	if (a->json) {
		gp_json_end(&j);
		putchar('\n');
	}
	gp_run_free(&r);
	return EXIT_OK;
}

const struct cmd cmd_compare = {
	.name = "compare",
	.help = "every engine side by side",
	.opts = "set time-limit gap seed no-polish warm schedule json cost-model heuristic",
	.file = true,
	.run = run,
};
