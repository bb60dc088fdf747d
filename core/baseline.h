/*
 * baseline.h: what the reference engines (baseline.c) and the search
 * (search.c) share, and nobody else: a context that judges candidate
 * plans with the simulator and remembers the closest miss, a plan
 * builder, and stage helpers. Internal to the planners.
 */
#ifndef GP_BASELINE_H
#define GP_BASELINE_H

#include <math.h>
#include <stdbool.h>
#include "cost.h"
#include "planner.h"
#include "sim.h"

#define INF HUGE_VAL

struct bl_ctx {
	const struct gp_scenario *sc;
	const struct gp_cost_model *cm;
	const char *engine;
	enum gp_sched sched;   /* the schedule the returned plan runs */
	enum gp_sched eval;    /* the one candidates are simulated with */
	double sim_tl;         /* xdc-milp time limit of the final simulation */
	int M;                 /* micro-batches per iteration */
	int nsim, nest;
	double miss;           /* smallest memory overshoot seen (peak / capacity) */
	char why[512];         /* what the simulator said about it */
	double t0;
};

struct bl_builder {
	struct gp_plan p;
	int cap;
	bool oom;
};

struct bl_stage_est {
	double u, b, mem, params;
	enum gp_recompute rc;
};

bool bl_tp_ok(const struct gp_scenario *s, const struct gp_pool *p, int t);
int bl_tp_fit(const struct gp_scenario *s, const struct gp_pool *p, int t);
void bl_est_stage(const struct bl_ctx *c, const struct gp_stage *st, bool first,
		  bool last, int inflight, int D, struct bl_stage_est *o);
void bl_rep_start(struct gp_plan_report *rep, const char *engine);
const struct gp_pool *bl_pool_of(const struct gp_scenario *s, int dc, int pool);
void bl_plan_move(struct gp_plan *dst, struct gp_plan *src);
void bl_builder_init(struct bl_builder *b, enum gp_sched k);
void bl_builder_group(struct bl_builder *b, const struct gp_stage *st, int S, int R, int n);
double bl_now_s(void);
struct gp_stage bl_mkstage(const struct gp_scenario *s, int dc, int pool, int tp,
			       int first, int last);
double bl_judge(struct bl_ctx *c, struct gp_plan *p, bool final);
int bl_fill_layers(const struct bl_ctx *c, struct gp_stage *st, int S, int m, int D);
int bl_fail(struct bl_ctx *c, struct gp_plan_report *rep, struct gp_err *e,
		const char *msg);
int bl_ctx_init(struct bl_ctx *c, const struct gp_scenario *s,
		    const struct gp_plan_opts *o, const char *engine,
		    struct gp_err *e);
int bl_ceil_div(int a, int b);
void bl_apportion(int n, int k, const double *w, int *out);
int bl_begin(struct bl_ctx *c, const struct gp_scenario *s, const struct gp_plan_opts *o,
	     const char *engine, struct gp_plan *out, struct gp_plan_report **rep,
	     struct gp_plan_report *rloc, struct gp_err *e);
int bl_builder_take(struct bl_builder *b, struct gp_plan *out);

#endif
