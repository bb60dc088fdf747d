/*
 * test_place_tail.c: the placement MILP's data-parallel sync tail term
 * by term against the simulator's (issue 14), on a small case whose
 * tail is WAN-bound: OPT-350M on 4 zones of 32 A100-40 (efficiency
 * 0.096, Sailor's layer times, as samples/p3.lua), links of 2.5 GB/s.
 * The MILP's own plan there is four pipelines of two stages, one per
 * zone, 16 replicas each (D = 64), hierarchical sync over the 4 zones.
 */
#include "testutil.h"
#include "cost.h"
#include "planner.h"
#include "sim.h"

static const char *const zones4 =
	"return { gpus = { ['A100-40'] = { efficiency = 0.096 } }, dcs = {"
	" { name = 'a', pools = { { gpu = 'A100-40', count = 32, per_node = 4, network = Gbps(12.5) } } },"
	" { name = 'b', pools = { { gpu = 'A100-40', count = 32, per_node = 4, network = Gbps(12.5) } } },"
	" { name = 'c', pools = { { gpu = 'A100-40', count = 32, per_node = 4, network = Gbps(12.5) } } },"
	" { name = 'd', pools = { { gpu = 'A100-40', count = 32, per_node = 4, network = Gbps(12.5) } } } },"
	" links = { { 'a', 'b', bandwidth = GBps(2.5), latency = ms(1) },"
	"  { 'a', 'c', bandwidth = GBps(2.5), latency = ms(1) }, { 'a', 'd', bandwidth = GBps(2.5), latency = ms(1) },"
	"  { 'b', 'c', bandwidth = GBps(2.5), latency = ms(1) }, { 'b', 'd', bandwidth = GBps(2.5), latency = ms(1) },"
	"  { 'c', 'd', bandwidth = GBps(2.5), latency = ms(1) } },"
	" model = 'OPT-350M', job = { seq = 2048, global_batch = 256, micro_batch = 1, recompute = 'none' } }";

/* The terms, each against a closed form from the scenario's numbers:
 * - buckets: sim.c's add_buckets makes buckets of whole layers holding
 *   at least max(40M, 1M x D) parameters of a GPU's shard, D the plan's
 *   replicas (64, so 40M: 4 layers of 12.6M), so a stage of n layers
 *   syncs ceil(n / 4) buckets, each a reduce-scatter and an all-gather
 *   span on its row. (The MILP's barrier once sized them for its
 *   option's least replicas d.)
 * - WAN: each edge of the 4-zone ring carries 2 (4 - 1) / 4 of all the
 *   gradients, W = 1.5 x 2 B x 405.0M / 2.5 GB/s = 0.486 s of link time,
 *   whatever the stages.
 * - the tail: both stages' channels share the ring, so the link idles
 *   only while neither has a transfer on it; the lockstep form (a
 *   stage's sync ends no earlier than all its buckets' local phases
 *   plus W after the first bucket, which pm_class_tail must assume) put
 *   the MILP's estimate of its own plan at +5.9 % of the simulated
 *   1.021 s; its estimate (pm_flow) is now +1.0 %. */
static void test_tail_terms(void **state)
{
	(void)state;
	struct gp_scenario *s = scen("%s", zones4);
	struct gp_plan_opts o = { .time_limit = 30 };
	struct gp_plan p;
	struct gp_plan_report r;
	struct gp_err e = { "" };
	if (gp_plan_milp(s, &o, &p, &r, &e))
		fail_msg("milp: %s", e.msg);
	int D = 0;
	for (int i = 0; i < p.npipes; i++) {
		D += p.pipes[i].replicas;
		assert_int_equal(p.pipes[i].nstages, 2);
		assert_int_equal(p.pipes[i].stages[0].dc, p.pipes[i].stages[1].dc);
	}
	assert_int_equal(D, 64);
	struct gp_sim_opts so = { .record = true };
	struct gp_result res;
	if (gp_simulate(s, &p, &so, &res, &e))
		fail_msg("sim: %s", e.msg);
	assert_true(res.fits);
	/* Buckets: 2 local spans each. */
	double Lp = gp_layer_params(&s->model), Ep = gp_embedding_params(&s->model);
	for (int d = 0; d < res.ndevs; d++) {
		const struct gp_stage *st = &p.pipes[res.devs[d].pipeline].stages[res.devs[d].stage];
		int n = st->last - st->first + 1;
		double shard = (n * Lp + (st->first == 1 ? Ep : 0) +
				(st->last == s->model.layers ? Ep : 0)) / n / st->tp;
		int g = (int)fmin(n, ceil(fmax(40e6, 1e6 * D) / shard)), nb = (n + g - 1) / g, spans = 0;
		for (int64_t i = 0; i < res.nspans; i++)
			spans += res.spans[i].row == d && res.spans[i].kind == GP_SPAN_SYNC;
		assert_int_equal(spans, 2 * nb);
	}
	/* The WAN ring's work per edge. */
	double G = gp_grad_reduce_bytes(&s->job) * (s->model.layers * Lp + 2 * Ep);
	double W = 2.0 * 3 / 4 * G / 2.5e9;
	int edges = 0;
	for (int l = 0; l < res.nlinks; l++)
		if (res.links[l].sync_bytes > 0) {
			edges++;
			assert_true(fabs(res.links[l].busy - W) <= 1e-6 * W);
		}
	assert_int_equal(edges, 4);
	double t = res.iteration_time;
	printf("# 4 zones: W %.4f s a link, simulated %.4f s (compute %.4f s), estimate %.4f s (%+.2f %%)\n",
	       W, t, res.compute_end, r.estimate_s, 100 * (r.estimate_s / t - 1));
	assert_true(fabs(r.estimate_s - t) <= 0.015 * t);
	gp_result_free(&res);
	gp_plan_free(&p);
	gp_scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tail_terms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
