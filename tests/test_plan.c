/*
 * test_plan.c: the engine table and gp_plan_make: every engine, and the
 * polish, keeps the job's budget; a cancelled request stops every
 * engine; every engine reads the cost tables it is given; pipelines of
 * one shape are joined, and simulate the same.
 */
#include "testutil.h"
#include "costtab.h"
#include "plan.h"
#include "sim.h"

static struct gp_scenario *load(const char *path, const char *const *sets, int n)
{
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load_set(path, sets, n, &e);
	if (!s) {
		fprintf(stderr, "%s\n", e.msg);
		fail();
	}
	return s;
}

/* default.lua with a budget of $10/h: its GPUs cost $2.50 (H100) and
 * $1.60 (A100) an hour, so at most 4 H100s or 6 A100s. Every engine's
 * plan costs no more, polish included, or the engine says the budget
 * stopped it. */
static void test_every_engine_keeps_the_budget(void **state)
{
	(void)state;
	const char *sets[] = { "plan=nil", "budget={usd_per_hour=10}" };
	struct gp_scenario *s = load("samples/default.lua", sets, 2);
	struct gp_lua_heur *h = test_heuristic();
	int planned = 0;
	for (int i = 0; i < gp_engine_count(); i++) {
		const struct gp_engine *eng = gp_engine_at(i);
		struct gp_plan_req rq = { .engine = eng, .o = { .polish = true, .time_limit = 5,
							       .heuristic = h } };
		struct gp_plan p;
		struct gp_plan_report rep;
		struct gp_err e = { "" };
		int rc = gp_plan_make(s, &rq, &p, &rep, &e);
		if (rc) {
			fprintf(stderr, "# %s: %s\n", eng->name, e.msg);
			assert_non_null(strstr(e.msg, "budget"));
			assert_null(strstr(e.msg, "engine bug"));
			continue;
		}
		double usd = gp_plan_usd_per_hour(s, &p);
		fprintf(stderr, "# %s: $%.2f/h\n", eng->name, usd);
		assert_true(usd <= 10 * (1 + 1e-9));
		assert_true(usd > 0);
		planned++;
		gp_plan_free(&p);
	}
	/* At least the MILP and the search find a plan within it. */
	assert_true(planned >= 2);
	gp_lua_heur_free(h);
	gp_scenario_free(s);
}

/* The budget binds: without it in its request, megatron takes every
 * GPU ($65.60/h), so the test above asks something of the engines. */
static void test_the_budget_binds(void **state)
{
	(void)state;
	const char *sets[] = { "plan=nil", "budget={usd_per_hour=10}" };
	struct gp_scenario *s = load("samples/default.lua", sets, 2);
	struct gp_plan_report rep;
	struct gp_plan p;
	struct gp_err e = { "" };
	struct gp_plan_opts o = { .schedule = GP_SCHED_1F1B };
	assert_int_equal(gp_plan_megatron(s, &o, &p, &rep, &e), 0);
	assert_true(gp_plan_usd_per_hour(s, &p) > 10);
	gp_plan_free(&p);
	gp_scenario_free(s);
}

static atomic_int cancel_flag;

/* Cancelled before it starts, every engine stops and says so. */
static void test_a_cancelled_request_stops_every_engine(void **state)
{
	(void)state;
	const char *sets[] = { "plan=nil" };
	struct gp_scenario *s = load("samples/p3.lua", sets, 1);
	struct gp_lua_heur *h = test_heuristic();
	atomic_store(&cancel_flag, 1);
	for (int i = 0; i < gp_engine_count(); i++) {
		const struct gp_engine *eng = gp_engine_at(i);
		struct gp_plan_opts o = { .schedule = GP_SCHED_1F1B, .time_limit = 60,
					  .cancel = &cancel_flag, .heuristic = h };
		struct gp_plan p;
		struct gp_plan_report rep;
		struct gp_err e = { "" };
		assert_int_equal(eng->fn(s, &o, &p, &rep, &e), -1);
		assert_non_null(strstr(e.msg, "cancelled"));
		assert_true(rep.seconds < 5);
	}
	atomic_store(&cancel_flag, 0);
	gp_lua_heur_free(h);
	gp_scenario_free(s);
}

/* A cost model that makes one GPU type 4x slower: every engine sees it
 * through the tables it is given, so the plans move off that type. */
