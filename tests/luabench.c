/*
 * luabench.c: what a Lua cost model adds. The same work with the C
 * default and with scripts/default-model.lua (the same figures through
 * Lua): `geoplan plan` on P3 (load, cost tables, the placement MILP, and
 * with its polish, whose search runs to its time limit), a simulation of
 * P3 and one of 100,000 tasks; best of five runs each, with the script's
 * calls (all made while the cost tables are filled). The polished plan
 * runs a search to its time limit, so its figure moves with the
 * machine's load; the cost tables alone say what the script costs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "costtab.h"
#include "lua_cost.h"
#include "run.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Seconds of load (+ plan) + simulate of path, best of 5. */
enum what { SIM, PLAN_MILP, PLAN_POLISH };

static double once(const char *path, const char *script, enum what w, long *calls)
{
	double best = 1e9;
	for (int k = 0; k < 5; k++) {
		struct gp_run r;
		struct gp_err e = { "" };
		gp_run_init(&r);
		r.plan_optional = w != SIM;
		r.cost_path = script;
		double t0 = now();
		struct gp_plan_req rq = { .o = { .polish = w == PLAN_POLISH } };
		struct gp_sim_req sq = { .schedule = -1 };
		int rc = gp_run_load(&r, path, NULL, 0, &e);
		if (!rc && w != SIM)
			rc = gp_run_plan(&r, &rq, &e);
		if (!rc)
			rc = gp_run_simulate(&r, &sq, &e);
		double t = now() - t0;
		if (rc) {
			fprintf(stderr, "luabench: %s: %s\n", path, e.msg);
			gp_run_free(&r);
			return -1;
		}
		if (t < best)
			best = t;
		*calls = r.script ? gp_lua_cost_calls(r.script) : 0;
		gp_run_free(&r);
	}
	return best;
}

static void row(const char *what, const char *path, enum what w, const char *script)
{
	long calls = 0, none;
	double c = once(path, NULL, w, &none), l = once(path, script, w, &calls);
	if (c < 0 || l < 0)
		return;
	printf("%-34s %9.1f ms %9.1f ms %+8.1f %% %7ld\n", what, 1e3 * c, 1e3 * l,
	       100 * (l - c) / c, calls);
}

/* The cost tables alone, best of 20: what the script costs, without the
 * noise of the work around it. */
static void tables(const char *path, const char *script)
{
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load(path, &e);
	struct gp_lua_cost *lc = gp_lua_cost_load(script, &e);
	if (!s || !lc) {
		fprintf(stderr, "luabench: %s\n", e.msg);
		gp_scenario_free(s);
		gp_lua_cost_free(lc);
		return;
	}
	double best[2] = { 1e9, 1e9 };
	for (int k = 0; k < 40; k++) {
		double t0 = now();
		struct gp_costtab *ct = gp_costtab_new(s, k & 1 ? gp_lua_cost_model(lc) : NULL, &e);
		double t = now() - t0;
		gp_costtab_free(ct);
		if (t < best[k & 1])
			best[k & 1] = t;
	}
	long calls = gp_lua_cost_calls(lc) / 20;
	printf("%-34s %9.3f ms %9.3f ms %+8.3f ms %7ld\n", "cost tables of samples/p3.lua",
	       1e3 * best[0], 1e3 * best[1], 1e3 * (best[1] - best[0]), calls);
	gp_lua_cost_free(lc);
	gp_scenario_free(s);
}

/* A 100,000-task plan: 50 stages, 1,000 micro-batches, 1F1B, over a WAN
 * link halfway, in a temporary file. */
static int write_big(char *path, size_t n)
{
	snprintf(path, n, "/tmp/geoplan-luabench-XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		return -1;
	int S = 50, m = 1000;
	fprintf(f, "return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = %d } } },"
		   "{ name = 'b', pools = { { gpu = 'H100', count = %d } } } },"
		   " links = { { 'a', 'b', bandwidth = Gbps(100), latency = ms(10) } },"
		   " model = { layers = %d, hidden = 4096, heads = 32 },"
		   " job = { seq = 2048, global_batch = %d },"
		   " plan = { schedule = '1f1b', pipelines = { { micro_batches = %d, stages = {",
		S * 8, S * 8, S, m, m);
	for (int i = 0; i < S; i++)
		fprintf(f, "{ dc = '%s', tp = 8, layers = { %d, %d } },", i >= S / 2 ? "b" : "a",
			i + 1, i + 1);
	fprintf(f, "} } } } }\n");
	return fclose(f);
}

int main(int argc, char **argv)
{
	const char *script = argc > 1 ? argv[1] : "scripts/default-model.lua";
	printf("%-34s %12s %12s %10s %7s\n", "work", "C default", "Lua model", "overhead",
	       "calls");
	tables("samples/p3.lua", script);
	row("plan samples/p3.lua --no-polish", "samples/p3.lua", PLAN_MILP, script);
	row("plan samples/p3.lua (milp, polish)", "samples/p3.lua", PLAN_POLISH, script);
	row("sim samples/p3.lua", "samples/p3.lua", SIM, script);
	char big[64];
	if (write_big(big, sizeof big) == 0) {
		row("sim 100,000 tasks (50 x 1000, 1f1b)", big, SIM, script);
		unlink(big);
	}
	return 0;
}
