/*
 * cost.c: the default cost model: closed forms with their sources.
 *
 * Sources: FLOPs per layer, Narayanan et al., "Efficient Large-Scale
 * Language Model Training on GPU Clusters Using Megatron-LM", SC '21,
 * section 5.1 (24bsh^2 + 4bs^2h for MHA with f = 4h), generalised to GQA
 * and gated MLPs. Activation memory: Korthikanti et al., "Reducing
 * Activation Recomputation in Large Transformer Models", MLSys '23,
 * sections 4.1-4.2. Point-to-point: Hockney, Parallel Computing 20 (1994).
 * Ring all-reduce: Patarasuk and Yuan, JPDC 69 (2009). Mixed-precision
 * Adam state: Rajbhandari et al., "ZeRO", SC '20, section 3.1.
 */
#include "cost.h"

#include <math.h>

double gp_layer_flops_fwd(const struct gp_model *m, double b, double s)
{
	double h = m->hidden, g = m->gated ? 3 : 2;
	double qkv = 2 * b * s * h * (h + 2 * h * m->kv_heads / m->heads);
	double out = 2 * b * s * h * h;
	double attn = 4 * b * s * s * h;
	double mlp = 2 * b * s * h * m->ffn * g;
	return qkv + out + attn + mlp;
}

double gp_logits_flops_fwd(const struct gp_model *m, double b, double s)
{
	return 2 * b * s * m->hidden * m->vocab;
}

/* Weights of one block: QKV, output projection, MLP, and two norms. */
double gp_layer_params(const struct gp_model *m)
{
	double h = m->hidden, g = m->gated ? 3 : 2;
	return h * (h + 2 * h * m->kv_heads / m->heads) + h * h + g * h * m->ffn +
	       2 * h;
}

double gp_embedding_params(const struct gp_model *m)
{
	return m->vocab * m->hidden;
}

/* Korthikanti et al.: sbh(34 + 5as/h) bytes per layer in 16-bit, divided
 * by t with tensor and sequence parallelism; selective recomputation
 * keeps 34sbh/t; full recomputation keeps only the layer input, 2sbh. */
double gp_layer_act_bytes(const struct gp_model *m, double b, double s,
			  int tp, enum gp_recompute rc)
{
	double h = m->hidden, a = m->heads;
	switch (rc) {
	case GP_RC_FULL: return 2 * s * b * h;
	case GP_RC_SELECTIVE: return 34 * s * b * h / tp;
	default: return s * b * h * (34 + 5 * a * s / h) / tp;
	}
}

/* The inputs of the four GEMMs (QKV 2sbh, output projection 2sbh, first
 * MLP 2sbh, second MLP 2sbf) are what the weight gradient needs: the part
 * of Korthikanti's breakdown that outlives B in a zero-bubble schedule. */
double gp_layer_wact_bytes(const struct gp_model *m, double b, double s,
			   int tp)
{
	return (6 * s * b * m->hidden + 2 * s * b * m->ffn) / tp;
}

/* bf16 weights 2 + bf16 gradients 2 + fp32 master, momentum, variance 12
 * = 16 bytes; ZeRO-1 shards the 12 over d replicas. */
double gp_state_bytes_per_param(int zero, int d)
{
	return zero && d > 1 ? 4 + 12.0 / d : 16;
}

double gp_boundary_bytes(const struct gp_scenario *sc)
{
	return 2 * sc->job.micro_batch * sc->job.seq * sc->model.hidden;
}

double gp_ring_allreduce(double bytes, int p, double bw, double lat)
{
	if (p <= 1)
		return 0;
	return 2 * (p - 1) * lat + 2.0 * (p - 1) / p * bytes / bw;
}

