/*
 * cost_default.c: the default cost model (gp_default_cost, cost.h): how
 * long a block takes on a TP group for the training stack the job names,
 * what it keeps in memory, what the channels achieve, and its constants,
 * fitted once to measured iterations of all the data sets in tests/data.
 *
 * A block's forward on one TP rank is its GEMMs, its attention core, its
 * memory-bound work and whatever of its tensor-parallel collectives is
 * not hidden behind the GEMMs. The backward splits into B (the input
 * gradient: the GEMMs again, the attention core's and the memory-bound
 * work's backward, the collectives, and what recomputation redoes) and W
 * (the weight-gradient GEMMs). Sources are with each part.
 */
#include "cost.h"

#include <math.h>

/*
 * The constants, fitted once for all rows together by tests/fidelity
 * (make bench prints the fit; geoplan(1), COST MODEL, lists them). Each
 * stands for something physical:
 *
 *  GEMM_X0, GEMM_Y0  a GEMM runs below the GPU's ceiling (its catalog
 *                    efficiency) when its split dimension h/t or its row
 *                    count b*s is small: ceiling / (1 + X0/(h/t) + Y0/(bs)).
 *  K_REP             bytes per token and hidden unit of memory-bound work
 *                    outside the attention core (norms, residual and
 *                    bias-dropout-adds), on every TP rank unless sequence
 *                    parallelism splits it; bias and activation over the
 *                    MLP's f-wide tensors come on top by count, 2g bytes.
 *  K_ATT             bytes per attention score of mask, softmax and dropout
 *                    when the scores are materialised.
 *  K_BWD             the memory-bound work's backward against its forward.
 *  FLASH_EFF         the fraction of the GPU's GEMM ceiling flash
 *                    attention's forward reaches on its causal half of the
 *                    scores (Dao, "FlashAttention-2", 2023: 50-73 % of peak).
 *  FLASH_BWD         its backward against its forward (2.5 by FLOP count:
 *                    it recomputes the scores and runs four GEMMs, not two).
 *  TP_OV             the share of an overlapped TP collective still exposed
 *                    (chunked GEMMs, SM contention; Wang et al., "Overlap
 *                    Communication with Dependent Computation", ASPLOS '23).
 *  FP8_EFF           the fraction of the FP8 peak FP8 GEMMs reach against
 *                    the 16-bit GEMMs' fraction of theirs.
 *  K_FP8             bytes per element of a GEMM input Transformer Engine
 *                    casts to FP8 (its cast-transpose kernel reads the
 *                    16-bit tensor and writes it and its transpose in one
 *                    byte each: 4 by count, set, not fitted). Against the
 *                    GEMM it feeds this is 1/h of the work, which is why FP8
 *                    gains less on small models than on large ones.
 *  CE_BYTES          bytes per logit a pass of the fused cross-entropy moves.
 *  CE_UNFUSED_F,     bytes per logit the unfused cross-entropy moves on top
 *  CE_UNFUSED_B      (job.cross_entropy = "unfused"), forward and backward:
 *                    set from the operations of Megatron-Core's
 *                    tensor_parallel/cross_entropy.py, not fitted. Forward
 *                    (_VocabParallelCrossEntropy.forward) on the 16-bit
 *                    logits: .float() reads 2 and writes 4; max over the
 *                    vocabulary reads 4; the in-place subtraction of the
 *                    max reads and writes 4 + 4; exp in place 4 + 4; the
 *                    sum reads 4; the in-place division by it 4 + 4: 38.
 *                    Backward: mul_ of the kept fp32 softmax by the loss's
 *                    gradient 4 + 4, then autograd's backward of .float()
 *                    casts the gradient to 16 bits, 4 + 2: 14 (the target
 *                    mask and the one-hot update are per token, not per
 *                    logit). The fused kernel's CE_BYTES stays charged
 *                    under them (so the fused rows keep their fit), which
 *                    over-counts the unfused path by that 2.5 B of 38.
 *                    Memory is the same either way: both keep the fp32
 *                    softmax, 4 B a logit, until the backward.
 *  ETA_NVLINK        NCCL's bus bandwidth over NVSwitch against the nominal
 *                    per-direction NVLink figure: set to what nccl-tests'
 *                    all_reduce_perf measures on DGX A100 (about 230 of
 *                    300 GB/s), not fitted. Fitted, it sat at its bound
 *                    (0.9965) while the backward's all-reduces without
 *                    sequence parallelism were charged as exposed; with
 *                    them under the weight gradients it fits to 0.59-0.73.
 *  ETA_NET           the same for the NICs between nodes, held to at most
 *                    0.95 (what NCCL reaches over InfiniBand).
 *  RING_STEP         latency per ring step on NVLink (fitted).
 *  OPT_BYTES         bytes a fused Adam step touches per parameter.
 *  RESERVE           bytes per GPU the job never gets: CUDA context, NCCL
 *                    and cuBLAS workspaces.
 *  FRAG              the share of device memory the caching allocator loses
 *                    to fragmentation.
 *  DP_CONT           the share of an overlapped DP collective's time the
 *                    compute it overlaps loses (NCCL's kernels take SMs and
 *                    HBM bandwidth from the GEMMs).
 *  JITTER            the spread (standard deviation against the mean) of
 *                    one GPU's compute time across the GPUs of a pool.
 *                    Synchronous training runs at the pace of the slowest
 *                    GPU (every TP collective, stage boundary and the DP
 *                    sync waits for it), and the expected maximum of N
 *                    such draws grows like sqrt(2 ln N) (the Gaussian
 *                    extreme; Sinha et al., "Not All GPUs Are Created
 *                    Equal", SC '22, measure this spread on large GPU
 *                    clusters): what makes steps longer with more
 *                    data-parallel replicas at the same work per GPU.
 *                    N is the GPUs the plan runs on in the pool (gp_straggle), not
 *                    the pool's: idle GPUs do not slow a plan.
 */
