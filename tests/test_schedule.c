/*
 * test_schedule.c: the task orders of the classic schedules against
 * Megatron-Core's, worked out by hand, and interleaved's micro-batch
 * group (plan.microbatch_group): the order, the rule on its size, and
 * the activation memory its warm-up adds in the simulator.
 */
#include "testutil.h"
#include "schedule.h"
#include "sim.h"

/* Device s's tasks as "F0.0 B0.1 ..." (kind, micro-batch, chunk). */
static void order(const struct gp_schedule *sc, int s, char *out, size_t n)
{
	size_t l = 0;
	out[0] = 0;
	for (int64_t i = sc->off[s]; i < sc->off[s + 1] && l + 16 < n; i++) {
		const struct gp_task *t = &sc->tasks[i];
		l += (size_t)snprintf(out + l, n - l, "%s%c%d.%d", l ? " " : "",
				      t->kind == GP_TASK_F ? 'F' : t->kind == GP_TASK_B ? 'B' : 'W',
				      t->mb, t->chunk);
	}
}

/* S = 2, v = 2, m = 5 in groups of 3: Megatron-Core's get_schedule_table
 * gives (0,0) (1,0) (2,0) (0,1) (1,1) (2,1) | (3,0) (4,0) (3,1) (4,1),
 * the last group the remaining 2 (>= S). Warm-up (get_pp_rank_
 * microbatches): 2 (S - s - 1) + (v - 1) 3 = 5 on device 0, 3 on device
 * 1; then forward k with backward k - warm-up, the backward's chunk
 * reversed. */
static void test_group_order_by_hand(void **state)
{
	(void)state;
	struct gp_schedule sc;
	struct gp_err e = { "" };
	char got[512];
	assert_int_equal(gp_schedule_build(GP_SCHED_INTERLEAVED, 2, 2, 5, 3, &sc, &e), 0);
	order(&sc, 0, got, sizeof got);
	assert_string_equal(got, "F0.0 F1.0 F2.0 F0.1 F1.1 "
				 "F2.1 B0.1 F3.0 B1.1 F4.0 B2.1 F3.1 B0.0 F4.1 B1.0 "
				 "B2.0 B3.1 B4.1 B3.0 B4.0");
	order(&sc, 1, got, sizeof got);
	assert_string_equal(got, "F0.0 F1.0 F2.0 "
				 "F0.1 B0.1 F1.1 B1.1 F2.1 B2.1 F3.0 B0.0 F4.0 B1.0 F3.1 B2.0 F4.1 B3.1 "
				 "B4.1 B3.0 B4.0");
	gp_schedule_free(&sc);
}

/* Group 0 (the default) and group S are Narayanan et al.'s order: the
 * k-th forward is chunk (k / S) % v of micro-batch (k / (S v)) S + k % S,
 * warm-up 2 (S - s - 1) + (v - 1) S. */
static void test_group_default_is_narayanan(void **state)
{
	(void)state;
	int cases[][3] = { { 2, 2, 4 }, { 4, 2, 16 }, { 4, 3, 8 }, { 3, 4, 9 } };
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		int S = cases[c][0], v = cases[c][1], m = cases[c][2];
		for (int g = 0; g <= S; g += S) {
			struct gp_schedule sc;
			struct gp_err e = { "" };
			assert_int_equal(gp_schedule_build(GP_SCHED_INTERLEAVED, S, v, m, g, &sc, &e), 0);
			for (int s = 0; s < S; s++) {
				int64_t tot = (int64_t)m * v, w = 2 * (S - s - 1) + (v - 1) * S;
				w = w < tot ? w : tot;
				int64_t nf = 0, nb = 0;
				for (int64_t i = sc.off[s]; i < sc.off[s + 1]; i++) {
					const struct gp_task *t = &sc.tasks[i];
					int64_t k = t->kind == GP_TASK_F ? nf++ : nb++;
					int ch = (int)(k / S % v);
					assert_int_equal(t->mb, (int)(k / (S * v) * S + k % S));
					assert_int_equal(t->chunk, t->kind == GP_TASK_F ? ch : v - 1 - ch);
					/* Backward k comes after forward k + w. */
					if (t->kind == GP_TASK_B)
						assert_true(nf >= (k + w + 1 < tot ? k + w + 1 : tot));
				}
				assert_int_equal(nf, tot);
				assert_int_equal(nb, tot);
			}
			gp_schedule_free(&sc);
		}
	}
}

