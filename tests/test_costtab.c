/*
 * test_costtab.c: the cost tables hold what the cost model says, an
 * update re-evaluates only what an edit touched, and the simulator
 * given a table never calls the model.
 */
#include "testutil.h"
#include "costtab.h"
#include "sim.h"

/* A model that counts its calls and is the default otherwise. */
static long calls;

static void c_layer(void *ud, const struct gp_layer_q *q, struct gp_layer_time *o)
{
	calls++;
	gp_default_cost.ops->layer_time(ud, q, o);
}
static void c_mem(void *ud, const struct gp_layer_q *q, struct gp_layer_mem *o)
{
	calls++;
	gp_default_cost.ops->layer_memory(ud, q, o);
}
static void c_state(void *ud, const struct gp_scenario *s, struct gp_state_mem *o)
{
	calls++;
	gp_default_cost.ops->state_memory(ud, s, o);
}
static double c_opt(void *ud, const struct gp_gpu *g, double p)
{
	calls++;
	return gp_default_cost.ops->optimizer_time(ud, g, p);
}
static void c_p2p(void *ud, const struct gp_channel_q *q, struct gp_comm *o)
{
	calls++;
	gp_default_cost.ops->p2p(ud, q, o);
}
static void c_ar(void *ud, const struct gp_channel_q *q, struct gp_comm *o)
{
	calls++;
	gp_default_cost.ops->allreduce(ud, q, o);
}
static const struct gp_cost_ops counting_ops = {
	.layer_time = c_layer, .layer_memory = c_mem, .state_memory = c_state,
	.optimizer_time = c_opt, .p2p = c_p2p, .allreduce = c_ar,
};
static const struct gp_cost_model counting = { &counting_ops, NULL };

static struct gp_scenario *two_dcs(void)
{
	return scen("return { dcs = {"
		    "  { name = 'a', pools = { { gpu = 'H100', count = 16 }, { gpu = 'A100-80', count = 8 } } },"
		    "  { name = 'b', pools = { { gpu = 'A100-80', count = 16, network = Gbps(200) } } } },"
		    " links = { { 'a', 'b', bandwidth = Gbps(100), latency = ms(5) } },"
		    " model = 'Llama-3-8B', job = { seq = 4096, global_batch = 64, zero = 1 },"
		    " plan = { pipelines = { { micro_batches = 32, replicas = 2, stages = {"
		    "   { dc = 'a', gpu = 'H100', tp = 4, layers = { 1, 20 } }, { dc = 'b', tp = 4, layers = { 21, 32 } } } } } } }");
}

/* Every entry is the model's own answer to the same question. */
static void test_entries_are_the_model(void **state)
{
	(void)state;
	struct gp_scenario *s = two_dcs();
	struct gp_err e = { "" };
	struct gp_costtab *ct = gp_costtab_new(s, NULL, &e);
	assert_non_null(ct);
	const struct gp_cost_ops *ops = gp_default_cost.ops;
	int tps[] = { 1, 2, 4, 8, 16, 32 };
	for (int d = 0; d < s->ndcs; d++)
		for (int p = 0; p < s->dcs[d].npools; p++) {
			const struct gp_pool *pool = &s->dcs[d].pools[p];
			for (int t = 0; t < 6; t++)
				for (int rc = GP_RC_NONE; rc <= GP_RC_FULL; rc++) {
					struct gp_layer_q q = { .sc = s, .dc = d, .gpu = &s->gpus[pool->gpu], .pool = pool,
								.tp = tps[t], .recompute = rc };
					struct gp_layer_time lt;
					struct gp_layer_mem lm;
					ops->layer_time(NULL, &q, &lt);
					ops->layer_memory(NULL, &q, &lm);
					const struct gp_layer_cost *c = gp_costtab_layer(ct, d, p, tps[t], rc);
					assert_non_null(c);
					assert_true(c->t.f == lt.f && c->t.b == lt.b && c->t.w == lt.w);
					assert_true(c->m.act == lm.act && c->m.wact == lm.wact);
				}
			/* The logits layer keeps its fp32 logits, s b V / t. */
			const struct gp_layer_cost *lg = gp_costtab_logits(ct, d, p, 4);
			assert_close(lg->m.act, 4.0 * 4096 * 1 * 128256 / 4, 1e-12);
			/* 25.6 B per parameter at HBM speed (cost.c). */
			assert_close(gp_costtab_optimizer(ct, d, p, 1e9),
				     1e9 * 25.6 / s->gpus[pool->gpu].hbm_bw, 1e-12);
			struct gp_comm nic = gp_costtab_nic(ct, d, p);
			assert_close(nic.bw, pool->network * gp_eta_net(), 1e-12);
			assert_close(nic.lat, pool->latency, 1e-12);
		}
	/* 32 heads: TP 3 is no divisor, so not tabulated; 32 is. */
	assert_null(gp_costtab_layer(ct, 0, 0, 3, GP_RC_NONE));
	assert_non_null(gp_costtab_layer(ct, 0, 0, 32, GP_RC_NONE));
	assert_null(gp_costtab_layer(ct, 0, 0, 64, GP_RC_NONE));
	struct gp_comm w = gp_costtab_wan(ct, 0);
	assert_close(w.bw, 100e9 / 8, 1e-12);
	assert_close(w.lat, 5e-3, 1e-12);
	/* ZeRO-1 over 4 replicas: 4 + 12 / 4 bytes per parameter. */
	assert_close(gp_costtab_state_bytes(ct, 4), 7, 1e-12);
	assert_close(gp_costtab_state_bytes(ct, 1), 16, 1e-12);
	gp_costtab_free(ct);
	gp_scenario_free(s);
}

