/*
 * test_lua_cost.c: cost-model scripts. The Lua re-implementation of the
 * default model fills the cost tables with the very doubles the C model
 * does; what a script leaves out is the default's; every bad result is
 * refused with the file, line and call; the script is never called
 * outside a table's batch (planning and simulating leave its call count
 * alone); an edit re-evaluates only what it touched.
 */
#include "testutil.h"
#include "costtab.h"
#include "lua_cost.h"
#include "plan.h"
#include "run.h"
#include "sim.h"

#include <unistd.h>

static const char *const samples[] = { "samples/default.lua", "samples/p1.lua",
	"samples/p2.lua", "samples/p3.lua", "samples/p4.lua", "samples/p5.lua",
	"samples/p6.lua" };

static struct gp_lua_cost *script(const char *text)
{
	struct gp_err e = { "" };
	struct gp_lua_cost *lc = gp_lua_cost_from_text("my.lua", text, strlen(text), &e);
	if (!lc)
		fail_msg("script refused: %s", e.msg);
	return lc;
}

/* The script fails to load or to fill a table for s; the message. */
static const char *refused(const struct gp_scenario *s, const char *text)
{
	static struct gp_err e;
	e.msg[0] = 0;
	struct gp_lua_cost *lc = gp_lua_cost_from_text("my.lua", text, strlen(text), &e);
	if (lc) {
		struct gp_costtab *ct = gp_costtab_new(s, gp_lua_cost_model(lc), &e);
		assert_null(ct);
		gp_lua_cost_free(lc);
	}
	assert_true(e.msg[0] != 0);
	return e.msg;
}

static bool same_comm(struct gp_comm a, struct gp_comm b)
{
	return a.lat == b.lat && a.bw == b.bw;
}

/* Every entry of two tables of s, bit for bit. */
static void assert_same_tables(const struct gp_scenario *s, const struct gp_costtab *a,
			       const struct gp_costtab *b)
{
	for (int d = 0; d < s->ndcs; d++)
		for (int p = 0; p < s->dcs[d].npools; p++) {
			for (int tp = 1; tp <= (int)s->model.heads; tp++)
				for (int rc = GP_RC_NONE; rc <= GP_RC_FULL; rc++) {
					const struct gp_layer_cost *x = gp_costtab_layer(a, d, p, tp, rc);
					const struct gp_layer_cost *y = gp_costtab_layer(b, d, p, tp, rc);
					assert_true(!x == !y);
					if (!x)
						continue;
					assert_memory_equal(x, y, sizeof *x);
					assert_memory_equal(gp_costtab_logits(a, d, p, tp),
							    gp_costtab_logits(b, d, p, tp), sizeof *x);
				}
			assert_true(gp_costtab_optimizer(a, d, p, 1e9) == gp_costtab_optimizer(b, d, p, 1e9));
			assert_true(gp_costtab_reserve(a, d, p) == gp_costtab_reserve(b, d, p));
			assert_true(same_comm(gp_costtab_nic(a, d, p), gp_costtab_nic(b, d, p)));
			assert_true(same_comm(gp_costtab_ring_nvlink(a, d, p), gp_costtab_ring_nvlink(b, d, p)));
			assert_true(same_comm(gp_costtab_ring_nic(a, d, p), gp_costtab_ring_nic(b, d, p)));
		}
	for (int l = 0; l < s->nlinks; l++)
		assert_true(same_comm(gp_costtab_wan(a, l), gp_costtab_wan(b, l)));
}

static void test_lua_default_is_the_c_default(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_lua_cost *lc = gp_lua_cost_load("scripts/default-model.lua", &e);
	if (!lc)
		fail_msg("%s", e.msg);
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
		struct gp_scenario *s = gp_scenario_load(samples[i], &e);
		assert_non_null(s);
		struct gp_costtab *c = gp_costtab_new(s, NULL, &e);
		struct gp_costtab *l = gp_costtab_new(s, gp_lua_cost_model(lc), &e);
		if (!l)
			fail_msg("%s: %s", samples[i], e.msg);
		assert_non_null(c);
		assert_same_tables(s, c, l);
		gp_costtab_free(c);
		gp_costtab_free(l);
		gp_scenario_free(s);
	}
	assert_true(gp_lua_cost_calls(lc) > 100);
	assert_int_equal(gp_lua_cost_stray(lc), 0);
	gp_lua_cost_free(lc);
}