#define GEMM_X0 105.14
#define GEMM_Y0 288
#define K_REP 17.277
#define K_ATT 24.297
#define K_BWD 1.6099
#define FLASH_EFF 0.70189
#define FLASH_BWD 3.4506
#define TP_OV 0.023789
#define FP8_EFF 0.80704
#define K_FP8 4
#define CE_BYTES 2.4732
#define CE_UNFUSED_F 38
#define CE_UNFUSED_B 14
#define ETA_NVLINK 0.77
#define ETA_NET 0.95
#define RING_STEP 1.1713e-05
#define OPT_BYTES 25.6
#define RESERVE 2e9
#define FRAG 0.05
#define DP_CONT 0.13593
#define JITTER 0.0155

const struct gp_default_k *gp_default_constants(void)
{
	static const struct gp_default_k k = {
		.gemm_x0 = GEMM_X0, .gemm_y0 = GEMM_Y0, .k_rep = K_REP, .k_att = K_ATT,
		.k_bwd = K_BWD, .flash_eff = FLASH_EFF, .flash_bwd = FLASH_BWD, .tp_ov = TP_OV,
		.fp8_eff = FP8_EFF, .k_fp8 = K_FP8, .ce_bytes = CE_BYTES,
		.ce_unfused_f = CE_UNFUSED_F, .ce_unfused_b = CE_UNFUSED_B, .eta_nvlink = ETA_NVLINK,
		.eta_net = ETA_NET, .ring_step = RING_STEP, .opt_bytes = OPT_BYTES,
		.reserve = RESERVE, .frag = FRAG, .dp_cont = DP_CONT, .jitter = JITTER,
	};
	return &k;
}

/* The constants an operation runs with: its ud's, or the built-in ones. */
static const struct gp_default_k *kof(const void *ud)
{
	return ud ? ud : gp_default_constants();
}

double gp_eta_nvlink(void)
{
	return ETA_NVLINK;
}

double gp_eta_net(void)
{
	return ETA_NET;
}

double gp_nvlink_step(void)
{
	return RING_STEP;
}

/* TP collectives of one pass: two all-reduces of 2bsh bytes (after
 * attention and after the MLP; Shoeybi et al. 2019), or with sequence
 * parallelism two all-gathers and two reduce-scatters of the same bytes,
 * the same ring time (Korthikanti et al., section 4.2.2). Inside a node
 * they ride NVLink; a group wider than a node crosses the NICs, where the
 * ring's channels share the node's. */
