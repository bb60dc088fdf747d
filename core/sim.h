/*
 * sim.h: the discrete-event simulator that executes a plan's schedule and
 * measures one training iteration.
 *
 * Devices (one per stage of each pipeline; identical replicas are
 * simulated once and counted with their multiplicity) run their task
 * orders as dependencies allow. A transfer between stages in different
 * DCs crosses a WAN link direction, which all overlapping transfers share
 * fairly (processor sharing, weighted by the flows each stands for);
 * inside a DC it takes latency + bytes / bandwidth. Each stage's gradient
 * sync runs bucket by bucket as backward passes finish, then the
 * optimizer step. Every plan, whoever made it, is judged here.
 */
#ifndef GP_SIM_H
#define GP_SIM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "cost.h"
#include "scenario.h"
#include "schedule.h"

enum gp_span_kind {
	GP_SPAN_F, GP_SPAN_B, GP_SPAN_W,   /* compute on a device row */
	GP_SPAN_ACT, GP_SPAN_GRAD,         /* pipeline transfer on a link row */
	GP_SPAN_SYNC,                      /* DP sync (device row or link row) */
	GP_SPAN_OPT,                       /* optimizer step on a device row */
	GP_SPAN__N
};

/* A task or transfer of the timeline. dep and ready say what it waited
 * for, so a Gantt chart can find the critical path:
 * - a compute task (F, B, W): dep is the span whose output is its input,
 *   the one that arrived last (a B also needs its own F's activations,
 *   stored on the device long before, so the gradient is what arrives):
 *   the compute span of the previous virtual stage when the output came
 *   straight from it (same device, or a path inside a DC), or the WAN
 *   transfer span (on a link row) that carried it; a W's is its B. ready
 *   is when that input reached this device (the sender's end plus the
 *   path's time, or the transfer's end plus the link's latency); the task
 *   started at max(ready, the end of its device's previous task).
 *   The first virtual stage's F has no input: dep -1, ready 0;
 * - a pipeline transfer (ACT, GRAD): dep is the compute span that sent
 *   it, ready its send time (= t0);
 * - DP sync: a phase inside the DC (reduce-scatter, all-gather, or the
 *   whole all-reduce within one DC) is a span on the device's row, a
 *   transfer of the ring between DCs one on the link's row; dep is what
 *   the device's sync channel waited for last: the gradient task that
 *   made its bucket ready (ready: when, inside that task), or its
 *   previous phase (ready: its end; for a ring, the last transfer to
 *   arrive, its latency included). Phases of no time are not recorded;
 * - the optimizer step: dep is the device's last sync phase, or its last
 *   compute task when that ended later; ready when it did.
 * dep is an index into gp_result.spans, -1 when none or unknown. */
struct gp_span {
	double t0, t1;
	int32_t row;       /* device index, or ndevices + link index */
	int32_t mb;
	uint8_t kind;
	uint8_t chunk;
	int32_t dep;       /* the span this one's input came from, or -1 */
	double ready;      /* when that input arrived, s */
};

struct gp_dev_result {
	int pipeline, stage;     /* 0-based */
	int replicas, tp, dc, pool;
	enum gp_recompute recompute;
	double mem_peak, mem_capacity;
	double busy;             /* compute seconds */
	double sync_exposed;     /* DP sync past the last backward */
	double t_f, t_b, t_w;    /* per micro-batch, whole device */
	double end;              /* when its optimizer step ends */
};

struct gp_link_result {
	int from, to;
	double bytes, busy;
	double sync_bytes;       /* of which gradient sync (amortised) */
};

/* How an optimising schedule generator did (xdc-milp), over all
 * pipelines: the worst status, the longest makespan and its bound. */
struct gp_solver_info {
	bool present;
	const char *engine;      /* "xdc-milp" */
	const char *status;      /* optimal, feasible, nosol (fell back to xdc-greedy) */
	bool proven;             /* every pipeline optimal */
	double objective;        /* the solver's makespan estimate, s */
	double bound;            /* proven lower bound, s */
	double gap;
	double seconds;          /* solve time */
	int rows, cols, binaries;
	bool has_own;            /* placement with polish: */
	double own_sim;          /* the MILP's own plan simulated */
	bool polished;           /* the search's polish replaced that plan */
	const char *space;       /* the space the proof covers, or NULL */
	/* Placement for cost or WAN bytes: the objective, its bound (gap is
	 * theirs) in unit "usd" or "bytes"; NULL unit: time, as above. */
	const char *unit;
	double value, value_bound;
};

/* The DCs of a result's sync ring shown at most (sync_ring_n counts
 * them all). */
#define GP_RING_SHOWN 64

struct gp_result {
	enum gp_sched schedule;
	struct gp_solver_info solver;
	int chunks;
	double iteration_time;
	double compute_end;      /* last compute task of the iteration */
	double tokens_per_s, mfu, bubble;
	double usd_per_iteration, usd_gpu, usd_egress;
	double wan_bytes;        /* per step (gradient sync amortised over sync.every) */
	double wan_bytes_sync;   /* of which gradient sync */
	int gpus;
	/* The cross-DC gradient ring of the most DCs (ring.h's order;
	 * others over fewer DCs are ordered alike): DC indices, the first
	 * min(n, GP_RING_SHOWN); n = 0: no DP sync crosses a DC. */
	int sync_ring_n;
	int sync_ring[GP_RING_SHOWN];
	struct gp_dev_result *devs;
	int ndevs;
	struct gp_link_result *links;
	int nlinks;
	struct gp_span *spans;
	int64_t nspans;
	bool fits;
	char fit_msg[512];
	char cost_model[512];    /* the cost-model script it ran under, or "": the default */
};

struct gp_costtab;

struct gp_sim_opts {
	const struct gp_costtab *costs;    /* the scenario's cost tables, or NULL: */
	const struct gp_cost_model *cost;  /* tables made from this model (NULL: the default) */
	bool record;                       /* keep the timeline */
	double time_limit;                 /* xdc-milp, seconds per pipeline; 0: 10 */
	double gap;                        /* xdc-milp relative gap; 0: prove */
	const atomic_int *cancel;          /* non-zero: stop soon (an error "cancelled") */
	double deadline;                   /* CLOCK_MONOTONIC seconds at which to stop
					    * (an error "stopped at its deadline",
					    * checked every 4,096 events); 0: none */
};

int gp_simulate(const struct gp_scenario *sc, const struct gp_plan *plan,
		const struct gp_sim_opts *opt, struct gp_result *r,
		struct gp_err *e);
void gp_result_free(struct gp_result *r);

#endif
