/*
 * sched_milp.c: the schedule MILP (sched_milp.h): its model, the solve,
 * and the schedule read back from the solution. The task graph it is
 * built on comes from sched_graph.c, the warm start from sched_warm.c.
 *
 * Formulation: disjunctive scheduling with big-M order variables (Manne,
 * "On the job-shop scheduling problem", Operations Research 8, 1960), in
 * the cross-DC pipeline setting of CrossPipe (USENIX ATC '25): tasks are
 * the F, B (and W) passes of every micro-batch on every virtual stage and
 * the transfers that occupy a shared WAN link direction; devices and
 * shared links are unary resources.
 *
 *   x_t         start of task t;  C the makespan (the objective)
 *   x_b >= x_a + p_a + lag       for every precedence a -> b (pipeline
 *                                order, transfer latency, F -> B -> W)
 *   y_ab in {0,1}, for every pair on one resource whose order the
 *   precedences do not already imply:
 *     x_b >= x_a + p_a - M_ab (1 - y_ab),  x_a >= x_b + p_b - M_ba y_ab
 *   memory, at every F start t on device d (tasks are sequential, so
 *   "ended before t starts" is "ordered before t"):
 *     act_t + sum_a coef_a [a before t] <= mem_free[d],
 *     coef = +act for F, -(act - wact) for B (-act unsplit), -wact for W
 *   C >= x_t + p_t for tasks without successors.
 *
 * Keeping it small: orders implied by precedence or by micro-batch order
 * (transitive closure of the precedence graph) get no variable; each
 * task's start is bounded by its head (longest path from the start) and
 * tail (longest path to the end), which makes every M_ab as small as the
 * horizon H allows (H: the warm start's makespan, else the serial
 * execution of everything); and C starts from the critical path and the
 * per-resource load bounds (head + work + tail), often already tight.
 * Times are scaled by the longest task so the solver sees numbers near 1.
 *
 * Bounded: the model is counted before it is built and refused over its
 * budget (sched_milp.h; GLPK took about 1 KB a row, 0.42 GB for 427,332
 * rows, and 21 GB at 4,096 micro-batches), and the time limit counts
 * the building too.
 */
#include "sched_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char kind_letter[SM_NKINDS] = { 'F', 'B', 'W', 'U', 'D' };

/* ------------------------------------------------------------------ */
/* The model                                                           */

enum { REL_BEFORE = -1, REL_AFTER = -2 };

struct model {
	struct gp_milp *lp;
	double H;          /* horizon, scaled */
	double deadline;   /* monotonic seconds (INF: none) */
	bool late;         /* building passed the deadline */
	int cmax;          /* makespan column */
	int **rel;         /* per resource, [i * n_r + k]: REL_* or y column
			    * (y = 1: the lower local index goes first) */
	int *icol;         /* scratch row buffers */
	double *ival;
	int cap;
};

static void model_free(struct model *md, int R)
{
	gp_milp_free(md->lp);
	for (int r = 0; md->rel && r < R; r++)
		free(md->rel[r]);
	free(md->rel);
	free(md->icol);
	free(md->ival);
}

static void task_name(const struct sm_graph *g, int t, char *buf, size_t n)
{
	const struct sm_task *tk = &g->t[t];
	snprintf(buf, n, "%c%d_%d", kind_letter[tk->kind], tk->vs, tk->j);
}

/* The smallest valid horizon we know without solving. */
static double serial_horizon(const struct sm_graph *g)
{
	double h = 0;
	for (int i = 0; i < g->n; i++)
		h += g->t[i].p;
	for (int i = 0; i < g->ne; i++)
		h += g->e[i].phys ? g->e[i].lag : 0;
	return h;
}

/* Critical path and per-resource load: head + work + tail. */
static double lower_bound(const struct sm_graph *g)
{
	double lb = 0;
	for (int i = 0; i < g->n; i++) {
		double c = g->head[i] + g->t[i].p + g->tail[i];
		lb = c > lb ? c : lb;
	}
	for (int r = 0; r < g->R; r++) {
		double h = HUGE_VAL, t = HUGE_VAL, w = 0;
		for (int k = g->rbeg[r]; k < g->rbeg[r + 1]; k++) {
			int i = g->rtask[k];
			h = g->head[i] < h ? g->head[i] : h;
			t = g->tail[i] < t ? g->tail[i] : t;
			w += g->t[i].p;
		}
		if (g->rbeg[r + 1] > g->rbeg[r] && h + w + t > lb)
			lb = h + w + t;
	}
	return lb;
}