static void slow_a100(void *ud, const struct gp_layer_q *q, struct gp_layer_time *o)
{
	gp_default_cost.ops->layer_time(ud, q, o);
	if (!strcmp(q->gpu->name, "A100-80")) {
		o->f *= 4;
		o->b *= 4;
		o->w *= 4;
	}
}

static double a100_share(const struct gp_scenario *s, const struct gp_plan *p)
{
	double all = 0, a100 = 0;
	for (int i = 0; i < p->npipes; i++)
		for (int j = 0; j < p->pipes[i].nstages; j++) {
			const struct gp_stage *st = &p->pipes[i].stages[j];
			double n = (double)(st->last - st->first + 1) * p->pipes[i].replicas *
				   p->pipes[i].micro_batches;
			all += n;
			if (!strcmp(s->gpus[s->dcs[st->dc].pools[st->pool].gpu].name, "A100-80"))
				a100 += n;
		}
	return a100 / all;
}

static void test_every_engine_reads_the_tables(void **state)
{
	(void)state;
	const char *sets[] = { "plan=nil" };
	struct gp_scenario *s = load("samples/default.lua", sets, 1);
	struct gp_cost_ops ops = *gp_default_cost.ops;
	ops.layer_time = slow_a100;
	struct gp_cost_model slow = { &ops, NULL };
	struct gp_err e = { "" };
	struct gp_costtab *ct = gp_costtab_new(s, &slow, &e);
	assert_non_null(ct);
	struct gp_lua_heur *h = test_heuristic();
	double share0 = 0, share1 = 0;
	for (int i = 0; i < gp_engine_count(); i++) {
		const struct gp_engine *eng = gp_engine_at(i);
		struct gp_plan_opts o = { .schedule = GP_SCHED_1F1B, .time_limit = 5, .heuristic = h };
		struct gp_plan p0, p1;
		struct gp_plan_report r0, r1;
		assert_int_equal(eng->fn(s, &o, &p0, &r0, &e), 0);
		o.costs = ct;
		assert_int_equal(eng->fn(s, &o, &p1, &r1, &e), 0);
		/* The engine's own figure is its plan under the tables it was
		 * given: exactly for the engines the simulator judges, within
		 * the model's error for the MILP. */
		struct gp_sim_opts so = { .costs = ct };
		struct gp_result a, b;
		assert_int_equal(gp_simulate(s, &p0, &so, &a, &e), 0);
		assert_int_equal(gp_simulate(s, &p1, &so, &b, &e), 0);
		fprintf(stderr, "# %s: A100 share %.2f -> %.2f, %.3g s -> %.3g s\n", eng->name,
			a100_share(s, &p0), a100_share(s, &p1), a.iteration_time, b.iteration_time);
		assert_close(r1.estimate_s, b.iteration_time, eng->flags & GP_ENGINE_EXACT ? 0.1 : 1e-9);
		share0 += a100_share(s, &p0);
		share1 += a100_share(s, &p1);
		gp_result_free(&a);
		gp_result_free(&b);
		gp_plan_free(&p0);
		gp_plan_free(&p1);
	}
	/* Told the A100s are slow, the engines give them less work. */
	assert_true(share1 < share0 - 0.1);
	gp_lua_heur_free(h);
	gp_costtab_free(ct);
	gp_scenario_free(s);
}

static void test_the_table(void **state)
{
	(void)state;
	assert_non_null(gp_engine_find("milp"));
	assert_null(gp_engine_find("gurobi"));
	assert_ptr_equal(gp_engine_default(), gp_engine_find("milp"));
	assert_true(gp_engine_find("milp")->flags & GP_ENGINE_EXACT);
	assert_true(gp_engine_find("search")->flags & GP_ENGINE_HEURISTIC);
	char names[256];
	gp_engine_names(names, sizeof names, GP_ENGINE_HEURISTIC);
	assert_string_equal(names, "megatron, dp-across-dcs, atlas, search, heuristic");
	assert_true(gp_engine_script() && (gp_engine_script()->flags & GP_ENGINE_SCRIPT));
}

