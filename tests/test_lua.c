/*
 * test_lua.c: the sandbox. Hostile chunks are stopped with a message, and
 * the same process loads a good scenario right after each.
 */
#include "testutil.h"

static const char *good =
	"return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 8 } } } },"
	" model = 'OPT-350M', job = { seq = 2048, global_batch = 8 } }";

static void expect_refused(const char *text, const char *msg)
{
	struct gp_err e = { "" };
	struct gp_lua *h = gp_lua_new(NULL, &e);
	assert_non_null(h);
	struct gp_scenario *s = gp_lua_scenario(h, "hostile.lua", text, strlen(text), &e);
	assert_null(s);
	if (!strstr(e.msg, msg))
		fail_msg("got \"%s\", wanted \"%s\"", e.msg, msg);
	/* The same state still works... */
	s = gp_lua_scenario(h, "good.lua", good, strlen(good), &e);
	assert_non_null(s);
	assert_int_equal(s->model.layers, 24);
	gp_scenario_free(s);
	gp_lua_free(h);
}

static void test_no_io_os(void **state)
{
	(void)state;
	expect_refused("io.write('x') return {}", "global 'io'");
	expect_refused("os.exit(3) return {}", "global 'os'");
	expect_refused("return require('io')", "global 'require'");
	expect_refused("return dofile('/etc/passwd')", "global 'dofile'");
	expect_refused("return loadfile('/etc/passwd')", "global 'loadfile'");
	expect_refused("return load('return 1')", "global 'load'");
	expect_refused("return string.dump(print)", "field 'dump'");
	expect_refused("return collectgarbage('stop')", "global 'collectgarbage'");
	expect_refused("return package.loaded", "global 'package'");
	expect_refused("return debug.getinfo(1)", "global 'debug'");
}

static void test_binary_chunk_refused(void **state)
{
	(void)state;
	/* Lua's binary signature: text-only loading refuses it. */
	expect_refused("\x1bLua\x54\x00", "attempt to load a binary chunk");
}

static void test_budgets(void **state)
{
	(void)state;
	expect_refused("while true do end", "instruction budget");
	expect_refused("while true do pcall(function() while true do end end) end",
		       "instruction budget");
	expect_refused("local t = {} for i = 1, 1e9 do t[i] = {} end", "memory limit");
	expect_refused("local function f() return f() + 1 end return f()", "memory limit");
	expect_refused("local s = 'x' while true do s = s .. s end", "memory limit");
}

static void test_metatables_do_not_run(void **state)
{
	(void)state;
	/* Conversion reads raw fields: an __index that loops never runs. */
	const char *t =
		"local job = setmetatable({ seq = 2048 }, { __index = function() while true do end end })"
		" job.global_batch = 8"
		" return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 8 } } } },"
		" model = 'OPT-350M', job = job }";
	struct gp_err e = { "" };
	struct gp_lua *h = gp_lua_new(NULL, &e);
	struct gp_scenario *s = gp_lua_scenario(h, "meta.lua", t, strlen(t), &e);
	assert_non_null(s);
	assert_int_equal((int)s->job.micro_batch, 1);
	gp_scenario_free(s);
	gp_lua_free(h);
}

static void test_units_and_catalog(void **state)
{
	(void)state;
	struct gp_scenario *s = scen(
		"return { gpus = { ['H100'] = { efficiency = 0.4, price_per_hour = 2.5 } },"
		" dcs = { { name = 'a', pools = { { gpu = 'H100', count = 8, network = Gbps(400),"
		"   latency = us(5) } } }, { name = 'b', pools = { { gpu = 'A100-40', count = 4, per_node = 4 } } } },"
		" links = { { 'a', 'b', bandwidth = Gbps(100), latency = ms(4), price_per_gb = 0.02 },"
		"           { 'b', 'a', bandwidth = Gbps(50), latency = ms(5) } },"
		" model = 'Llama-3-8B', job = { seq = 8192, global_batch = 8 } }");
	const struct gp_pool *p = &s->dcs[0].pools[0];
	const struct gp_gpu *g = &s->gpus[p->gpu];
	assert_close(g->flops, 989e12, 1e-12);
	assert_close(g->memory, 80e9, 1e-12);
	assert_close(g->efficiency, 0.4, 1e-12);
	assert_close(g->price_per_hour, 2.5, 1e-12);
	assert_close(p->network, 50e9, 1e-12);
	assert_close(p->latency, 5e-6, 1e-12);
	assert_int_equal(s->nlinks, 2);
	const struct gp_link *ab = gp_find_link(s, 0, 1), *ba = gp_find_link(s, 1, 0);
	assert_close(ab->bandwidth, 12.5e9, 1e-12);
	assert_close(ab->latency, 4e-3, 1e-12);
	assert_close(ba->bandwidth, 6.25e9, 1e-12);
	assert_close(ba->latency, 5e-3, 1e-12);
	assert_close(s->model.kv_heads, 8, 0);
	assert_true(s->model.gated);
	gp_scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_io_os),
		cmocka_unit_test(test_binary_chunk_refused),
		cmocka_unit_test(test_budgets),
		cmocka_unit_test(test_metatables_do_not_run),
		cmocka_unit_test(test_units_and_catalog),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
