/*
 * test_unused.c: what a plan leaves idle and why (unused.c): on three
 * DCs of which the plan uses two, each reason the scenario can give for
 * the third (a slower link, with the figures; a latency of seconds; no
 * link; gradients too slow for an iteration, in bytes and seconds worked
 * out here from the model's shape), and a pool used in part: replicas
 * that do not fit in what is left of it or of another pool, or room;
 * a pool of a DC in use with no stage, whose GPU holds less than any
 * GPU of the plan; and a budget the plan fills.
 */
#include "testutil.h"
#include "cost.h"
#include "fmt.h"
#include "unused.h"

/* Three DCs of 8 H100; the plan: one pipeline a -> b, 4 GPUs each,
 * unless plan_one_dc (all in a). links: the links table's text. */
static struct gp_scenario *three(const char *links, bool plan_one_dc)
{
	return scen("return { dcs = {\n"
		    "  { name = 'a', pools = { { gpu = 'H100', count = 8 } } },\n"
		    "  { name = 'b', pools = { { gpu = 'H100', count = 8 } } },\n"
		    "  { name = 'c', pools = { { gpu = 'H100', count = 8 } } } },\n"
		    " links = { %s },\n"
		    " model = 'OPT-350M', job = { seq = 2048, global_batch = 8 },\n"
		    " plan = { pipelines = { { micro_batches = 8, stages = {\n"
		    "  { dc = 'a', tp = 4, layers = { 1, 12 } }, { dc = '%s', tp = 4, layers = { 13, 24 } } } } } } }",
		    links, plan_one_dc ? "a" : "b");
}

/* The reasons for s's plan, simulated; *n entries. */
static struct gp_unused *find(struct gp_scenario *s, int *n, struct gp_result *r)
{
	struct gp_sim_opts o = { 0 };
	struct gp_err e = { "" };
	if (gp_simulate(s, &s->plan, &o, r, &e))
		fail_msg("%s", e.msg);
	struct gp_unused *u;
	assert_int_equal(gp_unused_find(s, &s->plan, r, &u, n), 0);
	return u;
}

static void test_slower_link(void **state)
{
	(void)state;
	struct gp_scenario *s = three("{ 'a', 'b', bandwidth = Gbps(100), latency = ms(4) },"
				      "{ 'a', 'c', bandwidth = Gbps(10), latency = ms(4) },"
				      "{ 'b', 'c', bandwidth = Gbps(40), latency = ms(4) }", false);
	struct gp_result r;
	int n;
	struct gp_unused *u = find(s, &n, &r);
	assert_int_equal(n, 3);   /* c; and half of a's and b's pools */
	assert_int_equal(u[0].dc, 2);
	assert_int_equal(u[0].pool, -1);
	assert_int_equal(u[0].idle, 8);
	assert_string_equal(u[0].why, "its links to the DCs in use reach 40.0 Gbit/s at best, against 100 Gbit/s on the slowest link the plan uses");
	for (int i = 1; i < 3; i++) {
		assert_int_equal(u[i].dc, i - 1);
		assert_int_equal(u[i].pool, 0);
		assert_int_equal(u[i].idle, 4);
		assert_int_equal(u[i].count, 8);
		/* room for one more replica in both: the planner's choice, no reason */
		assert_string_equal(u[i].why, "");
	}
	free(u);
	gp_result_free(&r);
	gp_scenario_free(s);
}

/* Two replicas of a -> a -> b: TP 2 twice on a's pool of na GPUs (nodes
 * of 2), TP 4 on b's of nb. */
static struct gp_scenario *two_replicas(int na, int nb)
{
	return scen("return { dcs = {\n"
		    "  { name = 'a', pools = { { gpu = 'H100', count = %d, per_node = 2 } } },\n"
		    "  { name = 'b', pools = { { gpu = 'H100', count = %d, per_node = 4 } } } },\n"
		    " links = { { 'a', 'b', bandwidth = Gbps(100), latency = ms(4) } },\n"
		    " model = 'OPT-350M', job = { seq = 2048, global_batch = 8 },\n"
		    " plan = { pipelines = { { micro_batches = 4, replicas = 2, stages = {\n"
		    "  { dc = 'a', tp = 2, layers = { 1, 8 } }, { dc = 'a', tp = 2, layers = { 9, 16 } },\n"
		    "  { dc = 'b', tp = 4, layers = { 17, 24 } } } } } } }",
		    na, nb);
}

/* Replicas come whole: 2 GPUs left of a are fewer than the 4 a replica
 * takes; 4 left of a, but b full, is b's doing. */
