/*
 * scenario.h: the scenario as C data: GPUs, datacenters and their pools,
 * WAN links, the model, the job and an optional plan.
 *
 * Everything is SI: seconds, bytes, bytes/s, FLOP/s, US dollars.
 * A scenario comes from gp_scenario_load() (a sandboxed Lua file, see
 * lua_host.c) and is checked by gp_scenario_validate(); everything
 * downstream may assume a validated scenario.
 */
#ifndef GP_SCENARIO_H
#define GP_SCENARIO_H

#include <stdbool.h>
#include <stdio.h>
#include "gp.h"

#define GP_NAME_MAX 48

/* The fraction of peak large GEMMs reach when a GPU type does not say:
 * fitted on A100 measurements with the default cost model (cost.c). */
#define GP_DEFAULT_EFFICIENCY 0.88

/* Where a GPU type's efficiency comes from (geoplan(1), COST MODEL): the
 * built-in GP_DEFAULT_EFFICIENCY, the scenario's own figure, a fit to
 * measured runs on that type (eff_ref names the data), or another type's
 * fit (eff_ref names the type): the catalog's efficiency_data and
 * efficiency_borrows. */
enum gp_eff_src { GP_EFF_DEFAULT, GP_EFF_SCENARIO, GP_EFF_MEASURED, GP_EFF_BORROWED };
#define GP_EFF_REF_MAX 120

enum gp_recompute { GP_RC_NONE, GP_RC_SELECTIVE, GP_RC_FULL, GP_RC_AUTO };

/* 1F1B first: a request or plan left at zero runs the common default. */
enum gp_sched {
	GP_SCHED_1F1B,
	GP_SCHED_GPIPE,
	GP_SCHED_INTERLEAVED,
	GP_SCHED_ZBH1,
	GP_SCHED_XDC_GREEDY,
	GP_SCHED_XDC_MILP,
	GP_SCHED__N
};

/* The training stack (geoplan-scenario(5), job): what the kernels and
 * the framework do, which the cost model and the simulator follow. A
 * job that says nothing gets today's common stack (Megatron-Core, NeMo):
 * bf16, flash attention, sequence parallelism, overlapped tensor-parallel
 * and pipeline communication, fp32 Adam state. */
enum gp_precision { GP_PREC_BF16, GP_PREC_FP16, GP_PREC_FP8 };
/* Flash (fused) attention never stores the s x s scores; materialised
 * attention (Megatron-LM until 2022) computes and keeps them. */
enum gp_attention { GP_ATT_FLASH, GP_ATT_MATERIALISED };
/* Adam's sharded state (master weights, moments) in fp32, or in bf16 as
 * NeMo's distributed_fused_adam with dtype bf16 keeps it. */
enum gp_optimizer { GP_OPT_ADAM, GP_OPT_ADAM_BF16 };
/* What the DP gradient reduction sends per element (job.grad_reduce):
 * 16-bit as NVIDIA's published NeMo and Megatron-Bridge performance
 * recipes set it (grad_reduce_in_fp32 = False, optim.grad_sync_dtype =
 * bf16), or fp32 as Megatron-LM forces for bf16 (arguments.py: "bfloat16
 * requires gradient accumulation and all-reduce to be done in fp32") and
 * Megatron-Bridge's recipes default to outside its performance presets. */
enum gp_grad_reduce { GP_GR_BF16, GP_GR_FP16, GP_GR_FP32 };
/* The loss over the logits (job.cross_entropy): Megatron-Core's fused
 * vocab-parallel cross-entropy (cross_entropy_loss_fusion, which NeMo 2
 * and Megatron-Bridge set), or its unfused PyTorch operations, what
 * Megatron-LM runs unless --cross-entropy-loss-fusion is given. */
enum gp_cross_entropy { GP_CE_FUSED, GP_CE_UNFUSED };

/* job.defer_embedding_wgrad's default: none, as Megatron-Core's
 * defer_embedding_wgrad_compute = False; NVIDIA's NeMo and Megatron-Bridge
 * performance recipes for Llama 3 70B set it with wgrad_deferral_limit 22
 * (MegatronCommOverlapCallback), which a scenario says by its value. */
#define GP_DEFER_WGRAD 0

/* AUTO (job.sync.mode only): the planner chooses per plan. */
enum gp_sync_mode { GP_SYNC_FLAT, GP_SYNC_HIER, GP_SYNC_AUTO };
enum gp_objective { GP_OBJ_TIME, GP_OBJ_COST, GP_OBJ_WAN };

