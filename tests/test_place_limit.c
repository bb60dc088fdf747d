/*
 * test_place_limit.c: the placement MILP's limits (issue 14): the work
 * limit, which repeats from run to run whatever the machine's load, and
 * what the report says stopped the search.
 */
#include "testutil.h"
#include "planner.h"
#include "sim.h"

#include <string.h>
#include <time.h>

/* The MILP for scenario s with a work limit (a time limit far off):
 * its plan's stages into st (n of them at most, as "dc pool tp first
 * last" rows), returns the estimate; the note into note. */
static double work_run(const struct gp_scenario *s, double work, char *st, size_t n, char *note,
		       size_t nn)
{
	struct gp_plan_opts o = { .time_limit = 600, .work_limit = work };
	struct gp_plan p;
	struct gp_plan_report r;
	struct gp_err e = { "" };
	if (gp_plan_milp(s, &o, &p, &r, &e))
		fail_msg("milp: %s", e.msg);
	size_t k = 0;
	st[0] = 0;
	for (int i = 0; i < p.npipes; i++)
		for (int j = 0; j < p.pipes[i].nstages; j++) {
			const struct gp_stage *g = &p.pipes[i].stages[j];
			k += (size_t)snprintf(st + k, k < n ? n - k : 0, "%d x%d mb%d: %d %d %d %d-%d; ",
					      i, p.pipes[i].replicas, p.pipes[i].micro_batches, g->dc,
					      g->pool, g->tp, g->first, g->last);
		}
	snprintf(note, nn, "%s | %s", r.note, r.space);
	if (strstr(note, "stopped by"))
		assert_int_equal(r.status, GP_MILP_FEASIBLE);
	gp_plan_free(&p);
	return r.estimate_s;
}

/* The work limit repeats: four DCs of A100-80 on a chain of links, a
 * limit of 3e6 units (about half the search this scenario takes) stops
 * the search at the same point every time, whatever the machine's load:
 * the same plan and estimate twice, the note and the proof's space say
 * the work limit stopped it, and the status is feasible. Without it the
 * search runs to its end and finds a plan no slower. */
static void test_work_limit(void **state)
{
	(void)state;
	struct gp_scenario *s = scen(TEST_CHAIN4, "");
	char a[4096], b[4096], na[2048], nb[2048];
	double ta = work_run(s, 3e6, a, sizeof a, na, sizeof na);
	double tb = work_run(s, 3e6, b, sizeof b, nb, sizeof nb);
	printf("# work limit 3e6: estimate %.6f s twice (%.6f s); %s\n", ta, tb, na);
	assert_true(ta == tb);
	assert_string_equal(a, b);
	assert_non_null(strstr(na, "stopped by the work limit"));
	assert_non_null(strstr(na, "splits (the search stopped by the work limit)"));
	double tf = work_run(s, 1e12, b, sizeof b, nb, sizeof nb);
	printf("# no work limit: estimate %.6f s\n", tf);
	assert_null(strstr(nb, "stopped by"));
	assert_true(tf <= ta);
	gp_scenario_free(s);
}

/* samples/default.lua's DCs (16 H100 in ams, 16 A100-80 in fra, 100
 * Gbit/s, 4 ms) training Llama-3-8B on 1,000,000 sequences a step: the
 * MILP's plan (four pipelines of 1 to 432,762 micro-batches) simulates
 * for about 1.5 s on this machine; the search takes 0.03 s. */
#define TEST_HUGE \
	"return { dcs = { { name = 'ams', pools = { { gpu = 'H100', count = 16, per_node = 8 } } }," \
	"  { name = 'fra', pools = { { gpu = 'A100-80', count = 16, per_node = 8 } } } }," \
	" links = { { 'ams', 'fra', bandwidth = Gbps(100), latency = ms(4) } }," \
	" model = 'Llama-3-8B', job = { seq = 4096, global_batch = 1000000, micro_batch = 1," \
	"  zero = 1 } }"

/* A simulation keeps its deadline: one already past stops it at once,
 * with an error that says so. */
static void test_sim_deadline(void **state)
{
	(void)state;
	struct gp_scenario *s = scen(TEST_CHAIN4, "");
	struct gp_plan p = { 0 };
	struct gp_plan_opts o = { .time_limit = 600, .work_limit = 1e12 };
	struct gp_plan_report r;
	struct gp_err e = { "" };
	if (gp_plan_milp(s, &o, &p, &r, &e))
		fail_msg("milp: %s", e.msg);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	struct gp_sim_opts so = { .deadline = (double)ts.tv_sec + ts.tv_nsec * 1e-9 - 1 };
	struct gp_result res;
	assert_int_equal(gp_simulate(s, &p, &so, &res, &e), -1);
	assert_string_equal(e.msg, "simulation: stopped at its deadline");
	so.deadline = 0;   /* none: it runs to its end */
	assert_int_equal(gp_simulate(s, &p, &so, &res, &e), 0);
	gp_result_free(&res);
	gp_plan_free(&p);
	gp_scenario_free(s);
}

/* The time limit holds after the search: with 1,000,000 micro-batches
 * and the work limit the CLI gives 0.3 s (1.5e7 units, which stops the
 * search at a plan of four pipelines), the MILP's own plan would
 * simulate for about 1.5 s, past the limit of 0.3 s; the simulation
 * stops at the limit, the note says the plan was not simulated and that
 * the wall clock decided, and with nothing checked the status is
 * feasible. (The slack, 0.25 s, is the simulator's set-up, which is
 * not cut short: 0.07 s here.) */
static void test_time_limit_after_search(void **state)
{
	(void)state;
	struct gp_scenario *s = scen(TEST_HUGE);
	struct gp_plan p;
	struct gp_plan_opts o = { .time_limit = 0.3, .work_limit = 1.5e7 };
	struct gp_plan_report r;
	struct gp_err e = { "" };
	if (gp_plan_milp(s, &o, &p, &r, &e))
		fail_msg("milp: %s", e.msg);
	printf("# 1,000,000 micro-batches, time limit 0.3 s: %.3f s; %s\n", r.seconds, r.note);
	assert_true(r.seconds < 0.3 + 0.25);
	assert_non_null(strstr(r.note, "own plan not simulated: the time limit came first"));
	assert_true(r.clock_stopped);
	assert_false(r.own_known);
	assert_int_equal(r.status, GP_MILP_FEASIBLE);
	gp_plan_free(&p);
	gp_scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_work_limit),
		cmocka_unit_test(test_sim_deadline),
		cmocka_unit_test(test_time_limit_after_search),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
