/*
 * cost.c: the default cost model of DOMAIN.md.
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

/* TP all-reduces: 2 in the forward of a block (after attention and after
 * the MLP), 2 in the backward (Megatron-LM, Shoeybi et al. 2019). Inside
 * a node they ride NVLink; a TP group wider than a node crosses the
 * inter-node network, where the ring's channels share the node's NICs. */
static double tp_allreduce(const struct gp_layer_q *q, double bytes)
{
	if (q->tp <= 1)
		return 0;
	const struct gp_pool *p = q->pool;
	if (q->tp <= p->per_node)
		return gp_ring_allreduce(bytes, q->tp, p->nvlink, 5e-6);
	double bw = fmin(p->nvlink, p->network * p->per_node);
	return gp_ring_allreduce(bytes, q->tp, bw, p->latency);
}

static void default_layer_time(void *ud, const struct gp_layer_q *q,
			       struct gp_layer_time *out)
{
	(void)ud;
	const struct gp_model *m = &q->sc->model;
	double b = q->sc->job.micro_batch, s = q->sc->job.seq;
	double rate = q->gpu->flops * q->gpu->efficiency * q->tp;
	if (q->logits) {
		double f = gp_logits_flops_fwd(m, b, s) / rate;
		*out = (struct gp_layer_time){ f, f, f };
		return;
	}
	double fl = gp_layer_flops_fwd(m, b, s);
	double ar = tp_allreduce(q, 2 * b * s * m->hidden);
	double f = fl / rate + 2 * ar;
	double re = 0;
	if (q->recompute == GP_RC_FULL)
		re = f;
	else if (q->recompute == GP_RC_SELECTIVE)
		re = 4 * b * s * s * m->hidden / rate; /* the attention core */
	out->f = f;
	out->b = fl / rate + 2 * ar + re;
	out->w = fl / rate;
}

static double default_p2p(void *ud, double bytes, double bw, double lat)
{
	(void)ud;
	return lat + bytes / bw;
}

double gp_dp_sync_wan_bytes(const struct gp_sync_q *q)
{
	if (q->dcs <= 1 || q->replicas <= 1)
		return 0;
	int ranks = q->mode == GP_SYNC_HIER ? q->dcs : q->replicas;
	return 2.0 * (ranks - 1) / ranks * q->bytes / q->every;
}

double gp_dp_sync_time(const struct gp_cost_model *cm, const struct gp_sync_q *q)
{
	double shard = q->bytes / q->tp;
	if (q->replicas <= 1)
		return 0;
	if (q->dcs <= 1)
		return cm->ops->allreduce_time(cm->ud, shard, q->replicas, q->local_bw,
					       q->local_lat);
	int ranks = q->mode == GP_SYNC_HIER ? q->dcs : q->replicas;
	double wan = 2.0 * (ranks - 1) * q->wan_lat / q->every +
		     gp_dp_sync_wan_bytes(q) / q->wan_bw;
	if (q->mode != GP_SYNC_HIER)
		return wan;
	return cm->ops->allreduce_time(cm->ud, shard, q->local, q->local_bw, q->local_lat) +
	       wan;
}

static double default_allreduce(void *ud, double bytes, int p, double bw,
				double lat)
{
	(void)ud;
	return gp_ring_allreduce(bytes, p, bw, lat);
}

/* Adam is memory bound: per parameter it reads and writes fp32 master,
 * momentum and variance (24 bytes), reads the gradient and writes the
 * bf16 weight (4 bytes). */
static double default_optimizer(void *ud, const struct gp_gpu *g, double params)
{
	(void)ud;
	return params * 28 / g->hbm_bw;
}

static const struct gp_cost_ops default_ops = {
	.layer_time = default_layer_time,
	.p2p_time = default_p2p,
	.allreduce_time = default_allreduce,
	.optimizer_time = default_optimizer,
};

const struct gp_cost_model gp_default_cost = { &default_ops, NULL };
