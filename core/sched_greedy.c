/*
 * sched_greedy.c: xdc-greedy, a latency-aware list scheduler for pipelines
 * whose stages sit in different datacenters.
 *
 * It plays the iteration forward in time with the costs it is given: a
 * task is ready when its input has arrived (predecessor's end, plus the
 * transfer's link occupancy and latency); an idle device picks, among its
 * ready tasks, a backward B first, then a forward F if its memory holds
 * one more micro-batch's activations, else a weight-gradient W (after
 * CrossPipe, USENIX ATC '25). Forwards run ahead as far as memory
 * allows, which is what hides a WAN round trip: the stage before a slow
 * boundary keeps feeding it while earlier gradients are still on the way
 * back. The orders it records are what the simulator then executes with
 * the full link model; the plan is judged there, not here.
 *
 * Tasks of one kind run in micro-batch order on each virtual stage, which
 * keeps every device's choice to 3 v candidates.
 */
#include "schedule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { K_F, K_B, K_W };

struct wake {
	double t;
	int dev;
};

struct gstate {
	const struct gp_sched_input *in;
	int VS;
	double *fready, *bready;  /* [VS * m] input arrival, INF if not yet */
	int *nf, *nb, *nw;        /* [VS] next micro-batch of each kind */
	double *held;             /* [S] activation bytes on the device */
	double *free_at;          /* [S] */
	double *link_free;        /* [nlinks] serial approximation of sharing */
	struct wake *h;           /* min-heap of device wake-ups */
	int nh, caph;
	int64_t *len;             /* [S] tasks recorded */
	struct gp_task *tasks;    /* per device, stride per_dev */
	int64_t per_dev;
};

static int wake_push(struct gstate *g, double t, int dev)
{
	if (g->nh == g->caph) {
		int nc = g->caph ? g->caph * 2 : 64;
		struct wake *n = realloc(g->h, (size_t)nc * sizeof *n);
		if (!n)
			return -1;
		g->h = n;
		g->caph = nc;
	}
	int i = g->nh++;
	while (i > 0 && g->h[(i - 1) / 2].t > t) {
		g->h[i] = g->h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	g->h[i] = (struct wake){ t, dev };
	return 0;
}

static struct wake wake_pop(struct gstate *g)
{
	struct wake top = g->h[0], last = g->h[--g->nh];
	int i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= g->nh)
			break;
		if (c + 1 < g->nh && g->h[c + 1].t < g->h[c].t)
			c++;
		if (g->h[c].t >= last.t)
			break;
		g->h[i] = g->h[c];
		i = c;
	}
	if (g->nh)
		g->h[i] = last;
	return top;
}

/* The time the output of a task ending at t reaches its consumer, with
 * the link treated as a FIFO server of occupancy occ. */
static double arrive(struct gstate *g, int link, double t, double occ, double lat)
{
	if (link < 0)
		return t + occ + lat;
	double start = fmax(t, g->link_free[link]);
	g->link_free[link] = start + occ;
	return start + occ + lat;
}

/* Picks the next task of device d at time t; -1 if none is ready. On
 * success *kind and *vs say what; *next_t is the earliest future time
 * something could become ready (INF if unknown). */
static int pick(struct gstate *g, int d, double t, int *kind, int *vs)
{
	const struct gp_sched_input *in = g->in;
	int m = in->m, best = -1, bk = 0;
	double bt = HUGE_VAL;
	/* Backward first: the earliest arrived. */
	for (int c = 0; c < in->v; c++) {
		int x = gp_vs_of(in->S, in->vshape, d, c), j = g->nb[x];
		if (j < m && j < g->nf[x] && g->bready[(int64_t)x * m + j] <= t &&
		    g->bready[(int64_t)x * m + j] < bt) {
			bt = g->bready[(int64_t)x * m + j];
			best = x;
			bk = K_B;
		}
	}
	if (best >= 0)
		goto done;
	/* A forward if memory holds one more, earliest arrived, lower
	 * virtual stage first on ties (feed the pipeline). */
	for (int c = 0; c < in->v; c++) {
		int x = gp_vs_of(in->S, in->vshape, d, c), j = g->nf[x];
		if (j >= m)
			continue;
		double r = x == 0 ? 0 : g->fready[(int64_t)x * m + j];
		bool fits = g->held[d] + in->act[x] <= in->mem_free[d] * (1 + 1e-12) ||
			    g->held[d] == 0;
		if (r <= t && fits && r < bt) {
			bt = r;
			best = x;
			bk = K_F;
		}
	}
	if (best >= 0)
		goto done;
	/* Otherwise a weight gradient, oldest first. */
	for (int c = 0; in->split_bw && c < in->v; c++) {
		int x = gp_vs_of(in->S, in->vshape, d, c);
		if (g->nw[x] < g->nb[x]) {
			best = x;
			bk = K_W;
			break;
		}
	}
done:
	*kind = bk;
	*vs = best;
	return best;
}

/* The earliest time a not-yet-ready task of device d gets its input. */
static double next_input(struct gstate *g, int d, double t)
{
	const struct gp_sched_input *in = g->in;
	int m = in->m;
	double n = HUGE_VAL;
	for (int c = 0; c < in->v; c++) {
		int x = gp_vs_of(in->S, in->vshape, d, c);
		if (g->nb[x] < g->nf[x] && g->bready[(int64_t)x * m + g->nb[x]] > t)
			n = fmin(n, g->bready[(int64_t)x * m + g->nb[x]]);
		if (g->nf[x] < m && x > 0 && g->fready[(int64_t)x * m + g->nf[x]] > t)
			n = fmin(n, g->fready[(int64_t)x * m + g->nf[x]]);
	}
	return n;
}

