/*
 * tuibench.c: how fast the terminal planner answers, headless (the same
 * app, keys and drawing as on a terminal, without the terminal's own
 * time): start-up to the first frame on samples/default.lua, and
 * keypress to the updated screen on a Gantt of 100,000 tasks (16
 * stages, 3,125 micro-batches, 1F1B, a WAN link in the middle) at
 * 200 x 60. Targets: 100 ms and 16 ms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void startup(const char *path)
{
	double t[10];
	for (int i = 0; i < 10; i++) {
		struct gp_app a;
		struct gp_err e = { "" };
		struct gp_app_opts o = { .file = path, .w = 100, .h = 30, .hold = true };
		double t0 = now();
		if (gp_app_init(&a, &o, &e)) {
			fprintf(stderr, "%s\n", e.msg);
			exit(1);
		}
		gp_app_draw(&a);
		t[i] = now() - t0;
		gp_app_free(&a);
	}
	qsort(t, 10, sizeof *t, cmp);
	printf("start-up to the first frame, %s: %.1f ms (median of 10; target 100 ms)\n", path,
	       1e3 * t[5]);
}

/* The 100,000-task scenario, written to a temporary file. */
static char *big_scenario(void)
{
	static char path[] = "/tmp/geoplan-tuibench-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		return NULL;
	int S = 16, m = 3125;
	fprintf(f, "return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 128 } } },"
		   "{ name = 'b', pools = { { gpu = 'H100', count = 128 } } } },"
		   " links = { { 'a', 'b', bandwidth = Gbps(100), latency = ms(10) } },"
		   " model = { layers = %d, hidden = 4096, heads = 32 },"
		   " job = { seq = 2048, global_batch = %d },"
		   " plan = { schedule = '1f1b', pipelines = { { micro_batches = %d, stages = {",
		S * 2, m, m);
	for (int i = 0; i < S; i++)
		fprintf(f, "{ dc = '%s', tp = 8, layers = { %d, %d } },", i >= S / 2 ? "b" : "a",
			2 * i + 1, 2 * i + 2);
	fprintf(f, "} } } } }\n");
	fclose(f);
	return path;
}

static void keys(const char *path)
{
	struct gp_app a;
	struct gp_err e = { "" };
	struct gp_app_opts o = { .file = path, .w = 200, .h = 60, .hold = true };
	if (gp_app_init(&a, &o, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		exit(1);
	}
	a.view = GP_V_GANTT;
	gp_app_draw(&a);
	const char *script = "lllhhj]]]c+++---zjjkkLLHH+]]c-z";
	struct gp_key k[64];
	int where, n = gp_keys_parse(script, k, 64, &where);
	double t[64], worst = 0;
	for (int i = 0; i < n; i++) {
		double t0 = now();
		gp_app_key(&a, &k[i]);
		gp_app_draw(&a);
		t[i] = now() - t0;
		if (t[i] > worst)
			worst = t[i];
	}
	qsort(t, (size_t)n, sizeof *t, cmp);
	printf("keypress to the updated screen, Gantt of %lld spans at 200 x 60: median %.2f ms, worst %.2f ms over %d keys (target 16 ms)\n",
	       (long long)a.run.res.nspans, 1e3 * t[n / 2], 1e3 * worst, n);
	gp_app_free(&a);
}

int main(int argc, char **argv)
{
	startup(argc > 1 ? argv[1] : "samples/default.lua");
	char *big = big_scenario();
	if (!big)
		return 1;
	keys(big);
	remove(big);
	return 0;
}
