/*
 * test_stack.c: what the training stack changes in the simulator, as
 * closed forms: the interleaved schedule's bubble is (S-1)/(v m) of the
 * ideal time; a blocking stage boundary holds its sender for the
 * transfer (p2p_overlap = false) and an overlapped one does not; DP
 * sync that runs under compute slows it by the contention share; a
 * boundary without Megatron's scatter-gather carries t times the bytes
 * per NIC; and the Lua default model sees and follows every stack field.
 */
#include "testutil.h"
#include "cost.h"
#include "costtab.h"
#include "lua_cost.h"
#include "sim.h"

/* Fixed costs: a block takes 1 s forward and 2 s backward, the logits
 * `logits_w` of weight gradient and nothing else, the optimizer nothing;
 * a stage boundary inside a DC takes
 * `hop` seconds; DP collectives as the default model has them, their
 * bandwidth divided by `slow`. */
static double hop, contention, slow = 1, logits_w;

static void fx_layer(void *ud, const struct gp_layer_q *q, struct gp_layer_time *o)
{
	(void)ud;
	*o = q->logits ? (struct gp_layer_time){ 0, 0, logits_w }
			: (struct gp_layer_time){ 1, 2, 0 };
}
static void fx_memory(void *ud, const struct gp_layer_q *q, struct gp_layer_mem *o)
{
	gp_default_cost.ops->layer_memory(ud, q, o);
}
static void fx_state(void *ud, const struct gp_scenario *s, struct gp_state_mem *o)
{
	gp_default_cost.ops->state_memory(ud, s, o);
}
static double fx_opt(void *ud, const struct gp_gpu *g, double n)
{
	(void)ud; (void)g; (void)n;
	return 0;
}
static void fx_p2p(void *ud, const struct gp_channel_q *q, struct gp_comm *o)
{
	(void)ud; (void)q;
	*o = (struct gp_comm){ hop, HUGE_VAL };
}
static void fx_allreduce(void *ud, const struct gp_channel_q *q, struct gp_comm *o)
{
	gp_default_cost.ops->allreduce(ud, q, o);
	o->bw /= slow;
}
static double fx_contention(void *ud, const struct gp_layer_q *q)
{
	(void)ud; (void)q;
	return contention;
}
static const struct gp_cost_ops fx_ops = {
	.layer_time = fx_layer, .layer_memory = fx_memory, .state_memory = fx_state,
	.optimizer_time = fx_opt, .p2p = fx_p2p, .allreduce = fx_allreduce,
	.sync_contention = fx_contention,
};
static const struct gp_cost_model fx = { &fx_ops, NULL };

static double iteration(const struct gp_scenario *s)
{
	struct gp_result r;
	struct gp_err e = { "" };
	struct gp_sim_opts o = { .cost = &fx };
	if (gp_simulate(s, &s->plan, &o, &r, &e))
		fail_msg("%s", e.msg);
	double t = r.iteration_time;
	gp_result_free(&r);
	return t;
}

/* S stages of k layers each, m micro-batches, one DC. */
static struct gp_scenario *pipe_of(int S, int k, int m, const char *sched, int v,
				   const char *job)
{
	char stages[4096] = "";
	for (int i = 0; i < S; i++) {
		size_t l = strlen(stages);
		snprintf(stages + l, sizeof stages - l, "{ dc = 'a', layers = { %d, %d } },",
			 i * k + 1, (i + 1) * k);
	}
	return scen("return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 64 } } } },"
		    " model = { layers = %d, hidden = 1024, heads = 16, vocab = 1000 },"
		    " job = { seq = 1024, global_batch = %d%s },"
		    " plan = { schedule = '%s', chunks = %d, pipelines = {"
		    "   { micro_batches = %d, stages = { %s } } } } }",
		    S * k, m, job, sched, v, m, stages);
}

/* Megatron's interleaved 1F1B with v chunks, equal chunks, free
 * communication: T = m k (t_f + t_b) (1 + (S - 1)/(v m)) (Narayanan et
 * al., SC '21, section 2.2), exactly. */
static void test_interleaved_bubble_exact(void **state)
{
	(void)state;
	hop = 0;
	int Ss[] = { 2, 4, 8 }, vs[] = { 1, 2, 3, 6 };
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++) {
			int S = Ss[i], v = vs[j], m = 2 * S, k = 6;
			struct gp_scenario *s = pipe_of(S, k, m, "interleaved", v, "");
			double ideal = m * k * 3.0;
			assert_close(iteration(s), ideal * (1 + (S - 1.0) / (v * m)), 1e-9);
			gp_scenario_free(s);
		}
}

