/*
 * test_cost.c: FLOP, parameter and memory counts of two catalog models
 * against values worked out by hand, for each training-stack feature
 * and with the features off (Korthikanti et al.'s closed forms); a
 * block's time part by part and feature by feature; the 22B layer of
 * Korthikanti et al., Table 4, against its measured times; and the
 * all-reduce times the simulator produces against the closed forms of
 * geoplan-scenario(5).
 */
#include <math.h>
#include "testutil.h"
#include "cost.h"
#include "costtab.h"
#include "sim.h"

static struct gp_model model_of(const char *name)
{
	struct gp_scenario *s = scen(
		"return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 8 } } } },"
		" model = '%s', job = { seq = 2048, global_batch = 8 } }", name);
	struct gp_model m = s->model;
	gp_scenario_free(s);
	return m;
}

/* GPT-3 175B: h = 12288, 96 heads, f = 4h, MHA.
 * Layer parameters 12h^2 + 2h = 12 * 150994944 + 24576 = 1811963904.
 * Whole model: 96 layers + 2 embeddings (50257 x 12288 each)
 * = 173948534784 + 1235116032 = 175183650816 (the "175B").
 * Forward FLOPs, b = 1, s = 2048: 24bsh^2 + 4bs^2h
 * = 24 * 2048 * 150994944 + 4 * 4194304 * 12288 = 7421703487488 + 206158430208.
 * Activations, t = 8, no recomputation (Korthikanti et al., equations 2
 * and 5), materialised attention: with sequence parallelism sbh(34 +
 * 5as/h)/t = 2048 * 12288 * (34 + 80) / 8 = 358612992 bytes; without,
 * sbh(10 + 24/t + 5as/(ht)) = 25165824 * (10 + 3 + 10) = 578813952.
 * Flash attention drops the scores: 34sbh/t = 106954752 (selective
 * recomputation the same); FP8 GEMM inputs in one byte: sbh(8 + 20)/t.
 * Full recomputation: 2sbh, split by sequence parallelism. */
static void test_gpt3_counts(void **state)
{
	(void)state;
	struct gp_model m = model_of("GPT-3-175B");
	assert_close(gp_layer_params(&m), 1811963904.0, 1e-12);
	assert_close(96 * gp_layer_params(&m) + 2 * gp_embedding_params(&m),
		     175183650816.0, 1e-12);
	assert_close(gp_layer_flops_fwd(&m, 1, 2048), 7421703487488.0 + 206158430208.0, 1e-12);
	assert_close(gp_logits_flops_fwd(&m, 1, 2048), 2.0 * 2048 * 12288 * 50257, 1e-12);
	struct gp_job mat = { .seq = 2048, .micro_batch = 1, .attention = GP_ATT_MATERIALISED,
			      .sequence_parallel = true };
	double sbh = 2048.0 * 12288;
	assert_close(gp_layer_act_job(&m, &mat, 8, GP_RC_NONE), 358612992.0, 1e-12);
	assert_close(gp_layer_act_job(&m, &mat, 8, GP_RC_SELECTIVE), 34 * sbh / 8, 1e-12);
	assert_close(gp_layer_act_job(&m, &mat, 8, GP_RC_FULL), 2 * sbh / 8, 1e-12);
	mat.sequence_parallel = false;
	assert_close(gp_layer_act_job(&m, &mat, 8, GP_RC_NONE), 578813952.0, 1e-12);
	assert_close(gp_layer_act_job(&m, &mat, 8, GP_RC_SELECTIVE), sbh * (10 + 3), 1e-12);
	assert_close(gp_layer_act_job(&m, &mat, 8, GP_RC_FULL), 2 * sbh, 1e-12);
	/* Today's stack: flash attention, sequence parallelism. */
	assert_close(gp_layer_act_bytes(&m, 1, 2048, 8, GP_RC_NONE), 106954752.0, 1e-12);
	assert_close(gp_layer_act_bytes(&m, 1, 2048, 8, GP_RC_SELECTIVE), 106954752.0, 1e-12);
	struct gp_job fp8 = { .seq = 2048, .micro_batch = 1, .sequence_parallel = true,
			      .precision = GP_PREC_FP8 };
	assert_close(gp_layer_act_job(&m, &fp8, 8, GP_RC_NONE), sbh * 28 / 8, 1e-12);
}

