/*
 * schedule.h: pipeline schedules as per-device task orders.
 *
 * A schedule says, for each stage (device) of one pipeline, in which order
 * it runs the forward (F), backward (B) and weight-gradient (W) tasks of
 * every micro-batch and chunk. It says nothing about time: the simulator
 * (sim.h) executes the orders as dependencies allow. Chunk c of stage s is
 * virtual stage c*S + s (Megatron's interleaving), so a micro-batch runs
 * through stages 0..S-1 in chunk 0, then again in chunk 1, and so on.
 */
#ifndef GP_SCHEDULE_H
#define GP_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>
#include "gp.h"
#include "scenario.h"

enum gp_task_kind {
	GP_TASK_F,  /* forward */
	GP_TASK_B,  /* backward: input gradient, plus weight gradient unless split */
	GP_TASK_W,  /* weight gradient (only when the schedule splits B and W) */
};

/* The most tasks one pipeline's schedule may hold. */
#define GP_MAX_TASKS 100000000LL

struct gp_task {
	int32_t mb;
	uint8_t kind;
	uint8_t chunk;
};

struct gp_schedule {
	int stages, chunks, micro_batches;
	bool split_bw;           /* B and W are separate tasks */
	bool vshape;             /* odd chunks run back from the last device */
	struct gp_task *tasks;   /* device s: tasks[off[s] .. off[s+1]) */
	int64_t *off;
};

/* group: interleaved's micro-batch group (gp_plan.microbatch_group; 0:
 * the stages); the other schedules ignore it. */
int gp_schedule_build(enum gp_sched kind, int stages, int chunks,
		      int micro_batches, int group, struct gp_schedule *out,
		      struct gp_err *e);
/* Whether interleaved can run m micro-batches over S stages in groups of
 * `group` (0: S): Megatron-Core's rule, S <= group <= m and a last group
 * of 0 or at least S micro-batches (fewer would leave the pipeline
 * waiting on its own dependencies). 0, or -1 and why. */
int gp_group_check(int S, int m, int group, struct gp_err *e);
/* The smallest micro-batch group every pipeline of p can run
 * (gp_group_check), 0 when there is none. */
int gp_plan_group_least(const struct gp_plan *p);
void gp_schedule_free(struct gp_schedule *sc);

/*
 * What a time-aware schedule generator (xdc-greedy, xdc-milp) knows of one
 * pipeline, built by the simulator from the cost tables. Virtual stage vs
 * (chunk vs / S of device vs % S) has, per micro-batch:
 */
struct gp_sched_input {
	int S, v, m;
	bool split_bw;             /* B and W are separate tasks */
	bool vshape;               /* virtual stages placed in a V (see below) */
	const double *f, *b, *w;   /* [VS] durations (w = 0 unless split) */
	/* Sending vs's activation to vs + 1 (up) or its gradient to vs - 1
	 * (down): `occ` seconds on link direction `link` (-1: no shared link,
	 * a dedicated path), then `lat` seconds of propagation. Same device:
	 * all zero and link -1. */
	const double *up_occ, *up_lat, *down_occ, *down_lat;  /* [VS] */
	const int *up_link, *down_link;                        /* [VS] */
	int nlinks;
	const double *act, *wact;  /* [VS] bytes held from F to B, B to W */
	const double *mem_free;    /* [S] bytes per device for activations */
};

/* A latency-aware list scheduler (core/sched_greedy.c). */
int gp_schedule_greedy(const struct gp_sched_input *in, struct gp_schedule *out,
		       struct gp_err *e);

/* Where virtual stages live. Interleaved: virtual stage c*S + p on device
 * p. V-shaped (zero-bubble V, Qi et al. 2024): odd chunks run from the
 * last device back to the first, so a micro-batch's last virtual stage is
 * on device 0 and chunk boundaries stay on one device. */
static inline int gp_vs_device(int S, bool vshape, int vs)
{
	int c = vs / S, p = vs % S;
	return vshape && (c & 1) ? S - 1 - p : p;
}

static inline int gp_vs_of(int S, bool vshape, int dev, int chunk)
{
	return chunk * S + (vshape && (chunk & 1) ? S - 1 - dev : dev);
}

/* Total tasks of device s. */
static inline int64_t gp_schedule_len(const struct gp_schedule *sc, int s)
{
	return sc->off[s + 1] - sc->off[s];
}

#endif
