/*
 * sim_int.h: internal to the simulator (sim.c, sim_setup.c,
 * sim_sched.c); nobody else includes it.
 *
 * sim.c runs the event loop over this state; sim_setup.c builds it from
 * the scenario and plan (the stage costs and memory, the DP groups) and
 * turns it into metrics; sim_sched.c generates the time-aware schedules
 * (xdc-greedy, xdc-milp) from the stage costs.
 */
#ifndef GP_SIM_INT_H
#define GP_SIM_INT_H

#include <math.h>
#include "costtab.h"
#include "sim.h"

/* The arrival time of an input that has not arrived. */
#define SIM_INF HUGE_VAL

struct ev;      /* an event (sim.c) */
struct bucket;  /* a DP sync bucket (sim.c) */
struct xfer;    /* a transfer on a link direction (sim.c) */

/* Events by (time, sequence number): a binary heap (sim.c). */
struct heap {
	struct ev *v;
	size_t n, cap;
	uint64_t seq;
};

/* Cost of one virtual stage (a chunk of a device) per micro-batch. */
struct vcost {
	double f, b, w;      /* w = 0 and b = B + W unless the schedule splits */
	double act, wact;    /* activation bytes held from F to B, and to W */
	int layers, first;   /* how many, and the first (a layer number) */
};

/* Consecutive layers of a device that the same replicas hold in the same
 * DCs: their gradients share one DP group (a ring across k DCs). */
struct sync_run {
	int first, last;
	int k, local;        /* DCs, replicas of them in this device's DC */
	int *ring;           /* the k DCs in ring order (sim_rings; ring.h) */
	double hop_bytes;    /* k > 1: what its buckets put on each hop, in all */
	int nb, set;         /* its buckets; its set of DCs (sim_rings) */
	double local_bw, local_lat;
};

/* A pipeline (its R replicas run in lockstep): its shape, schedule,
 * chunk costs and when each input arrived. */
struct group {
	int S, v, m, VS, R;
	bool split, vshape;  /* B and W split; V-shaped chunk placement */
	int defer_n;         /* micro-batches whose logits W waits for the flush */
	double defer_w;      /* the logits layer's W per micro-batch */
	int dev0;
	struct gp_schedule sc;
	struct vcost *vc;
	double *fin, *bin;   /* arrival time of F / B inputs, [vs * m + mb] */
	int32_t *fdep, *bdep;  /* recording: the spans they came from (gp_span.dep);
				* bdep[i] becomes B's own span when it starts, for its W */
	int *grad_started;   /* per vs: gradient tasks started */
	double *f1_end;      /* per vs: when its first micro-batch's F ended */
};

/* A device: stage s of pipeline g, its task order, DP sync and memory. */
struct dev {
	int g, s;
	int64_t next, end;
	bool busy, kick_pending, sync_busy, done;
	double busy_time, last_end;
	int32_t span;        /* recording: the running task's span */
	int32_t sync_dep;    /* recording: what the sync channel last waited for */
	double sync_ready;   /* and when that was done */
	/* DP sync */
	struct bucket *bk;
	int nbk, capbk, bk_next, phase, pending;
	int D;               /* replicas in all: every one holds every layer */
	struct sync_run *runs;  /* the device's layers, first to last */
	int nruns;
	double cont;         /* compute lost per second of sync under it */
	double grad_bytes;   /* whole stage, all TP ranks */
	double t_opt, t_end;   /* optimizer time, and when it ends */
	double t_gather;       /* ZeRO's parameter all-gather, under the next forward */
	double drain;          /* deferred logits W after its last task */
	bool draining;
	double stat;           /* bytes of weights, gradients, optimizer state */
	int chunks_total;    /* chunks whose gradients are complete */
};

/* A WAN link direction, a processor-sharing server (sim.c). */
struct lnk {
	double V, last, W, bw, lat;
	uint64_t gen;
	int32_t *h;          /* heap of transfer ids by vfin */
	int n, cap;
	double bytes, sync_bytes, busy;
};

/* A layer's gradient collective: the devices holding the layer (need)
 * and how many have produced it, the latest when and by which task. */
struct sim_slot {
	int need, have;
	double ready;
	int32_t src;
};

/* One run of gp_simulate. */
struct sim {
	const struct gp_scenario *sc;
	const struct gp_plan *plan;
	enum gp_sync_mode mode;     /* gp_plan_sync: flat or hierarchical */
	const struct gp_costtab *ct;  /* the options', or own_ct */
	struct gp_costtab *own_ct;
	const struct gp_sim_opts *opt;
	bool record;
	struct group *g;
	int ng;
	struct dev *d;
	int nd;
	int *lcnt;           /* set-up only: replicas per DC holding layer l, [l * ndcs + dc] */
	struct lnk *l;
	int nl;
	struct xfer *x;
	int nx, capx, *xfree, nxfree;
	int32_t *fq;         /* per pipeline flow (sim.c): its waiting transfers */
	int64_t *fqbase;     /* per group: its first flow */
	struct heap q;
	struct sim_slot *slot;      /* per layer 1..L (sim_setup) */
	int *part, *part_off;       /* devices holding layer l: part[part_off[l] ..
				     * part_off[l + 1]) */
	struct gp_span *spans;
	int64_t nspans, capspans;
	double now;
	int oom, overflow;
	bool cancelled;
	bool timed_out;                /* opt->deadline passed */
	struct gp_err *e;
};

/* The pool and DC of stage st of pipeline g; the link from DC a to b
 * (-1: none). */
static inline const struct gp_pool *sim_stage_pool(const struct sim *s, int g, int st)
{
	const struct gp_stage *x = &s->plan->pipes[g].stages[st];
	return &s->sc->dcs[x->dc].pools[x->pool];
}

static inline int sim_stage_dc(const struct sim *s, int g, int st)
{
	return s->plan->pipes[g].stages[st].dc;
}

static inline int sim_link_index(const struct gp_scenario *sc, int a, int b)
{
	const struct gp_link *l = gp_find_link(sc, a, b);
	return l ? (int)(l - sc->links) : -1;
}

/* --- sim.c ----------------------------------------------------------- */

/* Time of a stage boundary inside a DC (stages a and b of pipeline g). */
double sim_intra_p2p(struct sim *s, int g, int a, int b, double bytes);

/* --- sim_setup.c ----------------------------------------------------- */

/* Builds groups, devices and links with their costs, memory and DP
 * groups, and the devices' entries of r. */
int sim_setup(struct sim *s, struct gp_result *r);
void sim_metrics(struct sim *s, struct gp_result *r);
void sim_free(struct sim *s);

/* Peak activation bytes of device s of a group walking its task order. */
double sim_walk_peak(const struct group *gr, int s, const struct vcost *vc);

/* Records in r the first device whose peak memory exceeds its GPU's. */
void sim_check_fit(struct sim *s, struct gp_result *r, int di);

/* --- sim_ring.c ------------------------------------------------------ */

/* Orders the rings of the runs that span DCs, one per set of DCs, and
 * shows the widest in r (an error when no ring joins a set). */
int sim_rings(struct sim *s, struct gp_result *r);

/* --- sim_sched.c ----------------------------------------------------- */

/* Generates pipeline g's time-aware schedule from its costs, then
 * measures its memory. */
int sim_gen_timed(struct sim *s, int g, struct gp_result *r);

#endif
