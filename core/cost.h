/*
 * cost.h: the cost model: how long compute, communication and the
 * optimizer take, and how much memory a stage needs.
 *
 * The default model (cost.c) implements the formulas of DOMAIN.md, each
 * with its source. It sits behind struct gp_cost_ops so that a Lua cost
 * model can later replace any operation: the simulator and the planners
 * only ever call through the ops, while cost tables are built, never in
 * their inner loops.
 */
#ifndef GP_COST_H
#define GP_COST_H

#include "scenario.h"

/* What one transformer layer (or the logits layer) costs on one TP group
 * for one micro-batch. */
struct gp_layer_q {
	const struct gp_scenario *sc;
	const struct gp_gpu *gpu;
	const struct gp_pool *pool;
	int tp;
	enum gp_recompute recompute;  /* none, selective or full */
	int logits;                   /* 1: the logits layer, not a block */
};

struct gp_layer_time {
	double f;   /* forward */
	double b;   /* input-gradient backward, with recomputation */
	double w;   /* weight-gradient backward */
};

struct gp_cost_ops {
	/* Seconds per micro-batch, TP all-reduces included. */
	void (*layer_time)(void *ud, const struct gp_layer_q *q,
			   struct gp_layer_time *out);
	/* Hockney point-to-point: seconds to move n bytes. */
	double (*p2p_time)(void *ud, double bytes, double bandwidth,
			   double latency);
	/* Ring all-reduce of n bytes over p ranks. */
	double (*allreduce_time)(void *ud, double bytes, int ranks,
				 double bandwidth, double latency);
	/* Optimizer step over the given parameters on one GPU. */
	double (*optimizer_time)(void *ud, const struct gp_gpu *gpu,
				 double params);
};

struct gp_cost_model {
	const struct gp_cost_ops *ops;
	void *ud;
};

extern const struct gp_cost_model gp_default_cost;

/* Closed forms of DOMAIN.md, shared by every cost model. */
double gp_layer_flops_fwd(const struct gp_model *m, double b, double s);
double gp_logits_flops_fwd(const struct gp_model *m, double b, double s);
double gp_layer_params(const struct gp_model *m);
double gp_embedding_params(const struct gp_model *m);
/* Stored activation bytes of one layer for one micro-batch per GPU. */
double gp_layer_act_bytes(const struct gp_model *m, double b, double s,
			  int tp, enum gp_recompute rc);
/* Of those, what W still needs after B (the inputs of the GEMMs). */
double gp_layer_wact_bytes(const struct gp_model *m, double b, double s,
			   int tp);
/* Weights, gradients and optimizer state per parameter (mixed-precision
 * Adam), with ZeRO-1 over d replicas when zero is set. */
double gp_state_bytes_per_param(int zero, int d);
/* Bytes of one activation (or its gradient) crossing a stage boundary. */
double gp_boundary_bytes(const struct gp_scenario *sc);

double gp_ring_allreduce(double bytes, int p, double bw, double lat);
/* Achieved fractions of nominal bandwidth for collectives (cost.c). */
double gp_eta_nvlink(void);
double gp_eta_net(void);

/* One stage's DP gradient sync, unoverlapped, as the placement costs it
 * (the simulator runs the same phases bucket by bucket and shares links):
 * a ring over the D replicas, or hierarchical over k DCs (reduce-scatter
 * among the `local` replicas in the DC, the k-way exchange of all shards
 * across the WAN, all-gather); the WAN part is paid once every `every`
 * steps (local SGD / DiLoCo), so its bytes and latency are divided by it. */
struct gp_sync_q {
	double bytes;            /* the stage's gradients, all TP ranks */
	int tp, replicas, dcs, local;
	double local_bw, local_lat, wan_bw, wan_lat;
	enum gp_sync_mode mode;
	int every;
};
double gp_dp_sync_time(const struct gp_cost_model *cm, const struct gp_sync_q *q);
/* Bytes on each WAN ring edge per step, amortised. */
double gp_dp_sync_wan_bytes(const struct gp_sync_q *q);

#endif
