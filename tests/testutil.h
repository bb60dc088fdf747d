/* testutil.h: helpers the unit tests share: scenarios from strings. */
#ifndef GP_TESTUTIL_H
#define GP_TESTUTIL_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lua_host.h"
#include "scenario.h"

/* Loads scenario text (printf-style) through the real sandbox and
 * validation; fails the test on error. */
__attribute__((format(printf, 1, 2)))
/* Four DCs of A100-80 on a chain of links, 1-25 Gbit/s and 1-40 ms
 * (randbench case 22, seed 1); scen()'s %s: more top-level fields. */
#define TEST_CHAIN4 \
	"return { dcs = {" \
	" { name = 'dc0', pools = { { gpu = 'A100-80', count = 32, per_node = 8 } } }," \
	" { name = 'dc1', pools = { { gpu = 'A100-80', count = 40, per_node = 8 } } }," \
	" { name = 'dc2', pools = { { gpu = 'A100-80', count = 40, per_node = 8 } } }," \
	" { name = 'dc3', pools = { { gpu = 'A100-80', count = 40, per_node = 8 } } } }," \
	" links = { { 'dc0', 'dc1', bandwidth = Gbps(1), latency = ms(40) }," \
	"  { 'dc1', 'dc2', bandwidth = Gbps(10), latency = ms(1) }," \
	"  { 'dc2', 'dc3', bandwidth = Gbps(25), latency = ms(5) } }," \
	" model = 'Llama-3-8B', job = { seq = 4096, global_batch = 128, micro_batch = 1," \
	"  zero = 0, recompute = 'full' }%s }"

static inline struct gp_scenario *scen(const char *fmt, ...)
{
	static char buf[1 << 16];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	struct gp_err e = { "" };
	struct gp_lua *h = gp_lua_new(NULL, &e);
	assert_non_null(h);
	struct gp_scenario *s = gp_lua_scenario(h, "test.lua", buf, strlen(buf), &e);
	gp_lua_free(h);
	if (!s || gp_scenario_validate(s, &e)) {
		fprintf(stderr, "scenario error: %s\n", e.msg);
		fail();
	}
	return s;
}

/* A heuristic script for tests that run every engine: two stages on
 * the pool whose GPUs run a layer fastest (so it reads the tables), as
 * many replicas as the pool holds. */
#include "lua_heur.h"
static inline struct gp_lua_heur *test_heuristic(void)
{
	static const char text[] =
		"return { name = 'fastest', plan = function(sc, ctx)\n"
		"  local best, bd, bp\n"
		"  for d, dc in ipairs(sc.dcs) do for p in ipairs(dc.pools) do\n"
		"    local f = geoplan.layer_time(d, p, 1)\n"
		"    if not best or f < best then best, bd, bp = f, d, p end end end\n"
		"  local dc, pool = sc.dcs[bd], sc.dcs[bd].pools[bp]\n"
		"  local L, m = sc.model.layers, sc.job.global_batch // sc.job.micro_batch\n"
		"  local r = math.max(1, pool.count // 2)\n"
		"  while m % r ~= 0 do r = r - 1 end\n"
		"  local function st(a, b) return { dc = dc.name, gpu = pool.gpu, layers = { a, b } } end\n"
		"  return { pipelines = { { micro_batches = m // r, replicas = r,\n"
		"    stages = { st(1, L // 2), st(L // 2 + 1, L) } } } }\n"
		"end }\n";
	struct gp_err e = { "" };
	struct gp_lua_heur *h = gp_lua_heur_from_text("test-heuristic.lua", text,
						      sizeof text - 1, &e);
	if (!h)
		fail_msg("%s", e.msg);
	return h;
}

#define assert_close(a, b, rel) do { \
	double a_ = (a), b_ = (b); \
	if (!(fabs(a_ - b_) <= (rel) * fabs(b_) + 1e-12)) \
		fail_msg("%s = %.9g, expected %.9g (within %g)", #a, a_, b_, (double)(rel)); \
} while (0)

#endif