static void add_columns(const struct sm_graph *g, struct model *md)
{
	char nm[64];
	for (int i = 0; i < g->n; i++) {
		task_name(g, i, nm, sizeof nm);
		double ub = md->H - g->tail[i] - g->t[i].p;
		g->t[i].col = gp_milp_col(md->lp, nm, g->head[i],
					  ub > g->head[i] ? ub : g->head[i], false, 0);
	}
	double lb = lower_bound(g);
	md->cmax = gp_milp_col(md->lp, "Cmax", lb, md->H > lb ? md->H : lb, false, 1);
}

static void row2(struct model *md, const char *nm, int c1, double v1, int c2, double v2,
		 double lo)
{
	int col[2] = { c1, c2 };
	double val[2] = { v1, v2 };
	gp_milp_row(md->lp, nm, 2, col, val, lo, HUGE_VAL);
}

static void add_precedence(const struct sm_graph *g, struct model *md)
{
	char nm[32];
	for (int i = 0; i < g->ne; i++) {
		const struct sm_edge *ed = &g->e[i];
		snprintf(nm, sizeof nm, "e%d", i);
		row2(md, nm, g->t[ed->b].col, 1, g->t[ed->a].col, -1, g->t[ed->a].p + ed->lag);
	}
	for (int i = 0; i < g->n; i++) {
		if (g->obeg[i + 1] > g->obeg[i])
			continue;
		snprintf(nm, sizeof nm, "end%d", i);
		row2(md, nm, md->cmax, 1, g->t[i].col, -1, g->t[i].p);
	}
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Building passed the deadline (checked once per row of pairs). */
static bool late(struct model *md)
{
	if (!md->late && md->deadline < HUGE_VAL && now_s() > md->deadline)
		md->late = true;
	return md->late;
}

/* How a pair on a resource is ordered: by precedence or the bounds
 * (REL_*), or 0, by a binary with big-Ms *ma, *mb (the most x_a + p_a -
 * x_b and x_b + p_b - x_a can be under horizon H). */
static int pair_rel(const struct sm_graph *g, double H, int a, int b, double *ma, double *mb)
{
	if (sm_reaches(g, a, b))
		return REL_BEFORE;
	if (sm_reaches(g, b, a))
		return REL_AFTER;
	*ma = H - g->tail[a] - g->head[b];
	*mb = H - g->tail[b] - g->head[a];
	if (*ma <= 0)
		return REL_BEFORE;
	if (*mb <= 0)
		return REL_AFTER;
	return 0;
}

/* One pair on a resource: fixed by precedence or bounds, or a binary
 * with its two big-M rows. Returns the REL_* or y column for (a, b). */
static int add_pair(const struct sm_graph *g, struct model *md, int a, int b)
{
	double ma, mb;
	int rel = pair_rel(g, md->H, a, b, &ma, &mb);
	if (rel)
		return rel;
	const struct sm_task *ta = &g->t[a], *tb = &g->t[b];
	char na[24], nb[24], nm[64];
	task_name(g, a, na, sizeof na);
	task_name(g, b, nb, sizeof nb);
	snprintf(nm, sizeof nm, "y_%s_%s", na, nb);
	int y = gp_milp_col(md->lp, nm, 0, 1, true, 0);
	if (y < 0)
		return REL_BEFORE;   /* the model's sticky error reports it */
	/* y = 1: a first; y = 0: b first */
	snprintf(nm, sizeof nm, "ab_%s_%s", na, nb);
	int c3[3] = { tb->col, ta->col, y };
	double v3[3] = { 1, -1, -ma };
	gp_milp_row(md->lp, nm, 3, c3, v3, ta->p - ma, HUGE_VAL);
	snprintf(nm, sizeof nm, "ba_%s_%s", na, nb);
	double w3[3] = { -1, 1, mb };
	gp_milp_row(md->lp, nm, 3, c3, w3, tb->p, HUGE_VAL);
	return y;
}

static int add_disjunctions(const struct sm_graph *g, struct model *md)
{
	md->rel = calloc((size_t)g->R, sizeof *md->rel);
	if (!md->rel)
		return -1;
	for (int r = 0; r < g->R; r++) {
		int beg = g->rbeg[r], nr = g->rbeg[r + 1] - beg;
		md->rel[r] = malloc(sizeof **md->rel * ((size_t)nr * nr + 1));
		if (!md->rel[r])
			return -1;
		for (int i = 0; i < nr; i++) {
			if (late(md))
				return 0;
			md->rel[r][i * nr + i] = REL_BEFORE;
			for (int k = i + 1; k < nr; k++) {
				int rel = add_pair(g, md, g->rtask[beg + i], g->rtask[beg + k]);
				md->rel[r][i * nr + k] = rel;
				md->rel[r][k * nr + i] = rel == REL_BEFORE ? REL_AFTER
						       : rel == REL_AFTER ? REL_BEFORE : rel;
			}
		}
	}
	return 0;
}

/* Whether a device's limit can ever bind. */
static bool mem_binds(const struct sm_graph *g, int d)
{
	double all = 0;
	for (int k = g->rbeg[d]; k < g->rbeg[d + 1]; k++) {
		const struct sm_task *t = &g->t[g->rtask[k]];
		if (t->kind == SM_F)
			all += sm_mem_delta(g, t);
	}
	return all > g->in->mem_free[d] * (1 + 1e-12);
}

/* Activation memory at every F start on device d (see the top). */
static void add_memory_rows(const struct sm_graph *g, struct model *md, int d)
{
	int beg = g->rbeg[d], nr = g->rbeg[d + 1] - beg;
	double cap = g->in->mem_free[d], s = cap > 0 ? 1 / cap : 1;   /* (cap > 0: no_room) */
	char nm[48];
	for (int k = 0; k < nr && !late(md); k++) {
		const struct sm_task *t = &g->t[g->rtask[beg + k]];
		if (t->kind != SM_F)
			continue;
		double konst = sm_mem_delta(g, t);
		int n = 0;
		for (int i = 0; i < nr; i++) {
			double c = sm_mem_delta(g, &g->t[g->rtask[beg + i]]);
			int rel = md->rel[d][i * nr + k];
			if (i == k || c == 0 || rel == REL_AFTER)
				continue;
			if (rel == REL_BEFORE) {
				konst += c;
			} else if (i < k) {   /* y = 1: i first */
				md->icol[n] = rel;
				md->ival[n++] = c * s;
			} else {              /* y = 1: k first, so i first is 1 - y */
				konst += c;
				md->icol[n] = rel;
				md->ival[n++] = -c * s;
			}
		}
		task_name(g, g->rtask[beg + k], nm + 4, sizeof nm - 4);
		memcpy(nm, "mem_", 4);
		gp_milp_row(md->lp, nm, n, md->icol, md->ival, -HUGE_VAL, (cap - konst) * s);
	}
}

static int model_build(const struct sm_graph *g, double horizon, double deadline,
		       struct model *md, struct gp_err *e)
{
	*md = (struct model){ .H = horizon, .deadline = deadline };
	md->lp = gp_milp_new();
	md->cap = g->n + 1;
	md->icol = malloc(sizeof *md->icol * (size_t)md->cap);
	md->ival = malloc(sizeof *md->ival * (size_t)md->cap);
	if (!md->lp || !md->icol || !md->ival)
		return gp_errf(e, "schedule milp: out of memory");
	add_columns(g, md);
	add_precedence(g, md);
	if (add_disjunctions(g, md))
		return gp_errf(e, "schedule milp: out of memory");
	for (int d = 0; sm_mem_limited(g->in) && d < g->S && !md->late; d++)
		if (mem_binds(g, d))
			add_memory_rows(g, md, d);
	return 0;
}

/* The warm start as a point of the model: starts, makespan, and each
 * binary from who ran first on its resource. */
static double *warm_point(const struct sm_graph *g, const struct model *md,
			  const struct sm_exec *x)
{
	double *w = calloc((size_t)gp_milp_ncols(md->lp) + 1, sizeof *w);
	if (!w)
		return NULL;
	for (int i = 0; i < g->n; i++)
		w[g->t[i].col] = x->start[i];
	w[md->cmax] = x->makespan;
	for (int r = 0; r < g->R; r++) {
		int beg = g->rbeg[r], nr = g->rbeg[r + 1] - beg;
		for (int i = 0; i < nr; i++)
			for (int k = i + 1; k < nr; k++) {
				int y = md->rel[r][i * nr + k];
				if (y >= 0)
					w[y] = x->seq[g->rtask[beg + i]] < x->seq[g->rtask[beg + k]];
			}
	}
	return w;
}

/* ------------------------------------------------------------------ */
/* Its size, before it is built                                        */

/* Pair (a, b) of a device that memory limits, ordered by a binary: the
 * nonzeros it gives the memory rows of a and b. */
static int mem_nz(const struct sm_graph *g, int a, int b)
{
	const struct sm_task *ta = &g->t[a], *tb = &g->t[b];
	return (tb->kind == SM_F && sm_mem_delta(g, ta) != 0) +
	       (ta->kind == SM_F && sm_mem_delta(g, tb) != 0);
}

/* Counts what model_build would make (rows, nonzeros, binaries) under
 * horizon H; false when the deadline passed first. With over, the count
 * stops once it passes the budget (sched_milp.h) and sets *over: the
 * figures are then partial, only "more than the budget". */
static bool model_size(const struct sm_graph *g, double H, struct model *md,
		       struct gp_sched_milp_size *z, bool *over)
{
	double bytes = z->graph_bytes;
	*z = (struct gp_sched_milp_size){ .graph_bytes = bytes };
	for (int i = 0; i < g->n; i++) {
		bool sink = g->obeg[i + 1] == g->obeg[i];
		z->rows += sink;
		z->nz += 2 * sink;
	}
	z->rows += g->ne;
	z->nz += 2.0 * g->ne;
	for (int r = 0; r < g->R; r++) {
		int beg = g->rbeg[r], nr = g->rbeg[r + 1] - beg;
		bool mem = r < g->S && sm_mem_limited(g->in) && mem_binds(g, r);
		for (int i = 0; i < nr; i++) {
			/* Over the budget settles it, whatever the clock says:
			 * the refusal does not depend on the machine's load. */
			if (over && (z->rows + 2 * z->binaries > GP_SCHED_MILP_MAX_ROWS ||
				     z->nz > GP_SCHED_MILP_MAX_NZ)) {
				*over = true;
				goto done;
			}
			if (late(md))
				return false;
			int a = g->rtask[beg + i];
			z->rows += mem && g->t[a].kind == SM_F;
			for (int k = i + 1; k < nr; k++) {
				double ma, mb;
				int b = g->rtask[beg + k];
				if (pair_rel(g, H, a, b, &ma, &mb))
					continue;
				z->binaries++;
				z->nz += 6 + (mem ? mem_nz(g, a, b) : 0);
			}
		}
	}
done:
	z->rows += 2 * z->binaries;
	z->cols = g->n + 1 + z->binaries;
	return true;
}

/* ------------------------------------------------------------------ */
/* The answer                                                          */

struct ranked {
	int task, rank;
	double x;
};

static int by_rank(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->x < b->x ? -1 : a->x > b->x;
}

static bool first(const struct model *md, const double *x, int r, int nr, int i, int k)
{
	int rel = md->rel[r][i * nr + k];
	if (rel == REL_BEFORE || rel == REL_AFTER)
		return rel == REL_BEFORE;
	bool lower_first = x[rel] > 0.5;
	return i < k ? lower_first : !lower_first;
}

/* Device orders from the solution: a task's place is how many tasks of
 * its device the binaries put before it (exactly what the memory rows
 * counted); start times only break ties. */
static int extract(const struct sm_graph *g, const struct model *md, const double *x,
		   struct gp_schedule *out, struct gp_err *e)
{
	int per = g->VS * g->m * (g->in->split_bw ? 3 : 2) / g->S;
	*out = (struct gp_schedule){ .stages = g->S, .chunks = g->v,
				     .micro_batches = g->m, .split_bw = g->in->split_bw,
				     .vshape = g->in->vshape };
	out->tasks = malloc(sizeof *out->tasks * (size_t)per * g->S);
	out->off = malloc(sizeof *out->off * ((size_t)g->S + 1));
	struct ranked *rk = malloc(sizeof *rk * (size_t)per);
	if (!out->tasks || !out->off || !rk) {
		free(rk);
		gp_schedule_free(out);
		return gp_errf(e, "schedule milp: out of memory");
	}
	for (int d = 0; d < g->S; d++) {
		int beg = g->rbeg[d], nr = g->rbeg[d + 1] - beg;
		for (int k = 0; k < nr; k++) {
			int t = g->rtask[beg + k];
			rk[k] = (struct ranked){ t, 0, x[g->t[t].col] };
			for (int i = 0; i < nr; i++)
				rk[k].rank += i != k && first(md, x, d, nr, i, k);
		}
		qsort(rk, (size_t)nr, sizeof *rk, by_rank);
		out->off[d] = (int64_t)d * per;
		for (int k = 0; k < nr; k++) {
			const struct sm_task *t = &g->t[rk[k].task];
			out->tasks[d * per + k] = (struct gp_task){
				.mb = t->j, .chunk = (uint8_t)(t->vs / g->S),
				.kind = t->kind == SM_F ? GP_TASK_F : t->kind == SM_B ? GP_TASK_B : GP_TASK_W,
			};
		}
	}
	out->off[g->S] = (int64_t)g->S * per;
	free(rk);
	return 0;
}

/* Back to the input's time unit: objective, bound and start columns. */
static void unscale(const struct sm_graph *g, const struct model *md,
		    struct gp_milp_report *rep)
{
	double u = g->unit;
	if (isfinite(rep->objective))
		rep->objective *= u;
	if (isfinite(rep->bound))
		rep->bound *= u;
	for (int i = 0; rep->x && i < g->n; i++)
		rep->x[g->t[i].col] *= u;
	if (rep->x)
		rep->x[md->cmax] *= u;
}

static void note(struct gp_milp_report *rep, const char *why)
{
	size_t n = strlen(rep->msg);
	snprintf(rep->msg + n, sizeof rep->msg - n, "%swarm start not used: %s",
		 n ? "; " : "", why);
}

/* ------------------------------------------------------------------ */

/* The horizon: the warm start's makespan when it runs (x: its
 * execution; *have), else the serial one. */
static double horizon(const struct sm_graph *g, const struct gp_schedule *warm,
		      struct sm_exec *x, bool *have, char *why, size_t whylen)
{
	*have = false;
	x->start = malloc(sizeof *x->start * ((size_t)g->n + 1));
	x->seq = malloc(sizeof *x->seq * ((size_t)g->n + 1));
	if (x->start && x->seq && warm)
		*have = sm_warm_exec(g, warm, x, why, whylen) == 0;
	if (x->start && x->seq && !*have)
		*have = sm_builtin_warm(g, x) == 0;
	/* its makespan bounds the optimum: smaller big-Ms */
	return *have ? x->makespan * (1 + 1e-9) + 1e-12 : serial_horizon(g);
}

/* The model of in with m micro-batches keeps the budget (with the
 * built-in warm start's horizon). */
static bool fits(const struct gp_sched_input *in0, int m)
{
	struct gp_sched_input in = *in0;
	in.m = m;
	if (sm_graph_bytes(&in) > GP_SCHED_MILP_MAX_GRAPH_BYTES)
		return false;
	struct sm_graph g = { 0 };
	struct gp_err e = { "" };
	struct model md = { .deadline = HUGE_VAL };
	struct sm_exec x = { 0 };
	struct gp_sched_milp_size z = { 0 };
	bool ok = false, have;
	if (sm_graph_build(&in, &g, &e) == 0) {
		double H = horizon(&g, NULL, &x, &have, NULL, 0);
		bool over = false;
		ok = model_size(&g, H, &md, &z, &over) && !over &&
		     z.rows <= GP_SCHED_MILP_MAX_ROWS && z.nz <= GP_SCHED_MILP_MAX_NZ;
	}
	free(x.start);
	free(x.seq);
	sm_graph_free(&g);
	return ok;
}

/* Refuses a model over the budget (sched_milp.h), with the most
 * micro-batches that keep it (a bisection: the pairs grow with their
 * square, so the probes below are cheap). */
static int too_big(const struct gp_sched_input *in, const char *what, struct gp_err *e)
{
	int lo = 0, hi = in->m;
	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;
		if (fits(in, mid))
			lo = mid;
		else
			hi = mid;
	}
	char fit[96] = "";
	if (lo >= 1)
		snprintf(fit, sizeof fit, "give the pipeline at most %d micro-batches, or ", lo);
	return gp_errf(e, "schedule milp: %d stages x %d micro-batches%s are too many for it: %s, over its budget of %.0f rows, %.0f nonzeros and a %.0f MB task graph (about 1 GB of memory); %suse another schedule (xdc-greedy is its warm start)",
		       in->S, in->m, in->v > 1 ? " x chunks" : "", what,
		       (double)GP_SCHED_MILP_MAX_ROWS, (double)GP_SCHED_MILP_MAX_NZ,
		       GP_SCHED_MILP_MAX_GRAPH_BYTES / 1e6, fit);
}