/* Llama-3-70B: h = 8192, 64 heads, 8 KV heads, f = 28672 gated.
 * Layer parameters h(h + 2h/8) + h^2 + 3hf + 2h
 * = 83886080 + 67108864 + 704643072 + 16384 = 855654400;
 * 80 layers + 2 x 128256 x 8192 = 68452352000 + 2101346304 = 70553698304.
 * Forward FLOPs, b = 1, s = 4096: 2bsh(h + h/4) + 2bsh^2 + 4bs^2h + 6bshf
 * = 687194767360 + 549755813888 + 549755813888 + 5772436045824. */
static void test_llama70b_counts(void **state)
{
	(void)state;
	struct gp_model m = model_of("Llama-3-70B");
	assert_close(gp_layer_params(&m), 855654400.0, 1e-12);
	assert_close(80 * gp_layer_params(&m) + 2 * gp_embedding_params(&m),
		     70553698304.0, 1e-12);
	assert_close(gp_layer_flops_fwd(&m, 1, 4096),
		     687194767360.0 + 549755813888.0 + 549755813888.0 + 5772436045824.0, 1e-12);
	/* Activations, flash attention, sequence parallelism, t = 8: outside
	 * the TP split 10 (norm inputs 4, QKV and MLP inputs 4, masks 2);
	 * split Q 2, K and V 4k/a = 0.5, output projection input 2, gated
	 * MLP outputs 2 x 2f/h = 14 and activation 2f/h = 7: 25.5. */
	double sbh = 4096.0 * 8192;
	assert_close(gp_layer_act_bytes(&m, 1, 4096, 8, GP_RC_NONE), sbh * 35.5 / 8, 1e-12);
	/* Mixed-precision Adam: 16 bytes a parameter; ZeRO-1 over 8: 4 + 1.5. */
	assert_close(gp_state_bytes_per_param(0, 8), 16, 0);
	assert_close(gp_state_bytes_per_param(1, 8), 5.5, 1e-12);
	assert_close(gp_state_bytes_per_param(1, 1), 16, 0);
}

/* A stage's peak memory is the weights and optimizer state plus the
 * activations 1F1B keeps in flight: S - i micro-batches on stage i. */
static void test_stage_memory(void **state)
{
	(void)state;
	struct gp_scenario *s = scen(
		"return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 64 } } } },"
		" model = 'Llama-3-70B', job = { seq = 4096, global_batch = 16, zero = 0 },"
		" plan = { pipelines = { { micro_batches = 16, stages = {"
		"   { dc = 'a', tp = 8, layers = { 1, 20 } }, { dc = 'a', tp = 8, layers = { 21, 40 } },"
		"   { dc = 'a', tp = 8, layers = { 41, 60 } }, { dc = 'a', tp = 8, layers = { 61, 80 } } } } } } }");
	struct gp_result r;
	struct gp_err e;
	assert_int_equal(gp_simulate(s, &s->plan, NULL, &r, &e), 0);
	double layer = 855654400.0, emb = 128256.0 * 8192;
	/* Every GPU loses the runtime's reserve and the allocator's share. */
	const struct gp_default_k *k = gp_default_constants();
	double reserve = k->reserve + k->frag * 80.0 * 1073741824;
	/* stage 2: 20 layers, 16 bytes each / 8, 3 micro-batches in flight of
	 * 20 x 4096 x 8192 x (10 + 25.5) / 8 bytes (flash, sequence parallel). */
	double act = 20 * 4096.0 * 8192 * 35.5 / 8;
	assert_close(r.devs[1].mem_peak, 20 * layer * 16 / 8 + reserve + 3 * act, 1e-9);
	/* stage 1 also holds the embedding, 4 in flight. */
	assert_close(r.devs[0].mem_peak, (20 * layer + emb) * 16 / 8 + reserve + 4 * act, 1e-9);
	assert_true(r.fits);
	gp_result_free(&r);
	/* Materialised attention keeps the scores, 5as^2b/t more a layer:
	 * that does not fit an 80 GiB H100, and says so. */
	s->job.attention = GP_ATT_MATERIALISED;
	assert_int_equal(gp_simulate(s, &s->plan, NULL, &r, &e), 0);
	act += 20 * 5 * 64 * 4096.0 * 4096 / 8;
	assert_close(r.devs[1].mem_peak, 20 * layer * 16 / 8 + reserve + 3 * act, 1e-9);
	assert_false(r.fits);
	assert_non_null(strstr(r.fit_msg, "pipeline 1 stage 1"));
	gp_result_free(&r);
	gp_scenario_free(s);
}

