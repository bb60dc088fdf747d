/*
 * test_place_milp.c: the placement engine (place_milp.c): per-T covering
 * MILPs over enumerated pipeline classes.
 *
 * Here: infeasible inputs (memory, batch, budget) with their messages;
 * the covering MILP of one probe against CBC; samples/p4.lua: the
 * estimate within 5 % of gp_simulate and no worse than the sample's own
 * plan; never worse than megatron as simulated; p3 (diagnostic only, see
 * test_p3). Not yet here: the exhaustive cross-check on random instances.
 */
#include "testutil.h"
#include "planner.h"
#include "sim.h"

#include <time.h>
#include <unistd.h>

int gp_place_milp_probe_lp(const struct gp_scenario *s, const struct gp_plan_opts *o,
			   int which, const char *path, double *T, double *glpk,
			   struct gp_err *e);

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static struct gp_scenario *small(int layers, int gbs, double mem_gb, int count,
				 const char *extra)
{
	return scen("return { gpus = { ['A100-40'] = { memory = %.17g, price_per_hour = 2 } },"
		    " dcs = { { name = 'a', pools = { { gpu = 'A100-40', count = %d, per_node = 2 } } },"
		    "         { name = 'b', pools = { { gpu = 'A100-40', count = %d, per_node = 2 } } } },"
		    " links = { { 'a', 'b', bandwidth = GBps(1), latency = ms(5) } },"
		    " model = { layers = %d, hidden = 1024, heads = 16, ffn = 4096, vocab = 32000 },"
		    " job = { seq = 1024, global_batch = %d %s } }",
		    mem_gb * 1e9, count, count, layers, gbs, extra);
}