static double tp_comm(const struct gp_default_k *k, const struct gp_layer_q *q, double bytes)
{
	if (q->tp <= 1)
		return 0;
	const struct gp_pool *p = q->pool;
	if (q->tp <= p->per_node)
		return 2 * gp_ring_allreduce(bytes, q->tp, p->nvlink * k->eta_nvlink, k->ring_step);
	double bw = fmin(p->nvlink * k->eta_nvlink, p->network * k->eta_net * p->per_node);
	return 2 * gp_ring_allreduce(bytes, q->tp, bw, p->latency);
}

/* What of a pass's collectives stays exposed. Overlapped (Transformer
 * Engine's userbuffers, which need sequence parallelism), each all-gather
 * and reduce-scatter runs chunk by chunk under the GEMM it feeds or
 * drains: hidden as far as the GEMMs last, TP_OV of it exposed anyway.
 * Without that, sequence parallelism still hides the backward's
 * all-gathers (the inputs the weight gradients need, gathered again)
 * behind the input-gradient GEMMs (Korthikanti et al., section 4.2.2):
 * half the backward's collectives. Without sequence parallelism the
 * forward's two all-reduces are exposed; the backward's (the input
 * gradients of the QKV and first MLP GEMMs, Shoeybi et al.'s f) run
 * asynchronously under those GEMMs' weight gradients (Megatron-LM's
 * asynchronous tensor-parallel all-reduce, on unless
 * --no-async-tensor-model-parallel-allreduce), exposed
 * as far as wcol does not cover them, TP_OV of them anyway. That is
 * what brings the 22B layer's backward to Korthikanti et al.'s Table 4
 * (11.9 ms against a 7.7 ms forward). */
static double tp_exposed(const struct gp_default_k *k, const struct gp_job *j, double comm,
			 double gemm, double wcol, bool bwd)
{
	if (!j->sequence_parallel)
		return bwd ? fmax(0, comm - wcol) + k->tp_ov * comm : comm;
	if (!j->tp_overlap)
		return bwd ? comm / 2 : comm;
	return fmax(0, comm - gemm) + k->tp_ov * comm;
}

/* A block's forward on one TP rank, in parts. */
struct blk {
	double gemm;            /* QKV, output projection, MLP */
	double core_f, core_b;  /* the attention core, forward and backward */
	double mem_f;           /* memory-bound work outside the core */
	double comm;            /* TP collectives of a pass, unoverlapped */
	double wcol;            /* W of the QKV and first MLP GEMMs */
};

/* GEMM FLOP/s of the TP group: the GPU's ceiling derated for small
 * GEMMs; FP8 GEMMs at their own peak (Transformer Engine; FP8 runs at
 * the 16-bit rate on a GPU without it). */
static double gemm_rate(const struct gp_default_k *k, const struct gp_layer_q *q, bool fp8)
{
	const struct gp_job *j = &q->sc->job;
	double t = q->tp, h = q->sc->model.hidden;
	double eff = q->gpu->efficiency /
		     (1 + k->gemm_x0 / (h / t) + k->gemm_y0 / (j->micro_batch * j->seq));
	double peak = fp8 && q->gpu->fp8_flops > 0 ? q->gpu->fp8_flops * k->fp8_eff
						    : q->gpu->flops;
	return peak * eff * t;
}

/* The attention core: scores and context, 4bs^2h FLOPs (Narayanan et
 * al.). Materialised, two batched GEMMs over all s^2 scores (the mask is
 * applied after) at the 16-bit rate, with mask, softmax and dropout at
 * HBM speed; backward twice the GEMMs and K_BWD of the rest. Flash
 * attention computes only the causal half, in one fused kernel. */
static void attention_core(const struct gp_default_k *k, const struct gp_layer_q *q,
			   struct blk *o)
{
	const struct gp_job *j = &q->sc->job;
	double b = j->micro_batch, s = j->seq, h = q->sc->model.hidden, t = q->tp;
	double fl = 4 * b * s * s * h;
	if (j->attention == GP_ATT_FLASH) {
		o->core_f = fl / 2 / (q->gpu->flops * q->gpu->efficiency * k->flash_eff * t);
		o->core_b = k->flash_bwd * o->core_f;
		return;
	}
	double gemm = fl / gemm_rate(k, q, false);
	double mem = k->k_att * b * q->sc->model.heads * s * s / t / q->gpu->hbm_bw;
	o->core_f = gemm + mem;
	o->core_b = 2 * gemm + k->k_bwd * mem;
}