/* A GPU of round figures, one node of 8, a block of h 4096, 32 heads (8
 * KV), f 16384, seq 2048, micro-batch 1, and the job fields `job`. */
/* A pool of n GPUs of round figures. */
static struct gp_scenario *round_pool(int n, const char *job)
{
	return scen("return { gpus = { X = { tflops = 1e15, fp8_tflops = 2e15, memory = 1e11,"
		    "   hbm_bandwidth = 1e12, nvlink = 1e11, efficiency = 0.5 } },"
		    " dcs = { { name = 'a', pools = { { gpu = 'X', count = %d, per_node = 8 } } } },"
		    " model = { layers = 2, hidden = 4096, heads = 32, kv_heads = 8, ffn = 16384,"
		    "   vocab = 32000 },"
		    " job = { seq = 2048, global_batch = 1%s } }", n, job);
}

/* One GPU: no straggler to wait for, the closed forms as they are. */
static struct gp_scenario *round_gpu(const char *job)
{
	return round_pool(1, job);
}

static struct gp_layer_time layer_of(const struct gp_scenario *s, int tp,
				     enum gp_recompute rc, int logits)
{
	const struct gp_pool *p = &s->dcs[0].pools[0];
	struct gp_layer_q q = { .sc = s, .gpu = &s->gpus[p->gpu], .pool = p, .tp = tp,
				.recompute = rc, .logits = logits };
	struct gp_layer_time t;
	gp_default_cost.ops->layer_time(NULL, &q, &t);
	return t;
}

static void assert_layer(const struct gp_layer_time *t, double f, double b, double w)
{
	assert_close(t->f, f, 1e-12);
	assert_close(t->b, b, 1e-12);
	assert_close(t->w, w, 1e-12);
}

/* A block on TP 4, part by part as cost_default.c states it, and what
 * each stack feature changes: the attention kernel, sequence
 * parallelism, TP overlap, FP8 GEMMs, recomputation; and the logits. */