static double sim_time(const struct gp_scenario *s, const struct gp_plan *p)
{
	struct gp_sim_opts so = { 0 };
	struct gp_result r;
	struct gp_err e = { "" };
	if (gp_simulate(s, p, &so, &r, &e))
		fail_msg("%s", e.msg);
	double t = r.iteration_time;
	gp_result_free(&r);
	return t;
}

/* A plan's pipelines of one shape are joined into one with their
 * replicas summed when that is no slower: ams at 80 H100s and
 * ams>fra at 50 Gbit/s gave the MILP's plan as three pipelines of the
 * same five stages (2, 1 and 1 replicas). Also each pipeline of a file's
 * plan split in two of the same shape, joined back. */
static void test_shapes_joined(void **state)
{
	(void)state;
	const char *sets[] = { "plan=nil", "dcs[ams].pools[1].count=80",
			       "links[ams>fra].bandwidth=Gbps(50)" };
	struct gp_scenario *s = load("samples/default.lua", sets, 3);
	struct gp_plan_req rq = { .engine = gp_engine_find("milp"),
				  .o = { .time_limit = 10, .polish = true, .schedule = GP_SCHED_1F1B } };
	struct gp_plan p;
	struct gp_plan_report rep;
	struct gp_err e = { "" };
	assert_int_equal(gp_plan_make(s, &rq, &p, &rep, &e), 0);
	printf("# milp polished: %d pipeline(s)\n", p.npipes);
	for (int i = 0; i < p.npipes; i++)
		for (int j = i + 1; j < p.npipes; j++)
			assert_false(p.pipes[i].nstages == p.pipes[j].nstages &&
				     p.pipes[i].micro_batches == p.pipes[j].micro_batches &&
				     !memcmp(p.pipes[i].stages, p.pipes[j].stages,
					     sizeof *p.pipes[i].stages * (size_t)p.pipes[i].nstages));
	gp_plan_free(&p);
	gp_scenario_free(s);
	/* A plan whose joined shapes simulate slower stays as it is: P3's
	 * polished plan at efficiency 0.18 was 5 pipelines, two of one
	 * shape, 905 ms, and 909 ms joined (at 0.096 its 4 pipelines have
	 * no shape in common). */
	s = load("samples/p3.lua", NULL, 0);
	assert_int_equal(gp_plan_make(s, &rq, &p, &rep, &e), 0);
	struct gp_plan q;
	assert_int_equal(gp_plan_copy(&q, &p), 0);
	if (gp_plan_merge_shapes(&q) > 0) {
		printf("# p3: %d pipelines %.6f s, joined %.6f s\n", p.npipes, sim_time(s, &p),
		       sim_time(s, &q));
		assert_true(sim_time(s, &q) > sim_time(s, &p));
	}
	gp_plan_free(&q);
	gp_plan_free(&p);
	gp_scenario_free(s);
	/* P5's file plan, each pipeline of 4 replicas split into 2 + 2. */
	s = load("samples/p5.lua", NULL, 0);
	assert_int_equal(gp_plan_copy(&p, &s->plan), 0);
	int n = p.npipes, split = 0;
	p.pipes = realloc(p.pipes, sizeof *p.pipes * (size_t)(2 * n));
	for (int i = 0; i < n; i++)
		if (p.pipes[i].replicas > 1) {
			struct gp_pipeline *x = &p.pipes[i], *y = &p.pipes[p.npipes++];
			*y = *x;
			y->replicas = x->replicas / 2;
			x->replicas -= y->replicas;
			y->stages = malloc(sizeof *y->stages * (size_t)x->nstages);
			memcpy(y->stages, x->stages, sizeof *y->stages * (size_t)x->nstages);
			split++;
		}
	assert_true(split > 0);
	double t_split = sim_time(s, &p);
	assert_int_equal(gp_plan_merge_shapes(&p), split);
	assert_int_equal(p.npipes, s->plan.npipes);
	for (int i = 0; i < n; i++)
		assert_int_equal(p.pipes[i].replicas, s->plan.pipes[i].replicas);
	assert_close(t_split, sim_time(s, &s->plan), 1e-9);
	gp_plan_free(&p);
	gp_scenario_free(s);
}

/* Interleaving asked for: the plan found runs its chunks (2 by default,
 * or as asked) when every stage can hold them, else one, with why in
 * the note; either way it validates, and the chunked plan simulates as
 * the simulator times that plan with those chunks. */
