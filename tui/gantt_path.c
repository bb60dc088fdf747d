/*
 * gantt_path.c: the critical path and every task's slack in the
 * executed schedule (gantt.h says what they mean), for gp_gantt_build.
 *
 * The graph has a node per span: compute tasks, transfers, DP sync
 * phases and optimizer steps. A node has at most two predecessors (its
 * device's previous task, what it waited for: gp_span.dep), so one
 * backward pass in reverse topological order (Kahn's, counting
 * successors) does it in O(n), with no edge lists.
 */
#include "gantt.h"
#include "gantt_int.h"

#include <math.h>
#include <stdlib.h>

static bool is_compute(int kind)
{
	return kind == GP_SPAN_F || kind == GP_SPAN_B || kind == GP_SPAN_W;
}

/* In the chart's graph: every kind. */
static bool in_graph(int kind)
{
	return kind >= 0 && kind < GP_SPAN__N;
}

/* The edge from a span's input into it, if both are in the graph. */
static int32_t dep_of(const struct gp_result *r, int32_t y)
{
	int32_t d = r->spans[y].dep;
	return d >= 0 && d < r->nspans && in_graph(r->spans[d].kind) &&
	       in_graph(r->spans[y].kind) ? d : -1;
}

/* Each compute span's previous compute span on its device, and each
 * optimizer step's last compute span (-1: none); each device's last
 * span in that order. The step waits for its device's compute and its
 * last sync phase both: when its recorded input is the compute (the
 * sync ended first), its device predecessor is that sync phase, so the
 * phase has the step as a successor and the slack it really has. */
static void device_order(const struct gp_gantt *g, int32_t *prev, int32_t *last)
{
	for (int64_t i = 0; i < g->r->nspans; i++)
		prev[i] = -1;
	for (int k = 0; k < g->r->ndevs; k++) {
		const struct gp_gantt_row *row = &g->rows[k];
		int32_t p = -1, opt = -1, sync = -1;
		for (int j = 0; j < row->n; j++) {
			int32_t i = row->span[j];
			int kind = g->r->spans[i].kind;
			if (is_compute(kind)) {
				prev[i] = p;
				p = i;
			} else if (kind == GP_SPAN_OPT) {
				opt = i;
			} else if (kind == GP_SPAN_SYNC && opt < 0) {
				sync = i;   /* before the step: not ZeRO's gather after it */
			}
		}
		if (opt >= 0)
			prev[opt] = sync >= 0 && dep_of(g->r, opt) == p ? sync : p;
		last[k] = opt >= 0 ? opt : p;
	}
}

/* Lowers x's slack to s once its successor is done; queues x when all
 * its successors are. */
static void relax(struct gp_gantt *g, int32_t x, double s, int32_t *nsucc,
		  int32_t *stack, int64_t *top)
{
	if (x < 0)
		return;
	g->slack[x] = fmin(g->slack[x], fmax(0, s));
	if (--nsucc[x] == 0)
		stack[(*top)++] = x;
}

/* The backward pass, in slack rather than latest finish: slack(x) =
 * min over successors y of slack(y) + the time y could have started
 * earlier than it did had x not held it (y.t0 - x.t1 behind a device
 * predecessor, y.t0 - y.ready behind an input), which keeps a binding
 * chain at exactly 0. A span nothing waits for may slip to the
 * iteration's end. */
static void slack_pass(struct gp_gantt *g, const int32_t *prev, int32_t *nsucc, int32_t *stack,
		       const double *cap)
{
	const struct gp_result *r = g->r;
	const struct gp_span *sp = r->spans;
	int64_t n = r->nspans, top = 0;
	for (int64_t i = 0; i < n; i++) {
		nsucc[i] = 0;
		g->slack[i] = !in_graph(sp[i].kind) ? NAN : cap ? cap[i] : HUGE_VAL;
	}
	for (int32_t i = 0; i < n; i++) {
		if (prev[i] >= 0)
			nsucc[prev[i]]++;
		if (dep_of(r, i) >= 0)
			nsucc[dep_of(r, i)]++;
	}
	for (int32_t i = 0; i < n; i++)
		if (in_graph(sp[i].kind) && nsucc[i] == 0) {
			g->slack[i] = fmin(g->slack[i], fmax(0, g->t_end - sp[i].t1));
			stack[top++] = i;
		}
	while (top) {
		int32_t y = stack[--top], p = prev[y], d = dep_of(r, y);
		if (p >= 0)
			relax(g, p, g->slack[y] + (sp[y].t0 - sp[p].t1), nsucc, stack, &top);
		if (d >= 0)
			relax(g, d, g->slack[y] + (sp[y].t0 - sp[y].ready), nsucc, stack, &top);
	}
	for (int64_t i = 0; i < n; i++)
		if (nsucc[i] > 0)  /* on a cycle: orders that cannot have run */
			g->slack[i] = NAN;
}

struct step {
	double t0, t1;
	int32_t mb, i;
};

