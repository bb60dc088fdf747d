/*
 * test_lua.c: the sandbox. Hostile chunks are stopped with a message, and
 * the same process loads a good scenario right after each; chunks cannot
 * change what another sees; the host files' API (lua_int.h): scripts in
 * their own environments, freezing, the log, a budget per batch, the
 * message handler.
 */
#include "testutil.h"

#include <time.h>

#include "lua_int.h"

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
	expect_refused("io.write('x') return {}", "'io' is not available in geoplan's sandbox");
	expect_refused("os.exit(3) return {}", "'os' is not available in geoplan's sandbox");
	expect_refused("return require('io')", "'require' is not available in geoplan's sandbox");
	expect_refused("return dofile('/etc/passwd')", "'dofile' is not available in geoplan's sandbox");
	expect_refused("return loadfile('/etc/passwd')", "'loadfile' is not available in geoplan's sandbox");
	expect_refused("return load('return 1')", "'load' is not available in geoplan's sandbox");
	expect_refused("return string.dump(print)", "field 'dump'");
	expect_refused("return collectgarbage('stop')", "'collectgarbage' is not available in geoplan's sandbox");
	expect_refused("return package.loaded", "'package' is not available in geoplan's sandbox");
	expect_refused("return debug.getinfo(1)", "'debug' is not available in geoplan's sandbox");
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
	assert_close(g->memory, 80.0 * 1073741824, 1e-12);
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


static double seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static struct gp_lua *host(void)
{
	struct gp_err e = { "" };
	struct gp_lua *h = gp_lua_new(NULL, &e);
	if (!h)
		fail_msg("gp_lua_new: %s", e.msg);
	return h;
}

/* Runs text as a script with nres results; fails the test on error. */
static void run_ok(struct gp_lua *h, const char *name, const char *text, int nres)
{
	struct gp_err e = { "" };
	if (lh_load_script(h, name, text, strlen(text), nres, 0, &e))
		fail_msg("%s: %s", name, e.msg);
}

/* Runs text, which must fail with msg; the stack must be as it was. */
static void run_fails(struct gp_lua *h, const char *text, const char *msg)
{
	lua_State *L = lh_state(h);
	int top = lua_gettop(L);
	struct gp_err e = { "" };
	assert_int_equal(lh_load_script(h, "bad.lua", text, strlen(text), 0, 0, &e), -1);
	assert_int_equal(lua_gettop(L), top);
	if (!strstr(e.msg, msg))
		fail_msg("got \"%s\", wanted \"%s\"", e.msg, msg);
}

static void test_scripts_are_isolated(void **state)
{
	(void)state;
	struct gp_lua *h = host();
	lua_State *L = lh_state(h);
	run_ok(h, "a.lua",
	       "math.floor = function() return 42 end string.upper = nil x = 1"
	       " type = function() return 'number' end"
	       " catalog.gpus.H100.tflops = 1 catalog.models['OPT-350M'] = nil"
	       " table.insert = print", 0);
	lua_pop(L, 1);
	run_ok(h, "b.lua",
	       "return math.floor(2.5), x, catalog.gpus.H100.tflops, ('ab'):upper(),"
	       " string.upper('c'), type(1), Gbps(8), catalog.models['OPT-350M'].layers", 8);
	assert_int_equal(lua_tointeger(L, -9), 2);
	assert_true(lua_isnil(L, -8));
	assert_close(lua_tonumber(L, -7), 989e12, 1e-12);
	assert_string_equal(lua_tostring(L, -6), "AB");
	assert_string_equal(lua_tostring(L, -5), "C");
	assert_string_equal(lua_tostring(L, -4), "number");
	assert_close(lua_tonumber(L, -3), 1e9, 1e-12); /* the prelude kept its type() */
	assert_int_equal(lua_tointeger(L, -2), 24);
	lua_pop(L, 9);
	assert_int_equal(lua_gettop(L), 0);
	gp_lua_free(h);
}