/* compute giving the forward only: backward and W keep the default's
 * proportions; what it leaves out is the default's. */
static void test_left_out_is_default(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load("samples/default.lua", &e);
	assert_non_null(s);
	struct gp_lua_cost *lc = script(
		"return { compute = function(l, g, c)\n"
		"  local f = geoplan.default.compute(l, g, c)\n"
		"  return 2 * f end }\n");
	struct gp_costtab *c = gp_costtab_new(s, NULL, &e);
	struct gp_costtab *l = gp_costtab_new(s, gp_lua_cost_model(lc), &e);
	assert_non_null(l);
	for (int rc = GP_RC_NONE; rc <= GP_RC_FULL; rc++) {
		const struct gp_layer_cost *x = gp_costtab_layer(c, 0, 0, 4, rc);
		const struct gp_layer_cost *y = gp_costtab_layer(l, 0, 0, 4, rc);
		assert_close(y->t.f, 2 * x->t.f, 1e-15);
		assert_close(y->t.b, 2 * x->t.b, 1e-15);
		assert_close(y->t.w, 2 * x->t.w, 1e-15);
		assert_memory_equal(&x->m, &y->m, sizeof x->m);
	}
	assert_true(same_comm(gp_costtab_wan(c, 0), gp_costtab_wan(l, 0)));
	gp_costtab_free(c);
	gp_costtab_free(l);
	gp_lua_cost_free(lc);

	/* Forward and a backward total: split as the default splits B, W. */
	lc = script("return { compute = function(l, g, c) return 1e-3, 3e-3 end }");
	c = gp_costtab_new(s, NULL, &e);
	l = gp_costtab_new(s, gp_lua_cost_model(lc), &e);
	const struct gp_layer_cost *x = gp_costtab_layer(c, 0, 0, 2, GP_RC_NONE);
	const struct gp_layer_cost *y = gp_costtab_layer(l, 0, 0, 2, GP_RC_NONE);
	assert_close(y->t.f, 1e-3, 1e-15);
	assert_close(y->t.b + y->t.w, 3e-3, 1e-12);
	assert_close(y->t.b / y->t.w, x->t.b / x->t.w, 1e-12);
	gp_costtab_free(c);
	gp_costtab_free(l);
	gp_lua_cost_free(lc);
	gp_scenario_free(s);
}

/* efficiency alone: the default compute at the script's fraction of
 * peak, and ctx.params carries the parameter values. */
static void test_efficiency_and_params(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load("samples/default.lua", &e);
	assert_non_null(s);
	struct gp_lua_cost *lc = script(
		"return { params = { eff = { 0.5, min = 0.1, max = 1 } },\n"
		"  efficiency = function(g, l, c) return c.params.eff end }\n");
	assert_int_equal(gp_lua_cost_nparams(lc), 1);
	assert_string_equal(gp_lua_cost_param(lc, 0)->name, "eff");
	struct gp_costtab *l = gp_costtab_new(s, gp_lua_cost_model(lc), &e);
	const struct gp_pool *pool = &s->dcs[0].pools[0];
	s->gpus[pool->gpu].efficiency = 0.5;
	struct gp_costtab *c = gp_costtab_new(s, NULL, &e);
	assert_memory_equal(gp_costtab_layer(c, 0, 0, 1, GP_RC_NONE),
			    gp_costtab_layer(l, 0, 0, 1, GP_RC_NONE), sizeof(struct gp_layer_cost));
	gp_costtab_free(l);
	gp_costtab_free(c);
	/* A new value, a new table; out of bounds is refused. */
	assert_int_equal(gp_lua_cost_set_param(lc, 0, 0.25, &e), 0);
	assert_int_equal(gp_lua_cost_set_param(lc, 0, 2, &e), -1);
	assert_non_null(strstr(e.msg, "outside [0.1, 1]"));
	s->gpus[pool->gpu].efficiency = 0.25;
	l = gp_costtab_new(s, gp_lua_cost_model(lc), &e);
	c = gp_costtab_new(s, NULL, &e);
	assert_memory_equal(gp_costtab_layer(c, 0, 0, 8, GP_RC_FULL),
			    gp_costtab_layer(l, 0, 0, 8, GP_RC_FULL), sizeof(struct gp_layer_cost));
	gp_costtab_free(l);
	gp_costtab_free(c);
	gp_lua_cost_free(lc);

	/* memory sees the efficiency of its own query (asked once per
	 * layer entry: the tables ask time, then memory, of one query). */
	lc = script("return { efficiency = function(g, l, c) return 0.1 * c.tp / 64 + (l.kind == 'logits' and 0.5 or 0) end,\n"
		    "  memory = function(l, g, c) return g.efficiency * 1e9 end }\n");
	l = gp_costtab_new(s, gp_lua_cost_model(lc), &e);
	assert_non_null(l);
	assert_close(gp_costtab_layer(l, 0, 0, 8, GP_RC_NONE)->m.act, (0.1 * 8 / 64) * 1e9, 1e-12);
	assert_close(gp_costtab_logits(l, 0, 0, 2)->m.act, (0.1 * 2 / 64 + 0.5) * 1e9, 1e-12);
	/* 32 heads: 6 TP degrees x (3 blocks + logits) per pool, two calls
	 * each (efficiency, memory), and nothing else scripted. */
	int pools = 0;
	for (int d = 0; d < s->ndcs; d++)
		pools += s->dcs[d].npools;
	assert_int_equal(gp_lua_cost_calls(lc), pools * 6 * 4 * 2);
	gp_costtab_free(l);
	gp_lua_cost_free(lc);
	gp_scenario_free(s);
}