struct gp_gpu {
	char name[GP_NAME_MAX];
	double flops;          /* dense bf16 peak, FLOP/s */
	double memory;         /* bytes */
	double hbm_bw;         /* bytes/s */
	double nvlink;         /* bytes/s per GPU per direction inside a node */
	double efficiency;     /* achievable fraction of peak on large GEMMs */
	double price_per_hour; /* USD per GPU hour */
	double fp8_flops;      /* dense FP8 peak, FLOP/s; 0: no FP8 */
	int eff_src;           /* enum gp_eff_src: where efficiency comes from */
	char eff_ref[GP_EFF_REF_MAX]; /* measured: the data; borrowed: the type */
};

struct gp_pool {
	int gpu;          /* index into scenario.gpus */
	int count;
	int per_node;
	double nvlink;    /* bytes/s per GPU per direction */
	double network;   /* bytes/s per GPU NIC between nodes */
	double latency;   /* s, one way between nodes */
};

struct gp_dc {
	char name[GP_NAME_MAX];
	struct gp_pool *pools;
	int npools;
};

/* One direction of a WAN link. */
struct gp_link {
	int from, to;         /* dc indices */
	double bandwidth;     /* bytes/s */
	double latency;       /* s, one way */
	double price_per_gb;  /* USD per 1e9 bytes leaving `from` */
	int streams;
};

struct gp_model {
	char name[GP_NAME_MAX];
	int layers;
	double hidden, heads, kv_heads, ffn, vocab;
	bool gated;
};

struct gp_job {
	double seq, global_batch, micro_batch;
	int precision_bytes;        /* 2 for bf16/fp16 */
	enum gp_precision precision; /* of the GEMMs (fp8: Transformer Engine) */
	enum gp_attention attention;
	enum gp_optimizer optimizer;
	enum gp_grad_reduce grad_reduce;  /* 16-bit or fp32 gradient reduction */
	enum gp_cross_entropy cross_entropy;  /* the loss fused or not */
	bool sequence_parallel;     /* norms and dropouts split over the TP group */
	bool tp_overlap;            /* TP collectives overlap the GEMMs */
	bool p2p_overlap;           /* stage boundaries do not block compute */
	bool p2p_whole;             /* job.p2p_scatter = false: each TP rank
				     * sends the whole activation */
	int defer_wgrad;            /* job.defer_embedding_wgrad: micro-batches
				     * whose logits W runs in the flush */
	int zero;                   /* 0 or 1 */
	enum gp_recompute recompute;
	enum gp_sync_mode sync_mode;
	int sync_every;             /* H: WAN sync every H steps */
	bool sync_overlap;          /* DP sync overlaps compute (with zero,
				     * the parameter all-gather too) */
};

struct gp_stage {
	int dc, pool;               /* indices */
	int tp;
	int first, last;            /* layers, 1-based inclusive */
	enum gp_recompute recompute;
	bool recompute_set;         /* given in the plan (else job's) */
};

struct gp_pipeline {
	int micro_batches;
	int replicas;
	struct gp_stage *stages;
	int nstages;
};

struct gp_plan {
	enum gp_sched schedule;
	int chunks;
	int microbatch_group;       /* interleaved: the micro-batches a device
				     * runs of one chunk before the next chunk
				     * (Megatron-Core's microbatch_group_size_
				     * per_vp_stage); 0: the pipeline's stages */
	enum gp_sync_mode sync_mode; /* flat or hierarchical, when sync_set */
	bool sync_set;              /* given in the plan (else gp_plan_sync's) */
	struct gp_pipeline *pipes;
	int npipes;
};

struct gp_scenario {
	char name[GP_NAME_MAX];
	char path[512];
	struct gp_gpu *gpus;
	int ngpus;
	struct gp_dc *dcs;
	int ndcs;
	struct gp_link *links;      /* directed */
	int nlinks;
	/* gp_find_link's index: link_at[a * ndcs + b] is the link from a
	 * to b, or -1; made by gp_scenario_index for link_dcs DCs and
	 * link_n links (NULL, or made for others: gp_find_link scans). */
	int *link_at;
	int link_dcs, link_n;
	struct gp_model model;
	struct gp_job job;
	enum gp_objective objective;
	double budget_usd_per_hour; /* 0: none */
	/* Scripts as the file names them (relative to its directory), or "". */
	char cost_model[512];
	char heuristic[512];
	/* A measured run of this scenario's plan, 0 where not given. */
	struct {
		double iteration_time;   /* s */
		double peak_memory;      /* bytes, the highest GPU's */
	} measured;
	bool has_plan;
	struct gp_plan plan;
};

/* Loads and validates a scenario file (Lua, sandboxed). NULL on error. */
struct gp_scenario *gp_scenario_load(const char *path, struct gp_err *e);
/* The same with overrides "PATH=VALUE" (see gp_lua_scenario_set). */
struct gp_scenario *gp_scenario_load_set(const char *path, const char *const *sets,
					 int nsets, struct gp_err *e);
