/* test_sched_milp.c: the solver interface and the schedule MILP, against
 * an exhaustive search, closed forms, hand counts and CBC. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "sched_milp.h"
#include "solver.h"

#define MAXVS 16
#define MAXM 16

/* ------------------------------------------------------------------ */
/* Instances                                                           */

struct inst {
	int S, m;
	bool split;
	double f, b, w, lat, occ;
	int link;            /* shared link of the 0 -> 1 boundary (up), or -1 */
	int cap[MAXVS];      /* in-flight activations allowed; 0: no limit */
	/* the arrays gp_sched_input points into */
	double fa[MAXVS], ba[MAXVS], wa[MAXVS], uo[MAXVS], ul[MAXVS], dl[MAXVS], dlat[MAXVS];
	double act[MAXVS], wact[MAXVS], mem[MAXVS];
	int ulink[MAXVS], dlink[MAXVS];
	struct gp_sched_input in;
};

static void inst_init(struct inst *t)
{
	bool limited = false;
	for (int s = 0; s < t->S; s++) {
		t->fa[s] = t->f;
		t->ba[s] = t->b;
		t->wa[s] = t->w;
		t->uo[s] = s == 0 ? t->occ : 0;
		t->ul[s] = s + 1 < t->S ? t->lat : 0;
		t->dl[s] = 0;
		t->dlat[s] = s > 0 ? t->lat : 0;
		t->ulink[s] = s == 0 ? t->link : -1;
		t->dlink[s] = -1;
		t->act[s] = 1;
		t->wact[s] = 0.5;
		t->mem[s] = t->cap[s] ? t->cap[s] : 1e9;
		limited |= t->cap[s] > 0;
	}
	t->in = (struct gp_sched_input){
		.S = t->S, .v = 1, .m = t->m, .split_bw = t->split,
		.f = t->fa, .b = t->ba, .w = t->wa,
		.up_occ = t->uo, .up_lat = t->ul, .down_occ = t->dl, .down_lat = t->dlat,
		.up_link = t->ulink, .down_link = t->dlink, .nlinks = t->link >= 0 ? 1 : 0,
		.act = limited ? t->act : NULL, .wact = t->wact, .mem_free = limited ? t->mem : NULL,
	};
}

/* ------------------------------------------------------------------ */
/* An independent list execution (one chunk, no split, no shared link) */

static double exec_orders(const struct inst *t, const struct gp_schedule *sc)
{
	int S = t->S, pos[MAXVS] = { 0 };
	double fe[MAXVS][MAXM], be[MAXVS][MAXM], free_at[MAXVS] = { 0 }, end = 0;
	bool fd[MAXVS][MAXM] = { { 0 } }, bd[MAXVS][MAXM] = { { 0 } };
	for (int progress = 1; progress;) {
		progress = 0;
		for (int s = 0; s < S; s++) {
			if (pos[s] >= gp_schedule_len(sc, s))
				continue;
			const struct gp_task *k = &sc->tasks[sc->off[s] + pos[s]];
			int j = k->mb;
			double ready;
			if (k->kind == GP_TASK_F) {
				if (s > 0 && !fd[s - 1][j])
					continue;
				ready = s > 0 ? fe[s - 1][j] + t->lat : 0;
			} else if (k->kind == GP_TASK_W) {
				if (!bd[s][j])
					continue;
				ready = be[s][j];
			} else {
				if (s + 1 < S ? !bd[s + 1][j] : !fd[s][j])
					continue;
				ready = s + 1 < S ? be[s + 1][j] + t->lat : fe[s][j];
			}
			double st = ready > free_at[s] ? ready : free_at[s];
			double en = st + (k->kind == GP_TASK_F ? t->f : k->kind == GP_TASK_B ? t->b : t->w);
			if (k->kind == GP_TASK_F) {
				fe[s][j] = en;
				fd[s][j] = true;
			} else if (k->kind == GP_TASK_W) {
				/* ends the device's work, nothing waits on it */
			} else {
				be[s][j] = en;
				bd[s][j] = true;
			}
			free_at[s] = en;
			end = en > end ? en : end;
			pos[s]++;
			progress = 1;
		}
	}
	for (int s = 0; s < S; s++)
		assert_int_equal(pos[s], gp_schedule_len(sc, s));   /* no deadlock */
	return end;
}