static void test_scenario_globals_do_not_leak(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_lua *h = host();
	const char *a = "leak = 'GPT-3-XL' catalog.gpus.H100.tflops = TFLOPS(100)"
		" return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 8 } } } },"
		" model = 'OPT-350M', job = { seq = 2048, global_batch = 8 } }";
	const char *b = "return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 8 } } } },"
		" model = leak or 'OPT-350M', job = { seq = 2048, global_batch = 8 } }";
	struct gp_scenario *s = gp_lua_scenario(h, "a.lua", a, strlen(a), &e);
	assert_non_null(s);
	/* A scenario's changes to its own catalog count for it... */
	assert_close(s->gpus[s->dcs[0].pools[0].gpu].flops, 100e12, 1e-12);
	gp_scenario_free(s);
	s = gp_lua_scenario(h, "b.lua", b, strlen(b), &e);
	assert_non_null(s);
	/* ...and for no one else. */
	assert_close(s->gpus[s->dcs[0].pools[0].gpu].flops, 989e12, 1e-12);
	assert_int_equal((int)s->model.hidden, 1024);
	gp_scenario_free(s);
	gp_lua_free(h);
}

static void test_string_metatable_is_protected(void **state)
{
	(void)state;
	struct gp_lua *h = host();
	lua_State *L = lh_state(h);
	run_fails(h, "getmetatable('').__index = function() return function() return 'hijacked' end end",
		  "bad.lua:1: the string metatable is read-only");
	/* rawset reaches only the stand-in getmetatable gives. */
	run_ok(h, "a.lua", "rawset(getmetatable(''), '__index', function() return 'x' end)", 0);
	lua_pop(L, 1);
	run_ok(h, "b.lua", "return ('ab'):upper(), getmetatable('').__index ~= nil", 2);
	assert_string_equal(lua_tostring(L, -3), "AB");
	lua_pop(L, 3);
	run_fails(h, "setmetatable(getmetatable(''), nil)", "cannot change a protected metatable");
	gp_lua_free(h);
}

static void test_extra_results_and_errors(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_lua *h = host();
	lua_State *L = lh_state(h);
	lua_newtable(L);
	lua_pushinteger(L, 42);
	lua_setfield(L, -2, "answer");
	const char *t = "return geoplan.answer, 7, _G == _ENV";
	assert_int_equal(lh_load_script(h, "x.lua", t, strlen(t), 2, 1, &e), 0);
	assert_int_equal(lua_gettop(L), 4); /* extra, 42, 7, env */
	assert_int_equal(lua_tointeger(L, 2), 42);
	assert_int_equal(lua_tointeger(L, 3), 7);
	assert_true(lua_istable(L, 4));
	lua_pushliteral(L, "geoplan");
	assert_int_equal(lua_rawget(L, 4), LUA_TTABLE);
	lua_pushliteral(L, "answer");
	lua_rawget(L, -2);
	assert_int_equal(lua_tointeger(L, -1), 42);
	lua_settop(L, 1);
	/* LUA_MULTRET: every result, then the environment. */
	t = "return 1, 2, 3";
	assert_int_equal(lh_load_script(h, "m.lua", t, strlen(t), LUA_MULTRET, 0, &e), 0);
	assert_int_equal(lua_gettop(L), 5);
	assert_int_equal(lua_tointeger(L, 4), 3);
	lua_settop(L, 1);
	run_fails(h, "error('boom')", "bad.lua:1: boom");
	run_fails(h, "return {", "bad.lua:1: unexpected symbol near <eof>");
	assert_int_equal(lua_gettop(L), 1);
	gp_lua_free(h);
}

/* Calls env[fn] under the handler; returns lua_pcall's status and leaves
 * the message or result on top. */