static void assert_says(const char *msg, const char *want)
{
	if (!strstr(msg, want))
		fail_msg("message \"%s\" does not say \"%s\"", msg, want);
}

/* A bandwidth curve is read at the boundary's activation size,
 * log-linearly between its points and flat beyond them. */
static void test_bandwidth_curve(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load("samples/default.lua", &e);
	assert_non_null(s);
	double at = 2 * s->job.micro_batch * s->job.seq * s->model.hidden;
	char text[512];
	snprintf(text, sizeof text,
		 "return { p2p = function(ch)\n"
		 "  return { latency = 0.01, bandwidth = 1e9, curve = {{%.17g, 0.2}, {%.17g, 0.8}} }\n"
		 "end }", at / 10, at * 10);
	struct gp_lua_cost *lc = script(text);
	struct gp_costtab *ct = gp_costtab_new(s, gp_lua_cost_model(lc), &e);
	assert_non_null(ct);
	struct gp_comm w = gp_costtab_wan(ct, 0);
	assert_close(w.lat, 0.01, 1e-15);
	assert_close(w.bw, 1e9 * 0.5, 1e-12);   /* halfway in log(bytes) */
	gp_costtab_free(ct);
	gp_lua_cost_free(lc);
	snprintf(text, sizeof text,
		 "return { p2p = function(ch)\n"
		 "  return { latency = 0, bandwidth = 1e9, curve = {{%.17g, 0.3}, {%.17g, 0.6}} }\n"
		 "end }", at * 2, at * 4);
	lc = script(text);
	ct = gp_costtab_new(s, gp_lua_cost_model(lc), &e);
	assert_close(gp_costtab_wan(ct, 0).bw, 0.3e9, 1e-12);   /* below the first point */
	gp_costtab_free(ct);
	gp_lua_cost_free(lc);
	assert_says(refused(s, "return { p2p = function() return { latency = 0, bandwidth = 1,"
			    " curve = {{2, 0.5}, {1, 0.6}} } end }"), "returned a bad curve");
	gp_scenario_free(s);
}


