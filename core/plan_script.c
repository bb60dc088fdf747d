/*
 * plan_script.c: the engine "heuristic": the plan of a Lua heuristic
 * script (lua_heur.h), given in gp_plan_opts.heuristic.
 *
 * Its estimate is the simulator's time for the plan (a script has no
 * model of its own to report), so compare and the warm start judge it
 * like every other engine's plan. The budget is the script's to keep:
 * plan.c refuses a plan over it, naming the script.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lua_heur.h"
#include "plan.h"
#include "sim.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int gp_plan_heuristic(const struct gp_scenario *s, const struct gp_plan_opts *o,
		      struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e)
{
	memset(out, 0, sizeof *out);
	*rep = (struct gp_plan_report){ .engine = "heuristic", .status = GP_MILP_ERROR,
					.bound = -HUGE_VAL, .gap = HUGE_VAL,
					.objective = HUGE_VAL, .estimate_s = HUGE_VAL };
	if (!o->heuristic)
		return gp_errf(e, "heuristic: no heuristic script: give --heuristic FILE, or name one in the scenario's heuristic field");
	double t0 = now_s();
	gp_plan_progress(o, gp_lua_heur_name(o->heuristic), "the script's plan()", HUGE_VAL,
			 -HUGE_VAL, t0);
	if (gp_plan_cancelled(o))
		return gp_errf(e, "%s: cancelled", gp_lua_heur_name(o->heuristic));
	struct gp_costtab *own = NULL;
	const struct gp_costtab *ct = o->costs;
	if (!ct && !(ct = own = gp_costtab_new(s, NULL, e)))
		return -1;
	rep->engine = gp_lua_heur_name(o->heuristic);
	int rc = gp_lua_heur_plan(o->heuristic, s, ct, o, out, e);
	if (rc == 0) {
		struct gp_sim_opts so = { .costs = ct, .cancel = o->cancel };
		struct gp_result r;
		struct gp_err se = { "" };
		if (gp_simulate(s, out, &so, &r, &se) == 0) {
			rep->estimate_s = r.iteration_time;
			rep->objective = o->objective == GP_OBJ_COST ? r.usd_per_iteration :
					 o->objective == GP_OBJ_WAN ? r.wan_bytes : r.iteration_time;
			if (!r.fits)
				snprintf(rep->note, sizeof rep->note, "its plan does not fit: %s",
					 r.fit_msg);
			gp_result_free(&r);
		}
		rep->status = GP_MILP_FEASIBLE;
	}
	rep->seconds = now_s() - t0;
	gp_costtab_free(own);
	return rc;
}
