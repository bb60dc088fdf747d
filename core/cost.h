/*
 * cost.h: the cost model: how long compute, communication and the
 * optimizer take, and how much memory a stage needs.
 *
 * The default model (cost_default.c, on the closed forms of cost.c)
 * implements the formulas of
 * geoplan-scenario(5), each with its source. It sits behind struct
 * gp_cost_ops so that another model (a Lua script) can replace any
 * operation. Only the cost tables (costtab.c) call the operations; the
 * simulator and the planners read the tables.
 */
#ifndef GP_COST_H
#define GP_COST_H

#include "scenario.h"

/* What one transformer layer (or the logits layer) costs on one TP group
 * for one micro-batch. */
struct gp_layer_q {
	const struct gp_scenario *sc;
	int dc;                       /* index of the pool's DC */
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

/* Bytes per GPU one layer keeps for one micro-batch: from its forward
 * until its backward (act), and of those what the weight gradient still
 * needs after B (wact <= act). */
struct gp_layer_mem {
	double act, wact;
};

/* Bytes per parameter of model state: what every replica keeps (16-bit
 * weights and gradients) and what ZeRO-1 shards over the replicas
 * (optimizer state and fp32 master weights). */
struct gp_state_mem {
	double replicated, sharded;
};

/* A communication channel as the cost model sees it: a GPU's NVLink
 * inside a node, a NIC between nodes of a pool, or one direction of a
 * WAN link, with its nominal figures. */
enum gp_channel { GP_CH_NVLINK, GP_CH_NIC, GP_CH_WAN };

struct gp_channel_q {
	const struct gp_scenario *sc;
	enum gp_channel kind;
	int dc;                       /* NVLINK and NIC: the pool's DC */
	const struct gp_pool *pool;   /* NVLINK and NIC */
	const struct gp_link *link;   /* WAN */
	double bandwidth;             /* nominal, bytes/s */
	double latency;               /* nominal, s */
};

/* What a channel achieves (Hockney): n bytes take lat + n / bw. */
struct gp_comm {
	double lat, bw;
};

/*
 * The operations a cost model provides. They are called only while cost
 * tables are built (costtab.h), never while a plan is searched or
 * simulated. Communication operations return a channel's achieved
 * latency and bandwidth, which the core evaluates at any message size
 * (Hockney for point-to-point, a ring for all-reduce).
 */
struct gp_cost_ops {
	/* Seconds per micro-batch, TP all-reduces included. */
	void (*layer_time)(void *ud, const struct gp_layer_q *q,
			   struct gp_layer_time *out);
	void (*layer_memory)(void *ud, const struct gp_layer_q *q,
			     struct gp_layer_mem *out);
	void (*state_memory)(void *ud, const struct gp_scenario *sc,
			     struct gp_state_mem *out);
	/* Seconds of one optimizer step over `params` parameters on one GPU;
	 * the tables take it as linear in params (memory bound). */
	double (*optimizer_time)(void *ud, const struct gp_gpu *gpu,
				 double params);
	/* A stage boundary's transfer over the channel. */
	void (*p2p)(void *ud, const struct gp_channel_q *q, struct gp_comm *out);
	/* One step of a ring all-reduce over the channel. */
	void (*allreduce)(void *ud, const struct gp_channel_q *q,
			  struct gp_comm *out);
	/* Optional (NULL: none). Bytes of each GPU of the pool the job
	 * cannot use (runtime context, communication buffers, allocator
	 * slack): part of every peak. The query's tp is 1, its recompute
	 * and logits unset. */
	double (*reserve)(void *ud, const struct gp_layer_q *q);
	/* Optional (NULL: the default model's). The share of an overlapped
	 * DP gradient collective's time that the compute it overlaps on a GPU
	 * of the pool loses (its kernels hold SMs and HBM bandwidth). The
	 * query is as for reserve. */
	double (*sync_contention)(void *ud, const struct gp_layer_q *q);
	/* Optional (NULL: none, every GPU at the mean). The spread (standard
	 * deviation against the mean) of one GPU's compute time across the
	 * GPUs of the pool: a plan on n of them runs every layer there at
	 * the pace of its slowest, gp_straggle(spread, n) times layer_time's,
	 * n the GPUs the plan uses of the pool, not all of the pool's (the
	 * simulator and the estimate know the plan; the MILP costs the
	 * pool's count, then its plan's). The query is as for reserve. */
	double (*jitter)(void *ud, const struct gp_layer_q *q);
	/* Optional: bracket each batch of calls a table build or update
	 * makes. An operation that fails records why and returns harmless
	 * values; end then returns -1 with e, and the batch is not used. */
	int (*begin)(void *ud, struct gp_err *e);
	int (*end)(void *ud, struct gp_err *e);
};

struct gp_cost_model {
	const struct gp_cost_ops *ops;
	void *ud;
};

extern const struct gp_cost_model gp_default_cost;

/* Closed forms of the default model, shared by every cost model. */
double gp_layer_flops_fwd(const struct gp_model *m, double b, double s);
double gp_logits_flops_fwd(const struct gp_model *m, double b, double s);
double gp_layer_params(const struct gp_model *m);
double gp_embedding_params(const struct gp_model *m);
/* Stored activation bytes of one layer for one micro-batch per GPU,
 * for the job's stack (its micro-batch, sequence, attention kernel and
 * sequence parallelism), and for today's (flash, sequence parallel). */
double gp_layer_act_job(const struct gp_model *m, const struct gp_job *j, int tp,
			enum gp_recompute rc);
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

/* The pace of the slowest of n GPUs against their mean, each drawing its
 * compute time with spread `jitter`: 1 + jitter sqrt(2 ln n), the
 * expected maximum of n Gaussians to first order; 1 for n <= 1. */
double gp_straggle(double jitter, double n);

/* Bytes per gradient element the DP reduction sends (job.grad_reduce). */
double gp_grad_reduce_bytes(const struct gp_job *j);
/* A DP ring inside one DC over `shard` bytes of gradients per rank (in
 * gp_grad_reduce_bytes) among p ranks: the sync channel's time the step
 * waits for, and of the rest what runs under the next iteration's
 * forward. Without ZeRO an all-reduce. With the distributed optimizer
 * (zero = 1) a reduce-scatter of the gradients, the optimizer step on
 * the shard, then an all-gather of the 16-bit parameters; when the sync
 * overlaps (Megatron-Core's overlap_grad_reduce and overlap_param_gather),
 * the all-gather of each bucket runs under the next iteration's forward
 * before the bucket's first layer needs it (gp_dp_ring_gather), so only
 * the reduce-scatter is on the step. */
double gp_dp_ring_sync(const struct gp_job *j, double shard, int p, double bw, double lat);
double gp_dp_ring_gather(const struct gp_job *j, double shard, int p, double bw, double lat);

/* The default model's fitted constants (cost.c says what each stands
 * for), for models that build on it (geoplan.default.constants). The
 * default operations read them from their ud when it is not NULL, so a
 * fit can run the default model with other constants:
 * { gp_default_cost.ops, &my_constants }. */
#define GP_DEFAULT_K(X) \
	X(gemm_x0) X(gemm_y0) X(k_rep) X(k_att) X(k_bwd) X(flash_eff) X(flash_bwd) X(tp_ov) \
	X(fp8_eff) X(k_fp8) X(ce_bytes) X(ce_unfused_f) X(ce_unfused_b) X(eta_nvlink) X(eta_net) X(ring_step) X(opt_bytes) \
	X(reserve) X(frag) X(dp_cont) X(jitter)
struct gp_default_k {
#define GP_K_FIELD(n) double n;
	GP_DEFAULT_K(GP_K_FIELD)
#undef GP_K_FIELD
};
const struct gp_default_k *gp_default_constants(void);
/* The default model's achieved fractions of nominal bandwidth for
 * collectives, and its latency of one ring step on NVLink. */
double gp_eta_nvlink(void);
double gp_eta_net(void);
double gp_nvlink_step(void);

/* One stage's DP gradient sync, unoverlapped, as the placement costs it
 * (the simulator runs the same phases bucket by bucket and shares links),
 * local_* and wan_* being the channels' achieved figures (costtab.h):
 * a ring over the D replicas, or hierarchical over k DCs (reduce-scatter
 * among the `local` replicas in the DC, the k-way exchange of all shards
 * across the WAN, all-gather); the WAN part is paid once every `every`
 * steps (local SGD / DiLoCo), so its bytes and latency are divided by it. */
struct gp_sync_q {
	double bytes;            /* the stage's gradients, all TP ranks */
	const struct gp_job *job;  /* one DC: gp_dp_ring_sync's rules (NULL: an all-reduce) */
	int tp, replicas, dcs, local;
	double local_bw, local_lat, wan_bw, wan_lat;
	enum gp_sync_mode mode;
	int every;
};
double gp_dp_sync_time(const struct gp_sync_q *q);
/* Bytes on each WAN ring edge per step, amortised. */
double gp_dp_sync_wan_bytes(const struct gp_sync_q *q);

#endif
