/*
 * test_lua_heur.c: heuristic scripts. A script's plan is the engine
 * "heuristic"'s, exactly; its queries answer from the cost tables; a bad
 * result is refused naming the field; the placement MILP warm-started
 * from it is never worse, as simulated; the kit's pieces (geoplan.kit)
 * split layers by the closed form and build a plan that fits.
 */
#include "testutil.h"
#include "costtab.h"
#include "lua_heur.h"
#include "plan.h"
#include "sim.h"

static struct gp_lua_heur *heur(const char *text)
{
	struct gp_err e = { "" };
	struct gp_lua_heur *h = gp_lua_heur_from_text("mine.lua", text, strlen(text), &e);
	if (!h)
		fail_msg("heuristic refused: %s", e.msg);
	return h;
}

static const char *const two_stages =
	"return { name = 'two', description = 'two stages in ams',\n"
	"  plan = function(sc, ctx)\n"
	"    return { schedule = 'zb-h1', pipelines = { { micro_batches = 32, replicas = 2,\n"
	"      stages = { { dc = 'ams', gpu = 'H100', tp = 4, layers = { 1, 20 } },\n"
	"                 { dc = sc.dcs[1].name, gpu = 'H100', tp = 4, layers = { 21, 32 } } } } } }\n"
	"  end }\n";

static int plan_with(const struct gp_scenario *s, struct gp_lua_heur *h,
		     const struct gp_engine *eng, const struct gp_engine *warm,
		     struct gp_plan *p, struct gp_plan_report *rep, struct gp_err *e)
{
	struct gp_plan_req rq = { .engine = eng, .warm = warm,
				  .o = { .heuristic = h, .polish = true, .time_limit = 5 } };
	return gp_plan_make(s, &rq, p, rep, e);
}

static void test_the_scripts_plan(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load("samples/default.lua", &e);
	assert_non_null(s);
	struct gp_lua_heur *h = heur(two_stages);
	assert_string_equal(gp_lua_heur_name(h), "two");
	assert_string_equal(gp_lua_heur_description(h), "two stages in ams");
	struct gp_plan p;
	struct gp_plan_report rep;
	assert_int_equal(plan_with(s, h, gp_engine_script(), NULL, &p, &rep, &e), 0);
	assert_string_equal(rep.engine, "two");
	assert_int_equal(p.schedule, GP_SCHED_ZBH1);
	assert_int_equal(p.npipes, 1);
	assert_int_equal(p.pipes[0].replicas, 2);
	assert_int_equal(p.pipes[0].nstages, 2);
	assert_int_equal(p.pipes[0].stages[0].last, 20);
	assert_int_equal(p.pipes[0].stages[1].first, 21);
	assert_int_equal(p.pipes[0].stages[1].tp, 4);
	/* Its estimate is the simulator's time for it. */
	struct gp_sim_opts so = { 0 };
	struct gp_result r;
	assert_int_equal(gp_simulate(s, &p, &so, &r, &e), 0);
	assert_true(rep.estimate_s == r.iteration_time);
	/* The MILP started from it is never worse, as simulated. */
	struct gp_plan m;
	struct gp_plan_report mrep;
	assert_int_equal(plan_with(s, h, NULL, gp_engine_script(), &m, &mrep, &e), 0);
	struct gp_result mr;
	assert_int_equal(gp_simulate(s, &m, &so, &mr, &e), 0);
	assert_true(mr.iteration_time <= r.iteration_time * (1 + 1e-9));
	gp_result_free(&mr);
	gp_result_free(&r);
	gp_plan_free(&m);
	gp_plan_free(&p);
	gp_lua_heur_free(h);
	gp_scenario_free(s);
}

