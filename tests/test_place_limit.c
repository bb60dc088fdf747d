/*
 * test_place_limit.c: the placement MILP's limits (issue 14): the work
 * limit, which repeats from run to run whatever the machine's load, and
 * what the report says stopped the search.
 */
#include "testutil.h"
#include "planner.h"

#include <string.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_work_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
