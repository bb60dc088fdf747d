/*
 * baseline.h: internal to the planners built on the simulator, the
 * reference engines (plan_megatron.c, plan_dp_across.c, plan_atlas.c)
 * and the search (search.c); nobody else includes it. What they share
 * (baseline.c): a context that judges candidate plans with the simulator
 * and remembers the closest miss, a plan builder, and stage helpers (TP,
 * slots, layers by compute within memory, apportioning); and
 * (estimate.c) the closed-form estimate that orders candidates.
 */
#ifndef GP_BASELINE_H
#define GP_BASELINE_H

#include <math.h>
#include <stdbool.h>
#include "cost.h"
#include "costtab.h"
#include "plan.h"
#include "planner.h"
#include "sim.h"

/* sim.c and place_milp.c define the same; neither includes this header. */
#define INF HUGE_VAL

/* The work limit that repeats, beside the wall clock: an engine counts
 * what it simulates (c->work: per simulation the sum over pipelines of
 * stages x (micro-batches + 1), the simulator's tasks and devices) and
 * stops at BL_WORK_RATE units per second of the limit (o->work_s, else
 * o->time_limit): under half of what this 2-core machine simulates in a
 * second (the search on the samples: 0.35-2.5e6 units/s, median 1.2e6),
 * so the work limit binds first unless the machine is about twice as
 * slow or loaded. The
 * time limit stays as a safety net; when it stops a run first,
 * c->clock_stopped, and the note says so. */
#define BL_WORK_RATE 5e5

/* One engine run: the scenario, how candidates are judged, the closest miss. */
struct bl_ctx {
	const struct gp_scenario *sc;
	const struct gp_plan_opts *o;  /* the request (progress, cancel) */
	const struct gp_costtab *ct;   /* the request's cost tables */
	const atomic_int *cancel;
	double budget;         /* USD per hour of GPUs; 0: none */
	const char *engine;
	enum gp_sched sched;   /* the schedule the returned plan runs */
	int chunks;            /* and its chunks, where a plan can hold them */
	bool found;            /* a plan that fits was judged: later ones may
				* stop at the deadline */
	enum gp_sched eval;    /* the one candidates are simulated with */
	double sim_tl;         /* xdc-milp time limit of the final simulation */
	int M;                 /* micro-batches per iteration */
	int nsim, nest;
	double miss;           /* smallest memory overshoot seen (peak / capacity) */
	char why[512];         /* what the simulator said about it */
	double t0;
	double deadline;       /* t0 + the request's time limit (INF: none) */
	double work, work_limit;   /* counted (BL_WORK_RATE) and allowed (INF: none) */
	bool clock_stopped;    /* the deadline, not the work limit, stopped a loop */
};

/* A plan under construction; oom once an allocation failed. */
struct bl_builder {
	struct gp_plan p;
	int cap;
	bool oom;
};

/* baseline.c: starting, judging and finishing a run. bl_run runs an
 * engine's body with the request's cost tables, or tables it makes from
 * the default model (bl_opts: *oo is o, or the defaults, with tables;
 * free *own after). */
typedef int bl_engine_fn(const struct gp_scenario *s, const struct gp_plan_opts *o,
			 struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e);
int bl_opts(const struct gp_scenario *s, const struct gp_plan_opts *o,
	    struct gp_plan_opts *oo, struct gp_costtab **own, struct gp_err *e);
int bl_run(const struct gp_scenario *s, const struct gp_plan_opts *o, const char *engine,
	   bl_engine_fn *fn, struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e);
double bl_now_s(void);
int bl_begin(struct bl_ctx *c, const struct gp_scenario *s, const struct gp_plan_opts *o,
	     const char *engine, struct gp_plan *out, struct gp_plan_report **rep,
	     struct gp_plan_report *rloc, struct gp_err *e);