/* A query's answer, smuggled out as the error plan() raises. */
static double query(const struct gp_scenario *s, const struct gp_costtab *ct, const char *expr)
{
	char text[512];
	snprintf(text, sizeof text,
		 "return { plan = function(sc) error(string.format('=%%.17g=', %s), 0) end }", expr);
	struct gp_lua_heur *h = heur(text);
	struct gp_plan p;
	struct gp_err e = { "" };
	assert_int_equal(gp_lua_heur_plan(h, s, ct, NULL, &p, &e), -1);
	gp_lua_heur_free(h);
	const char *eq = strchr(e.msg, '=');
	if (!eq)
		fail_msg("no answer in: %s", e.msg);
	return strtod(eq + 1, NULL);
}

static void test_queries_read_the_tables(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load("samples/p3.lua", &e);
	assert_non_null(s);
	struct gp_costtab *ct = gp_costtab_new(s, NULL, &e);
	const struct gp_layer_cost *c = gp_costtab_layer(ct, 1, 0, 2, GP_RC_SELECTIVE);
	assert_true(query(s, ct, "select(2, geoplan.layer_time(2, 1, 2, 'selective'))") == c->t.b);
	assert_true(query(s, ct, "geoplan.layer_memory(sc.dcs[2].name, 1, 2, 'selective')") == c->m.act);
	const struct gp_layer_cost *g = gp_costtab_logits(ct, 0, 0, 4);
	assert_true(query(s, ct, "select(3, geoplan.layer_time(1, 1, 4, nil, 'logits'))") == g->t.w);
	/* Across DCs: the link direction's latency plus bytes over its bandwidth. */
	const struct gp_link *l = &s->links[0];
	struct gp_comm w = gp_costtab_wan(ct, 0);
	char expr[200];
	snprintf(expr, sizeof expr, "geoplan.p2p_time(%d, %d, 1e8)", l->from + 1, l->to + 1);
	assert_true(query(s, ct, expr) == w.lat + 1e8 / w.bw);
	assert_true(query(s, ct, "geoplan.state_bytes(4)") == gp_costtab_state_bytes(ct, 4));
	assert_true(query(s, ct, "geoplan.sizes().block_params") == gp_layer_params(&s->model));
	/* tp 3 divides no head count of 40: nil and why. */
	assert_true(query(s, ct, "select('#', geoplan.layer_time(1, 1, 3))") == 2);
	gp_costtab_free(ct);
	gp_scenario_free(s);
}

/* One pipeline on the fastest pool, from the kit's pieces. */
static const char *const kit_one =
	"local kit = geoplan.kit\n"
	"return { plan = function(sc)\n"
	"  local env = kit.env(sc, 1)\n"
	"  local s = kit.best_on(env, { kit.pools(sc)[1] })\n"
	"  kit.bounds(s)\n"
	"  kit.spread({ s }, env.M)\n"
	"  return { schedule = '1f1b', pipelines = kit.pipelines({ s }) }\n"
	"end }\n";

static void test_the_kit(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load("samples/p3.lua", &e);
	assert_non_null(s);
	struct gp_costtab *ct = gp_costtab_new(s, NULL, &e);
	/* The split by speed: the fewest T with sum floor((T - e_j) / t_j)
	 * = L: 8 + 2 layers at 1 and 3 s; 6 + 4 when the last stage also
	 * takes 2 s of logits; 7 equal layers on 3 stages as 2, 2, 3. */
	const char *sp = "(function() local n = geoplan.kit.split(%s) local v = 0 "
			 "for _, x in ipairs(n) do v = v * 10 + x end return v end)()";
	char ex[300];
	snprintf(ex, sizeof ex, sp, "10, {1, 3}, {0, 0}");
	assert_true(query(s, ct, ex) == 82);
	snprintf(ex, sizeof ex, sp, "10, {1, 1}, {0, 2}");
	assert_true(query(s, ct, ex) == 64);
	snprintf(ex, sizeof ex, sp, "7, {1, 1, 1}, {0, 0, 0}");
	assert_true(query(s, ct, ex) == 223);
	/* Pools fastest first: the first is the fastest layer of any pool. */
	double best = HUGE_VAL;
	for (int d = 0; d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++) {
			const struct gp_layer_cost *c = gp_costtab_layer(ct, d, q, 1, GP_RC_NONE);
			best = fmin(best, c->t.f + c->t.b + c->t.w);
		}
	assert_true(query(s, ct, "geoplan.kit.pools(sc)[1].t1") == best);
	assert_true(query(s, ct, "#geoplan.kit.pools(sc, 2)") == s->dcs[1].npools);
	/* A heuristic of the kit's pieces: a plan that fits, every micro-batch
	 * in it. */
	struct gp_lua_heur *h = heur(kit_one);
	struct gp_plan p;
	assert_int_equal(gp_lua_heur_plan(h, s, ct, NULL, &p, &e), 0);
	int m = 0;
	for (int i = 0; i < p.npipes; i++)
		m += p.pipes[i].micro_batches * p.pipes[i].replicas;
	assert_int_equal(m, s->job.global_batch / s->job.micro_batch);
	struct gp_sim_opts so = { 0 };
	struct gp_result r;
	assert_int_equal(gp_simulate(s, &p, &so, &r, &e), 0);
	assert_true(r.fits);
	gp_result_free(&r);
	gp_plan_free(&p);
	gp_lua_heur_free(h);
	gp_costtab_free(ct);
	gp_scenario_free(s);
}

