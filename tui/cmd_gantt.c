/*
 * cmd_gantt.c: geoplan gantt: the simulated iteration as an SVG Gantt
 * chart.
 */
#include "cli.h"
#include "report.h"

#include <string.h>
#include <strings.h>

static int write_svg(FILE *f, const void *ud)
{
	const struct gp_run *r = ud;
	return gp_report_svg(f, r->sc, gp_run_plan_of(r), &r->res);
}

static int run(const struct args *a)
{
	if (!a->out)
		return cli_usage_error(a, "gantt needs -o FILE.svg");
	/* Another format's name is a mistake; a name without one (a device,
	 * /dev/stdout) is not. */
	const char *base = strrchr(a->out, '/'), *dot = strrchr(base ? base : a->out, '.');
	if (dot && strcasecmp(dot, ".svg"))
		return cli_usage_error(a, "gantt: -o %s: expected a name ending in .svg (the chart is SVG; rsvg-convert turns it into a PNG)",
				       a->out);
	struct gp_run r;
	gp_run_init(&r);
	int rc = cli_load(&r, a, false);
	if (rc == EXIT_OK)
		rc = cli_simulate(&r, a, true, true);
	if (rc == EXIT_OK)
		rc = cli_write_file(a->out, write_svg, &r);   /* whole or not at all */
	if (rc == EXIT_OK && !r.res.fits)
		rc = cli_error(EXIT_INFEASIBLE, "%s: does not fit: %s", a->file, r.res.fit_msg);
	gp_run_free(&r);
	return rc;
}

const struct cmd cmd_gantt = {
	.name = "gantt",
	.help = "write the simulated iteration as an SVG Gantt chart",
	.opts = "out set schedule chunks time-limit gap cost-model",
	.file = true,
	.run = run,
};
