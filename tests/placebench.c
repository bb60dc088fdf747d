/*
 * placebench.c: how fast and how honest the placement MILP is
 * (place_milp.c). For samples/p3.lua and p4.lua: solve time, status,
 * estimate and simulated iteration time next to the sample's hand plan and
 * megatron's; then solve time against GPUs, DCs, GPU types and layers on
 * synthetic Llama-3.1-405B cases up to 16 DCs x 4 GPU types x 4096 GPUs,
 * each plan simulated against its estimate.
 * Targets (issue 3): P3 to a gap of at most 1 % in at most 0.1 s; the
 * 16 DC x 4 types x 4096 GPUs x 126 layers case to 1 % in at most 2 s.
 * Usage: placebench [time_limit_s] [max_case]; PLACEBENCH_CASE=i runs
 * synthetic case i alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lua_host.h"
#include "planner.h"
#include "scenario.h"
#include "sim.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static double sim(const struct gp_scenario *s, const struct gp_plan *p)
{
	struct gp_result r;
	struct gp_err e = { "" };
	if (gp_simulate(s, p, NULL, &r, &e)) {
		fprintf(stderr, "simulate: %s\n", e.msg);
		return -1;
	}
	double t = r.fits ? r.iteration_time : -1;
	gp_result_free(&r);
	return t;
}

static void run(const char *label, const struct gp_scenario *s, double tl, double gap,
		int simulate)
{
	struct gp_plan_opts o = { .time_limit = tl, .gap = gap };
	struct gp_plan p;
	struct gp_plan_report r;
	struct gp_err e = { "" };
	double t0 = now();
	int rc = gp_plan_milp(s, &o, &p, &r, &e);
	double secs = now() - t0;
	if (rc) {
		printf("%-28s %8.3f s  failed: %s\n", label, secs, e.msg);
		return;
	}
	double t = simulate ? sim(s, &p) : 0;
	printf("%-28s %8.3f s  %-10s gap %6.2f %%  estimate %9.4f s", label, secs,
	       gp_milp_status_name(r.status), 100 * r.gap, r.estimate_s);
	if (simulate)
		printf("  simulated %9.4f s (%+.1f %%)", t, 100 * (r.estimate_s - t) / t);
	printf("\n    %s\n", r.note);
	for (int i = 0; getenv("PLACEBENCH_PLAN") && i < p.npipes; i++) {
		printf("    pipeline %d: %d replicas x %d micro-batches:", i + 1,
		       p.pipes[i].replicas, p.pipes[i].micro_batches);
		for (int j = 0; j < p.pipes[i].nstages; j++)
			printf(" [dc %d pool %d tp %d layers %d-%d]", p.pipes[i].stages[j].dc,
			       p.pipes[i].stages[j].pool, p.pipes[i].stages[j].tp,
			       p.pipes[i].stages[j].first, p.pipes[i].stages[j].last);
		printf("\n");
	}
	gp_plan_free(&p);
}

static void sample(const char *path, double tl)
{
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load(path, &e);
	if (!s) {
		fprintf(stderr, "%s: %s\n", path, e.msg);
		return;
	}
	run(path, s, tl, 0, 1);
	char label[64];
	snprintf(label, sizeof label, "%s, 1 %% gap", path);
	run(label, s, tl, 0.01, 0);
	printf("    hand plan simulated %.4f s", sim(s, &s->plan));
	struct gp_plan_opts o = { .time_limit = tl };
	struct gp_plan p;
	struct gp_plan_report r;
	if (gp_plan_megatron(s, &o, &p, &r, &e) == 0) {
		printf(", megatron %.4f s", sim(s, &p));
		gp_plan_free(&p);
	}
	printf("\n");
	gp_scenario_free(s);
}

static const struct { const char *name; double bw_gbps; } gputypes[4] = {
	{ "H100", 400 }, { "A100-80", 200 }, { "A100-40", 200 }, { "V100-32", 100 },
};

/* nd DCs, nt GPU types per DC, gpus in all, L layers of Llama-3.1-405B. */
static struct gp_scenario *synth(int nd, int nt, int gpus, int L)
{
	size_t cap = 1 << 20;
	char *buf = malloc(cap), *p = buf;
	int per = gpus / (nd * nt);
	p += sprintf(p, "return { dcs = {");
	for (int d = 0; d < nd; d++) {
		p += sprintf(p, "{ name = 'd%d', pools = {", d);
		for (int t = 0; t < nt; t++)
			p += sprintf(p, "{ gpu = '%s', count = %d, network = Gbps(%g) },",
				     gputypes[(d + t) % 4].name, per, gputypes[(d + t) % 4].bw_gbps);
		p += sprintf(p, "} },");
	}
	p += sprintf(p, "}, links = {");
	for (int a = 0; a < nd; a++)
		for (int b = a + 1; b < nd; b++)
			p += sprintf(p, "{ 'd%d', 'd%d', bandwidth = Gbps(%d), latency = ms(%d) },",
				     a, b, (a / 4 == b / 4) ? 400 : 100, (a / 4 == b / 4) ? 2 : 20 + 5 * (a + b) % 40);
	p += sprintf(p, "}, model = { layers = %d, hidden = 16384, heads = 128, kv_heads = 8,"
		     " ffn = 53248, vocab = 128256, gated = true },"
		     " job = { seq = 4096, global_batch = 2048, micro_batch = 1, zero = 1, recompute = 'full' } }", L);
	struct gp_err e = { "" };
	struct gp_lua *h = gp_lua_new(NULL, &e);
	struct gp_scenario *s = h ? gp_lua_scenario(h, "synth", buf, strlen(buf), &e) : NULL;
	if (h)
		gp_lua_free(h);
	if (!s)
		fprintf(stderr, "synth: %s\n", e.msg);
	free(buf);
	return s;
}

int main(int argc, char **argv)
{
	double tl = argc > 1 ? atof(argv[1]) : 30;
	int maxcase = argc > 2 ? atoi(argv[2]) : 100;
	if (!getenv("PLACEBENCH_CASE")) {
		sample("samples/p3.lua", tl);
		sample("samples/p4.lua", tl);
	}
	static const int cases[][4] = {
		{ 1, 1, 256, 126 }, { 2, 1, 512, 126 }, { 4, 2, 1024, 126 },
		{ 4, 4, 1024, 126 }, { 8, 2, 2048, 126 }, { 8, 4, 2048, 126 },
		{ 16, 2, 4096, 126 }, { 16, 4, 4096, 126 }, { 4, 2, 1024, 32 },
		{ 16, 4, 4096, 64 },
	};
	int n = (int)(sizeof cases / sizeof cases[0]);
	printf("\nsynthetic Llama-3.1-405B (1 %% gap): DCs x types, GPUs, layers\n");
	const char *only = getenv("PLACEBENCH_CASE");   /* one case, by its index */
	for (int i = 0; i < n && i < maxcase; i++) {
		if (only && atoi(only) != i)
			continue;
		struct gp_scenario *s = synth(cases[i][0], cases[i][1], cases[i][2], cases[i][3]);
		if (!s)
			continue;
		char label[64];
		snprintf(label, sizeof label, "%2d DC x %d types %5d GPUs L%d", cases[i][0],
			 cases[i][1], cases[i][2], cases[i][3]);
		run(label, s, tl, 0.01, 1);
		gp_scenario_free(s);
	}
	return 0;
}
