/*
 * test_eff_source.c: where each GPU type's efficiency comes from
 * (scenario.h, enum gp_eff_src; report_eff.c): the catalog's measured
 * and borrowed types, a scenario's own figure, the built-in default, the
 * loader's refusals, and what sim and plan print and write for a plan.
 */
#include "testutil.h"

#include "lua_int.h"
#include "report.h"

static const struct gp_gpu *gpu(const struct gp_scenario *s, const char *name)
{
	for (int i = 0; i < s->ngpus; i++)
		if (!strcmp(s->gpus[i].name, name))
			return &s->gpus[i];
	fail_msg("no GPU type %s", name);
	return NULL;
}

/* One pool of `type` and, after it, more of the top-level table. */
#define ONE_POOL \
	"return { dcs = { { name = 'a', pools = { { gpu = '%s', count = 8, per_node = 8 } } } }," \
	" model = 'OPT-350M', job = { seq = 2048, global_batch = 8 }%s }"

static void test_catalog_sources(void **state)
{
	(void)state;
	struct gp_scenario *s = scen(ONE_POOL, "H100", "");
	const struct gp_gpu *h = gpu(s, "H100"), *a = gpu(s, "A100-80");
	assert_int_equal(h->eff_src, GP_EFF_MEASURED);
	assert_non_null(strstr(h->eff_ref, "DGX H100"));
	assert_int_equal(a->eff_src, GP_EFF_MEASURED);
	assert_non_null(strstr(a->eff_ref, "A100"));
	/* Every other type borrows a measured type's figure, the very one. */
	const char *borrowers[] = { "V100-16", "V100-32", "A100-40", "H200", "GH200", "L40S",
				    "MI300X", "B200" };
	for (size_t i = 0; i < sizeof borrowers / sizeof *borrowers; i++) {
		const struct gp_gpu *g = gpu(s, borrowers[i]);
		assert_int_equal(g->eff_src, GP_EFF_BORROWED);
		const struct gp_gpu *from = gpu(s, g->eff_ref);
		assert_int_equal(from->eff_src, GP_EFF_MEASURED);
		assert_true(g->efficiency == from->efficiency);
	}
	/* Borrowing H100's fit (0.64193), not A100's (0.89254): an MI300X's
	 * large GEMMs run at its peak ratio to an H100's, 1307/989 = 1.3215
	 * (A100's had it at 1.84), and an L40S at 362 x 0.64193 = 232.4
	 * TFLOP/s, below an A100-80's 312 x 0.89254 = 278.5. */
	const struct gp_gpu *mi = gpu(s, "MI300X"), *l = gpu(s, "L40S");
	assert_float_equal(mi->flops * mi->efficiency / (h->flops * h->efficiency), 1.3215, 1e-4);
	assert_float_equal(l->flops * l->efficiency / 1e12, 232.38, 0.01);
	assert_float_equal(a->flops * a->efficiency / 1e12, 278.47, 0.01);
	/* HBM in GiB, as the vendors mean it; the L40S's GDDR6 in GB. */
	assert_true(h->memory == 80.0 * 1073741824);
	assert_true(mi->memory == 192.0 * 1073741824);
	assert_true(l->memory == 48e9);
	gp_scenario_free(s);
}

