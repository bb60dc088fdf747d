/*
 * test_oom.c: the out-of-memory report (oom.c) is consistent: when it
 * says nothing fits, no layout of one replica (every TP degree, every
 * stage count the GPUs allow, layers spread evenly) fits in the
 * simulator either, and its "Nx too much" is above 1; when it says
 * nothing, one of them does; the GPUs the state
 * alone takes are worked out here from the model's parameters; when
 * there are GPUs enough it says nothing. This was the bug: "needs 49.72
 * GiB per GPU, 74.51 GiB available (0.7x too much)" on 8 GPUs, counted
 * over 64 stages the GPUs could not make.
 */
#include "testutil.h"
#include "cost.h"
#include "costtab.h"
#include "oom.h"
#include "sim.h"

static struct gp_scenario *pool_of(const char *model, const char *gpu, int count, int batch)
{
	return scen("return { dcs = { { name = 'a', pools = { { gpu = '%s', count = %d } } } },\n"
		    " model = '%s', job = { seq = 2048, global_batch = %d } }",
		    gpu, count, model, batch);
}

/* One replica of S stages at TP tp, layers spread evenly (the first
 * ones one more): does every stage fit? */
static bool layout_fits(const struct gp_scenario *s, int S, int tp, int M)
{
	struct gp_stage st[64];
	int L = s->model.layers, at = 1;
	for (int i = 0; i < S; i++) {
		int n = L / S + (i < L % S);
		st[i] = (struct gp_stage){ .dc = 0, .pool = 0, .tp = tp, .first = at,
					   .last = at + n - 1, .recompute = s->job.recompute };
		at += n;
	}
	struct gp_pipeline pp = { .micro_batches = M, .replicas = 1, .stages = st, .nstages = S };
	struct gp_plan p = { .schedule = GP_SCHED_1F1B, .pipes = &pp, .npipes = 1 };
	struct gp_sim_opts o = { 0 };
	struct gp_result r;
	struct gp_err e = { "" };
	if (gp_simulate(s, &p, &o, &r, &e))
		fail_msg("S %d tp %d: %s", S, tp, e.msg);
	bool fits = r.fits;
	gp_result_free(&r);
	return fits;
}

static bool any_layout_fits(const struct gp_scenario *s, int G, int M)
{
	for (int tp = 1; tp <= 8; tp *= 2)
		for (int S = 1; S <= G / tp && S <= s->model.layers && S <= 64; S++)
			if (layout_fits(s, S, tp, M))
				return true;
	return false;
}

static void test_never_claims_the_impossible(void **state)
{
	(void)state;
	static const int counts[] = { 1, 2, 4, 8, 16, 32 };
	int said_no = 0, said_yes = 0;
	for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
		struct gp_scenario *s = pool_of("Llama-3-8B", "V100-16", counts[i], 8);
		struct gp_err e = { "" };
		struct gp_costtab *ct = gp_costtab_new(s, NULL, &e);
		assert_non_null(ct);
		char msg[1024];
		int no = gp_oom_explain(s, ct, msg, sizeof msg);
		if (no) {
			said_no++;
			/* "... (1.9x too much)": the number after the '(' before it */
			const char *x = strstr(msg, "x too much)");
			assert_non_null(x);
			while (x > msg && *x != '(')
				x--;
			double ratio = strtod(x + 1, NULL);
			if (!(ratio > 1))
				fail_msg("%d GPUs: %s", counts[i], msg);
			if (any_layout_fits(s, counts[i], 8))
				fail_msg("%d GPUs: a layout fits, yet: %s", counts[i], msg);
		} else {
			said_yes++;
			assert_string_equal(msg, "");
			if (!any_layout_fits(s, counts[i], 8))   /* its layout is one of them */
				fail_msg("%d GPUs: said to fit, and no layout does", counts[i]);
		}
		gp_costtab_free(ct);
		gp_scenario_free(s);
	}
	assert_true(said_no >= 2);    /* 1 and 2 V100-16 cannot hold 8B */
	assert_true(said_yes >= 1);   /* 32 can */
}

/* 70B on 8 H100: the state alone takes ceil(P x bytes / usable) GPUs. */
static void test_state_alone(void **state)
{
	(void)state;
	struct gp_scenario *s = pool_of("Llama-3-70B", "H100", 8, 16);
	struct gp_err e = { "" };
	struct gp_costtab *ct = gp_costtab_new(s, NULL, &e);
	assert_non_null(ct);
	char msg[1024], want[64];
	assert_int_equal(gp_oom_explain(s, ct, msg, sizeof msg), 1);
	const struct gp_model *m = &s->model;
	double P = m->layers * gp_layer_params(m) + 2 * gp_embedding_params(m);
	double usable = s->gpus[s->dcs[0].pools[0].gpu].memory - gp_costtab_reserve(ct, 0, 0);
	double k = ceil(P * gp_costtab_state_bytes(ct, 1) / usable);
	assert_true(k > 8);
	snprintf(want, sizeof want, "they take at least %.0f GPUs", k);
	if (!strstr(msg, want))
		fail_msg("wanted '%s' in: %s", want, msg);
	assert_non_null(strstr(msg, "one replica over all 8 GPUs (1 stage at TP 8"));
	gp_costtab_free(ct);
	gp_scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_never_claims_the_impossible),
		cmocka_unit_test(test_state_alone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