static void test_bad_results_refused(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load("samples/default.lua", &e);
	assert_non_null(s);
	assert_says(refused(s, "return {\n p2p = function(ch)\n return { latency = 0, bandwidth = 0/0 } end }"),
		    "my.lua:2: p2p(channel=nic, dc=ams, gpu=H100) returned bandwidth = NaN; expected a finite number of bytes/s > 0");
	assert_says(refused(s, "return { compute = function() return -1 end }"),
		    "returned -1; expected a finite number of seconds >= 0");
	assert_says(refused(s, "return { compute = function() return '1e-3' end }"),
		    "returned a string (\"1e-3\")");
	assert_says(refused(s, "return { compute = function() end }"),
		    "returned nothing (missing return?)");
	assert_says(refused(s, "return { compute = function() return 1/0 end }"), "returned inf");
	assert_says(refused(s, "return { memory = function() return 1, 2 end }"),
		    "returned 2 bytes for W, more than the 1");
	assert_says(refused(s, "return { efficiency = function() return 1.5 end }"),
		    "in (0, 1]");
	assert_says(refused(s, "return { optimizer = function() return {} end }"),
		    "optimizer(gpu=H100, n=1e9) returned a table");
	/* An error deep in a helper: its line, the call, the user's frames. */
	const char *m = refused(s, "local function h(l)\n  return l.hiden * 2\nend\n"
				"return { compute = function(l, g, c)\n  local x = h(l)\n  return x\nend }");
	assert_says(m, "my.lua:2: attempt to perform arithmetic on a nil value (field 'hiden')");
	assert_says(m, "while evaluating compute(layer=block, gpu=H100, dc=ams, tp=1, recompute=none)");
	assert_says(m, "my.lua:5: in");
	/* Descriptors are read-only. */
	assert_says(refused(s, "return { compute = function(l) l.hidden = 1 end }"),
		    "layer is read-only (field 'hidden')");
	/* An endless loop ends in the budget. */
	assert_says(refused(s, "return { p2p = function() while true do end end }"),
		    "instruction budget");
	gp_scenario_free(s);
}

static void test_bad_scripts_refused(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load("samples/default.lua", &e);
	assert_says(refused(s, "return { comptue = function() end }"),
		    "my.lua: comptue: unknown field (did you mean 'compute'?)");
	assert_says(refused(s, "return { compute = 3 }"), "compute: expected a function, got 3");
	assert_says(refused(s, "return 5"), "returns a table of functions, not 5");
	assert_says(refused(s, "return { params = { x = { 2, min = 0, max = 1 } } }"),
		    "params.x: expected min <= default <= max");
	assert_says(refused(s, "return { params = { x = { 0.5, min = 0 } } }"), "params.x");
	assert_says(refused(s, "return {"), "my.lua:1:");
	gp_scenario_free(s);
}

/* Planning and simulating read the tables only: the script's call count
 * does not move, and a call from outside a batch is refused. */
static void test_never_called_outside_tables(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load("samples/p3.lua", &e);
	assert_non_null(s);
	struct gp_lua_cost *lc = gp_lua_cost_load("scripts/default-model.lua", &e);
	assert_non_null(lc);
	struct gp_costtab *ct = gp_costtab_new(s, gp_lua_cost_model(lc), &e);
	assert_non_null(ct);
	long n = gp_lua_cost_calls(lc);
	struct gp_plan_req rq = { .o = { .costs = ct, .time_limit = 5, .polish = true } };
	struct gp_plan p;
	struct gp_plan_report rep;
	assert_int_equal(gp_plan_make(s, &rq, &p, &rep, &e), 0);
	struct gp_sim_opts so = { .costs = ct };
	struct gp_result r;
	assert_int_equal(gp_simulate(s, &p, &so, &r, &e), 0);
	assert_int_equal(gp_lua_cost_calls(lc), n);
	assert_int_equal(gp_lua_cost_stray(lc), 0);
	gp_result_free(&r);
	gp_plan_free(&p);
	/* A stray call runs the default and is counted. */
	const struct gp_cost_model *cm = gp_lua_cost_model(lc);
	const struct gp_pool *pool = &s->dcs[0].pools[0];
	struct gp_layer_q q = { .sc = s, .gpu = &s->gpus[pool->gpu], .pool = pool, .tp = 1 };
	struct gp_layer_time t, d;
	cm->ops->layer_time(cm->ud, &q, &t);
	gp_default_cost.ops->layer_time(NULL, &q, &d);
	assert_int_equal(gp_lua_cost_stray(lc), 1);
	assert_memory_equal(&t, &d, sizeof t);
	/* An edit of one link direction: one call. */
	s->links[0].bandwidth *= 0.5;
	n = gp_lua_cost_calls(lc);
	assert_int_equal(gp_costtab_update(ct, s, &e), 0);
	assert_int_equal(gp_lua_cost_calls(lc), n + 1);
	gp_costtab_free(ct);
	gp_lua_cost_free(lc);
	gp_scenario_free(s);
}

/* A model that keeps state between calls fills the tables differently
 * the second time: gp_run_check_pure says so; a pure one passes. */
