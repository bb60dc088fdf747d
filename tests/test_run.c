/*
 * test_run.c: the run object: an edit marks stale only what depends on
 * it and keeps the cost tables current; a bad edit or a failed plan
 * loses nothing; cancel and progress reach the engines and the
 * simulator.
 */
#include "testutil.h"
#include "run.h"

#define DEFAULT "samples/default.lua"

static struct gp_run loaded(const char *path)
{
	struct gp_run r;
	struct gp_err e = { "" };
	gp_run_init(&r);
	r.plan_optional = true;
	if (gp_run_load(&r, path, NULL, 0, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		fail();
	}
	return r;
}

static double simulated(struct gp_run *r)
{
	struct gp_err e = { "" };
	struct gp_sim_req rq = { .schedule = -1 };
	if (gp_run_simulate(r, &rq, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		fail();
	}
	return r->res.iteration_time;
}

static void test_edits_mark_what_depends_on_them(void **state)
{
	(void)state;
	struct gp_run r = loaded(DEFAULT);
	struct gp_err e = { "" };
	assert_int_equal(r.src, GP_SRC_FILE);
	assert_int_equal(r.stale, GP_STALE_RESULT);
	double t0 = simulated(&r);
	assert_int_equal(r.stale, 0);
	/* Setting a field to the value it has changes nothing. */
	assert_int_equal(gp_run_set(&r, "links[ams-fra].bandwidth=Gbps(100)", &e), 0);
	assert_int_equal(r.stale, 0);
	/* A slower link: the result is stale and the tables follow. */
	long evals = gp_costtab_evals(r.costs);
	assert_int_equal(gp_run_set(&r, "links[ams-fra].bandwidth=Gbps(10)", &e), 0);
	assert_int_equal(r.stale, GP_STALE_RESULT);
	assert_int_equal(gp_costtab_evals(r.costs), evals + 2);   /* both directions */
	double t1 = simulated(&r);
	assert_true(t1 > t0 * 1.2);
	/* Plan with an engine; a scenario edit then makes the plan stale,
	 * an edit of the file's plan does not. */
	struct gp_plan_req rq = { .engine = gp_engine_find("megatron") };
	assert_int_equal(gp_run_plan(&r, &rq, &e), 0);
	assert_int_equal(r.src, GP_SRC_ENGINE);
	assert_int_equal(r.stale, GP_STALE_RESULT);
	simulated(&r);
	assert_int_equal(gp_run_set(&r, "plan.schedule=zb-h1", &e), 0);
	assert_int_equal(r.stale, 0);
	assert_int_equal(gp_run_set(&r, "job.global_batch=128", &e), 0);
	assert_int_equal(r.stale, GP_STALE_PLAN | GP_STALE_RESULT);
	/* The stale engine plan no longer covers the batch: it fails to
	 * simulate, and the last result stays. */
	struct gp_sim_req sq = { .schedule = -1 };
	assert_int_equal(gp_run_simulate(&r, &sq, &e), -1);
	assert_true(r.has_res);
	gp_run_free(&r);
}

static void test_a_bad_edit_keeps_the_last_good_scenario(void **state)
{
	(void)state;
	struct gp_run r = loaded(DEFAULT);
	struct gp_err e = { "" };
	double t0 = simulated(&r);
	const struct gp_scenario *before = r.sc;
	assert_int_equal(gp_run_set(&r, "dcs[ams].pools[1].count=-4", &e), -1);
	assert_non_null(strstr(e.msg, "dcs[1].pools[1].count: expected a positive integer, got -4"));
	assert_ptr_equal(r.sc, before);
	assert_int_equal(r.nsets, 0);
	assert_int_equal(r.stale, 0);
	assert_true(simulated(&r) == t0);
	/* An edit that leaves the file's plan invalid: the plan is left
	 * out (and says why), planning still works. */
	assert_int_equal(gp_run_set(&r, "dcs[ams].pools[1].count=8", &e), 0);
	assert_int_equal(r.src, GP_SRC_NONE);
	assert_non_null(strstr(r.plan_note, "has 8"));
	struct gp_sim_req sq = { .schedule = -1 };
	assert_int_equal(gp_run_simulate(&r, &sq, &e), -1);
	assert_non_null(strstr(e.msg, "left out"));
	struct gp_plan_req rq = { .engine = gp_engine_find("atlas") };
	assert_int_equal(gp_run_plan(&r, &rq, &e), 0);
	simulated(&r);
	gp_run_free(&r);
}

/* An infeasible request leaves the last good plan, and says so. */
static void test_a_failed_plan_keeps_the_last_plan(void **state)
{
	(void)state;
	struct gp_run r = loaded(DEFAULT);
	struct gp_err e = { "" };
	struct gp_plan_req rq = { .engine = gp_engine_find("megatron") };
	assert_int_equal(gp_run_plan(&r, &rq, &e), 0);
	double t0 = simulated(&r);
	assert_int_equal(gp_run_set(&r, "model=Llama-3.1-405B", &e), 0);
	rq.engine = gp_engine_find("milp");
	rq.o.polish = false;
	assert_int_equal(gp_run_plan(&r, &rq, &e), -1);
	assert_int_equal(r.last_status, GP_MILP_INFEASIBLE);
	assert_int_equal(r.src, GP_SRC_ENGINE);
	assert_string_equal(r.rep.engine, "megatron");
	assert_true(r.stale & GP_STALE_PLAN);
	assert_true(r.res.iteration_time == t0);
	gp_run_free(&r);
}

struct seen {
	int calls, with_bound;
	double last_incumbent, first_incumbent;
	const char *engine;
	struct gp_run *cancel_at_first;
};

static void on_progress(void *ud, const struct gp_progress *p)
{
	struct seen *s = ud;
	if (!s->calls++)
		s->first_incumbent = p->incumbent;
	s->engine = p->engine;
	s->last_incumbent = p->incumbent;
	s->with_bound += isfinite(p->bound);
	if (s->cancel_at_first)
		gp_run_cancel(s->cancel_at_first);
}

/* Progress reaches the caller with the engine's incumbent; the MILP's
 * last incumbent is its answer. */
static void test_progress_reports_incumbents(void **state)
{
	(void)state;
	struct gp_run r = loaded("samples/p3.lua");
	struct gp_err e = { "" };
	struct seen s = { 0 };
	r.progress = on_progress;
	r.progress_ud = &s;
	struct gp_plan_req rq = { .engine = gp_engine_find("milp") };
	assert_int_equal(gp_run_plan(&r, &rq, &e), 0);
	assert_true(s.calls >= 2);
	assert_string_equal(s.engine, "milp");
	assert_true(s.with_bound >= 1);
	assert_true(s.first_incumbent >= s.last_incumbent);
	assert_close(s.last_incumbent, r.rep.estimate_s, 1e-9);
	gp_run_free(&r);
}

/* Cancelled at its first report, every engine stops with what it has
 * or with an error that says so, well before its limit. */
static void test_cancel_stops_every_engine(void **state)
{
	(void)state;
	for (int i = 0; i < gp_engine_count(); i++) {
		struct gp_run r = loaded("samples/p3.lua");
		struct gp_err e = { "" };
		r.heur = test_heuristic();
		struct seen s = { .cancel_at_first = &r };
		r.progress = on_progress;
		r.progress_ud = &s;
		struct gp_plan_req rq = { .engine = gp_engine_at(i), .o = { .time_limit = 60 } };
		int rc = gp_run_plan(&r, &rq, &e);
		fprintf(stderr, "# %s: %s, %d reports, %s\n", gp_engine_at(i)->name,
			rc ? "error" : "a plan", s.calls, rc ? e.msg : r.rep.note);
		assert_true(s.calls >= 1);
		/* An error that says so, or the best plan so far, unproven. */
		if (rc) {
			assert_non_null(strstr(e.msg, "cancelled"));
		} else {
			assert_non_null(strstr(r.rep.note, "cancelled"));
			assert_int_not_equal(r.rep.status, GP_MILP_OPTIMAL);
		}
		gp_run_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edits_mark_what_depends_on_them),
		cmocka_unit_test(test_a_bad_edit_keeps_the_last_good_scenario),
		cmocka_unit_test(test_a_failed_plan_keeps_the_last_plan),
		cmocka_unit_test(test_progress_reports_incumbents),
		cmocka_unit_test(test_cancel_stops_every_engine),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