/* Peak in-flight forwards of a device order. */
static int peak_in_flight(const struct gp_schedule *sc, int s)
{
	int cur = 0, peak = 0;
	for (int64_t i = sc->off[s]; i < sc->off[s + 1]; i++) {
		cur += sc->tasks[i].kind == GP_TASK_F ? 1 : sc->tasks[i].kind == GP_TASK_B ? -1 : 0;
		peak = cur > peak ? cur : peak;
	}
	return peak;
}

/* ------------------------------------------------------------------ */
/* Exhaustive search over per-device orders (one chunk, no split)      */
/*
 * Every choice of device orders has one list execution; appending its
 * tasks sorted by (start, device) replays it, and only that sequence
 * passes the monotone test below, so each choice is visited once. The
 * bound: a device's remaining work starts no earlier than the last start
 * and is followed by the backward chain down to stage 0.
 */
struct bb {
	const struct inst *t;
	int nf[MAXVS], nb[MAXVS];
	double fe[MAXVS][MAXM], be[MAXVS][MAXM], free_at[MAXVS];
	double best;
	long nodes;
};

static double bb_bound(const struct bb *z, double last)
{
	const struct inst *t = z->t;
	double lb = 0;
	for (int s = 0; s < t->S; s++) {
		double rem = (t->m - z->nf[s]) * t->f + (t->m - z->nb[s]) * t->b;
		double t0 = z->free_at[s] > last ? z->free_at[s] : last;
		double v = (rem > 0 ? t0 + rem : z->free_at[s]) + s * (t->b + t->lat);
		lb = v > lb ? v : lb;
	}
	return lb;
}

static void bb_dfs(struct bb *z, double last, int last_dev, int left)
{
	const struct inst *t = z->t;
	z->nodes++;
	if (!left) {
		double end = z->be[0][t->m - 1];
		z->best = end < z->best ? end : z->best;
		return;
	}
	if (bb_bound(z, last) >= z->best)
		return;
	for (int s = 0; s < t->S; s++) {
		for (int kind = 1; kind >= 0; kind--) {   /* B first: good incumbents early */
			int j = kind ? z->nb[s] : z->nf[s];
			double ready;
			if (kind == 0) {
				if (j >= t->m || (t->cap[s] && z->nf[s] - z->nb[s] >= t->cap[s]) ||
				    (s > 0 && z->nf[s - 1] <= j))
					continue;
				ready = s > 0 ? z->fe[s - 1][j] + t->lat : 0;
			} else {
				if (j >= z->nf[s] || (s + 1 < t->S && z->nb[s + 1] <= j))
					continue;
				ready = s + 1 < t->S ? z->be[s + 1][j] + t->lat : z->fe[s][j];
			}
			double st = ready > z->free_at[s] ? ready : z->free_at[s];
			if (st < last || (st == last && s <= last_dev))
				continue;
			double saved = z->free_at[s];
			double en = st + (kind ? t->b : t->f);
			z->free_at[s] = en;
			if (kind) {
				z->be[s][j] = en;
				z->nb[s]++;
			} else {
				z->fe[s][j] = en;
				z->nf[s]++;
			}
			bb_dfs(z, st, s, left - 1);
			if (kind)
				z->nb[s]--;
			else
				z->nf[s]--;
			z->free_at[s] = saved;
		}
	}
}

static double exhaustive(const struct inst *t, long *nodes)
{
	struct bb z = { .t = t, .best = HUGE_VAL };
	bb_dfs(&z, -1, -1, 2 * t->S * t->m);
	*nodes = z.nodes;
	return z.best;
}