/* A device whose free memory cannot hold one micro-batch's activations
 * (its static state may be more than the GPU has already): no order fits,
 * so no model is built (GLPK's root LP failed on one, its memory rows far
 * out of scale). -1 with e naming the stage. */
static int no_room(const struct gp_sched_input *in, struct gp_err *e)
{
	for (int vs = 0; sm_mem_limited(in) && vs < in->S * in->v; vs++) {
		int d = gp_vs_device(in->S, in->vshape, vs);
		double act = in->act[vs], room = in->mem_free[d];
		if (act > 0 && act > room + 1e-12 * act)
			return gp_errf(e, "schedule milp: no schedule fits the activation memory: stage %d has %.4g GiB left for activations, less than one micro-batch's %.4g GiB",
				       d + 1, room / 1073741824.0, act / 1073741824.0);
	}
	return 0;
}

/* The graph, its warm start and the model, within the budget; md->late
 * when the deadline passed first (then no model). */
static int prepare(const struct gp_sched_input *in, const struct gp_schedule *warm,
		   double deadline, struct sm_graph *g, struct model *md, double **wpoint,
		   char *why, size_t whylen, struct gp_err *e)
{
	char what[96];
	*wpoint = NULL;
	if (sm_check_input(in, e))
		return -1;
	size_t bytes = sm_graph_bytes(in);
	if (bytes > GP_SCHED_MILP_MAX_GRAPH_BYTES) {
		snprintf(what, sizeof what, "its task graph would take %.0f MB", bytes / 1e6);
		return too_big(in, what, e);
	}
	if (sm_graph_build(in, g, e))
		return -1;
	struct sm_exec x = { 0 };
	bool have_warm;
	double H = horizon(g, warm, &x, &have_warm, why, whylen);
	struct gp_sched_milp_size z = { 0 };
	*md = (struct model){ .deadline = deadline };
	int rc = 0;
	bool over = false;
	if (!model_size(g, H, md, &z, &over)) {
		rc = 0;   /* late: no model */
	} else if (over || z.rows > GP_SCHED_MILP_MAX_ROWS || z.nz > GP_SCHED_MILP_MAX_NZ) {
		/* Counted up to the budget, not beyond. */
		if (z.nz > GP_SCHED_MILP_MAX_NZ)
			snprintf(what, sizeof what, "its model would have more than %.0f nonzeros",
				 (double)GP_SCHED_MILP_MAX_NZ);
		else
			snprintf(what, sizeof what, "its model would have more than %.0f rows",
				 (double)GP_SCHED_MILP_MAX_ROWS);
		rc = too_big(in, what, e);
	} else {
		rc = model_build(g, H, deadline, md, e);
	}
	if (rc == 0 && !md->late && have_warm) {
		*wpoint = warm_point(g, md, &x);
		if (*wpoint)
			(*wpoint)[md->cmax] = x.makespan;
	}
	free(x.start);
	free(x.seq);
	return rc;
}

