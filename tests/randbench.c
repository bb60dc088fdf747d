/*
 * randbench.c: the placement MILP on a seeded family of random scenarios
 * of issue 14's kind: 2 to 16 DCs of 1 to 4 GPU types of 5 (a DC holds
 * two pools of different types at times), chain, star or mesh WANs of
 * 1-100 Gbit/s and 1-80 ms, OPT-350M to Llama-3.1-405B on 2 to 6 times
 * the GPU memory their state needs, global batches of 32 to 1024, ZeRO
 * and recomputation drawn too; one case in three with heavier compute
 * (every GPU at efficiency 0.1-0.3, micro-batches of 1-4). The family is
 * this file's generator (its own LCG, so the cases are the same on every
 * machine), not hand-picked.
 *
 * Per case: the MILP's own plan (no polish) as simulated against the best
 * plan of every engine (megatron, dp-across-dcs, atlas, search and the
 * MILP; the others 2 s each), its estimate against its simulation,
 * status, bound (BROKEN when a plan simulates below a bound the status
 * calls proven) and solve time; then the geometric mean of own / best,
 * the median solve time (wall clock, and CPU time, which a loaded
 * machine inflates less) and the counts the issue judges by.
 * Usage: randbench [cases (30)] [time_limit_s (5)] [first_seed (1)];
 * RANDBENCH_LUA=1 prints each case's scenario before its line.
 * RANDBENCH_RING=1 draws the ring family instead (gen_ring): 3-8 DCs
 * of one or two GPU types, a mesh whose pairs are fast (800 Gbit/s,
 * 2 ms), slow (10 Gbit/s, 20 ms) or missing, the ring 0-1-...-0 always
 * linked, models of 0.35-8 B parameters whose DP sync across DCs counts:
 * the cases where the gradient ring's order decides the sync. */
#include <math.h>
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

/* CPU seconds of this process (solve times that a loaded machine does
 * not inflate as much as the wall clock's). */
static double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static unsigned draw(unsigned *st, unsigned n)
{
	*st = *st * 1103515245u + 12345u;
	return (*st >> 8 & 0xffffff) % n;
}

static const struct { const char *name; double price, mem_gb; } gpus[5] = {
	{ "H100", 2.5, 80 }, { "A100-80", 1.6, 80 }, { "A100-40", 1.2, 40 }, { "V100-32", 0.8, 32 },
	{ "L40S", 1.0, 48 },
};

/* The family's models: name and parameters in billions. */
static const struct { const char *name; double bparams; } models[7] = {
	{ "OPT-350M", 0.35 }, { "GPT-3-XL", 1.3 }, { "Llama-2-7B", 6.7 }, { "Llama-3-8B", 8 },
	{ "Llama-3-70B", 70 }, { "GPT-3-175B", 175 }, { "Llama-3.1-405B", 405 },
};

/* Appends to buf (n bytes, o used). */
#define PUT(...) (o += (size_t)snprintf(buf + o, o < n ? n - o : 0, __VA_ARGS__))

/* The WAN of nd DCs: a chain (topo 0), a star on dc0 (1) or a mesh of
 * most pairs, consecutive DCs always joined (2). */
static size_t gen_links(unsigned *st, int nd, int topo, char *buf, size_t n, size_t o)
{
	static const int bws[6] = { 1, 5, 10, 25, 50, 100 }, lats[6] = { 1, 5, 10, 20, 40, 80 };
	PUT("}, links = {");
	for (int a = 0; a < nd; a++)
		for (int b = a + 1; b < nd; b++) {
			bool on = topo == 0 ? b == a + 1 : topo == 1 ? a == 0 :
				  b == a + 1 || draw(st, 10) < 7;
			if (on)
				PUT("{ 'dc%d', 'dc%d', bandwidth = Gbps(%d), latency = ms(%d), price_per_gb = 0.02 },",
				    a, b, bws[draw(st, 6)], lats[draw(st, 6)]);
		}
	return o;
}

/* Case `seed` of the family as Lua source into buf (n bytes): 2 to 16
 * DCs of 1 to 4 GPU types (a DC holds two pools of different types at
 * times), a chain, star or mesh WAN, a model of the catalog with about
 * 2 to 6 times the GPU memory its weights and optimizer state need. */