/* ------------------------------------------------------------------ */

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void solve(const struct inst *t, const struct gp_schedule *warm, double limit,
		  struct gp_schedule *out, struct gp_milp_report *rep)
{
	struct gp_err e = { "" };
	int rc = gp_sched_milp(&t->in, warm, limit, 0, out, rep, &e);
	if (rc)
		fail_msg("gp_sched_milp: %s", e.msg);
	printf("# %dx%d%s: %s, makespan %g, bound %g, %d rows, %d cols, %d binaries, %.3f s%s%s\n",
	       t->S, t->m, t->split ? " split" : "", gp_milp_status_name(rep->status),
	       rep->objective, rep->bound, rep->nrows, rep->ncols, rep->nints, rep->seconds,
	       rep->msg[0] ? ", " : "", rep->msg);
}

/* Solves t and checks the MILP proves `best`, and that its orders run in
 * that time; the caller frees sc and rep. */
static void expect_optimum(struct inst *t, double best, struct gp_schedule *sc,
			   struct gp_milp_report *rep)
{
	solve(t, NULL, 60, sc, rep);
	assert_int_equal(rep->status, GP_MILP_OPTIMAL);
	assert_true(fabs(rep->objective - best) <= 1e-6 * best);
	assert_true(fabs(exec_orders(t, sc) - best) <= 1e-6 * best);
}

/* (a) with latency: the MILP's optimum is the exhaustive search's. */
static void test_matches_exhaustive(void **state)
{
	(void)state;
	struct inst t = { .S = 4, .m = 8, .f = 100, .b = 200, .lat = 5, .link = -1 };
	inst_init(&t);
	long nodes;
	double best = exhaustive(&t, &nodes);
	printf("# exhaustive 4x8: %g after %ld nodes\n", best, nodes);
	struct gp_schedule sc;
	struct gp_milp_report rep;
	expect_optimum(&t, best, &sc, &rep);
	/* latency 5 on 3 boundaries, both ways, is paid at least once */
	assert_true(best >= (8 + 3) * 300.0 + 2 * 3 * 5 - 1e-9);
	gp_schedule_free(&sc);
	gp_milp_report_free(&rep);
}

/* (b) equal stages, no latency, no memory limit: (m + S - 1)(f + b). */
static void test_1f1b_closed_form(void **state)
{
	(void)state;
	struct inst t = { .S = 4, .m = 8, .f = 100, .b = 200, .link = -1 };
	inst_init(&t);
	struct gp_schedule sc;
	struct gp_milp_report rep;
	expect_optimum(&t, 3300, &sc, &rep);
	gp_schedule_free(&sc);
	gp_milp_report_free(&rep);
}

/* (c) memory: 1F1B's in-flight counts (S - s), with latency, against the
 * exhaustive search; and one activation per device, which serialises
 * the micro-batches: m (S (f + b) + 2 (S - 1) lat). */
static void test_memory(void **state)
{
	(void)state;
	struct inst t = { .S = 4, .m = 8, .f = 100, .b = 200, .lat = 50, .link = -1,
			  .cap = { 4, 3, 2, 1 } };
	inst_init(&t);
	long nodes;
	double best = exhaustive(&t, &nodes);
	printf("# exhaustive 4x8, caps 4 3 2 1, latency 50: %g after %ld nodes\n", best, nodes);
	struct gp_schedule sc;
	struct gp_milp_report rep;
	expect_optimum(&t, best, &sc, &rep);
	for (int s = 0; s < t.S; s++)
		assert_true(peak_in_flight(&sc, s) <= t.cap[s]);
	gp_schedule_free(&sc);
	gp_milp_report_free(&rep);

	/* Unlimited memory hides the latency better: strictly shorter. */
	struct inst u = t;
	memset(u.cap, 0, sizeof u.cap);
	inst_init(&u);
	solve(&u, NULL, 60, &sc, &rep);
	assert_int_equal(rep.status, GP_MILP_OPTIMAL);
	assert_true(rep.objective < best - 1);
	gp_schedule_free(&sc);
	gp_milp_report_free(&rep);

	struct inst one = { .S = 3, .m = 4, .f = 100, .b = 200, .lat = 5, .link = -1,
			    .cap = { 1, 1, 1 } };
	inst_init(&one);
	solve(&one, NULL, 60, &sc, &rep);
	assert_int_equal(rep.status, GP_MILP_OPTIMAL);
	assert_true(fabs(rep.objective - 4 * (3 * 300 + 2 * 2 * 5)) < 1e-6);
	gp_schedule_free(&sc);
	gp_milp_report_free(&rep);
}