/* Two stages of one layer, two micro-batches, 1F1B, a 0.5 s boundary.
 * Overlapped: stage 2 runs F0 [1.5, 2.5], B0 [2.5, 4.5], F1 [4.5, 5.5],
 * B1 [5.5, 7.5]; stage 1 F0, F1, B0 [5, 7], B1 [8, 10]: T = 10.
 * Blocking: stage 1 sends F1 at 3 after its F0 send; stage 2 holds to 5
 * after B0, F1 [5, 6], B1 [6, 8] and holds to 8.5; stage 1 B1 [8.5,
 * 10.5]: T = 10.5. */
static void test_blocking_boundary(void **state)
{
	(void)state;
	hop = 0.5;
	struct gp_scenario *s = pipe_of(2, 1, 2, "1f1b", 1, "");
	assert_close(iteration(s), 10, 1e-12);
	s->job.p2p_overlap = false;
	assert_close(iteration(s), 10.5, 1e-12);
	gp_scenario_free(s);
	hop = 0;
}

/* One stage of 8 layers, 2 replicas in one node (ZeRO as given), one
 * micro-batch; in *c its DP ring, in *layer one layer's gradient bytes
 * (the embedding and logits spread over the layers, as the buckets). */
static struct gp_scenario *two_replicas(int zero, struct gp_comm *c, double *layer)
{
	struct gp_scenario *s = scen(
		"return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 8 } } } },"
		" model = { layers = 8, hidden = 2048, heads = 16, vocab = 1000 },"
		" job = { seq = 1024, global_batch = 2, zero = %d },"
		" plan = { pipelines = { { micro_batches = 1, replicas = 2, stages = {"
		"   { dc = 'a', layers = { 1, 8 } } } } } } }", zero);
	struct gp_err e = { "" };
	struct gp_costtab *ct = gp_costtab_new(s, &fx, &e);
	assert_non_null(ct);
	*c = gp_costtab_dp_ring(ct, s, 0, 0, 1, 2);
	gp_costtab_free(ct);
	const struct gp_model *m = &s->model;
	*layer = (8 * gp_layer_params(m) + 2 * gp_embedding_params(m)) * 2 / 8;
	return s;
}

/* One stage of 8 layers, 2 replicas in one node, one micro-batch: the
 * forward runs [0, 8], the backward [8, 24], each layer's gradients a
 * bucket (h 2048: 50M parameters a layer, over Megatron-Core's 40M
 * minimum) synced over NVLink as it is ready, the first seven under
 * compute. Without ZeRO each is an all-reduce of tau seconds: without
 * contention T = 24 + tau; with share c, the compute ends at 24 + 7 c
 * tau, which is later when 7 c > 1. With the distributed optimizer
 * (zero = 1, the default) each is a reduce-scatter, tau / 2, and the
 * parameters' all-gathers (8 of tau / 2) run under the next forward:
 * T = 24 + tau / 2, and with c the compute ends at 24 + c (7 tau / 2 +
 * 4 tau). With the gradients reduced in fp32 the reduce-scatter moves
 * twice the bytes (the all-gather the same 16-bit parameters). */
static void test_sync_contention(void **state)
{
	(void)state;
	hop = 0;
	struct gp_comm c;
	double layer;
	struct gp_scenario *s = two_replicas(0, &c, &layer);
	double tau = gp_ring_allreduce(layer, 2, c.bw, c.lat);
	double rs = c.lat + layer / 2 / c.bw, rs32 = c.lat + layer / c.bw;
	assert_true(tau < 2);
	assert_close(rs, tau / 2, 1e-15);
	contention = 0;
	assert_close(iteration(s), 24 + tau, 1e-9);
	contention = 0.5;
	assert_close(iteration(s), 24 + 7 * 0.5 * tau, 1e-9);
	s->job.zero = 1;
	contention = 0;
	assert_close(iteration(s), 24 + rs, 1e-9);
	contention = 0.5;
	assert_close(iteration(s), 24 + 0.5 * (7 * rs + 8 * rs), 1e-9);
	s->job.grad_reduce = GP_GR_FP32;
	contention = 0;
	assert_close(iteration(s), 24 + rs32, 1e-9);
	contention = 0.5;
	assert_close(iteration(s), 24 + 0.5 * (7 * rs32 + 8 * rs), 1e-9);
	contention = 0;
	gp_scenario_free(s);
}