static void test_block_time_by_parts(void **state)
{
	(void)state;
	const struct gp_default_k *k = gp_default_constants();
	double b = 1, sq = 2048, h = 4096, a = 32, f = 16384, t = 4, bsh = b * sq * h;
	struct gp_scenario *s = round_gpu("");
	double attn = 4 * b * sq * sq * h, fl = gp_layer_flops_fwd(&s->model, b, sq);
	double eff = 0.5 / (1 + k->gemm_x0 / (h / t) + k->gemm_y0 / (b * sq));
	double gemm = (fl - attn) / (1e15 * eff * t);
	/* Flash: the causal half of the scores, its backward FLASH_BWD x. */
	double cf = attn / 2 / (1e15 * 0.5 * k->flash_eff * t), cb = k->flash_bwd * cf;
	double mem = (k->k_rep * bsh / t + 4 * b * sq * f / t) / 1e12;
	double comm = 2 * gp_ring_allreduce(2 * bsh, 4, 1e11 * k->eta_nvlink, k->ring_step);
	double ex = fmax(0, comm - gemm) + k->tp_ov * comm;
	double fwd = gemm + cf + mem + ex;
	struct gp_layer_time x = layer_of(s, 4, GP_RC_NONE, 0);
	assert_layer(&x, fwd, gemm + cb + k->k_bwd * mem + ex, gemm);
	/* Recomputation: selective redoes the attention core, full the
	 * forward. */
	x = layer_of(s, 4, GP_RC_SELECTIVE, 0);
	assert_layer(&x, fwd, gemm + cb + k->k_bwd * mem + ex + cf, gemm);
	x = layer_of(s, 4, GP_RC_FULL, 0);
	assert_layer(&x, fwd, gemm + cb + k->k_bwd * mem + ex + fwd, gemm);
	/* The logits: one GEMM at the ceiling and the cross-entropy. */
	double lg = 2 * bsh * 32000 / (1e15 * 0.5 * t), ce = k->ce_bytes * b * sq * 32000 / t / 1e12;
	x = layer_of(s, 4, GP_RC_NONE, 1);
	assert_layer(&x, lg + ce, lg + ce, lg);
	gp_scenario_free(s);

	/* Materialised: the scores' GEMMs at the GEMM rate, and mask, softmax
	 * and dropout at HBM speed; backward twice the GEMMs. */
	s = round_gpu(", attention = 'materialised'");
	double mg = attn / (1e15 * eff * t), mm = k->k_att * b * a * sq * sq / t / 1e12;
	x = layer_of(s, 4, GP_RC_NONE, 0);
	assert_layer(&x, gemm + mg + mm + mem + ex,
		     gemm + 2 * mg + k->k_bwd * mm + k->k_bwd * mem + ex, gemm);
	gp_scenario_free(s);

	/* Without sequence parallelism the norms and dropouts run on every
	 * rank; the forward's all-reduces are exposed, the backward's (the
	 * QKV and first MLP input gradients) run under those GEMMs' weight
	 * gradients, 2bsh(h + 2hk/a + f) FLOPs, TP_OV of them exposed anyway
	 * (Megatron-LM's asynchronous all-reduce). */
	s = round_gpu(", sequence_parallel = false");
	double rep = (k->k_rep * bsh + 4 * b * sq * f / t) / 1e12;
	double wcol = 2 * bsh * (h + 2 * h * 8 / a + f) / (1e15 * eff * t);
	double exb = fmax(0, comm - wcol) + k->tp_ov * comm;
	x = layer_of(s, 4, GP_RC_NONE, 0);
	assert_layer(&x, gemm + cf + rep + comm, gemm + cb + k->k_bwd * rep + exb, gemm);
	assert_true(exb < comm);
	gp_scenario_free(s);

	/* Sequence parallel without TP overlap: the forward's collectives
	 * exposed, half the backward's (its all-gathers hide under the
	 * input-gradient GEMMs). */
	s = round_gpu(", tp_overlap = false");
	x = layer_of(s, 4, GP_RC_NONE, 0);
	assert_layer(&x, gemm + cf + mem + comm, gemm + cb + k->k_bwd * mem + comm / 2, gemm);
	gp_scenario_free(s);

	/* FP8: the GEMMs at FP8_EFF of the FP8 peak, and K_FP8 bytes for
	 * each element of their inputs cast first: QKV's and fc1's b s h
	 * shard over t (sequence parallel), the projection's b s h / t and
	 * fc2's b s f / t; by hand 4 x 2048 x (2 x 1024 + 1024 + 4096) bytes
	 * at 1 TB/s, 58.7 us, backward K_BWD x. */
	s = round_gpu(", precision = 'fp8'");
	double g8 = (fl - attn) / (2e15 * k->fp8_eff * eff * t);
	double ex8 = fmax(0, comm - g8) + k->tp_ov * comm;
	double c8 = k->k_fp8 * b * sq * (2 * h / t + h / t + f / t) / 1e12;
	assert_close(c8, 4 * 2048.0 * 7168 / 1e12, 1e-15);
	x = layer_of(s, 4, GP_RC_NONE, 0);
	assert_layer(&x, g8 + cf + mem + c8 + ex8, g8 + cb + k->k_bwd * (mem + c8) + ex8, g8);
	/* ... but at the 16-bit rate on a GPU without FP8. */
	s->gpus[s->dcs[0].pools[0].gpu].fp8_flops = 0;
	x = layer_of(s, 4, GP_RC_NONE, 0);
	assert_close(x.w, gemm, 1e-12);
	gp_scenario_free(s);
}