static void gen(unsigned seed, char *buf, size_t n)
{
	static const int ndcs[8] = { 2, 3, 4, 5, 6, 8, 12, 16 };
	static const int gbs[4] = { 32, 64, 128, 256 }, seqs[3] = { 1024, 2048, 4096 };
	static const char *const rcs[4] = { "none", "auto", "selective", "full" };
	unsigned st = seed * 2654435761u + 1;
	size_t o = 0;
	PUT("return { name = 'rand%u', dcs = {", seed);
	int nd = ndcs[draw(&st, 8)], nt = 1 + (int)draw(&st, 4), g0 = (int)draw(&st, 5);
	int mi = (int)draw(&st, 7), topo = (int)draw(&st, 3);
	/* GPUs per pool: the state (16 B a parameter) times 2-6 over the
	 * pools, at 50 GB a GPU (32 GPUs at least), in nodes of 8. */
	int np[16], npools = 0;
	for (int d = 0; d < nd; d++)
		npools += np[d] = nt > 1 && draw(&st, 10) < 3 ? 2 : 1;
	double need = 16 * models[mi].bparams / 50 * (2 + (int)draw(&st, 5));
	int per = 8 * (int)ceil(fmax(need / npools, 32) / 8);
	for (int d = 0; d < nd; d++) {
		int t0 = (int)draw(&st, (unsigned)nt);
		PUT("{ name = 'dc%d', pools = {", d);
		for (int q = 0; q < np[d]; q++) {
			int ti = q ? (t0 + 1 + (int)draw(&st, (unsigned)nt - 1)) % nt : t0, g = (g0 + ti) % 5;
			int cnt = 8 * (per / 16 + (int)draw(&st, (unsigned)(per / 8 + 1)));
			PUT("{ gpu = '%s', count = %d, per_node = 8 },", gpus[g].name, cnt < 8 ? 8 : cnt);
		}
		PUT("} },");
	}
	o = gen_links(&st, nd, topo, buf, n, o);
	int gb = gbs[draw(&st, 4)] * (models[mi].bparams > 50 ? 4 : 1), seq = seqs[draw(&st, 3)];
	int zero = (int)draw(&st, 2), rc = (int)draw(&st, 4);
	if (models[mi].bparams > 50 && rc == 0)
		rc = 3;
	/* Heavier compute in one case of three (drawn last, so the other
	 * draws stay the cases' of before): every GPU at a low efficiency
	 * (0.1-0.3, Sailor's small layers measure about 0.1 on an A100) and
	 * micro-batches of 1, 2 or 4. */
	static const double effs[3] = { 0.1, 0.18, 0.3 };
	static const int mbs[3] = { 1, 2, 4 };
	bool heavy = draw(&st, 3) == 0;
	double eff = effs[draw(&st, 3)];
	int mb = mbs[draw(&st, 3)];
	PUT("}, model = '%s', job = { seq = %d, global_batch = %d, micro_batch = %d, zero = %d, recompute = '%s' }",
	    models[mi].name, seq, gb, heavy ? mb : 1, zero, rcs[rc]);
	PUT(", gpus = {");
	for (int g = 0; g < 5; g++) {
		PUT("['%s'] = { price_per_hour = %g", gpus[g].name, gpus[g].price);
		if (heavy)
			PUT(", efficiency = %g", eff);
		PUT(" },");
	}
	PUT("} }");
}
/* Case `seed` of the ring family (RANDBENCH_RING) as Lua into buf: 3,
 * 4, 5, 6 or 8 DCs of 8-32 H100 or A100-80 GPUs each; every pair of DCs
 * fast (800 Gbit/s, 2 ms; 55 %), slow (10 Gbit/s, 20 ms; 25 %) or not
 * linked (20 %), but consecutive DCs round the ring 0, 1, ..., n - 1, 0
 * always linked (fast or slow); OPT-350M to Llama-3-8B, global batch
 * 32-256, sync hierarchical or auto. */
static void gen_ring(unsigned seed, char *buf, size_t n)
{
	static const int ndcs[5] = { 3, 4, 5, 6, 8 }, gbs[4] = { 32, 64, 128, 256 };
	unsigned st = seed * 2246822519u + 7;
	size_t o = 0;
	int nd = ndcs[draw(&st, 5)], mi = (int)draw(&st, 4), two = draw(&st, 2) == 0;
	PUT("return { name = 'ring%u', dcs = {", seed);
	for (int d = 0; d < nd; d++)
		PUT("{ name = 'dc%d', pools = { { gpu = '%s', count = %d, per_node = 8 } } },", d,
		    gpus[two && draw(&st, 2) ? 1 : 0].name, 8 * (1 + (int)draw(&st, 4)));
	PUT("}, links = {");
	for (int a = 0; a < nd; a++)
		for (int b = a + 1; b < nd; b++) {
			bool ring = b == a + 1 || (a == 0 && b == nd - 1);
			unsigned r = draw(&st, 20);
			if (r >= 16 && !ring)
				continue;   /* not linked */
			bool slow = r >= 11 && r < 16;
			PUT("{ 'dc%d', 'dc%d', bandwidth = Gbps(%d), latency = ms(%d) },", a, b,
			    slow ? 10 : 800, slow ? 20 : 2);
		}
	PUT("}, model = '%s', job = { seq = 2048, global_batch = %d, micro_batch = 1, zero = %d, sync = { mode = '%s' } } }",
	    models[mi].name, gbs[draw(&st, 4)], (int)draw(&st, 2),
	    draw(&st, 2) ? "hierarchical" : "auto");
}
#undef PUT