/* The same stage on a ring 10^5 times slower, 16-bit gradients: each
 * reduce-scatter takes rs > 2 s, so the channel serves the buckets one
 * after another from the first one's 10 s (layer 8's backward): the sync
 * ends at 10 + 8 rs. The all-gathers (8 of rs) start with the next
 * iteration, and its first forward, 8 s, hides only 8 s of them: T = 10
 * + 8 rs + (8 rs - 8); with share c the 8 s hidden cost 8 c more (the
 * compute's own slowdown, 14 c from the reduce-scatters under [10, 24],
 * ends before the sync). */
static void test_gather_exposed(void **state)
{
	(void)state;
	hop = 0;
	slow = 1e5;
	struct gp_comm c;
	double layer;
	struct gp_scenario *s = two_replicas(1, &c, &layer);
	double rs = c.lat + layer / 2 / c.bw;
	assert_true(rs > 2);
	contention = 0;
	assert_close(iteration(s), 10 + 8 * rs + 8 * rs - 8, 1e-6);
	contention = 0.5;
	assert_close(iteration(s), 10 + 8 * rs + 8 * rs - 8 + 0.5 * 8, 1e-6);
	contention = 0;
	slow = 1;
	gp_scenario_free(s);
}

/* Two stages of one layer, two micro-batches, 1F1B, free boundaries, the
 * logits' W taking L. Without deferral stage 2 runs F0 [1, 2], B0 [2, 4 +
 * L], F1, B1 [5 + L, 7 + 2L], and stage 1 B1 [7 + 2L, 9 + 2L]: T = 9 +
 * 2L. With micro-batch 1's W deferred (defer_embedding_wgrad = 1) stage
 * 2's B0 ends at 4, B1 at 7 + L, its flush W at 7 + 2L, stage 1's B1 at 9
 * + L; with both, B1 ends at 7, stage 1 at 9, the flush at 7 + 2L:
 * T = max(9, 7 + 2L). One stage has no flush: nothing moves. The last
 * stage keeps each deferred micro-batch's logits gradient and input,
 * b s (V / t + h) 16-bit values, until then. */
static void test_defer_logits_wgrad(void **state)
{
	(void)state;
	hop = 0;
	double Ls[] = { 0.5, 1.5 };
	for (int i = 0; i < 2; i++) {
		double L = logits_w = Ls[i];
		struct gp_scenario *s = pipe_of(2, 1, 2, "1f1b", 1, "");
		assert_close(iteration(s), 9 + 2 * L, 1e-12);
		s->job.defer_wgrad = 1;
		assert_close(iteration(s), fmax(9 + L, 7 + 2 * L), 1e-12);
		s->job.defer_wgrad = 2;
		assert_close(iteration(s), fmax(9, 7 + 2 * L), 1e-12);
		s->job.defer_wgrad = 22;   /* at most every micro-batch */
		assert_close(iteration(s), fmax(9, 7 + 2 * L), 1e-12);
		double peak[2];
		for (int d = 0; d < 2; d++) {
			struct gp_result r;
			struct gp_err e = { "" };
			struct gp_sim_opts o = { .cost = &fx };
			s->job.defer_wgrad = d;
			assert_int_equal(gp_simulate(s, &s->plan, &o, &r, &e), 0);
			peak[d] = r.devs[1].mem_peak;
			gp_result_free(&r);
		}
		assert_close(peak[1] - peak[0], 1024.0 * (1000 + 1024) * 2, 1e-3);
		gp_scenario_free(s);
		s = pipe_of(1, 2, 2, "1f1b", 1, ", defer_embedding_wgrad = 2");
		assert_close(iteration(s), 2 * (2 * 3 + L), 1e-12);
		gp_scenario_free(s);
	}
	logits_w = 0;
}

/* A boundary between two TP-4 stages on a pool with 400 Gbit/s NICs:
 * with Megatron's scatter-gather each rank sends 1/4 of the 2bsh bytes
 * over its own NIC, lat + 2bsh / (4 bw); without it (p2p_scatter =
 * false, DeepSpeed's pipeline engine) every rank sends all of it, lat +
 * 2bsh / bw, four times the wire time; with sequence parallelism the
 * ranks hold quarters either way. */