static void run_task(struct gstate *g, int d, int kind, int x, double t)
{
	const struct gp_sched_input *in = g->in;
	int m = in->m, S = in->S;
	int j = kind == K_F ? g->nf[x]++ : kind == K_B ? g->nb[x]++ : g->nw[x]++;
	double dur = kind == K_F ? in->f[x] : kind == K_B ? in->b[x] : in->w[x];
	double end = t + dur;
	int chunk = x / S;
	g->tasks[d * g->per_dev + g->len[d]++] =
		(struct gp_task){ .mb = j, .kind = (uint8_t)(kind == K_F ? GP_TASK_F :
						 kind == K_B ? GP_TASK_B : GP_TASK_W),
				  .chunk = (uint8_t)chunk };
	if (kind == K_F) {
		g->held[d] += in->act[x];
		if (x + 1 < g->VS) {
			double a = arrive(g, in->up_link[x], end, in->up_occ[x], in->up_lat[x]);
			g->fready[(int64_t)(x + 1) * m + j] = a;
			wake_push(g, a, gp_vs_device(S, in->vshape, x + 1));
		} else {
			g->bready[(int64_t)x * m + j] = end;
		}
	} else if (kind == K_B) {
		g->held[d] -= in->split_bw ? in->act[x] - in->wact[x] : in->act[x];
		if (x > 0) {
			double a = arrive(g, in->down_link[x], end, in->down_occ[x],
					  in->down_lat[x]);
			g->bready[(int64_t)(x - 1) * m + j] = a;
			wake_push(g, a, gp_vs_device(S, in->vshape, x - 1));
		}
	} else {
		g->held[d] -= in->wact[x];
	}
	g->free_at[d] = end;
	wake_push(g, end, d);
}

int gp_schedule_greedy(const struct gp_sched_input *in, struct gp_schedule *out,
		       struct gp_err *e)
{
	*out = (struct gp_schedule){ 0 };
	int S = in->S, m = in->m, VS = S * in->v;
	int kinds = in->split_bw ? 3 : 2;
	struct gstate g = { .in = in, .VS = VS };
	if ((int64_t)VS * m * kinds > GP_MAX_TASKS)
		return gp_errf(e, "xdc-greedy: %lld tasks are too many to schedule; at most %lld",
			       (long long)VS * m * kinds, (long long)GP_MAX_TASKS);
	size_t cells = (size_t)VS * (size_t)m;
	g.per_dev = (int64_t)m * in->v * kinds;
	g.fready = malloc(cells * sizeof *g.fready);
	g.bready = malloc(cells * sizeof *g.bready);
	g.nf = gp_xcalloc((size_t)VS, sizeof *g.nf);
	g.nb = gp_xcalloc((size_t)VS, sizeof *g.nb);
	g.nw = gp_xcalloc((size_t)VS, sizeof *g.nw);
	g.held = gp_xcalloc((size_t)S, sizeof *g.held);
	g.free_at = gp_xcalloc((size_t)S, sizeof *g.free_at);
	g.link_free = gp_xcalloc((size_t)in->nlinks + 1, sizeof *g.link_free);
	g.len = gp_xcalloc((size_t)S, sizeof *g.len);
	out->tasks = malloc((size_t)(g.per_dev * S) * sizeof *out->tasks);
	out->off = malloc((size_t)(S + 1) * sizeof *out->off);
	int rc = 0;
	if (!g.fready || !g.bready || !g.nf || !g.nb || !g.nw || !g.held ||
	    !g.free_at || !g.link_free || !g.len || !out->tasks || !out->off) {
		rc = gp_errf(e, "xdc-greedy: out of memory");
		goto out;
	}
	g.tasks = out->tasks;
	for (size_t i = 0; i < cells; i++)
		g.fready[i] = g.bready[i] = HUGE_VAL;
	for (int d = 0; d < S; d++)
		wake_push(&g, 0, d);
	int64_t left = g.per_dev * S;
	while (g.nh && left > 0) {
		struct wake w = wake_pop(&g);
		int d = w.dev, kind, x;
		if (g.free_at[d] > w.t)
			continue; /* busy; its own end event will come */
		if (pick(&g, d, w.t, &kind, &x) < 0) {
			/* Nothing ready: sleep until the next input, if it is
			 * already known (arrivals also wake the device). */
			double n = next_input(&g, d, w.t);
			if (n < HUGE_VAL)
				wake_push(&g, n, d);
			continue;
		}
		run_task(&g, d, kind, x, w.t);
		left--;
	}
	if (left > 0) {
		rc = gp_errf(e, "xdc-greedy: could not place %lld tasks (memory too small for one micro-batch?)",
			     (long long)left);
		goto out;
	}
	/* Compact the per-device rows into the usual layout. */
	int64_t n = 0;
	for (int d = 0; d < S; d++) {
		out->off[d] = n;
		memmove(out->tasks + n, out->tasks + d * g.per_dev,
			(size_t)g.len[d] * sizeof *out->tasks);
		n += g.len[d];
	}
	out->off[S] = n;
	out->stages = S;
	out->chunks = in->v;
	out->micro_batches = m;
	out->split_bw = in->split_bw;
	out->vshape = in->vshape;
out:
	free(g.fready);
	free(g.bready);
	free(g.nf);
	free(g.nb);
	free(g.nw);
	free(g.held);
	free(g.free_at);
	free(g.link_free);
	free(g.len);
	free(g.h);
	if (rc)
		gp_schedule_free(out);
	return rc;
}