static void test_pool_in_part(void **state)
{
	(void)state;
	struct gp_result r;
	int n;
	struct gp_scenario *s = two_replicas(10, 8);
	struct gp_unused *u = find(s, &n, &r);
	assert_int_equal(n, 1);
	assert_int_equal(u[0].dc, 0);
	assert_int_equal(u[0].idle, 2);
	assert_string_equal(u[0].why, "a replica of the pipelines there takes 4 of its GPUs, more than the 2 left");
	free(u);
	gp_result_free(&r);
	gp_scenario_free(s);
	s = two_replicas(12, 8);
	u = find(s, &n, &r);
	assert_int_equal(n, 1);
	assert_int_equal(u[0].idle, 4);
	assert_string_equal(u[0].why, "one more replica of pipeline 1 would also take 4 GPUs of b/H100, which has 0 left");
	free(u);
	gp_result_free(&r);
	gp_scenario_free(s);
}

/* DC a also has 8 small GPUs the plan leaves alone: "all 8 GPUs, no
 * stage there", and the memory fact when each GPU of the plan holds
 * more than one of them has (not when it would fit). */
static void test_pool_without_stage(void **state)
{
	(void)state;
	const char *mem[] = { "GiB(0.25)", "GiB(64)" };
	for (int k = 0; k < 2; k++) {
		struct gp_scenario *s = scen(
			"return { gpus = { ['V100-16'] = { memory = %s } }, dcs = {\n"
			"  { name = 'a', pools = { { gpu = 'H100', count = 8 }, { gpu = 'V100-16', count = 8 } } },\n"
			"  { name = 'b', pools = { { gpu = 'H100', count = 8 } } } },\n"
			" links = { { 'a', 'b', bandwidth = Gbps(100), latency = ms(4) } },\n"
			" model = 'OPT-350M', job = { seq = 2048, global_batch = 8 },\n"
			" plan = { pipelines = { { micro_batches = 8, stages = {\n"
			"  { dc = 'a', gpu = 'H100', tp = 4, layers = { 1, 12 } },\n"
			"  { dc = 'b', tp = 4, layers = { 13, 24 } } } } } } }",
			mem[k]);
		struct gp_result r;
		int n;
		struct gp_unused *u = find(s, &n, &r);
		assert_int_equal(n, 3);   /* a/H100 and b/H100 half used, a/V100-16 unused */
		int v = u[0].pool == 1 ? 0 : u[1].pool == 1 ? 1 : 2;
		assert_int_equal(u[v].dc, 0);
		assert_int_equal(u[v].idle, 8);
		double least = r.devs[0].mem_peak;
		for (int i = 1; i < r.ndevs; i++)
			least = fmin(least, r.devs[i].mem_peak);
		assert_true(least > 0.25 * 1073741824.0 && least < 64 * 1073741824.0);
		char want[256], a[32], line[512];
		if (k == 0)
			snprintf(want, sizeof want,
				 "the least any GPU of the plan holds is %s, more than a V100-16's 256.0 MiB",
				 gp_fmt_gib(least, a, sizeof a));
		else
			want[0] = '\0';
		assert_string_equal(u[v].why, want);
		gp_unused_text(s, &u[v], line, sizeof line);
		assert_true(strncmp(line, "a/V100-16: all 8 GPUs, no stage there", 37) == 0);
		free(u);
		gp_result_free(&r);
		gp_scenario_free(s);
	}
}

static void test_latency_in_seconds(void **state)
{
	(void)state;
	struct gp_scenario *s = three("{ 'a', 'b', bandwidth = Gbps(100), latency = ms(4) },"
				      "{ 'a', 'c', bandwidth = Gbps(100), latency = 30 }", false);
	struct gp_result r;
	int n;
	struct gp_unused *u = find(s, &n, &r);
	assert_true(n >= 1);
	assert_string_equal(u[0].why, "link a -> c has a latency of 30.0 s: milliseconds written as seconds? ms(30) is 30 ms");
	free(u);
	gp_result_free(&r);
	gp_scenario_free(s);
}

static void test_no_link(void **state)
{
	(void)state;
	struct gp_scenario *s = three("{ 'a', 'b', bandwidth = Gbps(100), latency = ms(4) }", false);
	struct gp_result r;
	int n;
	struct gp_unused *u = find(s, &n, &r);
	assert_string_equal(u[0].why, "no link both ways to a DC the plan uses");
	free(u);
	gp_result_free(&r);
	gp_scenario_free(s);
}

/* The plan stays in a; c's only link to it carries the model's 16-bit
 * gradients in far more than a quarter of the iteration. */
