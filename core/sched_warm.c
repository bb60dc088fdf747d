/*
 * sched_warm.c: list execution of device orders on the schedule MILP's
 * task graph, and the warm starts it makes (sched_int.h).
 *
 * Devices run their given orders as soon as dependencies allow; shared
 * links serve transfers first come, first served. The caller's schedule,
 * or else 1F1B or serial order, executed so, is the model's first
 * incumbent when it fits the memory and keeps micro-batch order; its
 * makespan bounds the horizon.
 */
#include "sched_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------ */
/* List execution of given device orders                               */

/* Next transfer a link can start: the ready one that became ready first. */
static int link_pick(const struct sm_graph *g, int r, const int *left,
		     const double *ready, const bool *done)
{
	int best = -1;
	for (int k = g->rbeg[r]; k < g->rbeg[r + 1]; k++) {
		int t = g->rtask[k];
		if (!done[t] && !left[t] && (best < 0 || ready[t] < ready[best]))
			best = t;
	}
	return best;
}

/* Runs each device's order (dev_order[d] .. of length dev_len[d]) as
 * soon as dependencies allow; links serve transfers first come, first
 * served. Commits the earliest startable task each step, so a link never
 * misses a transfer that will become ready earlier. -1 on deadlock. */
static int list_exec(const struct sm_graph *g, int *const *dev_order, const int *dev_len,
		     struct sm_exec *x)
{
	int n = g->n, rc = -1;
	int *left = calloc((size_t)n + 1, sizeof *left);
	int *pos = calloc((size_t)g->S + 1, sizeof *pos);
	double *ready = calloc((size_t)n + 1, sizeof *ready);
	double *free_at = calloc((size_t)g->R + 1, sizeof *free_at);
	bool *done = calloc((size_t)n + 1, sizeof *done);
	if (!left || !pos || !ready || !free_at || !done)
		goto out;
	for (int i = 0; i < g->ne; i++)
		left[g->e[i].b] += g->e[i].phys;
	x->makespan = 0;
	for (int step = 0; step < n; step++) {
		int best = -1;
		double when = HUGE_VAL;
		for (int r = 0; r < g->R; r++) {
			int t = r < g->S ? (pos[r] < dev_len[r] ? dev_order[r][pos[r]] : -1)
					 : link_pick(g, r, left, ready, done);
			if (t < 0 || left[t])
				continue;
			double s = ready[t] > free_at[r] ? ready[t] : free_at[r];
			if (s < when) {
				when = s;
				best = t;
			}
		}
		if (best < 0)
			goto out;
		const struct sm_task *tk = &g->t[best];
		double end = when + tk->p;
		x->start[best] = when;
		x->seq[best] = step;
		done[best] = true;
		free_at[tk->res] = end;
		if (tk->res < g->S)
			pos[tk->res]++;
		x->makespan = end > x->makespan ? end : x->makespan;
		for (int q = g->obeg[best]; q < g->obeg[best + 1]; q++) {
			const struct sm_edge *ed = &g->e[g->oedge[q]];
			if (!ed->phys)
				continue;
			if (end + ed->lag > ready[ed->b])
				ready[ed->b] = end + ed->lag;
			left[ed->b]--;
		}
	}
	rc = 0;
out:
	free(left);
	free(pos);
	free(ready);
	free(free_at);
	free(done);
	return rc;
}