static int call_field(struct gp_lua *h, int env, const char *fn)
{
	lua_State *L = lh_state(h);
	lua_pushcfunction(L, lh_msgh);
	lua_getfield(L, env, fn);
	int rc = lh_pcall(h, 0, 1, -2);
	lua_remove(L, -2);
	return rc;
}

static void test_freeze(void **state)
{
	(void)state;
	struct gp_lua *h = host();
	lua_State *L = lh_state(h);
	run_ok(h, "frozen.lua",
	       "function f() y = 1 end\n"
	       "function g() return zz end\n"
	       "function k() return math.floor(1.5) end\n"
	       "function u() setmetatable(_ENV, nil) end\n"
	       "n = 0\n"
	       "function c() n = n + 1 return n end\n"
	       "function r() return rawget(_ENV, 'n'), os end", 0);
	lh_freeze_env(L, -1, "cost-model functions must be pure");
	int env = lua_gettop(L);
	assert_int_equal(call_field(h, env, "f"), LUA_ERRRUN);
	assert_string_equal(lua_tostring(L, -1),
			    "frozen.lua:1: assignment to global 'y' (cost-model functions must be pure)");
	lua_pop(L, 1);
	assert_int_equal(call_field(h, env, "g"), LUA_ERRRUN);
	assert_string_equal(lua_tostring(L, -1), "frozen.lua:2: undefined global 'zz'");
	lua_pop(L, 1);
	assert_int_equal(call_field(h, env, "k"), LUA_OK);
	assert_int_equal(lua_tointeger(L, -1), 1);
	lua_pop(L, 1);
	assert_int_equal(call_field(h, env, "u"), LUA_ERRRUN);
	assert_non_null(strstr(lua_tostring(L, -1), "cannot change a protected metatable"));
	lua_pop(L, 1);
	/* A global the top level set is state too: its assignment is refused
	 * and its value stays what the top level left. */
	assert_int_equal(call_field(h, env, "c"), LUA_ERRRUN);
	assert_string_equal(lua_tostring(L, -1),
			    "frozen.lua:6: assignment to global 'n' (cost-model functions must be pure)");
	lua_pop(L, 1);
	assert_int_equal(call_field(h, env, "c"), LUA_ERRRUN);
	lua_pop(L, 1);
	lua_getfield(L, env, "n");
	assert_int_equal(lua_tointeger(L, -1), 0);
	lua_pop(L, 1);
	/* A library the sandbox leaves out is named as such. */
	assert_int_equal(call_field(h, env, "r"), LUA_ERRRUN);
	assert_non_null(strstr(lua_tostring(L, -1),
			       "frozen.lua:7: 'os' is not available in geoplan's sandbox"));
	lua_pop(L, 1);
	gp_lua_free(h);
}

struct lines {
	int n;
	char line[40][200];
};

static void collect(void *ud, const char *line)
{
	struct lines *l = ud;
	if (l->n < 40)
		snprintf(l->line[l->n], sizeof l->line[0], "%s", line);
	l->n++;
}

static void test_log_sink(void **state)
{
	(void)state;
	struct gp_lua *h = host();
	lua_State *L = lh_state(h);
	struct lines got = { 0 };
	gp_lua_set_log(h, collect, &got);
	run_ok(h, "log.lua",
	       "print('a', 1, nil, true, setmetatable({}, { __tostring = function() return 'T' end }))\n"
	       "warn('x', 'y', 'z')\n"
	       "warn('@off') warn('hidden') warn('@on')\n"
	       "for i = 1, 30 do print(i) end", 0);
	lua_pop(L, 1);
	assert_int_equal(got.n, 21);
	assert_string_equal(got.line[0], "[log.lua:1] a\t1\tnil\ttrue\tT");
	assert_string_equal(got.line[1], "[log.lua:2] warning: xyz");
	assert_string_equal(got.line[2], "[log.lua:4] 1");
	assert_string_equal(got.line[19], "[log.lua:4] 18");
	assert_string_equal(got.line[20], "12 more lines suppressed");
	/* Each run has its own 20 lines; a line break makes two. */
	got.n = 0;
	run_ok(h, "two.lua", "print('a\\nb')", 0);
	lua_pop(L, 1);
	assert_int_equal(got.n, 2);
	assert_string_equal(got.line[1], "[two.lua:1] b");
	gp_lua_free(h);
}