int gp_sched_milp(const struct gp_sched_input *in, const struct gp_schedule *warm,
		  double time_limit, double gap, struct gp_schedule *out,
		  struct gp_milp_report *rep, struct gp_err *e)
{
	struct sm_graph g = { 0 };
	struct model md = { 0 };
	double *wpoint = NULL;
	char why[160] = "";
	*out = (struct gp_schedule){ 0 };
	*rep = (struct gp_milp_report){ .status = GP_MILP_ERROR, .objective = HUGE_VAL,
					.bound = -HUGE_VAL, .gap = HUGE_VAL };
	double t0 = now_s(), end = time_limit > 0 ? t0 + time_limit : HUGE_VAL;
	int rc = sm_check_input(in, e);
	if (rc == 0 && no_room(in, e)) {
		rep->status = GP_MILP_INFEASIBLE;
		rc = -1;
	}
	if (rc == 0)
		rc = prepare(in, warm, end, &g, &md, &wpoint, why, sizeof why, e);
	if (rc == 0 && (md.late || now_s() >= end)) {
		/* The limit went on building the model: no solve. */
		rep->status = GP_MILP_NOSOL;
		rep->seconds = now_s() - t0;
		snprintf(rep->msg, sizeof rep->msg, "the time limit (%g s) passed while the model was built",
			 time_limit);
	} else if (rc == 0) {
		struct gp_milp_params p = { .time_limit = end < HUGE_VAL ? end - now_s() : time_limit,
					    .gap = gap, .warm = wpoint };
		rc = gp_milp_solve(md.lp, &p, rep, e);
		if (why[0])
			note(rep, why);
		unscale(&g, &md, rep);
	}
	if (rc == 0 && (rep->status == GP_MILP_OPTIMAL || rep->status == GP_MILP_FEASIBLE))
		rc = extract(&g, &md, rep->x, out, e);
	else if (rc == 0)
		rc = gp_errf(e, "schedule milp: %s%s%s", rep->status == GP_MILP_INFEASIBLE
			     ? "no schedule fits the activation memory"
			     : "no schedule found within the time limit",
			     rep->msg[0] ? ": " : "", rep->msg);
	free(wpoint);
	model_free(&md, g.R);
	sm_graph_free(&g);
	return rc;
}

