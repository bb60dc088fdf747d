/*
 * test_cost.c: FLOP, parameter and memory counts of two catalog models
 * against values worked out by hand, and the all-reduce times the
 * simulator produces against the closed forms of geoplan-scenario(5).
 */
#include <math.h>
#include "testutil.h"
#include "cost.h"
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
 * Activations, t = 8, no recomputation: sbh(34 + 5as/h)/t
 * = 2048 * 12288 * (34 + 80) / 8 = 358612992 bytes. */
static void test_gpt3_counts(void **state)
{
	(void)state;
	struct gp_model m = model_of("GPT-3-175B");
	assert_close(gp_layer_params(&m), 1811963904.0, 1e-12);
	assert_close(96 * gp_layer_params(&m) + 2 * gp_embedding_params(&m),
		     175183650816.0, 1e-12);
	assert_close(gp_layer_flops_fwd(&m, 1, 2048), 7421703487488.0 + 206158430208.0, 1e-12);
	assert_close(gp_logits_flops_fwd(&m, 1, 2048), 2.0 * 2048 * 12288 * 50257, 1e-12);
	assert_close(gp_layer_act_bytes(&m, 1, 2048, 8, GP_RC_NONE), 358612992.0, 1e-12);
	assert_close(gp_layer_act_bytes(&m, 1, 2048, 8, GP_RC_SELECTIVE),
		     34.0 * 2048 * 12288 / 8, 1e-12);
	assert_close(gp_layer_act_bytes(&m, 1, 2048, 8, GP_RC_FULL), 2.0 * 2048 * 12288, 1e-12);
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
	/* stage 2: 20 layers, 16 bytes each / 8, 3 micro-batches in flight of
	 * 20 x 4096 x 8192 x (34 + 5 x 64 x 4096 / 8192) / 8 bytes. */
	double act = 20 * 4096.0 * 8192 * (34 + 5 * 64 * 4096 / 8192.0) / 8;
	assert_close(r.devs[1].mem_peak, 20 * layer * 16 / 8 + 3 * act, 1e-9);
	/* stage 1 also holds the embedding, 4 in flight. */
	assert_close(r.devs[0].mem_peak, (20 * layer + emb) * 16 / 8 + 4 * act, 1e-9);
	/* It does not fit an 80 GB H100, and says so. */
	assert_false(r.fits);
	assert_non_null(strstr(r.fit_msg, "pipeline 1 stage 1"));
	gp_result_free(&r);
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
		cmocka_unit_test(test_flat_allreduce_time),
		cmocka_unit_test(test_hierarchical_allreduce_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
