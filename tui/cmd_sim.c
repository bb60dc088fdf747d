/*
 * cmd_sim.c: geoplan sim: simulate the scenario's plan for one
 * iteration; a text summary, JSON or the timeline as CSV.
 */
#include "cli.h"
#include "report.h"

static int run(const struct args *a)
{
	if (a->json && a->csv)
		return cli_usage_error(a, "--json and --csv exclude each other");
	struct gp_run r;
	gp_run_init(&r);
	int rc = cli_load(&r, a, false);
	if (rc == EXIT_OK)
		rc = cli_simulate(&r, a, true, a->csv);
	if (rc == EXIT_OK) {
		const struct gp_plan *p = gp_run_plan_of(&r);
		if (a->json)
			gp_report_json(stdout, r.sc, p, &r.res);
		else if (a->csv)
			gp_report_csv(stdout, r.sc, p, &r.res);
		else
			gp_report_text(stdout, r.sc, p, &r.res);
		if (!r.res.fits)
			cli_error(0, "%s: does not fit: %s", a->file, r.res.fit_msg);
		rc = cli_result_code(&r, a);
	}
	gp_run_free(&r);
	return rc;
}

const struct cmd cmd_sim = {
	.name = "sim",
	.help = "simulate the scenario's plan for one iteration",
	.opts = "set schedule chunks time-limit gap json csv cost-model",
	.file = true,
	.run = run,
};