static void test_chunks_set_on_the_plan(void **state)
{
	(void)state;
	struct gp_scenario *s = load("samples/default.lua", NULL, 0);
	int ask[] = { 0, 3, 64 }, want[] = { 2, 3, 1 };
	for (int k = 0; k < 3; k++) {
		struct gp_plan_req rq = { .engine = gp_engine_find("milp"),
					  .o = { .time_limit = 10, .schedule = GP_SCHED_INTERLEAVED,
						 .chunks = ask[k] } };
		struct gp_plan p;
		struct gp_plan_report rep;
		struct gp_err e = { "" };
		assert_int_equal(gp_plan_make(s, &rq, &p, &rep, &e), 0);
		assert_int_equal(p.schedule, GP_SCHED_INTERLEAVED);
		assert_int_equal(p.chunks, want[k]);
		assert_int_equal(gp_plan_validate(s, &p, &e), 0);
		assert_non_null(strstr(rep.note, want[k] > 1 ? "chunks set on the plan found"
							  : "64 chunks left out, the plan runs one: "));
		if (want[k] > 1) {   /* not the one-chunk plan's time */
			struct gp_plan one;
			assert_int_equal(gp_plan_copy(&one, &p), 0);
			one.chunks = 1;
			assert_true(fabs(sim_time(s, &p) - sim_time(s, &one)) > 1e-6);
			gp_plan_free(&one);
		}
		gp_plan_free(&p);
	}
	gp_scenario_free(s);
}

/* A script's interleaved plan of two stages and 8 replicas of H100 at a
 * global batch of 24 runs 3 micro-batches a replica: no multiple of
 * the 2 stages, so interleaving takes micro-batch groups of 3, the
 * least that Megatron-Core's rule allows; at 8 (1 a replica, fewer than
 * the stages) no group does and the plan runs one chunk. */
static void test_chunks_in_micro_batch_groups(void **state)
{
	(void)state;
	static const char text[] =
		"return { name = 'two', plan = function(sc, ctx)\n"
		"  local m = sc.job.global_batch // sc.job.micro_batch // 8\n"
		"  local function st(a, b) return { dc = 'ams', gpu = 'H100', layers = { a, b } } end\n"
		"  return { schedule = 'interleaved', pipelines = { { micro_batches = m,\n"
		"    replicas = 8, stages = { st(1, 16), st(17, 32) } } } }\n"
		"end }\n";
	struct gp_err e = { "" };
	struct gp_lua_heur *h = gp_lua_heur_from_text("two.lua", text, sizeof text - 1, &e);
	assert_non_null(h);
	const char *sets[][2] = { { "plan=nil", "job.global_batch=24" },
				  { "plan=nil", "job.global_batch=8" } };
	for (int k = 0; k < 2; k++) {
		struct gp_scenario *s = load("samples/default.lua", sets[k], 2);
		struct gp_plan_req rq = { .engine = gp_engine_find("heuristic"),
					  .o = { .time_limit = 5, .schedule = GP_SCHED_INTERLEAVED,
						 .heuristic = h } };
		struct gp_plan p;
		struct gp_plan_report rep;
		assert_int_equal(gp_plan_make(s, &rq, &p, &rep, &e), 0);
		assert_int_equal(p.pipes[0].micro_batches, k ? 1 : 3);
		assert_int_equal(p.chunks, k ? 1 : 2);
		assert_int_equal(p.microbatch_group, k ? 0 : 3);
		assert_int_equal(gp_plan_validate(s, &p, &e), 0);
		if (!strstr(rep.note, k ? "2 chunks left out, the plan runs one: "
					: "2 chunks set on the plan found (in micro-batch groups of 3; "))
			fail_msg("note: %s", rep.note);
		gp_plan_free(&p);
		gp_scenario_free(s);
	}
	gp_lua_heur_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chunks_in_micro_batch_groups),
		cmocka_unit_test(test_the_table),
		cmocka_unit_test(test_every_engine_keeps_the_budget),
		cmocka_unit_test(test_the_budget_binds),
		cmocka_unit_test(test_a_cancelled_request_stops_every_engine),
		cmocka_unit_test(test_every_engine_reads_the_tables),
		cmocka_unit_test(test_shapes_joined),
		cmocka_unit_test(test_chunks_set_on_the_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