/* (d) a shared link: 2 stages, activations take 300 on the link, so the
 * four transfers queue: f + m occ + (f + b + b) = 1600. On dedicated
 * paths they overlap and stage 1's work bounds it: f + occ + m (f + b) + b
 * = 1300. */
static void test_shared_link(void **state)
{
	(void)state;
	struct inst t = { .S = 2, .m = 4, .f = 100, .b = 100, .occ = 300, .link = 0 };
	inst_init(&t);
	struct gp_schedule sc;
	struct gp_milp_report rep;
	solve(&t, NULL, 60, &sc, &rep);
	assert_int_equal(rep.status, GP_MILP_OPTIMAL);
	assert_true(fabs(rep.objective - 1600) < 1e-6);
	gp_schedule_free(&sc);
	gp_milp_report_free(&rep);

	t.link = -1;
	inst_init(&t);
	solve(&t, NULL, 60, &sc, &rep);
	assert_int_equal(rep.status, GP_MILP_OPTIMAL);
	assert_true(fabs(rep.objective - 1300) < 1e-6);
	gp_schedule_free(&sc);
	gp_milp_report_free(&rep);
}

/* (e) no memory for even one activation: infeasible, said so. */
static void test_infeasible(void **state)
{
	(void)state;
	struct inst t = { .S = 2, .m = 2, .f = 1, .b = 2, .link = -1, .cap = { 1, 1 } };
	inst_init(&t);
	t.mem[1] = 0.5;
	struct gp_schedule sc;
	struct gp_milp_report rep;
	struct gp_err e = { "" };
	assert_int_equal(gp_sched_milp(&t.in, NULL, 10, 0, &sc, &rep, &e), -1);
	assert_int_equal(rep.status, GP_MILP_INFEASIBLE);
	assert_non_null(strstr(e.msg, "memory"));
	assert_null(sc.tasks);
	gp_milp_report_free(&rep);
}

/* No room for one activation on a stage whose static state is already
 * more than its GPU holds (free memory negative, in bytes, as the
 * simulator gives it): infeasible, naming the stage, before GLPK (whose
 * root LP failed on such a model, code 5). */
static void test_no_room(void **state)
{
	(void)state;
	struct inst t = { .S = 2, .m = 4, .f = 1, .b = 2, .link = -1, .cap = { 1, 1 } };
	inst_init(&t);
	for (int i = 0; i < 2; i++) {
		t.act[i] = 2e9;
		t.wact[i] = 1e9;
		t.mem[i] = 40e9;
	}
	t.mem[1] = -2.7e11;
	struct gp_schedule sc;
	struct gp_milp_report rep;
	struct gp_err e = { "" };
	assert_int_equal(gp_sched_milp(&t.in, NULL, 10, 0, &sc, &rep, &e), -1);
	printf("# %s\n", e.msg);
	assert_int_equal(rep.status, GP_MILP_INFEASIBLE);
	assert_non_null(strstr(e.msg, "no schedule fits the activation memory: stage 2 has -251.5 GiB"));
	assert_null(sc.tasks);
	gp_milp_report_free(&rep);
}

/* (e) 8 x 16 with B and W split and no memory limit (2880 binaries)
 * under a 1 s limit, warm-started from ZB-H1: an incumbent no worse than
 * ZB-H1 that really runs in its time, an honest bound and gap, on time. */
