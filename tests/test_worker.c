/*
 * test_worker.c: the planning thread (tui/worker.c) and the log's rings
 * (tui/log.c). The worker's plan is the plan the same request makes on
 * this thread; held, nothing runs until a wait, a wait can stop a job
 * after exactly its Nth report, and Esc then ends it cancelled; a
 * newer job supersedes one queued (no result) and one running (its
 * result marked cancelled); a full log ring keeps the newest lines and
 * says how many it lost; many threads posting lose none.
 */
#include "testutil.h"
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "plan.h"
#include "worker.h"

#define FILE_ "samples/default.lua"

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };
	nanosleep(&ts, NULL);
}

static struct gp_plan_job job_of(int purpose)
{
	return (struct gp_plan_job){ .purpose = purpose, .path = FILE_, .polish = true,
				     .label = "test" };
}

static struct gp_worker *worker(bool hold, struct gp_log *log)
{
	struct gp_err e = { "" };
	struct gp_worker *w = gp_worker_new(hold, -1, gp_log_script, log, &e);
	assert_non_null(w);
	return w;
}

/* The result of job id, waiting for it. */
static struct gp_job_result *result(struct gp_worker *w, unsigned id)
{
	for (int i = 0; i < 2000; i++) {
		struct gp_job_result *r = gp_worker_take(w);
		if (r && r->id == id)
			return r;
		gp_worker_free_result(r);
		gp_worker_wait(w, 0);
		if (i > 10)
			sleep_us(1000);
	}
	fail_msg("no result for job %u", id);
	return NULL;
}

static void test_plans_as_here(void **state)
{
	(void)state;
	struct gp_worker *w = worker(false, NULL);
	struct gp_plan_job j = job_of(7);
	unsigned id = gp_worker_submit(w, &j);
	assert_true(id > 0);
	struct gp_job_result *r = result(w, id);
	assert_int_equal(r->rc, 0);
	assert_int_equal(r->purpose, 7);
	assert_false(r->cancelled);
	/* The same request on this thread: the same plan. */
	struct gp_run here;
	gp_run_init(&here);
	here.plan_optional = true;
	struct gp_err e = { "" };
	assert_int_equal(gp_run_load(&here, FILE_, NULL, 0, &e), 0);
	struct gp_plan_req rq = { .o = { .seed = 1, .polish = true } };
	assert_int_equal(gp_run_plan(&here, &rq, &e), 0);
	assert_true(gp_plan_same(&here.plan, &r->run->plan));
	assert_true(r->run->rep.estimate_s == here.rep.estimate_s);
	struct gp_job_status st;
	gp_worker_status(w, &st);
	assert_int_equal(st.id, id);
	assert_true(st.done && !st.running);
	assert_true(st.nreports > 0 && st.nhist > 0);
	assert_string_equal(st.hist_engine, "milp");
	/* The last point is the engine's final word: its proven bound. */
	assert_true(st.hist[st.nhist - 1].bound == here.rep.bound);
	gp_run_free(&here);
	gp_worker_free_result(r);
	gp_worker_free(w);
}

static void test_held_pause_cancel(void **state)
{
	(void)state;
	struct gp_worker *w = worker(true, NULL);
	struct gp_plan_job j = job_of(1);
	unsigned id = gp_worker_submit(w, &j);
	sleep_us(50000);
	struct gp_job_status st;
	gp_worker_status(w, &st);
	assert_false(st.running);   /* held: it waits for a wait */
	assert_int_equal(st.nreports, 0);
	assert_null(gp_worker_take(w));
	gp_worker_wait(w, 2);
	gp_worker_status(w, &st);
	assert_true(st.running && st.paused);
	assert_int_equal(st.nreports, 2);
	sleep_us(20000);   /* paused: no report more */
	gp_worker_status(w, &st);
	assert_int_equal(st.nreports, 2);
	gp_worker_wait(w, 3);
	gp_worker_status(w, &st);
	assert_int_equal(st.nreports, 3);
	gp_worker_cancel(w, id);
	struct gp_job_result *r = result(w, id);
	assert_true(r->cancelled);
	gp_worker_status(w, &st);
	assert_true(st.cancelling);
	gp_worker_free_result(r);
	gp_worker_free(w);
}