static const char *refusal(const struct gp_scenario *s, const char *text)
{
	static struct gp_err e;
	e.msg[0] = 0;
	struct gp_lua_heur *h = gp_lua_heur_from_text("mine.lua", text, strlen(text), &e);
	if (h) {
		struct gp_plan p;
		struct gp_plan_report rep;
		assert_int_equal(plan_with(s, h, gp_engine_script(), NULL, &p, &rep, &e), -1);
		gp_lua_heur_free(h);
	}
	return e.msg;
}

static void assert_says(const char *msg, const char *want)
{
	if (!strstr(msg, want))
		fail_msg("message \"%s\" does not say \"%s\"", msg, want);
}

static void test_bad_heuristics_refused(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load("samples/default.lua", &e);
	assert_says(refusal(s, "return { plan = function() return { pipelines = { { micro_batches = 64,"
			       " stages = { { dc = 'amz', layers = { 1, 32 } } } } } } end }"),
		    "mine.lua: plan(): plan.pipelines[1].stages[1].dc: unknown DC \"amz\"");
	assert_says(refusal(s, "return { plan = function() return 7 end }"),
		    "mine.lua: plan() returned 7; expected a plan");
	assert_says(refusal(s, "return { plan = function(sc) sc.job.seq = 1 end }"),
		    "scenario.job is read-only (field 'seq')");
	assert_says(refusal(s, "return { plan = function() while true do end end }"),
		    "instruction budget");
	assert_says(refusal(s, "return { plan = 1 }"), "plan: expected function");
	assert_says(refusal(s, "return { nmae = 'x', plan = function() end }"),
		    "nmae: unknown field (did you mean 'name'?)");
	assert_says(refusal(s, "local t = geoplan.layer_time(1, 1, 1)\nreturn { plan = function() end }"),
		    "only inside plan()");
	assert_says(refusal(s, "geoplan.kit.pools({ dcs = { { name = 'a', pools = { { gpu = 'H100' } } } } })\n"
			       "return { plan = function() end }"),
		    "only inside plan()");
	/* Layers that do not cover the model: the validator's word. */
	assert_says(refusal(s, "return { plan = function() return { pipelines = { { micro_batches = 64,"
			       " stages = { { dc = 'ams', gpu = 'H100', layers = { 1, 31 } } } } } } end }"),
		    "mine.lua: plan()");
	/* Over the budget: refused, naming the script. */
	s->budget_usd_per_hour = 1;
	s->gpus[s->dcs[0].pools[0].gpu].price_per_hour = 5;
	assert_says(refusal(s, two_stages), "two: its plan costs");
	gp_scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_scripts_plan),
		cmocka_unit_test(test_queries_read_the_tables),
		cmocka_unit_test(test_the_kit),
		cmocka_unit_test(test_bad_heuristics_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