static void test_gradients_too_slow(void **state)
{
	(void)state;
	struct gp_scenario *s = three("{ 'a', 'c', bandwidth = Gbps(1), latency = ms(10) }", true);
	struct gp_result r;
	int n;
	struct gp_unused *u = find(s, &n, &r);
	const struct gp_model *m = &s->model;
	/* OPT-350M: 24 layers, hidden 1024 (catalog). */
	assert_int_equal(m->layers, 24);
	double grad = (24 * gp_layer_params(m) + 2 * gp_embedding_params(m)) * 2;
	double secs = grad / (1e9 / 8) + 0.010;
	char want[384], g[32], t[32], it[32];
	/* How many iterations one sync takes, as a factor past one. */
	snprintf(want, sizeof want, "the model's gradients (%s) take %s over its best link to the DCs in use (1.00 Gbit/s with a), %.3gx an iteration of %s",
		 gp_fmt_bytes(grad, g, sizeof g), gp_fmt_time(secs, 3, t, sizeof t),
		 secs / r.iteration_time, gp_fmt_time(r.iteration_time, 3, it, sizeof it));
	assert_true(secs > 0.25 * r.iteration_time);
	/* b first (no link at all), then c. */
	assert_int_equal(u[0].dc, 1);
	assert_int_equal(u[1].dc, 2);
	assert_string_equal(u[1].why, want);
	free(u);
	gp_result_free(&r);
	gp_scenario_free(s);
	/* One direction faster: the time is the slower one's, and said so. */
	s = three("{ 'a', 'c', bandwidth = Gbps(100), latency = ms(10), reverse = { bandwidth = Gbps(1) } }", true);
	u = find(s, &n, &r);
	snprintf(want, sizeof want, "the model's gradients (%s) take %s over its best link to the DCs in use (1.00 Gbit/s with a, its slower direction), %.3gx an iteration of %s",
		 gp_fmt_bytes(grad, g, sizeof g), gp_fmt_time(secs, 3, t, sizeof t),
		 secs / r.iteration_time, gp_fmt_time(r.iteration_time, 3, it, sizeof it));
	assert_string_equal(u[1].why, want);
	free(u);
	gp_result_free(&r);
	gp_scenario_free(s);
}

/* A budget the plan's GPUs fill: the third DC and the half-used pools
 * are idle because one more GPU would pass it, in the prices' figures
 * (8 GPUs at $2.50 = $20.00/h of a $21.00/h budget, one more $2.50). */
static void test_budget(void **state)
{
	(void)state;
	struct gp_scenario *s = three("{ 'a', 'b', bandwidth = Gbps(100), latency = ms(4) },"
				      "{ 'a', 'c', bandwidth = Gbps(100), latency = ms(4) },"
				      "{ 'b', 'c', bandwidth = Gbps(100), latency = ms(4) }", false);
	s->gpus[s->dcs[0].pools[0].gpu].price_per_hour = 2.5;
	s->budget_usd_per_hour = 21;
	struct gp_result r;
	int n;
	struct gp_unused *u = find(s, &n, &r);
	assert_int_equal(n, 3);
	for (int i = 0; i < 3; i++)
		assert_string_equal(u[i].why, "the plan's GPUs cost $20.00/h of the budget's $21.00/h, and one more here $2.50/h");
	free(u);
	/* Room for one more at $23/h: the budget explains nothing. */
	s->budget_usd_per_hour = 23;
	gp_result_free(&r);
	u = find(s, &n, &r);
	assert_int_equal(n, 3);
	assert_true(strstr(u[0].why, "budget") == NULL);
	free(u);
	gp_result_free(&r);
	gp_scenario_free(s);
	/* A DC with a pool of a GPU type without a price: one more of those
	 * costs the budget nothing, so the budget is not the reason. */
	s = scen("return { gpus = { H100 = { price_per_hour = 2.5 } }, dcs = {\n"
		 "  { name = 'a', pools = { { gpu = 'H100', count = 8 } } },\n"
		 "  { name = 'b', pools = { { gpu = 'A100-80', count = 8 }, { gpu = 'H100', count = 8 } } } },\n"
		 " links = { { 'a', 'b', bandwidth = Gbps(100), latency = ms(4) } },\n"
		 " budget = { usd_per_hour = 21 },\n"
		 " model = 'OPT-350M', job = { seq = 2048, global_batch = 8 },\n"
		 " plan = { pipelines = { { micro_batches = 8, stages = {\n"
		 "  { dc = 'a', tp = 8, layers = { 1, 24 } } } } } } }");
	u = find(s, &n, &r);
	assert_int_equal(n, 1);
	assert_int_equal(u[0].dc, 1);
	assert_true(strstr(u[0].why, "budget") == NULL);
	free(u);
	gp_result_free(&r);
	gp_scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slower_link),
		cmocka_unit_test(test_latency_in_seconds),
		cmocka_unit_test(test_no_link),
		cmocka_unit_test(test_gradients_too_slow),
		cmocka_unit_test(test_pool_in_part),
		cmocka_unit_test(test_pool_without_stage),
		cmocka_unit_test(test_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