/* A function that loops n times, and one that catches a budget error. */
static const char *batch_fns =
	"return function(n) for i = 1, n do end return n end,"
	" function() return pcall(function() while true do end end) end,"
	" function() return 1 end";

static int call_armed(struct gp_lua *h, int fn, long arg)
{
	lua_State *L = lh_state(h);
	lua_pushcfunction(L, lh_msgh);
	lua_pushvalue(L, fn);
	lua_pushinteger(L, arg);
	int rc = lh_pcall_armed(h, 1, 1, -3);
	lua_pop(L, 2);
	return rc;
}

static void test_budget_per_batch(void **state)
{
	(void)state;
	struct gp_lua *h = host();
	lua_State *L = lh_state(h);
	run_ok(h, "batch.lua", batch_fns, 3);
	lua_pop(L, 1);
	/* 1..3: loop, catch, trivial */
	lh_arm(h, 100000);
	for (int i = 0; i < 3; i++)
		assert_int_equal(call_armed(h, 1, 30000), LUA_OK);
	assert_int_equal(call_armed(h, 1, 30000), LUA_ERRRUN);
	/* Sticky: even a call of one instruction fails now. */
	assert_int_equal(call_armed(h, 3, 0), LUA_ERRRUN);
	lh_disarm(h);
	lh_arm(h, 100000);
	assert_int_equal(call_armed(h, 3, 0), LUA_OK);
	/* pcall inside the batch cannot swallow the stop, even when the
	 * function returns right after it (a tail call runs no instruction
	 * after the error). */
	lua_pushcfunction(L, lh_msgh);
	lua_pushvalue(L, 2);
	assert_int_equal(lh_pcall_armed(h, 0, 1, -2), LUA_ERRRUN);
	assert_non_null(strstr(lua_tostring(L, -1), "instruction budget of 100000 exceeded"));
	lua_pop(L, 2);
	lh_disarm(h);
	gp_lua_free(h);
}

static void test_message_handler(void **state)
{
	(void)state;
	struct gp_lua *h = host();
	run_fails(h, "error(setmetatable({}, { __tostring = function() return 'custom' end }))",
		  "bad.lua:1: custom");
	run_fails(h, "error({})", "bad.lua:1: (error object is a table value)");
	run_fails(h, "error(setmetatable({}, { __tostring = function() while true do end end }))",
		  "(error object is a table value)");
	struct gp_err e = { "" };
	const char *t = "local function f(x) local v = Gbps(x) return v end\n"
			"local function g() f('y') end\ng()";
	assert_int_equal(lh_load_script(h, "tb.lua", t, strlen(t), 0, 0, &e), -1);
	assert_non_null(strstr(e.msg, "tb.lua:1: Gbps: expected a number, got y\nstack traceback:\n"
				       "\ttb.lua:1: in function 'f'\n\ttb.lua:2: in function 'g'\n"
				       "\ttb.lua:3: in main chunk"));
	assert_null(strstr(e.msg, "[C]"));
	assert_null(strstr(e.msg, "prelude"));
	/* One frame at the line the message names: no traceback. */
	run_fails(h, "local x = nil + 1", "bad.lua:1: attempt to perform arithmetic on a nil value");
	t = "local x = nil + 1";
	lh_load_script(h, "one.lua", t, strlen(t), 0, 0, &e);
	assert_null(strstr(e.msg, "traceback"));
	gp_lua_free(h);
}

