/*
 * test_place_keep.c: the placement MILP's kept class sets (place_keep.c)
 * change nothing but the work: the bound's check on the search's sets,
 * and the second solve at the plan's pool counts copying the classes
 * whose kinds cost the same, give the same plan, estimate, status and
 * bound as gp_place_milp_rebuild, which builds every set anew, on small
 * instances whose sets no limit cuts (a work limit, so both repeat).
 */
#include "testutil.h"
#include "place_milp.h"
#include "planner.h"

/* a and b are the same plan, stage by stage. */
static void same_plan(const char *what, const struct gp_plan *a, const struct gp_plan *b)
{
	if (a->npipes != b->npipes || a->schedule != b->schedule || a->chunks != b->chunks)
		fail_msg("%s: %d pipelines, %d rebuilt", what, a->npipes, b->npipes);
	for (int i = 0; i < a->npipes; i++) {
		const struct gp_pipeline *p = &a->pipes[i], *q = &b->pipes[i];
		if (p->nstages != q->nstages || p->replicas != q->replicas ||
		    p->micro_batches != q->micro_batches)
			fail_msg("%s: pipeline %d: %d stages x %d replicas, %d x %d rebuilt", what, i,
				 p->nstages, p->replicas, q->nstages, q->replicas);
		for (int j = 0; j < p->nstages; j++) {
			const struct gp_stage *s = &p->stages[j], *t = &q->stages[j];
			if (s->dc != t->dc || s->pool != t->pool || s->tp != t->tp ||
			    s->first != t->first || s->last != t->last || s->recompute != t->recompute)
				fail_msg("%s: pipeline %d stage %d differs from the rebuilt one", what, i,
					 j);
		}
	}
}

/* One instance both ways; *paced: the second solve ran; *checked: the
 * bound was checked; *closer: the rebuilt check stopped at its work
 * limit (the search's own work again, which its class builds took),
 * where the kept sets' check ran to its end: a bound as high or higher,
 * never above T (the only difference allowed). */
static void one(const char *path, const char *set, bool *paced, bool *checked, bool *closer)
{
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load_set(path, set ? &set : NULL, set ? 1 : 0, &e);
	if (!s)
		fail_msg("%s: %s", path, e.msg);
	struct gp_plan_opts o = { .time_limit = 120, .work_limit = 2e9 };
	struct gp_plan p, q;
	struct gp_plan_report r, rq;
	assert_int_equal(gp_plan_milp(s, &o, &p, &r, &e), 0);
	assert_int_equal(gp_place_milp_rebuild(s, &o, &q, &rq, &e), 0);
	printf("# %s%s%s: %s %.6f s, bound %.6f s%s; rebuilt %s %.6f s, bound %.6f s\n", path,
	       set ? " " : "", set ? set : "", gp_milp_status_name(r.status), r.objective,
	       r.bound, r.pool_paced ? " (second solve)" : "", gp_milp_status_name(rq.status),
	       rq.objective, rq.bound);
	same_plan(path, &p, &q);
	assert_int_equal(r.status, rq.status);
	assert_true(r.pool_paced == rq.pool_paced);
	/* The same classes, so the same figures to the bit. */
	if (r.bound != rq.bound && strstr(rq.note, "the check with each DP sync at its least stopped at its limits") &&
	    !strstr(r.note, "stopped at its limits") && r.bound > rq.bound && r.bound <= r.objective) {
		*closer = true;
		rq.bound = r.bound;
	}
	if (r.objective != rq.objective || r.estimate_s != rq.estimate_s || r.bound != rq.bound)
		fail_msg("%s: T %.17g, estimate %.17g, bound %.17g; rebuilt %.17g, %.17g, %.17g",
			 path, r.objective, r.estimate_s, r.bound, rq.objective, rq.estimate_s,
			 rq.bound);
	*paced |= r.pool_paced;
	*checked |= r.bound > r.floor * (1 + 1e-9);
	gp_plan_free(&p);
	gp_plan_free(&q);
	gp_scenario_free(s);
}

/* The samples: among them checks that run (p3, p5, default), a second
 * solve (p4: its plan leaves GPUs of a pool idle) and p6's check, which
 * the rebuild's class builds once stopped at its limit (bound 5.850 s,
 * the work bound): with the check's allowance at least half the work
 * limit, it ends both ways (bound 8.587 s, T 8.603 s), so `closer`, the
 * one difference allowed, is not needed on the samples. */
static void test_kept_as_rebuilt(void **state)
{
	(void)state;
	static const char *const paths[] = { "samples/default.lua", "samples/p1.lua",
					     "samples/p2.lua", "samples/p3.lua", "samples/p4.lua", "samples/p5.lua", "samples/p6.lua" };
	bool paced = false, checked = false, closer = false;
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
		one(paths[i], NULL, &paced, &checked, &closer);
	assert_true(checked);
	assert_true(paced);
	assert_false(closer);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept_as_rebuilt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
