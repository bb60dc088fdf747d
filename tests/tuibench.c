/*
 * tuibench.c: how fast the terminal planner answers, headless (the same
 * app, keys and drawing as on a terminal, without the terminal's own
 * time): start-up to the first frame on samples/default.lua, and
 * keypress to the updated screen on a Gantt of 100,000 tasks (16
 * stages, 3,125 micro-batches, 1F1B, a WAN link in the middle) at
 * 200 x 60; with a real planning thread, an edit of samples/default.lua
 * to its new plan on screen, and keys while a 10 s solve runs. Targets:
 * 100 ms, 16 ms, 200 ms and 16 ms.
 */
#include <stdbool.h>
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

/* Waits (polling as the input loop does) until no job runs; false past
 * limit seconds. */
static bool settle(struct gp_app *a, double limit)
{
	double t0 = now();
	while (gp_app_busy(a)) {
		gp_app_poll(a);
		if (now() - t0 > limit)
			return false;
		struct timespec ts = { 0, 200000 };
		nanosleep(&ts, NULL);
	}
	gp_app_poll(a);
	return true;
}

static bool live_app(struct gp_app *a, const char *path)
{
	struct gp_err e = { "" };
	struct gp_app_opts o = { .file = path, .w = 120, .h = 40 };   /* a real worker */
	if (gp_app_init(a, &o, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		return false;
	}
	return settle(a, 60);
}

/* An edit of samples/default.lua to its new plan on screen: the link
 * halved and restored, 10 times. */
static void replan(const char *path)
{
	struct gp_app a;
	if (!live_app(&a, path))
		exit(1);
	double t[10], worst = 0;
	for (int i = 0; i < 10; i++) {
		double t0 = now();
		gp_app_set(&a, i % 2 ? "links[ams-fra].bandwidth=Gbps(100)"
				     : "links[ams-fra].bandwidth=Gbps(50)");
		gp_app_draw(&a);
		if (!settle(&a, 30) || gp_app_stale(&a)) {
			fprintf(stderr, "tuibench: the re-plan did not come\n");
			exit(1);
		}
		gp_app_draw(&a);
		t[i] = now() - t0;
		worst = t[i] > worst ? t[i] : worst;
	}
	qsort(t, 10, sizeof *t, cmp);
	printf("an edit of %s re-planned (milp) and redrawn: median %.1f ms, worst %.1f ms over 10 edits (target 200 ms)\n",
	       path, 1e3 * t[5], 1e3 * worst);
	gp_app_free(&a);
}

/* Keys while a 10 s solve runs (a batch of 100,000 on default.lua, its
 * limit 10 s): each key answered and drawn, 20 ms apart, as a typist;
 * then Esc, and how long the worker takes to stop. */
static void keys_while_solving(const char *path)
{
	struct gp_app a;
	if (!live_app(&a, path))
		exit(1);
	a.time_limit = 10;
	gp_app_set(&a, "job.global_batch=100000");
	const char *script = "1jjjjkkkk2jjkk3lllhhh+-z4<Tab><Tab>5jk1jjjjjjjjkkkkkkkk2j3l4";
	struct gp_key k[128];
	int where, n = gp_keys_parse(script, k, 128, &where);
	double t[128], worst = 0, t0 = now();
	for (int i = 0; i < n; i++) {
		struct timespec ts = { 0, 20000000 };
		nanosleep(&ts, NULL);
		double s = now();
		gp_app_key(&a, &k[i]);
		gp_app_poll(&a);
		gp_app_draw(&a);
		t[i] = now() - s;
		worst = t[i] > worst ? t[i] : worst;
	}
	bool running = gp_app_busy(&a);
	double c0 = now();
	struct gp_key esc = { .code = GP_K_ESC };
	gp_app_key(&a, &esc);
	double dropped = now() - c0;
	gp_worker_wait(a.worker, 0);   /* the thread itself at rest */
	double cancel = now() - c0;
	qsort(t, (size_t)n, sizeof *t, cmp);
	printf("keys while a 10 s solve runs (%s %.1f s in): median %.2f ms, worst %.2f ms over %d keys (target 16 ms); Esc: plan dropped in %.2f ms, the solver stopped in %.1f ms\n",
	       running ? "still running" : "ended", now() - t0, 1e3 * t[n / 2], 1e3 * worst, n,
	       1e3 * dropped, 1e3 * cancel);
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
	replan("samples/default.lua");
	keys_while_solving("samples/default.lua");
	return 0;
}