static void test_boundary_scatter(void **state)
{
	(void)state;
	static const char *const jobs[] = {
		", sequence_parallel = false", ", sequence_parallel = false, p2p_scatter = false",
		", p2p_scatter = false",
	};
	double t[3], bytes = 2.0 * 2 * 4096 * 8192;
	struct gp_err e = { "" };
	struct gp_comm nic = { 0, 0 };
	for (int i = 0; i < 3; i++) {
		struct gp_scenario *s = scen(
			"return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 16,"
			"   network = Gbps(400) } } } },"
			" model = { layers = 2, hidden = 8192, heads = 64, vocab = 1000 },"
			" job = { seq = 4096, micro_batch = 2, global_batch = 2%s } }", jobs[i]);
		struct gp_costtab *ct = gp_costtab_new(s, NULL, &e);
		assert_non_null(ct);
		nic = gp_costtab_nic(ct, 0, 0);
		assert_close(gp_boundary_bytes(s), bytes, 0);
		t[i] = gp_costtab_intra_p2p(ct, s, 0, 0, 4, 0, 4, bytes);
		gp_costtab_free(ct);
		gp_scenario_free(s);
	}
	assert_close(nic.bw, 50e9 * gp_eta_net(), 1);
	assert_close(t[0], nic.lat + bytes / (4 * nic.bw), 1e-15);
	assert_close(t[1], nic.lat + bytes / nic.bw, 1e-15);
	assert_close(t[2], t[0], 0);
	assert_true(t[1] - nic.lat > 3.99 * (t[0] - nic.lat));
}

/* scripts/default-model.lua reads every stack field of the layer it is
 * given: for each feature off, its tables are the C model's, bit for
 * bit (blocks and the logits layer), and differ from the defaults'. */
static void test_lua_default_follows_the_stack(void **state)
{
	(void)state;
	static const char *const jobs[] = {
		"", ", attention = 'materialised'", ", sequence_parallel = false",
		", tp_overlap = false", ", precision = 'fp8'", ", optimizer = 'adam-bf16'",
		(", attention = 'materialised', sequence_parallel = false, tp_overlap = false,"
		 "  recompute = 'selective'"),
		", cross_entropy = 'unfused'",
	};
	struct gp_err e = { "" };
	struct gp_lua_cost *lc = gp_lua_cost_load("scripts/default-model.lua", &e);
	if (!lc)
		fail_msg("%s", e.msg);
	double f0 = 0, l0 = 0;
	for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
		struct gp_scenario *s = scen(
			"return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 8 } } } },"
			" model = 'Llama-3-8B', job = { seq = 4096, global_batch = 8%s } }", jobs[i]);
		struct gp_costtab *c = gp_costtab_new(s, NULL, &e);
		struct gp_costtab *l = gp_costtab_new(s, gp_lua_cost_model(lc), &e);
		assert_non_null(c);
		assert_non_null(l);
		for (int rc = GP_RC_NONE; rc <= GP_RC_FULL; rc++)
			assert_memory_equal(gp_costtab_layer(c, 0, 0, 4, rc),
					    gp_costtab_layer(l, 0, 0, 4, rc), sizeof(struct gp_layer_cost));
		assert_memory_equal(gp_costtab_logits(c, 0, 0, 4), gp_costtab_logits(l, 0, 0, 4),
				    sizeof(struct gp_layer_cost));
		const struct gp_layer_cost *x = gp_costtab_layer(c, 0, 0, 4, GP_RC_NONE);
		const struct gp_layer_cost *lg = gp_costtab_logits(c, 0, 0, 4);
		if (i == 0) {
			f0 = x->t.f + x->m.act;
			l0 = lg->t.f + lg->t.b;
		} else if (i == 7) {   /* the loss changes the logits layer only */
			assert_true(x->t.f + x->m.act == f0);
			assert_true(lg->t.f + lg->t.b > l0);
		} else if (i != 5) {   /* the optimizer changes state, not layers */
			assert_true(x->t.f + x->m.act != f0);
		}
		assert_true(gp_costtab_state_bytes(c, 8) == gp_costtab_state_bytes(l, 8));
		assert_true(gp_costtab_reserve(c, 0, 0) == gp_costtab_reserve(l, 0, 0));
		gp_costtab_free(c);
		gp_costtab_free(l);
		gp_scenario_free(s);
	}
	gp_lua_cost_free(lc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interleaved_bubble_exact),
		cmocka_unit_test(test_blocking_boundary),
		cmocka_unit_test(test_sync_contention),
		cmocka_unit_test(test_gather_exposed),
		cmocka_unit_test(test_defer_logits_wgrad),
		cmocka_unit_test(test_boundary_scatter),
		cmocka_unit_test(test_lua_default_follows_the_stack),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
