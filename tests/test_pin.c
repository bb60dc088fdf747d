/*
 * test_pin.c: plans kept for the compare screen (tui/pin.c): a pin is a
 * deep copy (the run it came from is edited and freed, and the pin
 * still holds the same plan, figures and every span of the timeline,
 * byte for byte), its Gantt model has the run's rows and end, and a run
 * without a simulated plan gives no pin.
 */
#include "testutil.h"
#include "pin.h"

static void load(struct gp_run *r, const char *path)
{
	gp_run_init(r);
	r->plan_optional = true;
	struct gp_err e = { "" };
	assert_int_equal(gp_run_load(r, path, NULL, 0, &e), 0);
	struct gp_sim_req rq = { .schedule = -1, .record = true };
	assert_int_equal(gp_run_simulate(r, &rq, &e), 0);
}

static void test_deep_copy(void **state)
{
	(void)state;
	struct gp_run r;
	load(&r, "samples/p1.lua");
	struct gp_result want;
	assert_int_equal(gp_result_copy(&want, &r.res), 0);
	struct gp_plan plan;
	assert_int_equal(gp_plan_copy(&plan, &r.plan), 0);
	struct gp_pin *p = gp_pin_of_run(&r, "before x");
	assert_non_null(p);
	assert_string_equal(p->label, "before x");
	struct gp_err e = { "" };
	assert_int_equal(gp_run_set(&r, "links[1].bandwidth=Gbps(1)", &e), 0);
	gp_run_free(&r);   /* the pin owns all it holds */
	assert_true(p->res.iteration_time == want.iteration_time);
	assert_int_equal(p->res.nspans, want.nspans);
	assert_true(want.nspans > 20);
	assert_memory_equal(p->res.spans, want.spans, sizeof *want.spans * (size_t)want.nspans);
	assert_memory_equal(p->res.devs, want.devs, sizeof *want.devs * (size_t)want.ndevs);
	assert_true(gp_plan_same(&p->plan, &plan));
	const struct gp_gantt *g = gp_pin_gantt(p);
	assert_non_null(g);
	assert_true(g->t_end == want.iteration_time);
	assert_true(g->nrows >= want.ndevs);
	assert_ptr_equal(gp_pin_gantt(p), g);   /* built once */
	gp_pin_free(p);
	gp_result_free(&want);
	gp_plan_free(&plan);
}

static void test_no_plan_no_pin(void **state)
{
	(void)state;
	struct gp_run r;
	gp_run_init(&r);
	struct gp_err e = { "" };
	const char *sets[] = { "plan=nil" };
	assert_int_equal(gp_run_load(&r, "samples/default.lua", sets, 1, &e), 0);
	assert_null(gp_pin_of_run(&r, "x"));
	gp_run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deep_copy),
		cmocka_unit_test(test_no_plan_no_pin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
