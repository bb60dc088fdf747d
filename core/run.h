/*
 * run.h: the pipeline as one value: scenario -> cost tables -> plan ->
 * simulation, and which of them are stale.
 *
 * A run holds the last good scenario (a file and the overrides applied
 * to it, in order), its cost tables, the plan being looked at (the
 * file's own, or the one an engine made) with the report of how it was
 * found, and that plan's simulated iteration. Every face calls only
 * this: the batch commands, the terminal planner and the sweeps.
 *
 * Each step returns 0, or -1 with e saying why, and then leaves the run
 * as it was: a bad override keeps the last good scenario, a failed plan
 * keeps the last good plan (marked stale). An edit marks stale only what
 * depends on it, and refreshes the cost tables' touched entries at once.
 *
 * A run is used by one thread at a time; gp_run_cancel may be called
 * from any thread while a step runs.
 */
#ifndef GP_RUN_H
#define GP_RUN_H

#include <stdatomic.h>
#include <stdbool.h>
#include "costtab.h"
#include "lua_cost.h"
#include "lua_heur.h"
#include "plan.h"
#include "scenario.h"
#include "sim.h"

enum gp_stale {
	GP_STALE_PLAN = 1 << 0,     /* the scenario changed since the plan was made */
	GP_STALE_RESULT = 1 << 1,   /* the plan or the scenario changed since it was simulated */
};

enum gp_plan_source { GP_SRC_NONE, GP_SRC_FILE, GP_SRC_ENGINE };

struct gp_run {
	char *path;
	char **sets;                /* overrides, in order */
	int nsets, capsets;
	struct gp_scenario *sc;     /* the last good scenario; its plan, the file's */
	bool plan_optional;         /* set before loading: a file's plan that does
				     * not validate is left out (planning faces),
				     * not an error (checking, simulating) */
	char plan_note[512];        /* why the file's plan was left out, or "" */
	struct gp_costtab *costs;
	const struct gp_cost_model *cm;   /* NULL: the default (a script overrides it) */
	/* Set before loading: a cost-model script over the scenario's
	 * cost_model, and where the scripts' warnings go. */
	const char *cost_path;
	void (*log)(void *ud, const char *line);
	void *log_ud;
	/* Set before loading: how an override as typed becomes the one the
	 * loader reads (the front end's unit words, 10G), out n bytes;
	 * NULL: as typed. The overrides kept are what it returned. */
	void (*xlate)(const char *set, char *out, size_t n);
	struct gp_lua_cost *script;       /* the cost-model script in use, owned */
	char script_path[512];            /* what it was loaded from, or "" */
	/* The same for a heuristic script: --heuristic over the scenario's. */
	const char *heur_path;
	struct gp_lua_heur *heur;
	char heur_loaded[512];

	enum gp_plan_source src;
	struct gp_plan plan;        /* what is looked at (GP_SRC_ENGINE: owned) */
	struct gp_plan_report rep;  /* GP_SRC_ENGINE: how the plan was found */
	bool has_rep;
	enum gp_milp_status last_status;  /* of the last gp_run_plan, failed or not */

	struct gp_result res;
	bool has_res;
	unsigned stale;             /* enum gp_stale */

	atomic_int cancel;
	void (*progress)(void *ud, const struct gp_progress *p);
	void *progress_ud;
};

/* How to simulate: a schedule or chunk count over the plan's own. */
struct gp_sim_req {
	int schedule;               /* enum gp_sched, or -1: the plan's */
	int chunks;                 /* 0: the plan's (or the schedule's default) */
	bool record;                /* keep the timeline */
	double time_limit, gap;     /* xdc-milp */
};

void gp_run_init(struct gp_run *r);
void gp_run_free(struct gp_run *r);

/* Loads path with the overrides sets[0..n) (--set), its cost-model
 * script (cost_path, else the scenario's cost_model) and makes the cost
 * tables; the file's plan is the plan looked at (with plan_optional, only
 * when it validates). */
int gp_run_load(struct gp_run *r, const char *path, const char *const *sets, int n,
		struct gp_err *e);
/* Applies one more override "PATH=VALUE". */
int gp_run_set(struct gp_run *r, const char *set, struct gp_err *e);
/* Keeps only the first n overrides (undo). */
int gp_run_truncate(struct gp_run *r, int n, struct gp_err *e);
/* Plans with the request (its costs, cancel and progress are the
 * run's); the new plan is the one looked at. */
int gp_run_plan(struct gp_run *r, const struct gp_plan_req *rq, struct gp_err *e);
/* Simulates the plan looked at. */
int gp_run_simulate(struct gp_run *r, const struct gp_sim_req *rq, struct gp_err *e);

/* A shallow view of p with the request's schedule and chunks over its
 * own (interleaved takes 2 chunks unless told; schedules without chunks
 * take 1). */
struct gp_plan gp_run_sim_plan(const struct gp_plan *p, const struct gp_sim_req *rq);
/* The plan looked at, or NULL. */
const struct gp_plan *gp_run_plan_of(const struct gp_run *r);
void gp_run_cancel(struct gp_run *r);
/* Fills the cost tables a second time and compares them bitwise with
 * the run's: a cost model that keeps state between calls (an upvalue
 * counter, a table it fills) gives other figures the second time. */
int gp_run_check_pure(const struct gp_run *r, struct gp_err *e);

#endif