static void test_impure_model_found(void **state)
{
	(void)state;
	char path[] = "/tmp/geoplan-impure-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	static const char text[] = "local n = 0\n"
		"return { compute = function(l, g, c) n = n + 1\n"
		"  return geoplan.default.compute(l, g, c) * (1 + n * 1e-6) end }\n";
	assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
	close(fd);
	struct gp_run r;
	struct gp_err e = { "" };
	gp_run_init(&r);
	r.cost_path = path;
	assert_int_equal(gp_run_load(&r, "samples/default.lua", NULL, 0, &e), 0);
	assert_int_equal(gp_run_check_pure(&r, &e), -1);
	assert_says(e.msg, "the cost model is not pure: evaluated twice, a block's time or memory at TP 1 of pool 1 of DC 1 differs");
	gp_run_free(&r);
	gp_run_init(&r);
	r.cost_path = "scripts/default-model.lua";
	assert_int_equal(gp_run_load(&r, "samples/p3.lua", NULL, 0, &e), 0);
	assert_int_equal(gp_run_check_pure(&r, &e), 0);
	gp_run_free(&r);
	unlink(path);
}

static void count_peak(void *ud, const char *line)
{
	if (strstr(line, "faster than peak"))
		++*(int *)ud;
	snprintf((char *)ud + sizeof(int), 512, "%s", line);
}

/* A forward under the layer's FLOPs at peak (the closed forms test_cost
 * checks by hand) is warned of, once, with the figures; one just above
 * it is not, nor is the default model on any sample. */
static void test_faster_than_peak(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_scenario *s = scen("return { gpus = { X = { tflops = 1e15, memory = 1e12,"
				     "   hbm_bandwidth = 1e12, nvlink = 1e11, efficiency = 0.5 } },"
				     " dcs = { { name = 'a', pools = { { gpu = 'X', count = 2, per_node = 2 } } } },"
				     " model = 'OPT-350M', job = { seq = 2048, global_batch = 2 } }");
	double block = gp_layer_flops_fwd(&s->model, 1, 2048) / 1e15;
	double logits = gp_logits_flops_fwd(&s->model, 1, 2048) / 1e15;
	for (int k = 0; k < 2; k++) {
		char text[200];
		double x = k == 0 ? 0.5 : 1.01;
		snprintf(text, sizeof text,
			 "return { compute = function(l) return l.kind == 'logits' and %.17g or %.17g end }",
			 logits * (k == 0 ? 1.01 : x), block * x);
		struct gp_lua_cost *lc = script(text);
		struct { int n; char last[512]; } got = { 0, "" };
		gp_lua_cost_set_log(lc, count_peak, &got);
		struct gp_costtab *ct = gp_costtab_new(s, gp_lua_cost_model(lc), &e);
		assert_non_null(ct);
		assert_int_equal(got.n, k == 0 ? 1 : 0);
		if (k == 0) {
			assert_non_null(strstr(got.last, "(200 % of peak)"));
			assert_non_null(strstr(got.last, "at the peak of 1 X"));
		}
		gp_costtab_free(ct);
		gp_lua_cost_free(lc);
	}
	gp_scenario_free(s);
	struct gp_lua_cost *lc = gp_lua_cost_load("scripts/default-model.lua", &e);
	assert_non_null(lc);
	struct { int n; char last[512]; } got = { 0, "" };
	gp_lua_cost_set_log(lc, count_peak, &got);
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
		s = gp_scenario_load(samples[i], &e);
		assert_non_null(s);
		struct gp_costtab *ct = gp_costtab_new(s, gp_lua_cost_model(lc), &e);
		assert_non_null(ct);
		gp_costtab_free(ct);
		gp_scenario_free(s);
	}
	if (got.n)
		fail_msg("%s", got.last);
	gp_lua_cost_free(lc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lua_default_is_the_c_default),
		cmocka_unit_test(test_left_out_is_default),
		cmocka_unit_test(test_efficiency_and_params),
		cmocka_unit_test(test_bandwidth_curve),
		cmocka_unit_test(test_bad_results_refused),
		cmocka_unit_test(test_bad_scripts_refused),
		cmocka_unit_test(test_never_called_outside_tables),
		cmocka_unit_test(test_impure_model_found),
		cmocka_unit_test(test_faster_than_peak),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
