/*
 * cmd_plan.c: geoplan plan: find a plan (the file's own is ignored, or
 * a warm start), simulate it, and print it to paste back.
 */
#include "cli.h"
#include "report.h"

static int run(const struct args *a)
{
	struct gp_run r;
	gp_run_init(&r);
	int rc = cli_load(&r, a, true);
	if (rc == EXIT_OK)
		rc = cli_plan(&r, a);
	if (rc == EXIT_OK)
		rc = cli_simulate(&r, a, false, false);
	if (rc == EXIT_OK) {
		const struct gp_plan *p = gp_run_plan_of(&r);
		if (a->json) {
			gp_report_json(stdout, r.sc, p, &r.res);
		} else {
			gp_report_text(stdout, r.sc, p, &r.res);
			if (r.rep.note[0]) {
				putchar('\n');
				gp_report_line(stdout, "note", r.rep.note);
			}
			printf("\n-- the plan, to paste into the scenario:\n");
			gp_plan_write_lua(stdout, r.sc, p, "");
		}
		rc = cli_result_code(&r, a);
	}
	gp_run_free(&r);
	return rc;
}

const struct cmd cmd_plan = {
	.name = "plan",
	.help = "find a plan (ignoring the file's) and simulate it",
	.opts = "set engine time-limit work-limit gap seed no-polish warm schedule chunks json cost-model heuristic",
	.file = true,
	.run = run,
};