static void test_scenario_sources(void **state)
{
	(void)state;
	/* Another figure for a catalog type is the scenario's; the same one
	 * (as geoplan's writer repeats it) keeps the catalog's source. */
	struct gp_scenario *s = scen(ONE_POOL, "MI300X",
				     ", gpus = { MI300X = { efficiency = 0.5 }, H200 = { efficiency = 0.64193 } }");
	assert_int_equal(gpu(s, "MI300X")->eff_src, GP_EFF_SCENARIO);
	assert_int_equal(gpu(s, "H200")->eff_src, GP_EFF_BORROWED);
	gp_scenario_free(s);
	/* A new type: the default without a figure, its own with one, or
	 * what it says it borrows. */
	s = scen(ONE_POOL, "X1",
		 ", gpus = { X1 = { tflops = TFLOPS(100), memory = GiB(40), hbm_bandwidth = GBps(1000) },"
		 " X2 = { tflops = TFLOPS(100), memory = GiB(40), hbm_bandwidth = GBps(1000), efficiency = 0.7 },"
		 " X3 = { tflops = TFLOPS(100), memory = GiB(40), hbm_bandwidth = GBps(1000),"
		 "  efficiency = 0.64193, efficiency_borrows = 'H100' } }");
	assert_int_equal(gpu(s, "X1")->eff_src, GP_EFF_DEFAULT);
	assert_float_equal(gpu(s, "X1")->efficiency, GP_DEFAULT_EFFICIENCY, 0);
	assert_int_equal(gpu(s, "X2")->eff_src, GP_EFF_SCENARIO);
	assert_int_equal(gpu(s, "X3")->eff_src, GP_EFF_BORROWED);
	assert_string_equal(gpu(s, "X3")->eff_ref, "H100");
	gp_scenario_free(s);
}

static void expect_error(const char *gpus, const char *msg)
{
	char text[1024];
	snprintf(text, sizeof text, ONE_POOL, "H100", gpus);
	struct gp_err e = { "" };
	struct gp_lua *h = gp_lua_new(NULL, &e);
	assert_non_null(h);
	struct gp_scenario *s = gp_lua_scenario(h, "t.lua", text, strlen(text), &e);
	if (s && !gp_scenario_validate(s, &e))
		fail_msg("loaded: %s", gpus);
	if (!strstr(e.msg, msg))
		fail_msg("got \"%s\", wanted \"%s\"", e.msg, msg);
	gp_scenario_free(s);
	gp_lua_free(h);
}

static void test_refused(void **state)
{
	(void)state;
	expect_error(", gpus = { H200 = { efficiency_data = 'mine', efficiency_borrows = 'H100' } }",
		     "give one (measured, or borrowed)");
	expect_error(", gpus = { H200 = { efficiency_borrows = 'H1OO' } }",
		     "\"H1OO\" is not a GPU type of the scenario or catalog");
	expect_error(", gpus = { H200 = { efficiency_borrows = 3 } }", "expected a string");
}

/* What sim and plan say under the figures of a plan on two types. */
static void test_report(void **state)
{
	(void)state;
	struct gp_scenario *s = scen(
		"return { dcs = { { name = 'a', pools = { { gpu = 'MI300X', count = 8, per_node = 8 },"
		" { gpu = 'H100', count = 8, per_node = 8 } } } }, model = 'OPT-350M',"
		" job = { seq = 2048, global_batch = 8 }, plan = { pipelines = { { micro_batches = 8,"
		" stages = { { dc = 'a', gpu = 'MI300X', layers = { 1, 12 } },"
		" { dc = 'a', gpu = 'H100', layers = { 13, 24 } } } } } } }");
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	gp_report_eff_text(f, s, &s->plan);
	fclose(f);
	/* The borrowed type gets its caveat; the measured one none. */
	assert_string_equal(buf, "efficiency MI300X borrows H100's fit, 0.642 of peak (no measured MI300X runs)\n");
	free(buf);
	f = open_memstream(&buf, &n);
	struct gp_json j;
	gp_json_init(&j, f);
	gp_json_obj(&j, false);
	gp_report_eff_json(&j, s, &s->plan);
	gp_json_end(&j);
	fclose(f);
	assert_non_null(strstr(buf, "{\"gpu\": \"H100\", \"efficiency\": 0.64193, \"source\": \"measured\", \"data\": \"NeMo"));
	assert_non_null(strstr(buf, "{\"gpu\": \"MI300X\", \"efficiency\": 0.64193, \"source\": \"borrowed\", \"borrows\": \"H100\"}"));
	free(buf);
	gp_scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalog_sources),
		cmocka_unit_test(test_scenario_sources),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