/* Simulated iteration time; the plan must fit. */
static double simulate(const struct gp_scenario *s, const struct gp_plan *p)
{
	struct gp_result r;
	struct gp_err e = { "" };
	if (gp_simulate(s, p, NULL, &r, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		fail();
	}
	double t = r.iteration_time;
	if (!r.fits)
		fail_msg("plan does not fit: %s", r.fit_msg);
	gp_result_free(&r);
	return t;
}

static double plan_sim(struct gp_scenario *s, double tl, const char *label,
		       double *est, double *secs)
{
	struct gp_plan_opts o = { .time_limit = tl };
	struct gp_plan p;
	struct gp_plan_report r;
	struct gp_err e = { "" };
	double t0 = wall();
	if (gp_plan_milp(s, &o, NULL, &p, &r, &e)) {
		fprintf(stderr, "%s: %s\n", label, e.msg);
		fail();
	}
	*secs = wall() - t0;
	assert_int_equal(gp_plan_validate(s, &p, &e), 0);
	double t = simulate(s, &p);
	*est = r.estimate_s;
	printf("# %s: %s, estimate %.4f s, simulated %.4f s (%+.2f %%), %.3f s: %s\n",
	       label, gp_milp_status_name(r.status), r.estimate_s, t,
	       100 * (r.estimate_s - t) / t, *secs, r.note);
	gp_plan_free(&p);
	return t;
}

static void test_p4(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load("samples/p4.lua", &e);
	assert_non_null(s);
	double est, secs, t = plan_sim(s, 30, "p4", &est, &secs);
	double hand = simulate(s, &s->plan);
	printf("# p4: sample plan simulated %.4f s\n", hand);
	assert_close(est, t, 0.05);
	assert_true(t <= hand * (1 + 1e-9));
	gp_scenario_free(s);
}

/* samples/p3.lua is not asserted here: the MILP misjudges it (the sync
 * estimate gives every stage the WAN to itself) and runs into its time
 * limit; make bench prints where it stands. */

static void test_vs_megatron(void **state)
{
	(void)state;
	struct gp_scenario *sc[3] = { small(6, 8, 40, 4, ", zero = 0"),
				      small(8, 16, 40, 4, ""),
				      small(4, 8, 40, 2, ", recompute = 'auto'") };
	for (int i = 0; i < 3; i++) {
		struct gp_plan_opts o = { .time_limit = 10 };
		struct gp_plan p;
		struct gp_plan_report r;
		struct gp_err e = { "" };
		char label[32];
		snprintf(label, sizeof label, "small %d", i);
		double est, secs, t = plan_sim(sc[i], 10, label, &est, &secs);
		assert_int_equal(gp_plan_megatron(sc[i], &o, &p, &r, &e), 0);
		double tm = simulate(sc[i], &p);
		printf("# %s: megatron simulated %.4f s\n", label, tm);
		assert_true(t <= tm * (1 + 1e-9));
		gp_plan_free(&p);
		gp_scenario_free(sc[i]);
	}
}

/* The probe at T* (feasible, min $/h) and at the breakpoint below
 * (infeasible), solved by CBC from the LP file. */
static void test_cbc(void **state)
{
	(void)state;
	if (system("command -v cbc >/dev/null 2>&1") != 0) {
		printf("# cbc not installed: cross-check skipped\n");
		return;
	}
	struct gp_scenario *s = small(6, 8, 40, 4, ", zero = 0");
	struct gp_plan_opts o = { .time_limit = 10 };
	for (int which = 0; which < 2; which++) {
		char lp[64], cmd[256], line[512];
		snprintf(lp, sizeof lp, "/tmp/gp_place_%d_%d.lp", (int)getpid(), which);
		double T, glpk;
		struct gp_err e = { "" };
		assert_int_equal(gp_place_milp_probe_lp(s, &o, which, lp, &T, &glpk, &e), 0);
		snprintf(cmd, sizeof cmd, "cbc %s solve 2>&1", lp);
		FILE *f = popen(cmd, "r");
		assert_non_null(f);
		double cbc = HUGE_VAL;
		bool infeas = false;
		while (fgets(line, sizeof line, f)) {
			double v;
			if (sscanf(line, "Objective value: %lf", &v) == 1)
				cbc = v;
			if (strstr(line, "infeasible") || strstr(line, "Infeasible"))
				infeas = true;
		}
		pclose(f);
		remove(lp);
		printf("# probe %s at T = %.6g s: GLPK %.6g, CBC %.6g%s\n",
		       which ? "below T*" : "at T*", T, glpk, cbc, infeas ? " (infeasible)" : "");
		if (which) {
			assert_true(glpk == HUGE_VAL);
			assert_true(infeas && cbc == HUGE_VAL);
		} else {
			assert_true(glpk < HUGE_VAL);
			assert_close(cbc, glpk, 1e-6);
		}
	}
	gp_scenario_free(s);
}

static void expect_infeasible(struct gp_scenario *s, double budget, const char *want)
{
	struct gp_plan_opts o = { .time_limit = 10, .budget_usd_per_hour = budget };
	struct gp_plan p;
	struct gp_plan_report r;
	struct gp_err e = { "" };
	assert_int_equal(gp_plan_milp(s, &o, NULL, &p, &r, &e), -1);
	assert_int_equal(r.status, GP_MILP_INFEASIBLE);
	printf("# %s\n", e.msg);
	if (!strstr(e.msg, want))
		fail_msg("message \"%s\" lacks \"%s\"", e.msg, want);
}

static void test_infeasible(void **state)
{
	(void)state;
	/* 50 MB GPUs: one layer of this model with its activations is more. */
	struct gp_scenario *s = small(4, 8, 0.05, 4, "");
	expect_infeasible(s, 0, "does not fit");
	gp_scenario_free(s);
	s = small(4, 10, 40, 4, ", micro_batch = 4");
	expect_infeasible(s, 0, "cannot be split");
	gp_scenario_free(s);
	/* One A100 at $2/hour is the cheapest plan. */
	s = small(4, 8, 40, 4, "");
	expect_infeasible(s, 1.0, "budget $1.00/hour is too small: the cheapest plan that fits needs $2.00/hour");
	gp_scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_infeasible),
		cmocka_unit_test(test_cbc),
		cmocka_unit_test(test_vs_megatron),
		cmocka_unit_test(test_p4),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