static int step_cmp(const void *a, const void *b)
{
	const struct step *x = a, *y = b;
	if (x->mb != y->mb)
		return x->mb < y->mb ? -1 : 1;
	if (x->t0 != y->t0)
		return x->t0 < y->t0 ? -1 : 1;
	return x->t1 < y->t1 ? -1 : x->t1 > y->t1;
}

/* The transfers of one ring step (a bucket's sync on several links over
 * the same interval) are one collective: what waits for the step waits
 * for all of them, though a span records one input. Each takes the
 * least slack of its step; false when nothing changed. */
static bool step_slack(struct gp_gantt *g, struct step *st)
{
	const struct gp_span *sp = g->r->spans;
	double tol = 1e-12 * fmax(1, fabs(g->t_end));
	int64_t n = 0;
	for (int32_t i = 0; i < g->r->nspans; i++)
		if (sp[i].kind == GP_SPAN_SYNC && sp[i].row >= g->r->ndevs && !isnan(g->slack[i]))
			st[n++] = (struct step){ sp[i].t0, sp[i].t1, sp[i].mb, i };
	qsort(st, (size_t)n, sizeof *st, step_cmp);
	bool changed = false;
	for (int64_t a = 0, b; a < n; a = b) {
		double least = g->slack[st[a].i];
		for (b = a + 1; b < n && st[b].mb == st[a].mb && fabs(st[b].t0 - st[a].t0) <= tol &&
				fabs(st[b].t1 - st[a].t1) <= tol; b++)
			least = fmin(least, g->slack[st[b].i]);
		for (int64_t k = a; k < b; k++)
			if (g->slack[st[k].i] > least) {
				g->slack[st[k].i] = least;
				changed = true;
			}
	}
	return changed;
}

/* Slack with the ring steps bound together: the pass, each step at its
 * least, the pass again from those caps, until they hold (a step's
 * slack reaches what came before it; a few rounds). */
static int slack_all(struct gp_gantt *g, const int32_t *prev, int32_t *nsucc, int32_t *stack)
{
	size_t n = (size_t)(g->r->nspans ? g->r->nspans : 1);
	struct step *st = malloc(n * sizeof *st);
	double *cap = malloc(n * sizeof *cap);
	if (!st || !cap) {
		free(st);
		free(cap);
		return -1;
	}
	slack_pass(g, prev, nsucc, stack, NULL);
	for (int round = 0; round < 8 && step_slack(g, st); round++) {
		for (int32_t i = 0; i < g->r->nspans; i++)
			cap[i] = isnan(g->slack[i]) ? HUGE_VAL : g->slack[i];
		slack_pass(g, prev, nsucc, stack, cap);
	}
	free(st);
	free(cap);
	return 0;
}

/* From the device's last span (its optimizer step) with the least
 * slack (ties: the one ending last) back along what held each: its
 * device predecessor if that ended as it started, else what it waited
 * for (an input, a sync phase, the gradient task a sync bucket came
 * from). */
static int crit_walk(struct gp_gantt *g, const int32_t *prev, const int32_t *last,
		     int32_t *buf)
{
	const struct gp_span *sp = g->r->spans;
	int32_t y = -1;
	for (int k = 0; k < g->r->ndevs; k++) {
		int32_t x = last[k];
		if (x >= 0 && !isnan(g->slack[x]) &&
		    (y < 0 || g->slack[x] < g->slack[y] ||
		     (g->slack[x] == g->slack[y] && sp[x].t1 > sp[y].t1)))
			y = x;
	}
	double tol = 1e-12 * fmax(1, fabs(g->t_end));
	int n = 0;
	while (y >= 0 && n < g->r->nspans) {
		buf[n++] = y;
		int32_t p = prev[y];
		y = p >= 0 && sp[p].t1 >= sp[y].t0 - tol ? p : dep_of(g->r, y);
	}
	g->crit = malloc((size_t)(n ? n : 1) * sizeof *g->crit);
	if (!g->crit)
		return -1;
	for (int j = 0; j < n; j++)
		g->crit[j] = buf[n - 1 - j];
	g->ncrit = n;
	return 0;
}

int gp_gantt_path(struct gp_gantt *g)
{
	size_t n = (size_t)(g->r->nspans ? g->r->nspans : 1);
	int32_t *prev = malloc(n * sizeof *prev), *nsucc = malloc(n * sizeof *nsucc);
	int32_t *stack = malloc(n * sizeof *stack);
	int32_t *last = malloc((size_t)(g->r->ndevs + 1) * sizeof *last);
	g->slack = malloc(n * sizeof *g->slack);
	int rc = -1;
	if (prev && nsucc && stack && last && g->slack) {
		device_order(g, prev, last);
		if (slack_all(g, prev, nsucc, stack) == 0)
			rc = crit_walk(g, prev, last, stack);
	}
	free(prev);
	free(nsucc);
	free(stack);
	free(last);
	return rc;
}