/* An edit re-evaluates only the entries whose inputs it changed. */
static void test_update_touches_only_what_changed(void **state)
{
	(void)state;
	struct gp_scenario *s = two_dcs();
	struct gp_err e = { "" };
	struct gp_costtab *ct = gp_costtab_new(s, &counting, &e);
	assert_non_null(ct);
	long full = gp_costtab_evals(ct);
	assert_int_equal(full, calls);
	/* 32 heads: 6 TP degrees; per pool 6 x (3 blocks + logits) x 2
	 * operations + optimizer + NIC + 2 rings; 3 pools, 2 link directions,
	 * the state bytes. */
	assert_int_equal(full, 3 * (6 * 4 * 2 + 4) + 2 + 1);

	/* Batch, price, ZeRO: no cost entry reads them. */
	s->job.global_batch = 128;
	s->gpus[s->dcs[0].pools[0].gpu].price_per_hour = 3;
	s->job.zero = 0;
	assert_int_equal(gp_costtab_update(ct, s, &e), 0);
	assert_int_equal(gp_costtab_evals(ct), full);
	assert_close(gp_costtab_state_bytes(ct, 4), 16, 1e-12);

	/* A pool's count: its entries (the default model's straggler term
	 * reads it; a :set of the count kept the old times). */
	s->dcs[0].pools[0].count = 8;
	assert_int_equal(gp_costtab_update(ct, s, &e), 0);
	long before = full + 6 * 4 * 2 + 4;
	assert_int_equal(gp_costtab_evals(ct), before);

	/* One link direction: one evaluation, the new figure. */
	s->links[1].bandwidth = 1e9;
	assert_int_equal(gp_costtab_update(ct, s, &e), 0);
	assert_int_equal(gp_costtab_evals(ct), before + 1);
	assert_close(gp_costtab_wan(ct, 1).bw, 1e9, 1e-12);
	assert_close(gp_costtab_wan(ct, 0).bw, 100e9 / 8, 1e-12);

	/* One pool's NIC: that pool's entries only. */
	before = gp_costtab_evals(ct);
	s->dcs[1].pools[0].network = 50e9;
	assert_int_equal(gp_costtab_update(ct, s, &e), 0);
	assert_int_equal(gp_costtab_evals(ct), before + 6 * 4 * 2 + 4);
	assert_close(gp_costtab_nic(ct, 1, 0).bw, 50e9 * gp_eta_net(), 1e-12);

	/* A GPU type's efficiency: the pools of that type (two A100 pools). */
	before = gp_costtab_evals(ct);
	s->gpus[s->dcs[1].pools[0].gpu].efficiency = 0.5;
	assert_int_equal(gp_costtab_update(ct, s, &e), 0);
	assert_int_equal(gp_costtab_evals(ct), before + 2 * (6 * 4 * 2 + 4));

	/* The sequence length: everything. */
	before = gp_costtab_evals(ct);
	s->job.seq = 2048;
	assert_int_equal(gp_costtab_update(ct, s, &e), 0);
	assert_int_equal(gp_costtab_evals(ct), before + full);

	/* The cross-entropy kernel (the logits entries read it): everything. */
	before = gp_costtab_evals(ct);
	s->job.cross_entropy = GP_CE_UNFUSED;
	assert_int_equal(gp_costtab_update(ct, s, &e), 0);
	assert_int_equal(gp_costtab_evals(ct), before + full);
	assert_int_equal(gp_costtab_evals(ct), calls);
	gp_costtab_free(ct);
	gp_scenario_free(s);
}

/* Given a table, the simulator (set-up and event loop) calls no
 * cost-model operation, whatever the schedule; and it gets the same
 * iteration as with a table of its own. */
static void test_simulator_reads_only_the_table(void **state)
{
	(void)state;
	struct gp_scenario *s = two_dcs();
	struct gp_err e = { "" };
	struct gp_costtab *ct = gp_costtab_new(s, &counting, &e);
	assert_non_null(ct);
	const char *scheds[] = { "1f1b", "zb-h1", "xdc-greedy", "gpipe" };
	for (int i = 0; i < 4; i++) {
		gp_sched_parse(scheds[i], &s->plan.schedule);
		long before = calls;
		struct gp_sim_opts o = { .costs = ct };
		struct gp_result r, r2;
		assert_int_equal(gp_simulate(s, &s->plan, &o, &r, &e), 0);
		assert_int_equal(calls, before);
		struct gp_sim_opts own = { .cost = &counting };
		assert_int_equal(gp_simulate(s, &s->plan, &own, &r2, &e), 0);
		assert_true(calls > before);
		assert_true(r.iteration_time == r2.iteration_time);
		gp_result_free(&r);
		gp_result_free(&r2);
	}
	/* A table of another shape is refused, not read out of bounds. */
	struct gp_scenario *one = scen("return { dcs = { { name = 'a', pools = {"
				       " { gpu = 'H100', count = 8 } } } }, model = 'Llama-3-8B',"
				       " job = { seq = 4096, global_batch = 8 }, plan = { pipelines = {"
				       " { micro_batches = 8, stages = { { dc = 'a', layers = { 1, 32 } } } } } } }");
	struct gp_sim_opts o = { .costs = ct };
	struct gp_result r;
	assert_int_equal(gp_simulate(one, &one->plan, &o, &r, &e), -1);
	assert_non_null(strstr(e.msg, "another scenario"));
	gp_scenario_free(one);
	gp_costtab_free(ct);
	gp_scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries_are_the_model),
		cmocka_unit_test(test_update_touches_only_what_changed),
		cmocka_unit_test(test_simulator_reads_only_the_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