static void test_memory_limit_message(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_lua_limits lim = { 0, 8u << 20, 0 };
	struct gp_lua *h = gp_lua_new(&lim, &e);
	assert_non_null(h);
	assert_int_equal(lh_memory_cap(h), 8u << 20);
	const char *t = "local t = {} for i = 1, 1e9 do t[i] = {} end";
	assert_int_equal(lh_load_script(h, "mem.lua", t, strlen(t), 0, 0, &e), -1);
	assert_string_equal(e.msg, "mem.lua: memory limit of 8 MiB exceeded");
	/* The host has room to go on: the heap is still full of t until
	 * the collector runs. */
	const char *ok = "return 1";
	assert_int_equal(lh_load_script(h, "ok.lua", ok, strlen(ok), 1, 0, &e), 0);
	gp_lua_free(h);
}

static void test_finalizers_refused(void **state)
{
	(void)state;
	struct gp_lua *h = host();
	run_fails(h, "setmetatable({}, { __gc = function() while true do end end })",
		  "bad.lua:1: setmetatable: a metatable with __gc is not allowed");
	/* __gc = false would mark the object, then a function later runs. */
	run_fails(h, "local mt = { __gc = false } setmetatable({}, mt)", "__gc is not allowed");
	/* Added after setmetatable, __gc never runs (manual 2.5.3): closing
	 * the state below must return. */
	run_ok(h, "late.lua", "local mt = {} keep = setmetatable({}, mt)"
	       " mt.__gc = function() while true do end end", 0);
	double t0 = seconds();
	gp_lua_free(h);
	assert_true(seconds() - t0 < 1.0);
}

/* Work inside one C call is charged: each of these would run for
 * minutes with the library's own functions. */
static void test_library_work_is_charged(void **state)
{
	(void)state;
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "string.find(string.rep('a', 30), string.rep('a*', 30) .. 'b')",
		  "bad.lua:1: instruction budget of 50000000 exceeded (in string.find)" },
		{ "local s = string.rep('a', 5000) for i = 1, 1e9 do s:gsub('.-.-.-b', '') end",
		  "(in string.gsub)" },
		{ "local s = string.rep('a', 1e6) for i = 1, 1e9 do s:find(string.rep('a', 1000) .. 'b', 1, true) end",
		  "(in string.find)" },
		{ "for i = 1, 1e9 do local s = string.rep('x', 2^24) end",
		  "(building large strings or tables?)" },
		{ "local t = {} for i = 1, 1e5 do t[i] = -i end for k = 1, 1e9 do table.sort(t) end",
		  "(in table.sort)" },
		{ "local t = {} for i = 1, 1e5 do t[i] = i end for k = 1, 1e9 do table.insert(t, 1, k) end",
		  "(in table.insert)" },
		{ "local t = {} for k = 1, 1e9 do table.move(t, 1, 1e8, 2) end", "(in table.move)" },
	};
	struct gp_lua *h = host();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double t0 = seconds();
		run_fails(h, cases[i].text, cases[i].msg);
		double dt = seconds() - t0;
		if (dt > 5)
			fail_msg("case %zu took %.1f s", i, dt);
	}
	/* What stays cheap: appending, an empty rep, a separator. */
	lua_State *L = lh_state(h);
	run_ok(h, "cheap.lua",
	       "local t = {} for i = 1, 1e5 do table.insert(t, i) end"
	       " return #t, string.rep('', 2^40), string.rep('ab', 3, ','), string.rep('x', 0)", 4);
	assert_int_equal(lua_tointeger(L, -5), 100000);
	assert_string_equal(lua_tostring(L, -4), "");
	assert_string_equal(lua_tostring(L, -3), "ab,ab,ab");
	assert_string_equal(lua_tostring(L, -2), "");
	lua_settop(L, 0);
	run_fails(h, "string.rep('x', 1 << 40)", "bad.lua:1: resulting string too large");
	gp_lua_free(h);
}

/* What nothing charges (one instruction comparing 16 MiB) meets the
 * wall clock. */