/* FP8's casts (Transformer Engine, Micikevicius et al., "FP8 Formats for
 * Deep Learning", 2022): every FP8 GEMM's input is quantised first, at
 * HBM speed: the QKV and first MLP GEMMs' inputs (b s h, split over the
 * ranks with sequence parallelism: the shard is cast before it is
 * gathered), the output projection's (b s h / t) and the second MLP
 * GEMM's (b s f / t). The backward's casts of the output gradients come
 * with the memory-bound work's K_BWD. */
static double fp8_cast(const struct gp_default_k *k, const struct gp_layer_q *q, double rep)
{
	const struct gp_model *m = &q->sc->model;
	double b = q->sc->job.micro_batch, s = q->sc->job.seq, h = m->hidden, t = q->tp;
	return k->k_fp8 * b * s * (2 * h / rep + h / t + m->ffn / t) / q->gpu->hbm_bw;
}

static void block_parts(const struct gp_default_k *k, const struct gp_layer_q *q,
			struct blk *o)
{
	const struct gp_model *m = &q->sc->model;
	const struct gp_job *j = &q->sc->job;
	double b = j->micro_batch, s = j->seq, h = m->hidden, t = q->tp, g = m->gated ? 3 : 2;
	double attn_fl = 4 * b * s * s * h;
	double rate = gemm_rate(k, q, j->precision == GP_PREC_FP8);
	o->gemm = (gp_layer_flops_fwd(m, b, s) - attn_fl) / rate;
	o->wcol = 2 * b * s * h * (h + 2 * h * m->kv_heads / m->heads + m->ffn * (g - 1)) / rate;
	attention_core(k, q, o);
	double rep = j->sequence_parallel ? t : 1;
	o->mem_f = (k->k_rep * b * s * h / rep + 2 * g * b * s * m->ffn / t) / q->gpu->hbm_bw;
	if (j->precision == GP_PREC_FP8 && q->gpu->fp8_flops > 0)
		o->mem_f += fp8_cast(k, q, rep);
	o->comm = tp_comm(k, q, 2 * b * s * h);
}

/* The logits layer: one large GEMM at the ceiling (16-bit, as the output
 * layer stays outside FP8), and the fused cross-entropy over its s x b x
 * V / t logits in each pass; unfused, its separate operations' bytes on
 * top (CE_UNFUSED_F, CE_UNFUSED_B), at HBM speed. */
static void logits_time(const struct gp_default_k *k, const struct gp_layer_q *q,
			struct gp_layer_time *out)
{
	const struct gp_model *m = &q->sc->model;
	double b = q->sc->job.micro_batch, s = q->sc->job.seq;
	double f = gp_logits_flops_fwd(m, b, s) / (q->gpu->flops * q->gpu->efficiency * q->tp);
	double ce = k->ce_bytes * b * s * m->vocab / q->tp / q->gpu->hbm_bw, cf = ce, cb = ce;
	if (q->sc->job.cross_entropy == GP_CE_UNFUSED) {
		cf += k->ce_unfused_f * b * s * m->vocab / q->tp / q->gpu->hbm_bw;
		cb += k->ce_unfused_b * b * s * m->vocab / q->tp / q->gpu->hbm_bw;
	}
	*out = (struct gp_layer_time){ f + cf, f + cb, f };
}

static void default_layer_time(void *ud, const struct gp_layer_q *q,
			       struct gp_layer_time *out)
{
	const struct gp_default_k *k = kof(ud);
	if (q->logits) {
		logits_time(k, q, out);
		return;
	}
	const struct gp_job *j = &q->sc->job;
	struct blk p;
	block_parts(k, q, &p);
	double f = p.gemm + p.core_f + p.mem_f + tp_exposed(k, j, p.comm, p.gemm, p.wcol, false);
	double re = q->recompute == GP_RC_FULL ? f :
		    q->recompute == GP_RC_SELECTIVE ? p.core_f : 0;
	out->f = f;
	out->b = p.gemm + p.core_b + k->k_bwd * p.mem_f + tp_exposed(k, j, p.comm, p.gemm, p.wcol, true) +
		 re;
	out->w = p.gemm;
}