/*
 * Calibration. The constants below are fitted once, for all rows at
 * the same time, to the 109 measured Megatron-LM iterations on A100 nodes
 * in tests/data (vTrain, MIT licence); make bench prints the fit
 * (tests/fidelity.c). Each stands for something physical:
 *
 *  GEMM_X0, GEMM_Y0  a GEMM runs below the GPU's ceiling (efficiency)
 *                    when its split dimension h/t or its row count b*s
 *                    is small: eff = ceiling / (1 + X0/(h/t) + Y0/(b s)).
 *  K_REP, K_ATT      bytes of memory-bound work per layer and micro-batch
 *                    at HBM speed: layer norms and bias-dropout-adds
 *                    (K_REP b s h, repeated on every TP rank) and mask,
 *                    softmax and dropout over the attention scores
 *                    (K_ATT b a s^2 / t), plus bias and GeLU over the MLP
 *                    activations (4 b s f / t: read and write, 2 bytes).
 *  ETA_NVLINK        NCCL's all-reduce bus bandwidth over NVSwitch
 *                    against the nominal per-direction NVLink figure
 *                    (about 230 of 300 GB/s on A100 in NCCL's tests).
 *  ETA_NET           the same for the NICs between nodes.
 *  RING_STEP         latency per ring step on NVLink.
 *  OPT_BYTES         bytes a fused Adam step touches per parameter.
 */
#define GEMM_X0 74.95
#define GEMM_Y0 672.7
#define K_REP 8.80
#define K_ATT 23.62
#define ETA_NVLINK 0.75
#define ETA_NET 0.942
#define RING_STEP 8.2e-6
#define OPT_BYTES 25.6

const struct gp_default_k *gp_default_constants(void)
{
	static const struct gp_default_k k = { GEMM_X0, GEMM_Y0, K_REP, K_ATT, ETA_NVLINK,
					       ETA_NET, RING_STEP, OPT_BYTES };
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

/* TP all-reduces: 2 in the forward of a block (after attention and after
 * the MLP), 2 in the backward (Megatron-LM, Shoeybi et al. 2019). Inside
 * a node they ride NVLink; a TP group wider than a node crosses the
 * inter-node network, where the ring's channels share the node's NICs. */
static double tp_allreduce(const struct gp_default_k *k, const struct gp_layer_q *q,
			   double bytes)
{
	if (q->tp <= 1)
		return 0;
	const struct gp_pool *p = q->pool;
	if (q->tp <= p->per_node)
		return gp_ring_allreduce(bytes, q->tp, p->nvlink * k->eta_nvlink, k->ring_step);
	double bw = fmin(p->nvlink * k->eta_nvlink, p->network * k->eta_net * p->per_node);
	return gp_ring_allreduce(bytes, q->tp, bw, p->latency);
}

/* Compute time of one layer's forward on one TP rank: GEMMs at the
 * size-dependent efficiency plus the memory-bound elementwise work. The
 * attention-core share (scores and context, 4bs^2h FLOPs and the score
 * elementwise work) is returned in *core: what selective recomputation
 * redoes. */
static double layer_compute(const struct gp_default_k *k, const struct gp_layer_q *q,
			    double *core)
{
	const struct gp_model *m = &q->sc->model;
	double b = q->sc->job.micro_batch, s = q->sc->job.seq, t = q->tp;
	double h = m->hidden;
	double eff = q->gpu->efficiency / (1 + k->gemm_x0 / (h / t) + k->gemm_y0 / (b * s));
	double rate = q->gpu->flops * eff * t;
	double attn_fl = 4 * b * s * s * h;
	double gemm = (gp_layer_flops_fwd(m, b, s) - attn_fl) / rate;
	double att_mem = k->k_att * b * m->heads * s * s / t / q->gpu->hbm_bw;
	double mem = (k->k_rep * b * s * h + 4 * b * s * m->ffn / t) / q->gpu->hbm_bw;
	*core = attn_fl / rate + att_mem;
	return gemm + mem + *core;
}

static void default_layer_time(void *ud, const struct gp_layer_q *q,
			       struct gp_layer_time *out)
{
	const struct gp_default_k *k = kof(ud);
	const struct gp_model *m = &q->sc->model;
	double b = q->sc->job.micro_batch, s = q->sc->job.seq;
	if (q->logits) {
		/* One large GEMM at the ceiling: no recomputation. */
		double f = gp_logits_flops_fwd(m, b, s) /
			   (q->gpu->flops * q->gpu->efficiency * q->tp);
		*out = (struct gp_layer_time){ f, f, f };
		return;
	}
	double core, c = layer_compute(k, q, &core);
	double ar = tp_allreduce(k, q, 2 * b * s * m->hidden);
	double f = c + 2 * ar;
	double re = q->recompute == GP_RC_FULL ? f :
		    q->recompute == GP_RC_SELECTIVE ? core : 0;
	/* Backward = 2 x forward: B (input gradient, with the TP
	 * all-reduces and the recomputation) and W (weight gradient). */
	out->f = f;
	out->b = c + 2 * ar + re;
	out->w = c;
}

/* Korthikanti's stored activations; W keeps the GEMM inputs, never more
 * than the layer stores. The logits layer keeps its fp32 logits, s x b x
 * V / t, until its backward. */
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
	out->act = gp_layer_act_bytes(m, b, s, q->tp, q->recompute);
	out->wact = gp_layer_wact_bytes(m, b, s, q->tp);
	if (out->wact > out->act)
		out->wact = out->act;
}