/* The unfused cross-entropy (job.cross_entropy = "unfused") on one H100
 * of the catalog (HBM 3.35e12 B/s), micro-batch 1, s 4096, V 131072, TP
 * 1: 536870912 logits; Megatron-Core's cross_entropy.py moves 38 bytes a
 * logit forward and 14 backward on top of the fused kernel's, by hand
 * 20401094656 B / 3.35e12 B/s = 6.0898790 ms and 7516192768 B / 3.35e12
 * B/s = 2.2436396 ms. The weight gradient and the memory (the fp32
 * softmax, 4 B a logit) do not change; neither do the blocks. */
static void test_cross_entropy(void **state)
{
	(void)state;
	const char *fmt = "return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 1 } } } },"
			  " model = { layers = 2, hidden = 4096, heads = 32, vocab = 131072 },"
			  " job = { seq = 4096, global_batch = 1%s } }";
	struct gp_scenario *fu = scen(fmt, ""), *un = scen(fmt, ", cross_entropy = 'unfused'");
	assert_int_equal(fu->job.cross_entropy, GP_CE_FUSED);
	assert_int_equal(un->job.cross_entropy, GP_CE_UNFUSED);
	assert_close(un->gpus[un->dcs[0].pools[0].gpu].hbm_bw, 3.35e12, 1e-15);
	struct gp_layer_time a = layer_of(fu, 1, GP_RC_NONE, 1), c = layer_of(un, 1, GP_RC_NONE, 1);
	assert_close(c.f - a.f, 6.0898790e-3, 1e-7);
	assert_close(c.b - a.b, 2.2436396e-3, 1e-7);
	assert_close(c.w, a.w, 1e-15);
	struct gp_layer_mem ma, mc;
	const struct gp_pool *p = &un->dcs[0].pools[0];
	struct gp_layer_q q = { .sc = un, .gpu = &un->gpus[p->gpu], .pool = p, .tp = 1, .logits = 1 };
	gp_default_cost.ops->layer_memory(NULL, &q, &mc);
	q.sc = fu;
	gp_default_cost.ops->layer_memory(NULL, &q, &ma);
	assert_close(mc.act, 4 * 536870912.0, 1e-15);
	assert_close(ma.act, mc.act, 1e-15);
	a = layer_of(fu, 1, GP_RC_NONE, 0);
	c = layer_of(un, 1, GP_RC_NONE, 0);
	assert_layer(&c, a.f, a.b, a.w);
	gp_scenario_free(fu);
	gp_scenario_free(un);
}

/* The straggler term: a plan on N GPUs takes every layer time at the
 * pace of the slowest, 1 + JITTER sqrt(2 ln N) (sqrt(2 ln 8) = 2.0393,
 * sqrt(2 ln 2048) = 3.9050) times the one GPU's, which is what the
 * tables hold whatever the pool's size; n <= 0 is the pool's count (the
 * planners' view); one GPU waits for none. */