/* Megatron-Core's rule: S <= group <= m, the last group 0 or >= S. */
static void test_group_rule(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	assert_int_equal(gp_group_check(4, 10, 5, &e), 0);
	assert_int_equal(gp_group_check(4, 10, 6, &e), 0);     /* 6 + 4 */
	assert_int_equal(gp_group_check(4, 10, 10, &e), 0);
	assert_int_equal(gp_group_check(4, 10, 7, &e), -1);    /* 7 + 3 */
	assert_non_null(strstr(e.msg, "last group of 3"));
	assert_int_equal(gp_group_check(4, 10, 3, &e), -1);
	assert_int_equal(gp_group_check(4, 10, 11, &e), -1);
	assert_int_equal(gp_group_check(4, 10, 0, &e), -1);    /* groups of 4: 4 + 4 + 2 */
	assert_non_null(strstr(e.msg, "multiple of the 4 stages"));
	assert_int_equal(gp_group_check(4, 12, 0, &e), 0);
}

static struct gp_scenario *four_stages(int m, int group)
{
	char g[64] = "";
	if (group)
		snprintf(g, sizeof g, "microbatch_group = %d,", group);
	return scen("return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 64 } } } },"
		    " model = { layers = 32, hidden = 2048, heads = 16, vocab = 1000 },"
		    " job = { seq = 2048, global_batch = %d },"
		    " plan = { schedule = 'interleaved', chunks = 2, %s pipelines = {"
		    "  { micro_batches = %d, stages = {"
		    "   { dc = 'a', layers = { 1, 8 } }, { dc = 'a', layers = { 9, 16 } },"
		    "   { dc = 'a', layers = { 17, 24 } }, { dc = 'a', layers = { 25, 32 } } } } } } }",
		    m, g, m);
}

/* Every device holds warm-up + 1 chunks' activations at its peak, so a
 * group of n adds (v - 1)(n - S) chunks over the default's: groups of
 * 8 and 16 on 4 stages add 4 and 12, and device s holds 2 more than
 * device s + 1 at any group. */
static void test_group_memory(void **state)
{
	(void)state;
	int groups[3] = { 0, 8, 16 };
	double peak[3][4];
	for (int i = 0; i < 3; i++) {
		struct gp_scenario *s = four_stages(16, groups[i]);
		struct gp_result r;
		struct gp_err e = { "" };
		struct gp_sim_opts o = { 0 };
		assert_int_equal(gp_simulate(s, &s->plan, &o, &r, &e), 0);
		for (int d = 0; d < 4; d++)
			peak[i][d] = r.devs[d].mem_peak;
		gp_result_free(&r);
		gp_scenario_free(s);
	}
	/* The middle devices' chunks are alike (the first holds the
	 * embedding, the last the logits): a chunk's activations from
	 * device 2's 4 more at group 8. */
	double chunk = (peak[1][2] - peak[0][2]) / 4;
	assert_true(chunk > 1e6);
	for (int d = 1; d <= 2; d++) {
		assert_close(peak[1][d] - peak[0][d], 4 * chunk, 1e-6);
		assert_close(peak[2][d] - peak[0][d], 12 * chunk, 1e-6);
	}
	/* Their static bytes are equal too: the warm-ups differ by 2. */
	assert_close(peak[0][1] - peak[0][2], 2 * chunk, 1e-6);
}

/* The scenario names the rule's breach where it is. */
static void test_group_messages(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_lua *h = gp_lua_new(NULL, &e);
	const char *bad[][2] = {
		{ "schedule = 'interleaved', chunks = 2, microbatch_group = 7,",
		  "plan.pipelines[1].micro_batches: 10 micro-batches in groups of 7 leave a last group of 3" },
		{ "schedule = 'interleaved', chunks = 2, microbatch_group = 2,",
		  "plan.microbatch_group: 2 is outside pipeline 1's [4, 10] (its stages to its micro-batches)" },
		{ "schedule = '1f1b', microbatch_group = 4,",
		  "plan.microbatch_group: only the interleaved schedule with 2 or more chunks" },
		{ "schedule = 'interleaved', chunks = 2,",
		  "interleaved needs a multiple of the 4 stages, got 10" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char text[2048];
		snprintf(text, sizeof text,
			 "return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 64 } } } },"
			 " model = { layers = 32, hidden = 2048, heads = 16, vocab = 1000 },"
			 " job = { seq = 2048, global_batch = 10 }, plan = { %s pipelines = {"
			 "  { micro_batches = 10, stages = {"
			 "   { dc = 'a', layers = { 1, 8 } }, { dc = 'a', layers = { 9, 16 } },"
			 "   { dc = 'a', layers = { 17, 24 } }, { dc = 'a', layers = { 25, 32 } } } } } } }",
			 bad[i][0]);
		struct gp_scenario *s = gp_lua_scenario(h, "g.lua", text, strlen(text), &e);
		assert_non_null(s);
		assert_int_equal(gp_scenario_validate(s, &e), -1);
		if (!strstr(e.msg, bad[i][1]))
			fail_msg("got \"%s\", want \"%s\"", e.msg, bad[i][1]);
		gp_scenario_free(s);
	}
	gp_lua_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_order_by_hand),
		cmocka_unit_test(test_group_default_is_narayanan),
		cmocka_unit_test(test_group_rule),
		cmocka_unit_test(test_group_memory),
		cmocka_unit_test(test_group_messages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