static void test_time_limit(void **state)
{
	(void)state;
	struct inst t = { .S = 8, .m = 16, .split = true, .f = 100, .b = 100, .w = 100,
			  .lat = 150, .link = -1 };
	inst_init(&t);
	struct gp_schedule warm, sc;
	struct gp_err e = { "" };
	assert_int_equal(gp_schedule_build(GP_SCHED_ZBH1, 8, 1, 16, 0, &warm, &e), 0);
	double w = exec_orders(&t, &warm);
	struct gp_milp_report rep;
	double t0 = wall();
	solve(&t, &warm, 1, &sc, &rep);
	double took = wall() - t0;
	assert_true(rep.warm_used);
	assert_int_equal(rep.status, GP_MILP_FEASIBLE);
	assert_true(rep.objective <= w + 1e-6);
	assert_true(fabs(exec_orders(&t, &sc) - rep.objective) <= 1e-6 * rep.objective);
	/* stage 7 cannot start before 7 (f + lat) and has 16 (f + b + w) to do */
	assert_true(rep.bound >= 7 * 250.0 + 16 * 300 - 1e-6);
	assert_true(rep.bound < rep.objective);
	assert_true(fabs(rep.gap - (rep.objective - rep.bound) / rep.objective) < 1e-9);
	assert_true(took < 1 + 1.5);
	printf("# 8x16 split, warm ZB-H1 %g -> %g in %.2f s\n", w, rep.objective, took);
	gp_schedule_free(&sc);
	gp_schedule_free(&warm);
	gp_milp_report_free(&rep);
}

/* Memory at 1F1B's in-flight counts plus one: optimal within seconds,
 * better than 1F1B, never above the limits. */
static void test_8x16_memory(void **state)
{
	(void)state;
	struct inst t = { .S = 8, .m = 16, .f = 100, .b = 200, .lat = 150, .link = -1,
			  .cap = { 9, 8, 7, 6, 5, 4, 3, 2 } };
	inst_init(&t);
	struct gp_schedule warm, sc;
	struct gp_err e = { "" };
	assert_int_equal(gp_schedule_build(GP_SCHED_1F1B, 8, 1, 16, 0, &warm, &e), 0);
	double w = exec_orders(&t, &warm);
	struct gp_milp_report rep;
	solve(&t, &warm, 60, &sc, &rep);
	assert_int_equal(rep.status, GP_MILP_OPTIMAL);
	assert_true(rep.objective < w - 1);
	assert_true(fabs(exec_orders(&t, &sc) - rep.objective) <= 1e-6 * rep.objective);
	for (int s = 0; s < t.S; s++)
		assert_true(peak_in_flight(&sc, s) <= t.cap[s]);
	printf("# 8x16 memory S - s + 1: 1F1B %g -> %g\n", w, rep.objective);
	gp_schedule_free(&sc);
	gp_schedule_free(&warm);
	gp_milp_report_free(&rep);
}

/* ------------------------------------------------------------------ */
/* The solver interface on its own                                     */

/* max 5a + 4b + 3c, 2a + 3b + c <= 5, 4a + b + 2c <= 11, 3a + 4b + 2c <= 8,
 * integers: optimum a = 2, b = 0, c = 1, value 13 (Chvatal's example). */
static struct gp_milp *chvatal(void)
{
	struct gp_milp *m = gp_milp_new();
	const char *nm[] = { "a", "b", "c" };
	const double obj[] = { -5, -4, -3 };
	for (int j = 0; j < 3; j++)
		gp_milp_col(m, nm[j], 0, HUGE_VAL, true, obj[j]);
	const int col[] = { 0, 1, 2 };
	const double r[3][3] = { { 2, 3, 1 }, { 4, 1, 2 }, { 3, 4, 2 } }, rhs[] = { 5, 11, 8 };
	for (int i = 0; i < 3; i++)
		gp_milp_row(m, "r", 3, col, r[i], -HUGE_VAL, rhs[i]);
	return m;
}