void gp_scenario_free(struct gp_scenario *s);
void gp_plan_free(struct gp_plan *p);
/* Joins pipelines of the same shape (stages and micro-batches) into one
 * with their replicas summed, the first's place kept. Returns how many
 * were joined. The simulator may time the two apart (DP sync of
 * separate pipelines is ordered apart from one's replicas): gp_plan_make
 * keeps the join only when it is no slower. */
int gp_plan_merge_shapes(struct gp_plan *p);
/* A deep copy, with room for extra_gpus more GPU types; NULL if out of
 * memory. */
struct gp_scenario *gp_scenario_dup(const struct gp_scenario *s, int extra_gpus);
int gp_plan_copy(struct gp_plan *dst, const struct gp_plan *src);
/* Equal in everything but their plans (and file paths). */
bool gp_scenario_same(const struct gp_scenario *a, const struct gp_scenario *b);
bool gp_plan_same(const struct gp_plan *a, const struct gp_plan *b);
/* The GPUs the plan runs on in pool `pool` of DC `dc`: TP degree times
 * replicas over its stages there. */
int gp_plan_pool_gpus(const struct gp_plan *p, int dc, int pool);
bool gp_model_same(const struct gp_model *a, const struct gp_model *b);
/* A script path as the scenario names it, resolved against the
 * scenario file's directory (absolute paths as they are). */
void gp_scenario_script_path(const struct gp_scenario *s, const char *rel, char *out,
			     size_t n);

/* Writes s as canonical Lua (scenario_write.c): every field explicit,
 * both directions of each link, numbers that load back as the same
 * doubles; the same scenario gives the same bytes. Refuses (-1, e) what
 * the file format cannot say: a link without its reverse, a plan stage
 * on a pool that a later pool of its DC shares the GPU type with (the
 * plan names pools by GPU), a precision other than 2 bytes, a number
 * that is not finite. */
int gp_scenario_write_lua(FILE *f, const struct gp_scenario *s, struct gp_err *e);
/* Writes s over path atomically: a temporary file beside it, synced,
 * loaded back (it must give the same text), renamed over path. On any
 * failure path is as it was and no temporary file is left. */
int gp_scenario_save(const char *path, const struct gp_scenario *s, struct gp_err *e);
/* True when path holds exactly what gp_scenario_write_lua writes for s:
 * a file geoplan wrote, which saving over loses nothing of. Pass the
 * scenario as loaded from path, not after edits. */
bool gp_scenario_file_is_canonical(const char *path, const struct gp_scenario *s);

/* Rewrites the locale's decimal point in one formatted number as '.',
 * the point Lua reads, so a file or a field reads the same whatever
 * LC_NUMERIC the program runs under. */
void gp_c_point(char *buf);

/* Checks cross-references and arithmetic a field-by-field load cannot. */
int gp_scenario_validate(const struct gp_scenario *s, struct gp_err *e);
/* A WAN latency of a second or more is valid but doubtful (no real link
 * has one; a geostationary hop is about 0.27 s): milliseconds written as
 * seconds? So is a plan stage's tp above its pool's per_node (TP across
 * nodes, over the NIC). The first such figure, said in buf (n bytes);
 * false if none. */
#define GP_LATENCY_DOUBT 1.0   /* s */
bool gp_scenario_doubt(const struct gp_scenario *s, char *buf, size_t n);
/* Checks a plan against the scenario: layers tile 1..L, batch adds up,
 * pools have the GPUs. */
int gp_plan_validate(const struct gp_scenario *s, const struct gp_plan *p,
		     struct gp_err *e);

int gp_find_dc(const struct gp_scenario *s, const char *name);
/* The link from dc a to dc b, or NULL: from the index when it is made
 * for s's DCs and links (a link's ends never change after loading),
 * else by a scan. gp_scenario_load_set and gp_scenario_dup make the
 * index (-1 when out of memory, then the scan serves). */
const struct gp_link *gp_find_link(const struct gp_scenario *s, int a, int b);
int gp_scenario_index(struct gp_scenario *s);

const char *gp_sched_name(enum gp_sched k);
/* The DP sync mode a plan runs: its own, else the job's, else (job says
 * auto) hierarchical. p may be NULL. */
enum gp_sync_mode gp_plan_sync(const struct gp_scenario *s, const struct gp_plan *p);
const char *gp_sync_name(enum gp_sync_mode m);
int gp_sched_parse(const char *name, enum gp_sched *out);
const char *gp_recompute_name(enum gp_recompute r);
int gp_recompute_parse(const char *name, enum gp_recompute *out);

#endif