static void test_straggler(void **state)
{
	(void)state;
	const struct gp_default_k *k = gp_default_constants();
	struct gp_err e = { "" };
	struct gp_scenario *one = round_gpu("");
	const int ns[] = { 2, 8, 2048 };
	const double z[] = { 1.1774100225154747, 2.039333980337618, 3.905027269087733 };
	for (int i = 0; i < 3; i++) {
		struct gp_scenario *s = round_pool(ns[i], "");
		struct gp_costtab *ct = gp_costtab_new(s, NULL, &e);
		assert_non_null(ct);
		for (int lg = 0; lg < 2; lg++) {
			struct gp_layer_time a = layer_of(one, 4, GP_RC_FULL, lg);
			struct gp_layer_time x = layer_of(s, 4, GP_RC_FULL, lg);
			assert_layer(&x, a.f, a.b, a.w);
		}
		double f = 1 + k->jitter * z[i];
		assert_close(gp_costtab_pace(ct, 0, 0, ns[i]), f, 1e-12);
		assert_close(gp_costtab_pace(ct, 0, 0, 0), f, 1e-12);
		assert_close(gp_costtab_pace(ct, 0, 0, 1), 1, 1e-15);
		gp_costtab_free(ct);
		gp_scenario_free(s);
	}
	gp_scenario_free(one);
	assert_true(k->jitter > 0.01 && k->jitter < 0.05);
}

/* One stage of TP 8 with R replicas on a pool of `count` H100s, the DP
 * sync after the compute (not overlapped). */
static struct gp_result idle_run(int count, int R)
{
	struct gp_scenario *s = scen(
		"return { dcs = { { name = 'ams', pools = { { gpu = 'H100', count = %d } } } },"
		" model = 'GPT-3-XL', job = { seq = 2048, global_batch = %d, zero = 0,"
		"   sync = { overlap = false } },"
		" plan = { pipelines = { { micro_batches = 2, replicas = %d, stages = {"
		"   { dc = 'ams', tp = 8, layers = { 1, 24 } } } } } } }", count, 2 * R, R);
	struct gp_result r;
	struct gp_err e;
	assert_int_equal(gp_simulate(s, &s->plan, NULL, &r, &e), 0);
	gp_scenario_free(s);
	return r;
}

/* Trial finding N1: idle GPUs added to the DC do not slow a fixed plan
 * (the straggler's N is the plan's 16 GPUs, not the pool's 80), and the
 * term still grows with the plan's own DP size: 10 replicas on the same
 * 80 take the compute 1 + J sqrt(2 ln 80) against 1 + J sqrt(2 ln 16)
 * of 2 replicas' (J = JITTER; the work per GPU is the same). */
static void test_idle_gpus(void **state)
{
	(void)state;
	struct gp_result a = idle_run(16, 2), b = idle_run(80, 2), c = idle_run(80, 10);
	assert_true(a.iteration_time == b.iteration_time);
	assert_true(a.compute_end == b.compute_end);
	double j = gp_default_constants()->jitter;
	double grow = (1 + j * sqrt(2 * log(80))) / (1 + j * sqrt(2 * log(16)));
	assert_close(c.compute_end / a.compute_end, grow, 1e-9);
	assert_true(c.iteration_time > a.iteration_time);
	gp_result_free(&a);
	gp_result_free(&b);
	gp_result_free(&c);
}

/* The 22B layer of Korthikanti et al. (h 6144, 64 heads, s 2048, b 4, TP
 * 8 on A100-80; their Megatron-LM materialises the scores and overlaps
 * no TP communication but the backward's asynchronous all-reduces),
 * Table 4: forward 7.7 ms and backward 11.9 ms without recomputation
 * (1.55 times the forward, not twice), 19.5 with full recomputation,
 * 13.2 with selective; sequence parallelism: forward 7.2, backward 11.8.
 * The constants are fitted to whole iterations, not to these: the model
 * gives a backward of 12.00 ms (13.40 when the backward's all-reduces
 * were charged as exposed), 20.30 full, 13.87 selective, 12.29 with
 * sequence parallelism, held within 6 %; the forwards, 8.30 and 7.92
 * ms, carry the eight GPUs' straggler term and NCCL's measured NVLink
 * figure, held within 10 % as before; the ratio of backward to forward
 * between 1.3 and 1.6. */