/* Stored activations (cost.c); W keeps the GEMM inputs, never more than
 * the layer stores. The logits layer keeps its fp32 logits, s x b x V /
 * t, until its backward. */
static void default_layer_memory(void *ud, const struct gp_layer_q *q,
				 struct gp_layer_mem *out)
{
	(void)ud;
	const struct gp_model *m = &q->sc->model;
	double b = q->sc->job.micro_batch, s = q->sc->job.seq;
	if (q->logits) {
		*out = (struct gp_layer_mem){ 4 * b * s * m->vocab / q->tp, 0 };
		return;
	}
	out->act = gp_layer_act_job(m, &q->sc->job, q->tp, q->recompute);
	out->wact = gp_layer_wact_bytes(m, b, s, q->tp);
	if (out->wact > out->act)
		out->wact = out->act;
}

/* Mixed-precision Adam (Rajbhandari et al.): 16-bit weights and
 * gradients on every replica; fp32 master, momentum and variance (12 B)
 * sharded by ZeRO-1, or the same kept in bf16 (6 B). */
static void default_state_memory(void *ud, const struct gp_scenario *sc,
				 struct gp_state_mem *out)
{
	(void)ud;
	*out = (struct gp_state_mem){ 4, sc->job.optimizer == GP_OPT_ADAM_BF16 ? 6 : 12 };
}

/* Point-to-point at the nominal figures, but for a NIC, which achieves
 * what it does in collectives. */
static void default_p2p(void *ud, const struct gp_channel_q *q, struct gp_comm *out)
{
	const struct gp_default_k *k = kof(ud);
	double eta = q->kind == GP_CH_NIC ? k->eta_net : q->kind == GP_CH_NVLINK ? k->eta_nvlink : 1;
	*out = (struct gp_comm){ q->latency, q->bandwidth * eta };
}

/* A ring step: NCCL's achieved bus bandwidth; on NVLink its step
 * latency instead of the nominal one. */
static void default_allreduce(void *ud, const struct gp_channel_q *q, struct gp_comm *out)
{
	const struct gp_default_k *k = kof(ud);
	switch (q->kind) {
	case GP_CH_NVLINK: *out = (struct gp_comm){ k->ring_step, q->bandwidth * k->eta_nvlink }; break;
	case GP_CH_NIC: *out = (struct gp_comm){ q->latency, q->bandwidth * k->eta_net }; break;
	default: *out = (struct gp_comm){ q->latency, q->bandwidth }; break;
	}
}

/* Adam is memory bound: per parameter it reads and writes fp32 master,
 * momentum and variance, reads the gradient and writes the 16-bit weight
 * (28 bytes by count; OPT_BYTES fitted). */
static double default_optimizer(void *ud, const struct gp_gpu *g, double params)
{
	return params * kof(ud)->opt_bytes / g->hbm_bw;
}

/* The runtime's own share of every GPU, and what fragmentation loses. */
static double default_reserve(void *ud, const struct gp_layer_q *q)
{
	const struct gp_default_k *k = kof(ud);
	return k->reserve + k->frag * q->gpu->memory;
}

static double default_contention(void *ud, const struct gp_layer_q *q)
{
	(void)q;
	return kof(ud)->dp_cont;
}

/* One GPU's spread; the pace of the slowest of the plan's n GPUs is
 * gp_straggle(JITTER, n) (cost.c), which the tables apply. */
static double default_jitter(void *ud, const struct gp_layer_q *q)
{
	(void)q;
	return kof(ud)->jitter;
}

static const struct gp_cost_ops default_ops = {
	.layer_time = default_layer_time,
	.layer_memory = default_layer_memory,
	.state_memory = default_state_memory,
	.optimizer_time = default_optimizer,
	.p2p = default_p2p,
	.allreduce = default_allreduce,
	.reserve = default_reserve,
	.sync_contention = default_contention,
	.jitter = default_jitter,
};

const struct gp_cost_model gp_default_cost = { &default_ops, NULL };