int gp_sched_milp_write_lp(const struct gp_sched_input *in, const char *path,
			   double *time_unit, struct gp_err *e)
{
	struct sm_graph g = { 0 };
	struct model md = { 0 };
	double *wpoint = NULL;
	char why[160];
	int rc = prepare(in, NULL, HUGE_VAL, &g, &md, &wpoint, why, sizeof why, e);
	if (rc == 0)
		rc = gp_milp_write_lp(md.lp, path, e);
	free(wpoint);
	if (time_unit)
		*time_unit = g.unit;
	model_free(&md, g.R);
	sm_graph_free(&g);
	return rc;
}

int gp_sched_milp_size(const struct gp_sched_input *in, const struct gp_schedule *warm,
		       struct gp_sched_milp_size *z, struct gp_err *e)
{
	*z = (struct gp_sched_milp_size){ .rows = HUGE_VAL, .cols = HUGE_VAL, .nz = HUGE_VAL,
					  .binaries = HUGE_VAL };
	if (sm_check_input(in, e))
		return -1;
	size_t bytes = sm_graph_bytes(in);
	z->graph_bytes = bytes == SIZE_MAX ? HUGE_VAL : (double)bytes;
	if (bytes > GP_SCHED_MILP_MAX_GRAPH_BYTES)
		return 0;
	struct sm_graph g = { 0 };
	struct model md = { .deadline = HUGE_VAL };
	struct sm_exec x = { 0 };
	bool have;
	char why[160];
	int rc = sm_graph_build(in, &g, e);
	if (rc == 0)
		model_size(&g, horizon(&g, warm, &x, &have, why, sizeof why), &md, z, NULL);
	free(x.start);
	free(x.seq);
	sm_graph_free(&g);
	return rc;
}