static void test_korthikanti_layer(void **state)
{
	(void)state;
	const char *fmt = "return { dcs = { { name = 'a', pools = { { gpu = 'A100-80', count = 8 } } } },"
			  " model = { layers = 48, hidden = 6144, heads = 64, vocab = 51200 },"
			  " job = { seq = 2048, global_batch = 4, micro_batch = 4, attention = 'materialised',"
			  "   tp_overlap = false, sequence_parallel = %s } }";
	struct gp_scenario *s = scen(fmt, "false");
	struct gp_layer_time x = layer_of(s, 8, GP_RC_NONE, 0);
	assert_close(x.f, 7.7e-3, 0.1);
	assert_close(x.b + x.w, 11.9e-3, 0.06);
	assert_true(x.b + x.w > 1.3 * x.f && x.b + x.w < 1.6 * x.f);
	x = layer_of(s, 8, GP_RC_FULL, 0);
	assert_close(x.b + x.w, 19.5e-3, 0.06);
	x = layer_of(s, 8, GP_RC_SELECTIVE, 0);
	assert_close(x.b + x.w, 13.2e-3, 0.06);
	gp_scenario_free(s);
	s = scen(fmt, "true");
	x = layer_of(s, 8, GP_RC_NONE, 0);
	assert_close(x.f, 7.2e-3, 0.1);
	assert_close(x.b + x.w, 11.8e-3, 0.06);
	gp_scenario_free(s);
}

/* DP sync without overlap, one stage, R replicas in one DC across nodes:
 * iteration = compute + ring all-reduce + optimizer step. */
static void test_flat_allreduce_time(void **state)
{
	(void)state;
	struct gp_scenario *s = scen(
		"return { dcs = { { name = 'a', pools = { { gpu = 'A100-80', count = 32,"
		"   network = GBps(10), latency = us(20) } } } },"
		" model = 'GPT-3-XL', job = { seq = 2048, global_batch = 4, zero = 0,"
		"   sync = { overlap = false } },"
		" plan = { pipelines = { { micro_batches = 1, replicas = 4, stages = {"
		"   { dc = 'a', tp = 8, layers = { 1, 24 } } } } } } }");
	struct gp_result r;
	struct gp_err e;
	assert_int_equal(gp_simulate(s, &s->plan, NULL, &r, &e), 0);
	struct gp_model *m = &s->model;
	double params = 24 * gp_layer_params(m) + 2 * gp_embedding_params(m);
	double shard = params * 2 / 8;  /* bf16 gradients, one TP rank's share */
	/* 4 replicas of TP 8 fill 4 nodes: one rank per node per ring, one NIC. */
	double ar = 2 * 3 * 20e-6 + 2.0 * 3 / 4 * shard / (10e9 * gp_eta_net());
	double opt = r.iteration_time - r.compute_end - ar;
	assert_close(r.devs[0].sync_exposed, ar, 1e-9);
	struct gp_sync_q q = { .bytes = params * 2, .tp = 8, .replicas = 4, .dcs = 1,
			       .local = 4, .local_bw = 10e9 * gp_eta_net(), .local_lat = 20e-6,
			       .mode = GP_SYNC_HIER, .every = 1 };
	assert_close(gp_dp_sync_time(&q), ar, 1e-12);
	assert_true(opt > 0);
	gp_result_free(&r);
	gp_scenario_free(s);
}

/* Hierarchical sync over 2 DCs of 2 replicas each: reduce-scatter inside,
 * the 2-way exchange of all shards over the WAN, all-gather inside:
 * 2 RS_in + 2(k-1) a_wan + 2 (k-1)/k n / b_wan. */
