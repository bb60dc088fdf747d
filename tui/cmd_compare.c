/*
 * cmd_compare.c: geoplan compare: every engine on the same scenario,
 * each plan judged by the simulator, side by side: a table sized to its
 * content, or (--json) an array of each engine's figures and plan. An
 * engine that finds no plan is a row with its message; the exit code is
 * 0 when some engine planned, else the failures' (4 when none fits).
 */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "fmt.h"
#include "report.h"
#include "table.h"

enum { C_ENGINE, C_TIME, C_TOKENS, C_USD, C_WAN, C_STATUS, C_GAP, C_SECONDS, C__N };

/* The gap of the plan in the row: a polished plan is the search's,
 * outside the space the MILP's bound covers, so against the bound that
 * holds for every plan; NaN when there is none. */
static double row_gap(const struct gp_run *r)
{
	const struct gp_result *x = &r->res;
	if (r->rep.polished && r->sc->objective == GP_OBJ_TIME)
		return isfinite(r->rep.floor) && x->iteration_time > 0
		       ? fmax(0, (x->iteration_time - r->rep.floor) / x->iteration_time) : NAN;
	return r->rep.gap;
}

static void json_row(struct gp_json *j, const struct gp_run *r)
{
	gp_json_obj(j, false);
	gp_json_kstr(j, "engine", r->rep.engine);
	gp_report_json_metrics(j, &r->res);
	gp_report_json_prices(j, r->sc, gp_run_plan_of(r), &r->res);
	gp_json_knum(j, "plan_gap", row_gap(r));   /* the text's gap column */
	gp_json_kbool(j, "fits", r->res.fits);
	if (!r->res.fits)
		gp_json_kstr(j, "fit_error", r->res.fit_msg);
	gp_json_knum(j, "plan_time_s", r->rep.seconds);
	gp_json_key(j, "solver");
	gp_report_json_solver(j, &r->res);
	gp_json_key(j, "plan");
	gp_report_json_plan(j, r->sc, gp_run_plan_of(r));
	gp_json_end(j);
}

static void json_failed(struct gp_json *j, const char *engine, const char *msg, int code)
{
	gp_json_obj(j, false);
	gp_json_kstr(j, "engine", engine);
	gp_json_kstr(j, "error", msg);
	gp_json_kint(j, "exit_code", code);
	gp_json_end(j);
}

static void text_row(struct gp_table *t, const struct gp_run *r, bool priced)
{
	char a[32];
	const struct gp_result *x = &r->res;
	gp_table_row(t);
	gp_table_set(t, C_ENGINE, "%s", r->rep.engine);
	gp_table_set(t, C_TIME, "%s", gp_fmt_time(x->iteration_time, 4, a, sizeof a));
	gp_table_set(t, C_TOKENS, "%s", gp_fmt_si(x->tokens_per_s, 3, "", a, sizeof a));
	gp_table_set(t, C_USD, "%s", priced ? gp_fmt_usd(x->usd_per_iteration, a, sizeof a) : "-");
	gp_table_set(t, C_WAN, "%s", gp_fmt_bytes(x->wan_bytes, a, sizeof a));
	gp_table_set(t, C_STATUS, "%s", x->fits ? gp_milp_status_name(r->rep.status) : "no fit");
	double gap = row_gap(r);
	if (isfinite(gap))
		gp_table_set(t, C_GAP, "%.2f %%", 100 * gap);
	else
		gp_table_set(t, C_GAP, "-");
	gp_table_set(t, C_SECONDS, "%s", gp_fmt_time(r->rep.seconds, 3, a, sizeof a));
	if (!x->fits) {   /* on a line of its own, wrapped under the figures */
		gp_table_row(t);
		gp_table_note(t, C_TIME, "does not fit: %s", x->fit_msg);
	}
}

/* Plans with engine k and simulates its plan; the exit code it deserves,
 * e saying why it failed. */