static void test_solver(void **state)
{
	(void)state;
	struct gp_milp *m = chvatal();
	struct gp_milp_report rep;
	struct gp_err e = { "" };
	assert_int_equal(gp_milp_solve(m, NULL, &rep, &e), 0);
	assert_int_equal(rep.status, GP_MILP_OPTIMAL);
	assert_true(fabs(rep.objective + 13) < 1e-9);
	assert_true(fabs(rep.x[0] - 2) < 1e-9 && fabs(rep.x[1]) < 1e-9 && fabs(rep.x[2] - 1) < 1e-9);
	assert_int_equal(rep.nints, 3);
	assert_true(gp_milp_violation(m, rep.x) == 0);
	gp_milp_report_free(&rep);

	/* a feasible warm start is taken; an infeasible one is refused */
	const double good[] = { 1, 1, 0 }, bad[] = { 3, 0, 0 };
	struct gp_milp_params p = { .warm = good };
	assert_int_equal(gp_milp_solve(m, &p, &rep, &e), 0);
	assert_true(rep.warm_used || rep.msg[0] == '\0');
	assert_true(fabs(rep.objective + 13) < 1e-9);
	gp_milp_report_free(&rep);
	assert_true(gp_milp_violation(m, bad) > 0);
	p.warm = bad;
	assert_int_equal(gp_milp_solve(m, &p, &rep, &e), 0);
	assert_false(rep.warm_used);
	assert_non_null(strstr(rep.msg, "rejected"));
	gp_milp_report_free(&rep);

	/* infeasible: a + b >= 10 with a + b <= 3 (above) */
	const int c2[] = { 0, 1 };
	const double one[] = { 1, 1 };
	gp_milp_row(m, "big", 2, c2, one, 10, HUGE_VAL);
	assert_int_equal(gp_milp_solve(m, NULL, &rep, &e), 0);
	assert_int_equal(rep.status, GP_MILP_INFEASIBLE);
	assert_null(rep.x);
	gp_milp_report_free(&rep);
	gp_milp_free(m);
}

/* The placement probes' settings (MIP presolve, light branch and bound,
 * the dual simplex, light then full) find the same optimum, and the
 * presolver's "no primal feasible solution" is an infeasible status. */
static void test_solver_settings(void **state)
{
	(void)state;
	const struct gp_milp_params ps[] = {
		{ .presolve = true }, { .light = true }, { .dual = true },
		{ .presolve = true, .light = true, .dual = true },
		{ .presolve = true, .light = true, .then_full = true, .time_limit = 10 },
	};
	for (int k = 0; k < (int)(sizeof ps / sizeof ps[0]); k++) {
		struct gp_milp *m = chvatal();
		struct gp_milp_report rep;
		struct gp_err e = { "" };
		assert_int_equal(gp_milp_solve(m, &ps[k], &rep, &e), 0);
		assert_int_equal(rep.status, GP_MILP_OPTIMAL);
		assert_true(fabs(rep.objective + 13) < 1e-9);
		assert_true(gp_milp_violation(m, rep.x) == 0);
		gp_milp_report_free(&rep);
		const int c2[] = { 0, 1 };
		const double one[] = { 1, 1 };
		gp_milp_row(m, "big", 2, c2, one, 10, HUGE_VAL);
		assert_int_equal(gp_milp_solve(m, &ps[k], &rep, &e), 0);
		assert_int_equal(rep.status, GP_MILP_INFEASIBLE);
		assert_null(rep.x);
		gp_milp_report_free(&rep);
		gp_milp_free(m);
		/* a in [0, 3] and a >= 10: the bounds alone say so */
		m = gp_milp_new();
		gp_milp_col(m, "a", 0, 3, true, 1);
		const int c1[] = { 0 };
		gp_milp_row(m, "r", 1, c1, one, 10, HUGE_VAL);
		assert_int_equal(gp_milp_solve(m, &ps[k], &rep, &e), 0);
		assert_int_equal(rep.status, GP_MILP_INFEASIBLE);
		gp_milp_report_free(&rep);
		gp_milp_free(m);
	}
}

/* A GLPK internal error (a row naming a column twice) is an error value,
 * prints nothing, and the next solve in the thread works. */