static void test_hierarchical_allreduce_time(void **state)
{
	(void)state;
	struct gp_scenario *s = scen(
		"return { dcs = { { name = 'a', pools = { { gpu = 'A100-80', count = 16,"
		"   network = GBps(10), latency = us(20) } } },"
		"   { name = 'b', pools = { { gpu = 'A100-80', count = 16,"
		"   network = GBps(10), latency = us(20) } } } },"
		" links = { { 'a', 'b', bandwidth = GBps(2), latency = ms(10) } },"
		" model = 'GPT-3-XL', job = { seq = 2048, global_batch = 4, zero = 0,"
		"   sync = { mode = 'hierarchical', overlap = false } },"
		" plan = { pipelines = {"
		"   { micro_batches = 1, replicas = 2, stages = { { dc = 'a', tp = 8, layers = { 1, 24 } } } },"
		"   { micro_batches = 1, replicas = 2, stages = { { dc = 'b', tp = 8, layers = { 1, 24 } } } } } } }");
	struct gp_result r;
	struct gp_err e;
	assert_int_equal(gp_simulate(s, &s->plan, NULL, &r, &e), 0);
	struct gp_model *m = &s->model;
	double n = (24 * gp_layer_params(m) + 2 * gp_embedding_params(m)) * 2;
	/* 2 ranks, 1 NIC each, at the NICs' achieved bandwidth */
	double rs = (1 * 20e-6 + 0.5 * (n / 8) / (10e9 * gp_eta_net()));
	/* Both pipelines' devices send their half of the WAN traffic at once:
	 * per direction n bytes in all, at 2 GB/s. */
	double wan = 2 * 10e-3 + n / 2e9;
	assert_close(r.devs[0].sync_exposed, 2 * rs + wan, 1e-6);
	assert_close(r.wan_bytes, 2 * n, 1e-9);
	assert_close(r.wan_bytes_sync, 2 * n, 1e-9);
	gp_result_free(&r);
	/* Sync every H = 4 steps (local SGD / DiLoCo style): the WAN part,
	 * bytes and latency, is shared over H steps; the local part is not. */
	s->job.sync_every = 4;
	assert_int_equal(gp_simulate(s, &s->plan, NULL, &r, &e), 0);
	assert_close(r.wan_bytes_sync, 2 * n / 4, 1e-9);
	assert_close(r.devs[0].sync_exposed, 2 * rs + wan / 4, 1e-6);
	/* The placement's closed form agrees with the simulated phases. */
	struct gp_sync_q q = { .bytes = n, .tp = 8, .replicas = 4, .dcs = 2, .local = 2,
			       .local_bw = 10e9 * gp_eta_net(), .local_lat = 20e-6, .wan_bw = 2e9,
			       .wan_lat = 10e-3, .mode = GP_SYNC_HIER, .every = 4 };
	assert_close(gp_dp_sync_time(&q), r.devs[0].sync_exposed, 1e-6);
	assert_close(2 * gp_dp_sync_wan_bytes(&q), r.wan_bytes_sync, 1e-9);
	q.every = 1;
	assert_close(gp_dp_sync_time(&q), 2 * rs + wan, 1e-9);
	gp_result_free(&r);
	/* A flat ring over the 4 replicas crosses the WAN at its speed:
	 * 2(D-1) a + 2(D-1)/D n / b on each direction. */
	s->job.sync_every = 1;
	s->job.sync_mode = GP_SYNC_FLAT;
	assert_int_equal(gp_simulate(s, &s->plan, NULL, &r, &e), 0);
	assert_close(r.devs[0].sync_exposed, 2 * 3 * 10e-3 + 2.0 * 3 / 4 * n / 2e9, 1e-6);
	q.mode = GP_SYNC_FLAT;
	assert_close(gp_dp_sync_time(&q), r.devs[0].sync_exposed, 1e-6);
	gp_result_free(&r);
	gp_scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpt3_counts),
		cmocka_unit_test(test_llama70b_counts),
		cmocka_unit_test(test_stage_memory),
		cmocka_unit_test(test_block_time_by_parts),
		cmocka_unit_test(test_cross_entropy),
		cmocka_unit_test(test_straggler),
		cmocka_unit_test(test_idle_gpus),
		cmocka_unit_test(test_korthikanti_layer),
		cmocka_unit_test(test_flat_allreduce_time),
		cmocka_unit_test(test_hierarchical_allreduce_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