double bl_judge(struct bl_ctx *c, struct gp_plan *p, bool final);
/* Builds an engine's candidate i (ud: its candidates); -1 when it cannot. */
typedef int bl_build_fn(const struct bl_ctx *c, const void *ud, int i, struct gp_plan *out);
int bl_pick(struct bl_ctx *c, int n, int sims, bl_build_fn *build, const void *ud,
	    struct gp_plan *best);
/* qsort's order of candidates by estimate, their first member (a double). */
int bl_cmp_est(const void *a, const void *b);
int bl_finish(struct bl_ctx *c, struct gp_plan *best, struct gp_plan *out,
	      struct gp_plan_report *rep, struct gp_err *e);
int bl_fail(struct bl_ctx *c, struct gp_plan_report *rep, struct gp_err *e,
	    const char *msg);

/* The budget: a plan's GPUs in USD per hour, whether it is over, and
 * how many replicas of `gpus` GPUs at that price `share` of it buys
 * (INT_MAX without a budget or a price). */
double bl_usd_per_hour(const struct bl_ctx *c, const struct gp_plan *p);
bool bl_over_budget(const struct bl_ctx *c, const struct gp_plan *p);
int bl_afford(const struct bl_ctx *c, double gpu_usd_per_hour, int gpus, double share);
bool bl_cancelled(const struct bl_ctx *c);
/* Cancelled, past the work limit or the deadline (then clock_stopped):
 * an engine then stops looking (once it has a candidate) and judges
 * what it has. bl_sim_work: what simulating p counts. bl_note_clock:
 * the note and report say when the wall clock stopped the run. */
bool bl_out_of_time(struct bl_ctx *c);
double bl_sim_work(const struct gp_plan *p);
void bl_note_clock(const struct bl_ctx *c, struct gp_plan_report *rep);

/* Building plans. */
void bl_builder_init(struct bl_builder *b, enum gp_sched k);
void bl_builder_pipe(struct bl_builder *b, const struct gp_stage *st, int S, int R, int mb);
void bl_builder_group(struct bl_builder *b, const struct gp_stage *st, int S, int R, int n);
int bl_builder_take(struct bl_builder *b, struct gp_plan *out);
void bl_plan_move(struct gp_plan *dst, struct gp_plan *src);

/* Pools, stages and layers. */
const struct gp_pool *bl_pool_of(const struct gp_scenario *s, int dc, int pool);
bool bl_tp_ok(const struct gp_scenario *s, const struct gp_pool *p, int t);
int bl_tp_fit(const struct gp_scenario *s, const struct gp_pool *p, int t);
int bl_pool_slots(const struct gp_pool *p, int t);
/* Layers per second a stage of TP tp on the pool runs (F + B + W of a
 * block, no recomputation), and a DC's, every GPU at TP 1. */
double bl_stage_rate(const struct bl_ctx *c, int dc, int pool, int tp);
double bl_dc_compute(const struct bl_ctx *c, int d);
struct gp_stage bl_mkstage(const struct gp_scenario *s, int dc, int pool, int tp,
			   int first, int last);
int bl_inflight(enum gp_sched k, int m, int S, int i);
int bl_fill_layers(const struct bl_ctx *c, struct gp_stage *st, int S, int m, int D);
int bl_ceil_div(int a, int b);
void bl_apportion(int n, int k, const double *w, int *out);

/* estimate.c: a plan's iteration time, INF when a stage looks too big for
 * its GPU or a transfer has no link; a stage's, per micro-batch. */
struct bl_stage_est {
	double u, b, mem, params;   /* F + B + W and B + W seconds, bytes, parameters */
	enum gp_recompute rc;
};

double bl_est_plan(struct bl_ctx *c, const struct gp_plan *p);
/* n: the GPUs the plan runs on in the stage's pool (the straggler's N,
 * gp_costtab_pace); 0 while the plan is not known yet (the pool's count). */
void bl_est_stage(const struct bl_ctx *c, const struct gp_stage *st, bool first,
		  bool last, int inflight, int D, int n, struct bl_stage_est *o);

#endif
