/*
 * cost.c: the closed forms every cost model shares (cost.h): FLOPs,
 * parameters, stored activations, model state, collectives and the DP
 * gradient sync. The default model built on them, with its fitted
 * constants, is cost_default.c.
 *
 * Sources: FLOPs per layer, Narayanan et al., "Efficient Large-Scale
 * Language Model Training on GPU Clusters Using Megatron-LM", SC '21,
 * section 5.1 (24bsh^2 + 4bs^2h for MHA with f = 4h), generalised to GQA
 * and gated MLPs. Activation memory: Korthikanti et al., "Reducing
 * Activation Recomputation in Large Transformer Models", MLSys '23,
 * sections 4.1-4.2, generalised the same way; flash attention: Dao et
 * al., "FlashAttention", NeurIPS '22, section 3.1 (the s x s scores are
 * never stored). Ring all-reduce: Patarasuk and Yuan, JPDC 69 (2009).
 * Mixed-precision Adam state: Rajbhandari et al., "ZeRO", SC '20,
 * section 3.1.
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

/*
 * Korthikanti et al. count a block's stored 16-bit tensors per token in
 * units of h bytes: outside TP's reach (replicated on every rank unless
 * sequence parallelism splits them) the two norms' inputs (4), the
 * inputs of the QKV and first MLP GEMMs (2 + 2) and two dropout masks
 * (1 + 1), 10 in all; split over the t ranks, Q (2), K and V (4k/a), the
 * output projection's input (2), the first MLP GEMM's outputs (2f/h, two
 * of them gated) and the activation's output (2f/h); materialised
 * attention adds the scores: softmax output, dropout mask and output,
 * 5as/h. For MHA with f = 4h: sbh(10 + 24/t + 5as/(ht)), and with
 * sequence parallelism sbh(34 + 5as/h)/t, their equations 2 and 5.
 * Selective recomputation drops the scores; flash attention never stores
 * them. With FP8 GEMMs, Transformer Engine keeps the GEMM inputs it casts
 * in one byte: the QKV and first MLP inputs and the second MLP's (the
 * output projection's input is also the 16-bit attention output flash
 * attention needs). Full recomputation keeps the block's input, 2sbh
 * (split by sequence parallelism).
 */
double gp_layer_act_job(const struct gp_model *m, const struct gp_job *j, int tp,
			enum gp_recompute rc)
{
	double h = m->hidden, a = m->heads, b = j->micro_batch, s = j->seq;
	double g = m->gated ? 3 : 2, t = tp, rep = j->sequence_parallel ? t : 1;
	if (rc == GP_RC_FULL)
		return 2 * s * b * h / rep;
	double split = 4 + 4 * m->kv_heads / a + 2 * m->ffn * (g - 1) / h + 2 * m->ffn / h;
	double outside = 10;
	if (j->precision == GP_PREC_FP8) {
		outside -= 2;          /* the QKV and first MLP inputs */
		split -= m->ffn / h;   /* the second MLP input */
	}
	double act = s * b * h * (outside / rep + split / t);
	if (j->attention == GP_ATT_MATERIALISED && rc != GP_RC_SELECTIVE)
		act += 5 * a * s * s * b / t;
	return act;
}

/* Today's stack: flash attention, sequence parallelism. */
double gp_layer_act_bytes(const struct gp_model *m, double b, double s, int tp,
			  enum gp_recompute rc)
{
	struct gp_job j = { .seq = s, .micro_batch = b, .sequence_parallel = true };
	return gp_layer_act_job(m, &j, tp, rc);
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

/* Synchronous training waits for the slowest GPU at every TP collective,
 * stage boundary and DP sync; the expected maximum of n draws of
 * N(mu, (jitter mu)^2) is mu (1 + jitter sqrt(2 ln n)) to first order
 * (the Gaussian extreme; Sinha et al., "Not All GPUs Are Created Equal",
 * SC '22, measure the spread). n is the GPUs the plan runs on in a pool: idle GPUs
 * of a pool do not slow it. */
double gp_straggle(double jitter, double n)
{
	return n > 1 ? 1 + jitter * sqrt(2 * log(n)) : 1;
}

double gp_dp_sync_wan_bytes(const struct gp_sync_q *q)
{
	if (q->dcs <= 1 || q->replicas <= 1)
		return 0;
	int ranks = q->mode == GP_SYNC_HIER ? q->dcs : q->replicas;
	return 2.0 * (ranks - 1) / ranks * q->bytes / q->every;
}

double gp_grad_reduce_bytes(const struct gp_job *j)
{
	return j->grad_reduce == GP_GR_FP32 ? 4 : j->precision_bytes;
}

/* The all-gather of the parameters a shard of gradients stands for: half
 * a ring all-reduce of their 16-bit bytes. */
static double param_gather(const struct gp_job *j, double shard, int p, double bw, double lat)
{
	return gp_ring_allreduce(shard * j->precision_bytes / gp_grad_reduce_bytes(j), p, bw,
				 lat) / 2;
}

double gp_dp_ring_sync(const struct gp_job *j, double shard, int p, double bw, double lat)
{
	double ar = gp_ring_allreduce(shard, p, bw, lat);
	if (!j->zero)
		return ar;
	return ar / 2 + (j->sync_overlap ? 0 : param_gather(j, shard, p, bw, lat));
}

double gp_dp_ring_gather(const struct gp_job *j, double shard, int p, double bw, double lat)
{
	return j->zero && j->sync_overlap ? param_gather(j, shard, p, bw, lat) : 0;
}

double gp_dp_sync_time(const struct gp_sync_q *q)
{
	double shard = q->bytes / q->tp;
	if (q->replicas <= 1)
		return 0;
	if (q->dcs <= 1 && q->job)
		return gp_dp_ring_sync(q->job, shard, q->replicas, q->local_bw, q->local_lat);
	if (q->dcs <= 1)
		return gp_ring_allreduce(shard, q->replicas, q->local_bw, q->local_lat);
	int ranks = q->mode == GP_SYNC_HIER ? q->dcs : q->replicas;
	double wan = 2.0 * (ranks - 1) * q->wan_lat / q->every +
		     gp_dp_sync_wan_bytes(q) / q->wan_bw;
	if (q->mode != GP_SYNC_HIER)
		return wan;
	return gp_ring_allreduce(shard, q->local, q->local_bw, q->local_lat) + wan;
}