static void test_solver_error_hook(void **state)
{
	(void)state;
	struct gp_milp *m = gp_milp_new();
	gp_milp_col(m, "x", 0, 1, false, 1);
	gp_milp_col(m, "z", 0, 1, false, 1);
	const int col[] = { 0, 0 };
	const double val[] = { 1, 1 };
	gp_milp_row(m, "dup", 2, col, val, 1, HUGE_VAL);
	struct gp_milp_report rep;
	struct gp_err e = { "" };
	assert_int_equal(gp_milp_solve(m, NULL, &rep, &e), -1);
	assert_int_equal(rep.status, GP_MILP_ERROR);
	assert_non_null(strstr(e.msg, "GLPK"));
	assert_non_null(strstr(e.msg, "duplicate"));
	gp_milp_report_free(&rep);
	gp_milp_free(m);

	m = chvatal();
	assert_int_equal(gp_milp_solve(m, NULL, &rep, &e), 0);
	assert_true(fabs(rep.objective + 13) < 1e-9);
	gp_milp_report_free(&rep);
	/* a build error is reported by the solve, not lost */
	assert_int_equal(gp_milp_col(m, "bad", 2, 1, false, 0), -1);
	assert_int_equal(gp_milp_solve(m, NULL, &rep, &e), -1);
	assert_non_null(strstr(e.msg, "bounds"));
	gp_milp_report_free(&rep);
	gp_milp_free(m);
}

/* (f) CBC solves the written LP file to the same optimum. */
static void test_cbc(void **state)
{
	(void)state;
	if (system("command -v cbc >/dev/null 2>&1") != 0) {
		printf("# cbc is not installed (Debian: coinor-cbc): comparison skipped\n");
		return;
	}
	struct inst t = { .S = 3, .m = 4, .f = 100, .b = 200, .lat = 40, .link = -1,
			  .cap = { 2, 2, 1 } };
	inst_init(&t);
	char dir[] = "/tmp/gp_sched_milp_XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/model.lp", dir);   /* cbc goes by the extension */
	double unit = 0;
	struct gp_err e = { "" };
	assert_int_equal(gp_sched_milp_write_lp(&t.in, path, &unit, &e), 0);
	assert_true(unit == 200);
	char cmd[256];
	snprintf(cmd, sizeof cmd, "cbc %s solve quit 2>&1", path);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char line[512];
	double cbc = NAN;
	bool optimal = false;
	while (fgets(line, sizeof line, p)) {
		if (strstr(line, "Optimal solution found"))
			optimal = true;
		const char *o = strstr(line, "Objective value:");
		if (o)
			cbc = strtod(o + strlen("Objective value:"), NULL);
	}
	pclose(p);
	remove(path);
	rmdir(dir);
	struct gp_schedule sc;
	struct gp_milp_report rep;
	solve(&t, NULL, 60, &sc, &rep);
	printf("# cbc: %g x %g = %g, glpk %g\n", cbc, unit, cbc * unit, rep.objective);
	assert_true(optimal);
	assert_true(fabs(cbc * unit - rep.objective) <= 1e-6 * rep.objective);
	gp_schedule_free(&sc);
	gp_milp_report_free(&rep);
}

/* The model counted before it is built (gp_sched_milp_size) is the one
 * GLPK gets: rows, columns and binaries, with memory rows, W passes and
 * a shared link, warm-started or not. */
static void test_size_counted(void **state)
{
	(void)state;
	struct inst cases[] = {
		{ .S = 4, .m = 12, .f = 1, .b = 2, .lat = 0.5, .link = -1 },
		{ .S = 3, .m = 10, .split = true, .f = 1, .b = 1, .w = 1, .lat = 2, .link = 0,
		  .occ = 0.5 },
		{ .S = 4, .m = 9, .split = true, .f = 1, .b = 1, .w = 1, .lat = 1, .link = -1,
		  .cap = { 3, 3, 2, 2 } },
		{ .S = 2, .m = 16, .f = 1, .b = 2, .lat = 3, .link = 0, .occ = 1, .cap = { 2, 2 } },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct inst *t = &cases[i];
		inst_init(t);
		for (int w = 0; w < 2; w++) {
			struct gp_schedule warm = { 0 }, sc;
			struct gp_err e = { "" };
			if (w)
				assert_int_equal(gp_schedule_build(t->split ? GP_SCHED_ZBH1 : GP_SCHED_1F1B,
								   t->S, 1, t->m, 0, &warm, &e), 0);
			struct gp_sched_milp_size z;
			assert_int_equal(gp_sched_milp_size(&t->in, w ? &warm : NULL, &z, &e), 0);
			struct gp_milp_report rep;
			solve(t, w ? &warm : NULL, 0.2, &sc, &rep);
			assert_true(z.rows == rep.nrows);
			assert_true(z.cols == rep.ncols);
			assert_true(z.binaries == rep.nints);
			assert_true(z.nz >= 2 * z.rows - 2 * z.binaries && z.graph_bytes > 0);
			gp_schedule_free(&sc);
			gp_schedule_free(&warm);
			gp_milp_report_free(&rep);
		}
	}
}