/* Mixed-precision Adam (Rajbhandari et al.): 16-bit weights and
 * gradients on every replica, fp32 master, momentum and variance (12 B)
 * sharded by ZeRO-1. */
static void default_state_memory(void *ud, const struct gp_scenario *sc,
				 struct gp_state_mem *out)
{
	(void)ud;
	(void)sc;
	*out = (struct gp_state_mem){ 4, 12 };
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

double gp_dp_sync_wan_bytes(const struct gp_sync_q *q)
{
	if (q->dcs <= 1 || q->replicas <= 1)
		return 0;
	int ranks = q->mode == GP_SYNC_HIER ? q->dcs : q->replicas;
	return 2.0 * (ranks - 1) / ranks * q->bytes / q->every;
}

double gp_dp_sync_time(const struct gp_sync_q *q)
{
	double shard = q->bytes / q->tp;
	if (q->replicas <= 1)
		return 0;
	if (q->dcs <= 1)
		return gp_ring_allreduce(shard, q->replicas, q->local_bw, q->local_lat);
	int ranks = q->mode == GP_SYNC_HIER ? q->dcs : q->replicas;
	double wan = 2.0 * (ranks - 1) * q->wan_lat / q->every +
		     gp_dp_sync_wan_bytes(q) / q->wan_bw;
	if (q->mode != GP_SYNC_HIER)
		return wan;
	return gp_ring_allreduce(shard, q->local, q->local_bw, q->local_lat) + wan;
}

/* Adam is memory bound: per parameter it reads and writes fp32 master,
 * momentum and variance, reads the gradient and writes the 16-bit weight
 * (28 bytes by count; OPT_BYTES fitted). */
static double default_optimizer(void *ud, const struct gp_gpu *g, double params)
{
	return params * kof(ud)->opt_bytes / g->hbm_bw;
}

/* The default model reserves nothing: it predicts what the job's tensors
 * take, and leaves the runtime's own share to a calibrated model. */
static double default_reserve(void *ud, const struct gp_layer_q *q)
{
	(void)ud;
	(void)q;
	return 0;
}

static const struct gp_cost_ops default_ops = {
	.layer_time = default_layer_time,
	.layer_memory = default_layer_memory,
	.state_memory = default_state_memory,
	.optimizer_time = default_optimizer,
	.p2p = default_p2p,
	.allreduce = default_allreduce,
	.reserve = default_reserve,
};

const struct gp_cost_model gp_default_cost = { &default_ops, NULL };
