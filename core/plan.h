/*
 * plan.h: the engine table and the one way a plan is made.
 *
 * Every face (batch commands, the terminal planner, sweeps) asks
 * gp_plan_make for a plan: it starts the engine from a warm plan when
 * asked (another engine's, or one given), runs it, polishes a time plan
 * when the engine asks for it, and checks that what it returns keeps
 * every constraint of the job. Nobody outside this file compares engine
 * names: they look an engine up here and read its flags.
 */
#ifndef GP_PLAN_H
#define GP_PLAN_H

#include "planner.h"

enum gp_engine_flag {
	GP_ENGINE_EXACT = 1 << 0,      /* proves its result for its model */
	GP_ENGINE_HEURISTIC = 1 << 1,  /* a rule of thumb or a search */
	GP_ENGINE_WARM = 1 << 2,       /* starts from gp_plan_opts.warm */
	GP_ENGINE_POLISH = 1 << 3,     /* its time plans are polished by the search */
	GP_ENGINE_DEFAULT = 1 << 4,    /* the engine when none is named */
	GP_ENGINE_SCRIPT = 1 << 5,     /* runs gp_plan_opts.heuristic (a Lua script) */
};

typedef int (*gp_engine_fn)(const struct gp_scenario *s, const struct gp_plan_opts *o,
			    struct gp_plan *out, struct gp_plan_report *rep,
			    struct gp_err *e);

struct gp_engine {
	const char *name;
	unsigned flags;
	const char *help;              /* one line */
	gp_engine_fn fn;
	double time_limit;             /* default seconds when the request says 0 */
};

int gp_engine_count(void);
const struct gp_engine *gp_engine_at(int i);
/* NULL when no engine has that name. */
const struct gp_engine *gp_engine_find(const char *name);
const struct gp_engine *gp_engine_default(void);
/* The engine that runs a heuristic script. */
const struct gp_engine *gp_engine_script(void);
/* "milp, megatron, ..." (the engines whose flags include all of `with`). */
void gp_engine_names(char *buf, size_t n, unsigned with);

struct gp_plan_req {
	const struct gp_engine *engine;  /* NULL: the default */
	struct gp_plan_opts o;           /* o.warm: a given plan to start from */
	const struct gp_engine *warm;    /* or start from this engine's plan */
	bool quiet_warm;                 /* a script's warm start prints nothing
					  * (compare runs the script as a row of
					  * its own, which prints it) */
};

/*
 * Runs the request on scenario s (whose own plan it ignores). On success
 * *out holds a plan gp_plan_validate accepts, within the job's budget,
 * and *rep says how it was found; a plan that breaks a constraint is an
 * error, never returned. On failure rep->status tells infeasible from
 * error and e says why.
 */
int gp_plan_make(const struct gp_scenario *s, const struct gp_plan_req *rq,
		 struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e);

/* US dollars per hour of the GPUs the plan takes (what the budget bounds). */
double gp_plan_usd_per_hour(const struct gp_scenario *s, const struct gp_plan *p);

/* The report as the solver object of the reports (sim.h): bound and gap
 * in the objective's unit for exact engines. */
struct gp_solver_info;
void gp_solver_info_of(const struct gp_plan_report *rep, enum gp_objective goal,
		       struct gp_solver_info *si);

/* Sends a progress report when the request asked for them. */
void gp_plan_progress(const struct gp_plan_opts *o, const char *engine,
		      const char *phase, double incumbent, double bound, double t0);
/* The request's cancel flag is set. */
bool gp_plan_cancelled(const struct gp_plan_opts *o);

#endif