static double sim(const struct gp_scenario *s, const struct gp_plan *p)
{
	struct gp_result r;
	struct gp_err e = { "" };
	if (gp_simulate(s, p, NULL, &r, &e))
		return HUGE_VAL;
	double t = r.fits ? r.iteration_time : HUGE_VAL;
	gp_result_free(&r);
	return t;
}

typedef int (*engine_fn)(const struct gp_scenario *, const struct gp_plan_opts *, struct gp_plan *,
			 struct gp_plan_report *, struct gp_err *);

/* An engine's plan simulated (HUGE_VAL: none). */
static double engine_sim(engine_fn f, const struct gp_scenario *s, double tl)
{
	struct gp_plan_opts o = { .time_limit = tl };
	struct gp_plan p;
	struct gp_plan_report r;
	struct gp_err e = { "" };
	if (f(s, &o, &p, &r, &e))
		return HUGE_VAL;
	double t = sim(s, &p);
	gp_plan_free(&p);
	return t;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The figures of the whole family. */
struct tally {
	int n, within3, est5, optimal, broken;
	double lgeo, worst, worst_est, secs[1024], cpus[1024];
};

static void one(unsigned seed, double tl, struct tally *t)
{
	char buf[16384];
	if (getenv("RANDBENCH_RING"))
		gen_ring(seed, buf, sizeof buf);
	else
		gen(seed, buf, sizeof buf);
	if (getenv("RANDBENCH_LUA"))
		printf("%s\n", buf);
	struct gp_err e = { "" };
	struct gp_lua *h = gp_lua_new(NULL, &e);
	struct gp_scenario *s = h ? gp_lua_scenario(h, "rand", buf, strlen(buf), &e) : NULL;
	if (h)
		gp_lua_free(h);
	if (!s) {
		printf("%4u  scenario: %s\n", seed, e.msg);
		return;
	}
	struct gp_plan_opts o = { .time_limit = tl };
	struct gp_plan p;
	struct gp_plan_report r;
	double t0 = now(), c0 = cpu();
	int rc = gp_plan_milp(s, &o, &p, &r, &e);
	double secs = now() - t0, csecs = cpu() - c0, own = HUGE_VAL;
	if (rc == 0) {
		own = sim(s, &p);
		gp_plan_free(&p);
	}
	static const engine_fn others[4] = { gp_plan_megatron, gp_plan_dp_across_dcs, gp_plan_atlas,
					      gp_plan_search };
	double best = own;
	for (int i = 0; i < 4; i++)
		best = fmin(best, engine_sim(others[i], s, 2));
	printf("%4u  %d DC %-10s ", seed, s->ndcs, s->model.name);
	if (rc || best == HUGE_VAL) {
		printf("milp: %s (best other %.4g s)\n", rc ? e.msg : "no plan fits", best);
		gp_scenario_free(s);
		return;
	}
	double ratio = own / best, est = (r.estimate_s - own) / own;
	bool opt = r.status == GP_MILP_OPTIMAL, broken = r.bound > best * (1 + 1e-9);
	printf("own %9.4f s best %9.4f s (x%.3f)  est %+6.1f %%  %-8s bound %9.4f%s  %7.3f s\n",
	       own, best, ratio, 100 * est, gp_milp_status_name(r.status), r.bound,
	       broken ? (opt ? " BROKEN" : " (above best)") : "", secs);
	t->cpus[t->n] = csecs;
	t->secs[t->n++] = secs;
	t->lgeo += log(ratio);
	t->within3 += ratio <= 1.03;
	t->est5 += fabs(est) <= 0.05;
	t->optimal += opt;
	t->broken += opt && broken;
	t->worst = fmax(t->worst, ratio);
	t->worst_est = fmax(t->worst_est, fabs(est));
	gp_scenario_free(s);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 30;
	double tl = argc > 2 ? atof(argv[2]) : 5;
	unsigned first = argc > 3 ? (unsigned)atoi(argv[3]) : 1;
	if (n < 1 || n > 1024 || !(tl > 0)) {
		fprintf(stderr, "usage: randbench [cases 1..1024] [time_limit_s] [first_seed]\n");
		return 2;
	}
	static struct tally t;
	for (unsigned i = 0; i < (unsigned)n; i++)
		one(first + i, tl, &t);
	if (!t.n)
		return 1;
	qsort(t.secs, (size_t)t.n, sizeof *t.secs, cmp_d);
	qsort(t.cpus, (size_t)t.n, sizeof *t.cpus, cmp_d);
	printf("%d cases: milp own / best geomean %.4f, worst %.3f, within 3 %% %d; estimate within 5 %% %d (worst %.1f %%); optimal %d, proven bound broken %d; solve median %.3f s, max %.3f s (CPU median %.3f s)\n",
	       t.n, exp(t.lgeo / t.n), t.worst, t.within3, t.est5, 100 * t.worst_est, t.optimal,
	       t.broken, t.secs[t.n / 2], t.secs[t.n - 1], t.cpus[t.n / 2]);
	return 0;
}