/* The budget (sched_milp.h): 4 stages x 1024 micro-batches (3.8 GB
 * before) are refused at once, naming the most micro-batches that fit;
 * one more than that is refused too. */
static void test_budget(void **state)
{
	(void)state;
	struct inst t = { .S = 4, .m = 1024, .f = 1, .b = 2, .lat = 0.5, .link = -1 };
	inst_init(&t);
	struct gp_schedule sc;
	struct gp_milp_report rep;
	struct gp_err e = { "" };
	double t0 = wall();
	assert_int_equal(gp_sched_milp(&t.in, NULL, 10, 0, &sc, &rep, &e), -1);
	double took = wall() - t0;
	printf("# %s (%.2f s)\n", e.msg, took);
	assert_int_equal(rep.status, GP_MILP_ERROR);
	assert_null(sc.tasks);
	assert_non_null(strstr(e.msg, "4 stages x 1024 micro-batches are too many"));
	assert_non_null(strstr(e.msg, "xdc-greedy"));
	const char *at = strstr(e.msg, "at most ");
	assert_non_null(at);
	int n = atoi(at + 8);
	assert_true(n >= 16 && n < 1024);
	assert_true(took < 5);
	gp_milp_report_free(&rep);
	/* n + 1 is over: the bisection's answer is the largest that fits. */
	t.m = n + 1;
	inst_init(&t);
	assert_int_equal(gp_sched_milp(&t.in, NULL, 10, 0, &sc, &rep, &e), -1);
	assert_non_null(strstr(e.msg, "too many"));
	gp_milp_report_free(&rep);
	/* A task graph too large is refused before it is built (its
	 * closure alone would take 4 GB). */
	t.m = 25000;
	inst_init(&t);
	t0 = wall();
	assert_int_equal(gp_sched_milp(&t.in, NULL, 10, 0, &sc, &rep, &e), -1);
	assert_non_null(strstr(e.msg, "its task graph would take"));
	assert_true(wall() - t0 < 5);
	gp_milp_report_free(&rep);
}

/* The time limit counts the building: a model of some 300,000 rows
 * under a 10 ms limit stops while it is built (no solve), with the
 * greedy orders' status nosol. */
static void test_limit_while_building(void **state)
{
	(void)state;
	struct inst t = { .S = 4, .m = 160, .f = 1, .b = 2, .lat = 0.5, .link = -1 };
	inst_init(&t);
	struct gp_schedule sc;
	struct gp_milp_report rep;
	struct gp_err e = { "" };
	double t0 = wall();
	assert_int_equal(gp_sched_milp(&t.in, NULL, 0.01, 0, &sc, &rep, &e), -1);
	double took = wall() - t0;
	printf("# %s (%.3f s)\n", e.msg, took);
	assert_int_equal(rep.status, GP_MILP_NOSOL);
	assert_non_null(strstr(e.msg, "while the model was built"));
	assert_true(took < 1);
	gp_milp_report_free(&rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_solver),
		cmocka_unit_test(test_solver_error_hook),
		cmocka_unit_test(test_1f1b_closed_form),
		cmocka_unit_test(test_matches_exhaustive),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_shared_link),
		cmocka_unit_test(test_infeasible),
		cmocka_unit_test(test_no_room),
		cmocka_unit_test(test_time_limit),
		cmocka_unit_test(test_8x16_memory),
		cmocka_unit_test(test_cbc),
		cmocka_unit_test(test_solver_settings),
		cmocka_unit_test(test_size_counted),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_limit_while_building),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
