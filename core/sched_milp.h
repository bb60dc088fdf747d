/*
 * sched_milp.h: the exact cross-DC schedule, a makespan-minimising MILP.
 *
 * Given one pipeline's costs (struct gp_sched_input: per virtual stage
 * durations, transfer occupancy and latency, shared links, activation
 * memory), find the per-device order of every F, B (and W) task that
 * finishes the iteration earliest while every device stays within its
 * activation memory: cross-DC schedule optimisation in the sense of
 * CrossPipe (USENIX ATC '25). The result is a plain struct gp_schedule, so the simulator judges
 * it like any other schedule.
 *
 * Micro-batches keep their order within each virtual stage and task kind
 * (F of micro-batch j before F of j + 1, likewise B, W and the transfers
 * on a link), as in every published schedule; the MILP chooses how the
 * kinds and chunks interleave. Arrays of the input that are NULL count as
 * zero (times), -1 (links) or "no limit" (act, wact, mem_free).
 */
#ifndef GP_SCHED_MILP_H
#define GP_SCHED_MILP_H

#include "gp.h"
#include "schedule.h"
#include "solver.h"

/*
 * The model's budget: it is counted before it is built, and one with
 * more rows or nonzeros, or whose task graph (a bit per pair of tasks,
 * an int per pair on a resource) would take more bytes, is refused (-1,
 * e says how many micro-batches would fit, or to use another schedule).
 * GLPK takes about 1 KB a row: the budget is about 1 GB.
 */
#define GP_SCHED_MILP_MAX_ROWS 1000000
#define GP_SCHED_MILP_MAX_NZ 6000000
#define GP_SCHED_MILP_MAX_GRAPH_BYTES 1e9

/* What the model of an input would be, counted without building it:
 * what gp_sched_milp hands GLPK (warm start given, or NULL). Over the
 * graph's budget only graph_bytes is counted (the rest HUGE_VAL). -1
 * when the input is bad or memory runs out. */
struct gp_sched_milp_size {
	double rows, cols, nz, binaries, graph_bytes;
};
int gp_sched_milp_size(const struct gp_sched_input *in, const struct gp_schedule *warm,
		       struct gp_sched_milp_size *z, struct gp_err *e);

/*
 * Solves within time_limit seconds (<= 0: none), building the model
 * included, to relative gap `gap`.
 * warm (or NULL) is a schedule of the same shape; if it is feasible, its
 * list execution is the first incumbent and its makespan bounds the
 * model's horizon. Returns 0 with *out filled (free with
 * gp_schedule_free) when a schedule was found (rep->status OPTIMAL or
 * FEASIBLE); otherwise -1, e says why and rep->status tells infeasible,
 * no solution in time, or error. rep->objective and rep->bound are in
 * the input's time unit; rep->x holds the solver's columns (free with
 * gp_milp_report_free in both cases).
 */
int gp_sched_milp(const struct gp_sched_input *in, const struct gp_schedule *warm,
		  double time_limit, double gap, struct gp_schedule *out,
		  struct gp_milp_report *rep, struct gp_err *e);

/*
 * The same model, written as a CPLEX LP file instead of solved (for a
 * cross-check with another solver). Its objective is in units of the
 * largest task duration, which *time_unit receives.
 */
int gp_sched_milp_write_lp(const struct gp_sched_input *in, const char *path,
			   double *time_unit, struct gp_err *e);

#endif