static int plan_one(struct gp_run *r, const struct gp_plan_req *base, const struct args *a,
		    int k, struct gp_err *e)
{
	struct gp_plan_req rq = *base;
	rq.engine = gp_engine_at(k);
	rq.quiet_warm = true;   /* the script's own row prints what it prints */
	if (gp_run_plan(r, &rq, e))
		return r->last_status == GP_MILP_INFEASIBLE ? EXIT_INFEASIBLE : EXIT_INPUT;
	struct gp_sim_req sim = { .schedule = -1, .time_limit = a->time_limit, .gap = a->gap };
	if (gp_run_simulate(r, &sim, e)) {
		char why[sizeof e->msg];
		snprintf(why, sizeof why, "%s", e->msg);
		gp_errf(e, "its plan does not simulate: %s", why);
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

/* Every engine into the table or the JSON array; the exit code. */
static int compare(struct gp_run *r, const struct args *a, const struct gp_plan_req *base,
		   struct gp_table *t, struct gp_json *j, bool *unpriced)
{
	int planned = 0, worst = EXIT_OK;
	for (int k = 0; k < gp_engine_count(); k++) {
		const char *name = gp_engine_at(k)->name;
		if ((gp_engine_at(k)->flags & GP_ENGINE_SCRIPT) && !r->heur)
			continue;
		if (gp_engine_at(k)->flags & GP_ENGINE_SCRIPT)
			name = gp_lua_heur_name(r->heur);   /* the row it has when it plans */
		struct gp_err e = { "" };
		int rc = plan_one(r, base, a, k, &e);
		if (rc && a->json) {
			json_failed(j, name, e.msg, rc);
		} else if (rc) {
			gp_table_row(t);
			gp_table_set(t, C_ENGINE, "%s", name);
			size_t l = strlen(name);   /* the row names the engine */
			bool named = !strncmp(e.msg, name, l) && !strncmp(e.msg + l, ": ", 2);
			char one[sizeof e.msg];
			gp_table_note(t, C_TIME, "no plan: %s",
				      gp_fmt_one_line(e.msg + (named ? l + 2 : 0), one, sizeof one));
		} else if (a->json) {
			json_row(j, r);
		} else {
			bool gpus, egress;
			gp_report_prices(r->sc, gp_run_plan_of(r), &r->res, &gpus, &egress);
			text_row(t, r, gpus || egress);
			*unpriced = *unpriced || !(gpus || egress);
		}
		planned += rc == EXIT_OK;
		worst = rc > worst ? rc : worst;
	}
	return planned ? EXIT_OK : worst;
}

static int run(const struct args *a)
{
	static const char *const heads[C__N] = { "engine", "iteration", "tokens/s", "$/iteration",
		"WAN bytes", "status", "gap", "plan time" };
	struct gp_run r;
	gp_run_init(&r);
	struct gp_plan_req base;
	int rc = cli_load(&r, a, true);
	if (rc == EXIT_OK)
		rc = cli_plan_req(a, &r, &base);
	if (rc) {
		gp_run_free(&r);
		return rc;
	}
	struct gp_json j;
	struct gp_table t;
	gp_json_init(&j, stdout);
	gp_table_init(&t, "lrrrrlrr", heads);
	t.wrap = 79;
	if (a->json)
		gp_json_arr(&j, true);
	bool unpriced = false;
	rc = compare(&r, a, &base, &t, &j, &unpriced);
	if (a->json) {
		gp_json_end(&j);
		putchar('\n');
	} else if (gp_table_print(&t, stdout, "")) {
		rc = cli_error(EXIT_INPUT, "compare: out of memory");
	}
	if (!a->json && rc == EXIT_OK)
		printf("\niteration: as simulated; status and gap: against the bound the MILP\n"
		       "proved over its space of plans (geoplan plan's proof line says which:\n"
		       "1F1B plans of so many stages), not over every schedule%s\n",
		       unpriced ? ";\n$/iteration: - where no prices are given (gpus' price_per_hour,\n"
		       "links' price_per_gb)" : "");
	gp_table_free(&t);
	gp_run_free(&r);
	return rc;
}

const struct cmd cmd_compare = {
	.name = "compare",
	.help = "every engine side by side",
	.opts = "set time-limit work-limit gap seed no-polish warm schedule chunks json cost-model heuristic",
	.file = true,
	.run = run,
};
