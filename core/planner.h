/*
 * planner.h: from a scenario without a plan to a plan.
 *
 * Every engine fills a struct gp_plan (scenario.h) that gp_plan_validate()
 * accepts; the caller then judges it with gp_simulate(), so plans from the
 * MILP, the baselines and the search compare fairly. Engines never print;
 * they return values and errors.
 */
#ifndef GP_PLANNER_H
#define GP_PLANNER_H

#include <stdatomic.h>
#include <stdbool.h>
#include "gp.h"
#include "scenario.h"
#include "solver.h"

struct gp_costtab;

/* What an engine reports as it goes (from the thread that plans). */
struct gp_progress {
	const char *engine;
	const char *phase;        /* "search", "polish", "simulate", ... */
	double incumbent;         /* best so far, in the objective's unit; HUGE_VAL: none */
	double bound;             /* proven lower bound; -HUGE_VAL: none */
	double gap;               /* HUGE_VAL: none */
	double elapsed;           /* seconds since the request started */
};

struct gp_lua_heur;   /* lua_heur.h */

/* A planning request: the job's constraints and how hard to try. Engines
 * honour every constraint of the job (memory, GPUs, the budget). */
struct gp_plan_opts {
	double time_limit;        /* seconds; <= 0: the engine's default */
	double gap;               /* relative gap for exact engines; 0: prove */
	unsigned seed;            /* randomised engines */
	enum gp_objective objective;
	double budget_usd_per_hour;   /* 0: none */
	enum gp_sched schedule;   /* schedule the plan will run (1f1b default) */
	int chunks;               /* chunks per device the plan runs (interleaved,
				   * or 2: xdc-*'s V shape); 0: the schedule's
				   * default, 2 for interleaved, else 1. The
				   * engines time one chunk; gp_plan_make sets
				   * the chunks on the plan found */
	bool polish;              /* gp_plan_make: polish a GP_ENGINE_POLISH engine's
				   * time plan by the search (plan.c) */
	bool covering_only;       /* milp: only the covering MILP's options (no
				   * uniform ones): what the exhaustive and CBC
				   * cross-checks enumerate */
	const struct gp_costtab *costs;   /* NULL: made from the default model */
	const struct gp_plan *warm;       /* a plan to start from, or NULL */
	struct gp_lua_heur *heuristic;    /* the engine "heuristic"'s script, or NULL */
	const atomic_int *cancel;         /* non-zero: stop soon, keep the best */
	void (*progress)(void *ud, const struct gp_progress *p);
	void *progress_ud;
	double work_limit;        /* milp: units of its counted work (place_int.h),
				   * a limit that repeats beside time_limit; <= 0:
				   * PM_WORK_RATE per second of work_s */
	double work_s;            /* every engine: the limit that repeats, in
				   * seconds of counted work (each engine's count
				   * at its fixed rate: PM_WORK_RATE, BL_WORK_RATE);
				   * <= 0: time_limit, which is then the wall-clock
				   * safety only */
	const int *pool_gpus;     /* milp: per pool, DC by DC, the GPUs the
				   * straggler term takes (gp_costtab_pace; 0 or
				   * NULL: the pool's count) */
};

/* The search's own work limit when the request has none, in seconds
 * of counted work (baseline.h: about 2 s idle on a 2-core machine); the
 * polish gives each of its two searches as much. */
#define GP_SEARCH_WORK_S 4.0

struct gp_plan_report {
	const char *engine;
	enum gp_milp_status status;   /* OPTIMAL for exact engines that proved it,
				       * FEASIBLE for heuristics and unclosed gaps */
	double objective;         /* the engine's own estimate, in the objective's unit */
	double bound;             /* proven lower bound; -HUGE_VAL if none */
	double gap;
	double seconds;
	double estimate_s;        /* the engine's own iteration-time estimate */
	char note[1024];          /* what the engine assumed or why it failed */
	/* milp with polish: its own plan as simulated, and whether the
	 * search's plan replaced it. */
	bool has_own;
	double own_sim_s;
	bool own_known;           /* milp: own_sim_s holds its plan's simulated
				   * time before any polish (HUGE_VAL: it fails) */
	bool polished;
	/* milp: the space its proof covers, and a bound that holds for
	 * every plan (the work bound; -HUGE_VAL unknown). */
	char space[640];
	double floor;
	double work_s;            /* the simulator engines: the work counted, in
				   * seconds at BL_WORK_RATE (baseline.h) */
	bool clock_stopped;       /* the wall clock (time_limit), not the work
				   * limit, stopped a search: the answer may
				   * differ run to run (the note says so) */
	bool closed;              /* milp: its search closed under its own model
				   * (OPTIMAL only if that model is the
				   * simulator's on its plan and nothing was cut) */
	bool pool_paced;          /* milp: solved again, the straggler term at the
				   * GPUs its first plan used of each pool */
};

/* A plan simulated at `low`, below rep's bound, refutes its proof (plan.c):
 * rep becomes feasible with the work bound (or low, if less), and the
 * note says which plan did it ("a plan <by> (low) beats ..."). Nothing
 * when low is not below the bound. */
void gp_plan_refute(struct gp_plan_report *rep, double low, const char *by);

/* The chunks o asks its plan to run: o->chunks, 2 for interleaved when
 * 0, 1 for a schedule that runs one (plan.c). */
int gp_plan_opts_chunks(const struct gp_plan_opts *o);

/* The reference engines (plan_megatron.c, plan_dp_across.c,
 * plan_atlas.c) and the search (search.c). */
int gp_plan_megatron(const struct gp_scenario *s, const struct gp_plan_opts *o,
		     struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e);
int gp_plan_dp_across_dcs(const struct gp_scenario *s, const struct gp_plan_opts *o,
			  struct gp_plan *out, struct gp_plan_report *rep,
			  struct gp_err *e);
int gp_plan_atlas(const struct gp_scenario *s, const struct gp_plan_opts *o,
		  struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e);
/* The plan of o->heuristic, a Lua script (plan_script.c). */
int gp_plan_heuristic(const struct gp_scenario *s, const struct gp_plan_opts *o,
		      struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e);
int gp_plan_search(const struct gp_scenario *s, const struct gp_plan_opts *o,
		   struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e);
/* The same search with the nwarm plans warm[] in its first population as
 * well (the MILP's polish); a warm plan itself is returned only if the
 * search finds nothing better: compare them yourself. */
int gp_plan_search_from(const struct gp_scenario *s, const struct gp_plan_opts *o,
			const struct gp_plan *warm, int nwarm, struct gp_plan *out,
			struct gp_plan_report *rep, struct gp_err *e);

/* The placement MILP (place_milp.c). */
int gp_plan_milp(const struct gp_scenario *s, const struct gp_plan_opts *o,
		 struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e);

#endif