static void test_wall_clock_backstop(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_lua_limits lim = { 0, 0, 0.3 };
	struct gp_lua *h = gp_lua_new(&lim, &e);
	assert_non_null(h);
	double t0 = seconds();
	run_fails(h, "local a, b = string.rep('x', 2^24), string.rep('x', 2^24)\n"
		  "for i = 1, 1e9 do local same = a == b end",
		  "bad.lua:2: time limit of 0.3 s exceeded");
	double dt = seconds() - t0;
	if (dt < 0.3 || dt > 3)
		fail_msg("stopped after %.2f s", dt);
	gp_lua_free(h);
}

/* --set VALUE: an expression, or words taken as a string; a failing
 * expression is an error. */
static void test_set_values(void **state)
{
	(void)state;
	static const struct {
		const char *set, *name, *msg;
	} cases[] = {
		{ "name=GPT-3-XL", "GPT-3-XL", NULL },
		{ "name=xdc-greedy", "xdc-greedy", NULL },
		{ "name=hierarchical", "hierarchical", NULL },
		{ "name=1f1b", "1f1b", NULL },
		{ "name=a/b", "a/b", NULL },
		{ "name=('x'):rep(3)", "xxx", NULL },
		{ "name=os.getenv(\"USER\")", NULL,
		  "--set name=os.getenv(\"USER\"): 'os' is not available in geoplan's sandbox (geoplan-lua(7) says what is)" },
		{ "name=Gbps('x')", NULL, "--set name=Gbps('x'): Gbps: expected a number, got x" },
		{ "name=string.rep('x', 1e9)", NULL, "memory limit of 64 MiB exceeded" },
	};
	struct gp_lua *h = host();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct gp_err e = { "" };
		const char *sets[] = { cases[i].set };
		struct gp_scenario *s = gp_lua_scenario_set(h, "set.lua", good, strlen(good),
							    sets, 1, &e);
		if (cases[i].name) {
			if (!s)
				fail_msg("%s: %s", cases[i].set, e.msg);
			assert_string_equal(s->name, cases[i].name);
			gp_scenario_free(s);
		} else {
			assert_null(s);
			if (!strstr(e.msg, cases[i].msg))
				fail_msg("%s: got \"%s\", wanted \"%s\"", cases[i].set, e.msg, cases[i].msg);
		}
	}
	assert_int_equal(lua_gettop(lh_state(h)), 0);
	gp_lua_free(h);
}

static void test_nesting_names_the_file(void **state)
{
	(void)state;
	char t[600] = "return ";
	for (int i = 0; i < 199; i++)
		strcat(t, "{");
	for (int i = 0; i < 199; i++)
		strcat(t, "}");
	struct gp_err e = { "" };
	struct gp_lua *h = host();
	assert_null(gp_lua_scenario(h, "deep.lua", t, strlen(t), &e));
	assert_string_equal(e.msg, "deep.lua: C stack overflow (nested too deeply)");
	gp_lua_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_io_os),
		cmocka_unit_test(test_binary_chunk_refused),
		cmocka_unit_test(test_budgets),
		cmocka_unit_test(test_metatables_do_not_run),
		cmocka_unit_test(test_units_and_catalog),
		cmocka_unit_test(test_scripts_are_isolated),
		cmocka_unit_test(test_scenario_globals_do_not_leak),
		cmocka_unit_test(test_string_metatable_is_protected),
		cmocka_unit_test(test_extra_results_and_errors),
		cmocka_unit_test(test_freeze),
		cmocka_unit_test(test_log_sink),
		cmocka_unit_test(test_budget_per_batch),
		cmocka_unit_test(test_message_handler),
		cmocka_unit_test(test_memory_limit_message),
		cmocka_unit_test(test_finalizers_refused),
		cmocka_unit_test(test_library_work_is_charged),
		cmocka_unit_test(test_wall_clock_backstop),
		cmocka_unit_test(test_set_values),
		cmocka_unit_test(test_nesting_names_the_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
