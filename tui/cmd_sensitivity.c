/*
 * cmd_sensitivity.c: geoplan sensitivity: which figure of which link or
 * pool, 10 % better on its own, shortens the iteration most
 * (core/whatif.h), as a table sized to its content, with what a
 * negative saving means, or as JSON.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fmt.h"
#include "json.h"
#include "table.h"
#include "whatif.h"

static void print_knobs(const struct gp_run *r, double base, const struct gp_knob *g, int n,
			int left_out)
{
	static const char *const heads[] = { "what", "made better", "iteration", "saved", "%" };
	struct gp_table t;
	char a[32];
	bool negative = false, zero = false, all = false;
	gp_table_init(&t, "llrrr", heads);
	for (int i = 0; i < n; i++) {
		gp_table_row(&t);
		gp_table_set(&t, 0, "%s", g[i].what);
		all = all || !strncmp(g[i].what, "every WAN link", 14);
		gp_table_set(&t, 1, "%s", g[i].knob);
		if (isnan(g[i].t)) {
			gp_table_note(&t, 2, "does not simulate");
			continue;
		}
		gp_table_set(&t, 2, "%s", gp_fmt_time(g[i].t, 4, a, sizeof a));
		gp_table_set(&t, 3, "%s", gp_fmt_time(g[i].saved, 3, a, sizeof a));
		gp_table_set(&t, 4, "%.2f %%", 100 * g[i].saved / base + 0.0);
		negative = negative || g[i].saved < 0;
		zero = zero || fabs(g[i].saved) <= 1e-9 * base;
	}
	printf("iteration %s with the plan as it is; each row: one figure 10 %% better,\n"
	       "the rest as it is\n\n", gp_fmt_time(base, 4, a, sizeof a));
	gp_table_print(&t, stdout, "");
	gp_table_free(&t);
	if (left_out)
		printf("\n%d link direction%s and pool%s the iteration does not use: left out\n",
		       left_out, left_out == 1 ? "" : "s", left_out == 1 ? "" : "s");
	if (zero)
		printf("\nA saving of 0 s: that figure is off the iteration's critical path; what\n"
		       "it carries waits on, or hides behind, other work that takes longer, or\n"
		       "shares it with figures as slow that stay as they are (the other links of\n"
		       "a ring, the other pools of a replica): %s",
		       all ? "the 'every WAN link' row, or\nsweep with several --set at once, moves them together.\n"
			   : "sweep with several --set at\nonce moves them together.\n");
	if (negative) {
		enum gp_sched k = gp_run_plan_of(r)->schedule;
		printf("\nA negative saving: the change made the iteration longer. The plan stays as\n"
		       "it is, but transfers share a WAN link fairly and DP sync runs bucket by\n"
		       "bucket, so a transfer that arrives earlier can meet other traffic%s.\n",
		       k == GP_SCHED_XDC_GREEDY || k == GP_SCHED_XDC_MILP
		       ? "; and the\nschedule is generated again for the new figures" : "");
	}
}

/* The same rows as JSON: a row that does not simulate has nulls. */
static void json_knobs(const struct gp_run *r, double base, const struct gp_knob *g, int n,
		       int left_out)
{
	struct gp_json j;
	gp_json_init(&j, stdout);
	gp_json_obj(&j, true);
	gp_json_kstr(&j, "scenario", r->sc->name);
	gp_json_knum(&j, "iteration_time_s", base);
	gp_json_kint(&j, "left_out", left_out);
	gp_json_key(&j, "rows");
	gp_json_arr(&j, true);
	for (int i = 0; i < n; i++) {
		gp_json_obj(&j, false);
		gp_json_kstr(&j, "what", g[i].what);
		gp_json_kstr(&j, "made_better", g[i].knob);
		gp_json_knum(&j, "iteration_time_s", g[i].t);
		gp_json_knum(&j, "saved_s", isnan(g[i].t) ? NAN : g[i].saved);
		gp_json_knum(&j, "saved_fraction", isnan(g[i].t) ? NAN : g[i].saved / base);
		gp_json_end(&j);
	}
	gp_json_end(&j);
	gp_json_end(&j);
	putchar('\n');
}

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
	int n = 0, left_out = 0;
	struct gp_err e = { "" };
	if (rc == EXIT_OK) {
		struct gp_sim_req sim = { .schedule = -1, .time_limit = a->time_limit, .gap = a->gap };
		enum gp_sched k;
		if (!a->engine && a->schedule && gp_sched_parse(a->schedule, &k) == 0)
			sim.schedule = (int)k;
		sim.chunks = a->engine ? 0 : a->chunks;
		if (gp_whatif_sensitivity(&r, &sim, &base, &g, &n, &left_out, &e))
			rc = cli_error(EXIT_INPUT, "%s: %s", a->file, e.msg);
	}
	if (rc == EXIT_OK && a->json)
		json_knobs(&r, base, g, n, left_out);
	else if (rc == EXIT_OK)
		print_knobs(&r, base, g, n, left_out);
	free(g);
	gp_run_free(&r);
	return rc;
}

const struct cmd cmd_sensitivity = {
	.name = "sensitivity",
	.help = "which figure of a link or pool, 10 % better, helps most",
	.opts = "set json engine time-limit work-limit gap seed no-polish schedule chunks cost-model heuristic",
	.file = true,
	.run = run,
};