static void test_supersede(void **state)
{
	(void)state;
	struct gp_worker *w = worker(true, NULL);
	struct gp_plan_job j = job_of(1);
	unsigned a = gp_worker_submit(w, &j);
	j.purpose = 2;
	unsigned b = gp_worker_submit(w, &j);
	assert_true(b > a);
	gp_worker_wait(w, 1);   /* b runs, paused after one report */
	j.purpose = 3;
	unsigned c = gp_worker_submit(w, &j);
	gp_worker_wait(w, 0);
	/* a never ran (dropped while queued); b was cancelled; c is done. */
	struct gp_job_result *rb = gp_worker_take(w), *rc = gp_worker_take(w);
	assert_non_null(rb);
	assert_non_null(rc);
	assert_int_equal(rb->id, b);
	assert_true(rb->cancelled);
	assert_int_equal(rc->id, c);
	assert_false(rc->cancelled);
	assert_int_equal(rc->rc, 0);
	assert_int_equal(rc->purpose, 3);
	assert_null(gp_worker_take(w));
	gp_worker_free_result(rb);
	gp_worker_free_result(rc);
	gp_worker_free(w);
}

static void test_log_ring(void **state)
{
	(void)state;
	struct gp_log *l = gp_log_new();
	assert_non_null(l);
	char line[32];
	for (int i = 0; i < GP_LOG_RING + 44; i++) {
		snprintf(line, sizeof line, "line %d", i);
		gp_log_post(l, GP_LOG_INFO, line);
	}
	gp_log_post(l, GP_LOG_ERROR, "bad\n\tat x.lua:3");
	/* 44 + 2 overwritten: a line saying so, then the newest. */
	assert_int_equal(gp_log_drain(l), GP_LOG_RING + 1);
	assert_int_equal(gp_log_count(l), GP_LOG_RING + 1);
	assert_string_equal(gp_log_at(l, 0)->text, "(46 lines lost: more came than the log holds)");
	assert_string_equal(gp_log_at(l, 1)->text, "line 46");
	const struct gp_log_line *last = gp_log_at(l, GP_LOG_RING);
	assert_string_equal(last->text, " at x.lua:3");
	assert_true(last->cont && last->level == GP_LOG_ERROR);
	assert_false(gp_log_at(l, GP_LOG_RING - 1)->cont);
	assert_int_equal(gp_log_unseen(l, GP_LOG_ERROR), 2);
	gp_log_seen(l);
	assert_int_equal(gp_log_unseen(l, GP_LOG_INFO), 0);
	gp_log_script(l, "[m.lua:2] warning: careful");
	gp_log_drain(l);
	assert_int_equal(gp_log_unseen(l, GP_LOG_WARN), 1);
	gp_log_free(l);
}

static void *poster(void *arg)
{
	for (int i = 0; i < 50; i++)
		gp_log_post(arg, GP_LOG_INFO, "x");
	return NULL;
}

static void test_log_threads(void **state)
{
	(void)state;
	struct gp_log *l = gp_log_new();
	pthread_t th[4];
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&th[i], NULL, poster, l), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(gp_log_drain(l), 200);
	/* Every line numbered once, in order. */
	for (int i = 1; i < 200; i++)
		assert_int_equal(gp_log_at(l, i)->seq, gp_log_at(l, i - 1)->seq + 1);
	gp_log_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plans_as_here),
		cmocka_unit_test(test_held_pause_cancel),
		cmocka_unit_test(test_supersede),
		cmocka_unit_test(test_log_ring),
		cmocka_unit_test(test_log_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