/* Peak check of one device order, as the simulator walks it. */
static bool mem_ok(const struct sm_graph *g, int d, const int *order, int len)
{
	if (!sm_mem_limited(g->in))
		return true;
	double cur = 0, cap = g->in->mem_free[d];
	for (int k = 0; k < len; k++) {
		cur += sm_mem_delta(g, &g->t[order[k]]);
		if (cur > cap + 1e-9 * (cap > 1 ? cap : 1))
			return false;
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* The warm start                                                      */

/* Maps a schedule's device orders to task ids; checks its shape. */
static int warm_orders(const struct sm_graph *g, const struct gp_schedule *w,
		       int **task_out, char *why, size_t whylen)
{
	if (w->stages != g->S || w->chunks != g->v || w->micro_batches != g->m ||
	    w->split_bw != g->in->split_bw) {
		snprintf(why, whylen, "its shape (%d stages, %d chunks, %d micro-batches%s) differs",
			 w->stages, w->chunks, w->micro_batches, w->split_bw ? ", split" : "");
		return -1;
	}
	int ncomp = g->VS * g->m * (g->in->split_bw ? 3 : 2);
	if (w->off[0] != 0 || w->off[g->S] != ncomp) {
		snprintf(why, whylen, "it has %lld tasks, not %d", (long long)w->off[g->S], ncomp);
		return -1;
	}
	int *task = malloc(sizeof *task * ((size_t)ncomp + 1));
	bool *seen = calloc((size_t)g->n + 1, sizeof *seen);
	if (!task || !seen) {
		free(task);
		free(seen);
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	for (int d = 0; d < g->S; d++) {
		for (int64_t i = w->off[d]; i < w->off[d + 1]; i++) {
			const struct gp_task *t = &w->tasks[i];
			int vs = gp_vs_of(g->S, g->in->vshape, d, t->chunk), id = -1;
			if (t->chunk < g->v && t->mb >= 0 && t->mb < g->m && t->kind <= GP_TASK_W)
				id = g->id[t->kind == GP_TASK_F ? SM_F : t->kind == GP_TASK_B ? SM_B : SM_W]
					  [vs * g->m + t->mb];
			if (id < 0 || seen[id]) {
				snprintf(why, whylen, "device %d: task %lld is unknown or repeated",
					 d, (long long)(i - w->off[d]));
				free(task);
				free(seen);
				return -1;
			}
			seen[id] = true;
			task[i] = id;
		}
	}
	free(seen);
	*task_out = task;
	return 0;
}

/* Micro-batch order kept, so the model's symmetry rows hold. */
static bool in_order(const struct sm_graph *g, const struct sm_exec *x)
{
	for (int i = 0; i < g->ne; i++) {
		const struct sm_edge *ed = &g->e[i];
		if (!ed->phys && x->start[ed->b] < x->start[ed->a] + g->t[ed->a].p - 1e-9)
			return false;
	}
	return true;
}

/* Runs device orders (device d: task[off[d] .. off[d + 1])); 0 with x
 * filled if the model admits them. */
static int run_orders(const struct sm_graph *g, int *task, const int64_t *off,
		      struct sm_exec *x, char *why, size_t whylen)
{
	int **ord = malloc(sizeof *ord * (size_t)g->S);
	int *len = malloc(sizeof *len * (size_t)g->S);
	int rc = -1;
	if (!ord || !len) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	for (int d = 0; d < g->S; d++) {
		ord[d] = task + off[d];
		len[d] = (int)(off[d + 1] - off[d]);
		if (!mem_ok(g, d, ord[d], len[d])) {
			snprintf(why, whylen, "device %d runs out of activation memory", d);
			goto out;
		}
	}
	if (list_exec(g, ord, len, x)) {
		snprintf(why, whylen, "its orders deadlock");
		goto out;
	}
	if (!in_order(g, x)) {
		snprintf(why, whylen, "it reorders micro-batches within a stage");
		goto out;
	}
	rc = 0;
out:
	free(ord);
	free(len);
	return rc;
}

/* Executes the caller's warm schedule. */
int sm_warm_exec(const struct sm_graph *g, const struct gp_schedule *w,
		 struct sm_exec *x, char *why, size_t whylen)
{
	int *task = NULL;
	if (warm_orders(g, w, &task, why, whylen))
		return -1;
	int rc = run_orders(g, task, w->off, x, why, whylen);
	free(task);
	return rc;
}

static void put_bw(const struct sm_graph *g, int **o, int vs, int j)
{
	*(*o)++ = g->id[SM_B][vs * g->m + j];
	if (g->in->split_bw)
		*(*o)++ = g->id[SM_W][vs * g->m + j];
}

/* 1F1B (one chunk) with each W right after its B: 1F1B's memory. */
static void order_1f1b(const struct sm_graph *g, int d, int **o)
{
	int m = g->m, w = g->S - 1 - d < m ? g->S - 1 - d : m;
	for (int j = 0; j < w; j++)
		*(*o)++ = g->id[SM_F][d * m + j];
	for (int j = 0; j < m - w; j++) {
		*(*o)++ = g->id[SM_F][d * m + w + j];
		put_bw(g, o, d, j);
	}
	for (int j = m - w; j < m; j++)
		put_bw(g, o, d, j);
}

/* One micro-batch at a time: the least memory any schedule can use. */
static void order_serial(const struct sm_graph *g, int d, int **o)
{
	for (int j = 0; j < g->m; j++) {
		for (int c = 0; c < g->v; c++)
			*(*o)++ = g->id[SM_F][(c * g->S + d) * g->m + j];
		for (int c = g->v - 1; c >= 0; c--)
			put_bw(g, o, c * g->S + d, j);
	}
}

/* Without a usable warm start, GLPK may not find any schedule of a large
 * model in time; start it from 1F1B, or failing that serial order. */
int sm_builtin_warm(const struct sm_graph *g, struct sm_exec *x)
{
	int per = g->v * g->m * (g->in->split_bw ? 3 : 2), rc = -1;
	int *task = malloc(sizeof *task * (size_t)per * g->S);
	int64_t *off = malloc(sizeof *off * ((size_t)g->S + 1));
	char why[8];
	for (int kind = g->v == 1 ? 0 : 1; task && off && kind < 2 && rc; kind++) {
		for (int d = 0; d <= g->S; d++)
			off[d] = (int64_t)d * per;
		for (int d = 0; d < g->S; d++) {
			int *o = task + off[d];
			(kind == 0 ? order_1f1b : order_serial)(g, d, &o);
		}
		rc = run_orders(g, task, off, x, why, sizeof why);
	}
	free(task);
	free(off);
	return rc;
}
