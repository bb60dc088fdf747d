/*
 * test_whatif.c: sensitivity varies each figure on its own (whatif.c):
 * every knob's iteration on samples/default.lua is the iteration of a run
 * loaded with that figure changed by --set (a link's bandwidth or
 * latency, both directions, a pool's NVLink or NIC, a GPU type's
 * efficiency when it is the only pool of its type), bit for bit; link
 * directions and pools the iteration does not use are left out, and
 * counted; with more than one link, every WAN link at once is a row.
 */
#include "testutil.h"
#include "run.h"
#include "whatif.h"

/* samples/default.lua's iteration with the overrides. */
static double iteration(const char *a, const char *b)
{
	const char *sets[2] = { a, b };
	struct gp_run r;
	gp_run_init(&r);
	struct gp_err e = { "" };
	if (gp_run_load(&r, "samples/default.lua", sets, b ? 2 : a ? 1 : 0, &e))
		fail_msg("%s", e.msg);
	struct gp_sim_req rq = { .schedule = -1 };
	if (gp_run_simulate(&r, &rq, &e))
		fail_msg("%s", e.msg);
	double t = r.res.iteration_time;
	gp_run_free(&r);
	return t;
}

static const struct gp_knob *knob(const struct gp_knob *g, int n, const char *what,
				  const char *k)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(g[i].what, what) && !strcmp(g[i].knob, k))
			return &g[i];
	fail_msg("no knob '%s' '%s'", what, k);
	return NULL;
}

static void test_each_knob_alone(void **state)
{
	(void)state;
	struct gp_run r;
	gp_run_init(&r);
	struct gp_err e = { "" };
	assert_int_equal(gp_run_load(&r, "samples/default.lua", NULL, 0, &e), 0);
	struct gp_sim_req rq = { .schedule = -1 };
	assert_int_equal(gp_run_simulate(&r, &rq, &e), 0);
	double base;
	struct gp_knob *g;
	int n, left;
	assert_int_equal(gp_whatif_sensitivity(&r, &rq, &base, &g, &n, &left, &e), 0);
	/* 1 link (both ways) x 2 figures, 2 pools x 3; nothing left out. */
	assert_int_equal(n, 8);
	assert_int_equal(left, 0);
	assert_true(base == iteration(NULL, NULL));
	/* The A100-80's efficiency: the catalog's, whatever it is fitted to. */
	char eff[96] = "";
	for (int i = 0; i < r.sc->ngpus; i++)
		if (!strcmp(r.sc->gpus[i].name, "A100-80"))
			snprintf(eff, sizeof eff, "gpus[\"A100-80\"].efficiency=%.17g*1.1",
				 r.sc->gpus[i].efficiency);
	assert_true(eff[0]);
	const struct {
		const char *what, *knob, *set, *set2;
	} cases[] = {
		{ "link ams <-> fra", "bandwidth x 1.1", "links[ams>fra].bandwidth=Gbps(100)*1.1",
		  "links[fra>ams].bandwidth=Gbps(100)*1.1" },
		{ "link ams <-> fra", "latency / 1.1", "links[ams>fra].latency=ms(4)/1.1",
		  "links[fra>ams].latency=ms(4)/1.1" },
		{ "pool ams/H100 (16 GPUs)", "NIC x 1.1", "dcs[ams].pools[1].network=Gbps(100)*1.1",
		  NULL },
		{ "pool fra/A100-80 (16 GPUs)", "NVLink x 1.1",
		  "dcs[fra].pools[1].nvlink=GBps(300)*1.1", NULL },
		{ "pool fra/A100-80 (16 GPUs)", "compute x 1.1", eff, NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct gp_knob *k = knob(g, n, cases[i].what, cases[i].knob);
		double want = iteration(cases[i].set, cases[i].set2);
		if (k->t != want)
			fail_msg("%s %s: %.17g, with --set %s: %.17g", cases[i].what, cases[i].knob,
				 k->t, cases[i].set, want);
		assert_true(k->saved == base - k->t);
	}
	/* Sorted by the time saved, most first. */
	for (int i = 1; i < n; i++)
		assert_true(g[i - 1].saved >= g[i].saved);
	free(g);
	gp_run_free(&r);
}

/* A DC the plan leaves out: its pool and its links are not tried. */
static void test_unused_left_out(void **state)
{
	(void)state;
	struct gp_run r;
	gp_run_init(&r);
	struct gp_err e = { "" };
	assert_int_equal(gp_run_load(&r, "samples/p3.lua", NULL, 0, &e), 0);
	struct gp_sim_req rq = { .schedule = -1 };
	assert_int_equal(gp_run_simulate(&r, &rq, &e), 0);
	double base;
	struct gp_knob *g;
	int n, left;
	assert_int_equal(gp_whatif_sensitivity(&r, &rq, &base, &g, &n, &left, &e), 0);
	/* P3: 20 link directions, 4 carry the ring (each with its twin, so
	 * 4 links), every WAN link at once; 5 pools, 4 used. */
	assert_int_equal(n, 4 * 2 + 2 + 4 * 3);
	assert_int_equal(left, 12 + 1);
	assert_non_null(knob(g, n, "every WAN link, both ways", "bandwidth x 1.1"));
	for (int i = 0; i < n; i++)
		assert_null(strstr(g[i].what, "us-west1-b"));
	free(g);
	gp_run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_knob_alone),
		cmocka_unit_test(test_unused_left_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
