/*
 * sched_graph.c: the task graph of the schedule MILP (sched_int.h).
 *
 * Tasks are the F, B (and W) passes of every micro-batch on every virtual
 * stage, on its device, and the transfers that occupy a shared WAN link
 * direction (a transfer on a dedicated path is only a lag). Edges are the
 * precedences x_b >= x_a + p_a + lag: the pipeline's data flow with its
 * latencies, F -> B -> W, micro-batch order within a stage and kind, and
 * the orders memory alone forces when a device holds one chunk. On top:
 * each resource's tasks, a topological order, every task's head (longest
 * path from the start) and tail (longest path to the end), and the
 * transitive closure, so the model needs no variable for an implied order.
 * Times are scaled by the longest task so the solver sees numbers near 1.
 */
#include "sched_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Input                                                               */

static double at(const double *a, int i) { return a ? a[i] : 0; }
static int link_at(const int *a, int i) { return a ? a[i] : -1; }

static int check_times(const char *what, const double *a, int n, struct gp_err *e)
{
	for (int i = 0; a && i < n; i++)
		if (!isfinite(a[i]) || a[i] < 0)
			return gp_errf(e, "schedule milp: %s[%d] = %g is not a finite time >= 0",
				       what, i, a[i]);
	return 0;
}

int sm_check_input(const struct gp_sched_input *in, struct gp_err *e)
{
	if (in->S < 1 || in->v < 1 || in->v > 255 || in->m < 1)
		return gp_errf(e, "schedule milp: need stages >= 1, 1..255 chunks and micro-batches >= 1 (got %d, %d, %d)",
			       in->S, in->v, in->m);
	if ((int64_t)in->S * in->v * in->m > 100000)
		return gp_errf(e, "schedule milp: %d x %d x %d tasks are far too many for an exact model",
			       in->S, in->v, in->m);
	if (!in->f || !in->b || (in->split_bw && !in->w))
		return gp_errf(e, "schedule milp: durations f, b%s are missing",
			       in->split_bw ? " and w" : "");
	int VS = in->S * in->v;
	if (check_times("f", in->f, VS, e) || check_times("b", in->b, VS, e) ||
	    check_times("w", in->split_bw ? in->w : NULL, VS, e) ||
	    check_times("up_occ", in->up_occ, VS, e) || check_times("up_lat", in->up_lat, VS, e) ||
	    check_times("down_occ", in->down_occ, VS, e) || check_times("down_lat", in->down_lat, VS, e))
		return -1;
	for (int vs = 0; vs < VS; vs++) {
		int u = link_at(in->up_link, vs), d = link_at(in->down_link, vs);
		if (u < -1 || u >= in->nlinks || d < -1 || d >= in->nlinks)
			return gp_errf(e, "schedule milp: virtual stage %d names link %d of %d",
				       vs, u < -1 || u >= in->nlinks ? u : d, in->nlinks);
	}
	return 0;
}

size_t sm_graph_bytes(const struct gp_sched_input *in)
{
	int S = in->S, VS = in->S * in->v, R = S + (in->nlinks > 0 ? in->nlinks : 0);
	double *nr = calloc((size_t)R + 1, sizeof *nr), n = 0, rel = 0;
	if (!nr)
		return SIZE_MAX;
	for (int vs = 0; vs < VS; vs++) {
		int d = gp_vs_device(S, in->vshape, vs), u = link_at(in->up_link, vs),
		    w = link_at(in->down_link, vs);
		nr[d] += (double)in->m * (in->split_bw ? 3 : 2);
		if (vs + 1 < VS && u >= 0)
			nr[S + u] += in->m;
		if (vs > 0 && w >= 0)
			nr[S + w] += in->m;
	}
	for (int r = 0; r < R; r++) {
		n += nr[r];
		rel += nr[r] * nr[r] * sizeof(int);
	}
	free(nr);
	/* The transitive closure (a bit per pair of tasks), the model's
	 * relation of each resource's pairs (an int each). */
	double b = n * (n + 64) / 8 + rel;
	return b < (double)SIZE_MAX / 2 ? (size_t)b : SIZE_MAX;
}

/* ------------------------------------------------------------------ */
/* The task graph                                                      */

void sm_graph_free(struct sm_graph *g)
{
	free(g->t);
	free(g->e);
	for (int k = 0; k < SM_NKINDS; k++)
		free(g->id[k]);
	free(g->rbeg);
	free(g->rtask);
	free(g->ibeg);
	free(g->iedge);
	free(g->obeg);
	free(g->oedge);
	free(g->topo);
	free(g->head);
	free(g->tail);
	free(g->reach);
}

static bool has_up(const struct sm_graph *g, int vs)
{
	return vs + 1 < g->VS && link_at(g->in->up_link, vs) >= 0;
}

static bool has_dn(const struct sm_graph *g, int vs)
{
	return vs > 0 && link_at(g->in->down_link, vs) >= 0;
}

static void add_task(struct sm_graph *g, int kind, int vs, int j, int res, double p)
{
	g->id[kind][vs * g->m + j] = g->n;
	g->t[g->n++] = (struct sm_task){ kind, vs, j, res, 0, p, -1 };
}

static void add_edge(struct sm_graph *g, int a, int b, double lag, bool phys)
{
	g->e[g->ne++] = (struct sm_edge){ a, b, lag, phys };
}

static double largest_time(const struct gp_sched_input *in, int VS)
{
	double u = 0;
	for (int vs = 0; vs < VS; vs++) {
		double c[] = { in->f[vs], in->b[vs], in->split_bw ? in->w[vs] : 0,
			       at(in->up_occ, vs), at(in->up_lat, vs),
			       at(in->down_occ, vs), at(in->down_lat, vs) };
		for (size_t k = 0; k < sizeof c / sizeof *c; k++)
			u = c[k] > u ? c[k] : u;
	}
	return u > 0 ? u : 1;
}

static void make_tasks(struct sm_graph *g)
{
	const struct gp_sched_input *in = g->in;
	double u = g->unit;
	for (int vs = 0; vs < g->VS; vs++) {
		int d = gp_vs_device(g->S, in->vshape, vs);
		for (int j = 0; j < g->m; j++) {
			add_task(g, SM_F, vs, j, d, in->f[vs] / u);
			add_task(g, SM_B, vs, j, d, in->b[vs] / u);
			if (in->split_bw)
				add_task(g, SM_W, vs, j, d, in->w[vs] / u);
			if (has_up(g, vs))
				add_task(g, SM_UP, vs, j, g->S + in->up_link[vs], at(in->up_occ, vs) / u);
			if (has_dn(g, vs))
				add_task(g, SM_DN, vs, j, g->S + in->down_link[vs], at(in->down_occ, vs) / u);
		}
	}
}

/* a -> (transfer on a link, or a dedicated path) -> b */
static void add_hop(struct sm_graph *g, int a, int xfer, int b, double occ, double lat)
{
	if (xfer >= 0) {
		add_edge(g, a, xfer, 0, true);
		add_edge(g, xfer, b, lat / g->unit, true);
	} else {
		add_edge(g, a, b, (occ + lat) / g->unit, true);
	}
}

static void make_edges(struct sm_graph *g)
{
	const struct gp_sched_input *in = g->in;
	int m = g->m;
	for (int vs = 0; vs < g->VS; vs++) {
		for (int j = 0; j < m; j++) {
			int i = vs * m + j;
			if (vs + 1 < g->VS)
				add_hop(g, g->id[SM_F][i], g->id[SM_UP][i], g->id[SM_F][i + m],
					at(in->up_occ, vs), at(in->up_lat, vs));
			else
				add_edge(g, g->id[SM_F][i], g->id[SM_B][i], 0, true);
			if (vs > 0)
				add_hop(g, g->id[SM_B][i], g->id[SM_DN][i], g->id[SM_B][i - m],
					at(in->down_occ, vs), at(in->down_lat, vs));
			if (in->split_bw)
				add_edge(g, g->id[SM_B][i], g->id[SM_W][i], 0, true);
			/* micro-batch order within a stage and kind */
			for (int k = 0; k < SM_NKINDS && j + 1 < m; k++)
				if (g->id[k][i] >= 0)
					add_edge(g, g->id[k][i], g->id[k][i + 1], 0, false);
		}
	}
}

/* With one chunk per device, memory alone fixes some orders: when F of
 * micro-batch j starts, j + 1 activations have been allocated, so the
 * excess must already be freed. r backward passes free at most r act
 * (with their W passes), so B(r - 1) precedes F(j); when B and W are
 * split, at most j backward passes can precede F(j), which leaves a
 * share only W passes can free. Fewer binaries, tighter heads. */
static void add_memory_edges(struct sm_graph *g)
{
	const struct gp_sched_input *in = g->in;
	if (g->v != 1 || !sm_mem_limited(in))
		return;
	for (int d = 0; d < g->S; d++) {
		double act = in->act[d], cap = in->mem_free[d];
		double wact = in->wact && in->wact[d] < act ? in->wact[d] : in->wact ? act : 0;
		if (!(act > 0))
			continue;
		for (int j = 0; j < g->m; j++) {
			double need = (j + 1) * act - cap;
			if (need <= 1e-9 * act)
				continue;
			int r = (int)ceil(need / act - 1e-9);
			if (r > j)
				continue;   /* no room at all: the memory rows say so */
			int f = g->id[SM_F][d * g->m + j];
			add_edge(g, g->id[SM_B][d * g->m + r - 1], f, 0, false);
			if (!in->split_bw || !(wact > 0))
				continue;
			int w = (int)ceil((need - j * (act - wact)) / wact - 1e-9);
			if (w >= 1 && w <= j)
				add_edge(g, g->id[SM_W][d * g->m + w - 1], f, 0, false);
		}
	}
}

/* CSR of items grouped by key. */
static int *csr(int nkeys, int n, const int *key, int **items)
{
	int *beg = calloc((size_t)nkeys + 1, sizeof *beg);
	*items = malloc(sizeof **items * ((size_t)n + 1));
	if (!beg || !*items) {
		free(beg);
		free(*items);
		*items = NULL;
		return NULL;
	}
	for (int i = 0; i < n; i++)
		beg[key[i] + 1]++;
	for (int k = 0; k < nkeys; k++)
		beg[k + 1] += beg[k];
	int *fill = malloc(sizeof *fill * ((size_t)nkeys + 1));
	if (!fill) {
		free(beg);
		free(*items);
		*items = NULL;
		return NULL;
	}
	memcpy(fill, beg, sizeof *fill * (size_t)nkeys);
	for (int i = 0; i < n; i++)
		(*items)[fill[key[i]]++] = i;
	free(fill);
	return beg;
}

static int make_index(struct sm_graph *g)
{
	int n = g->n, ne = g->ne;
	int *key = calloc((size_t)(n > ne ? n : ne) + 1, sizeof *key);
	if (!key)
		return -1;
	for (int i = 0; i < n; i++)
		key[i] = g->t[i].res;
	g->rbeg = csr(g->R, n, key, &g->rtask);
	for (int i = 0; i < ne; i++)
		key[i] = g->e[i].b;
	g->ibeg = csr(n, ne, key, &g->iedge);
	for (int i = 0; i < ne; i++)
		key[i] = g->e[i].a;
	g->obeg = csr(n, ne, key, &g->oedge);
	free(key);
	if (!g->rbeg || !g->ibeg || !g->obeg)
		return -1;
	for (int r = 0; r < g->R; r++)
		for (int k = g->rbeg[r]; k < g->rbeg[r + 1]; k++)
			g->t[g->rtask[k]].lidx = k - g->rbeg[r];
	return 0;
}

/* Topological order, heads and tails (longest paths, in scaled time). */
static int make_times(struct sm_graph *g)
{
	int n = g->n, done = 0;
	int *indeg = calloc((size_t)n + 1, sizeof *indeg);
	g->topo = malloc(sizeof *g->topo * ((size_t)n + 1));
	g->head = calloc((size_t)n + 1, sizeof *g->head);
	g->tail = calloc((size_t)n + 1, sizeof *g->tail);
	if (!indeg || !g->topo || !g->head || !g->tail) {
		free(indeg);
		return -1;
	}
	for (int i = 0; i < g->ne; i++)
		indeg[g->e[i].b]++;
	for (int i = 0; i < n; i++)
		if (!indeg[i])
			g->topo[done++] = i;
	for (int k = 0; k < done; k++) {
		int a = g->topo[k];
		for (int q = g->obeg[a]; q < g->obeg[a + 1]; q++) {
			const struct sm_edge *ed = &g->e[g->oedge[q]];
			double h = g->head[a] + g->t[a].p + ed->lag;
			if (h > g->head[ed->b])
				g->head[ed->b] = h;
			if (--indeg[ed->b] == 0)
				g->topo[done++] = ed->b;
		}
	}
	free(indeg);
	for (int k = n - 1; k >= 0; k--) {
		int a = g->topo[k];
		for (int q = g->obeg[a]; q < g->obeg[a + 1]; q++) {
			const struct sm_edge *ed = &g->e[g->oedge[q]];
			double t = ed->lag + g->t[ed->b].p + g->tail[ed->b];
			if (t > g->tail[a])
				g->tail[a] = t;
		}
	}
	return done == n ? 0 : -1;
}

/* Transitive closure, walking the topological order backwards. */
static int make_reach(struct sm_graph *g)
{
	g->words = (g->n + 63) / 64;
	g->reach = calloc((size_t)g->n * g->words + 1, sizeof *g->reach);
	if (!g->reach)
		return -1;
	for (int k = g->n - 1; k >= 0; k--) {
		int a = g->topo[k];
		uint64_t *ra = g->reach + (size_t)a * g->words;
		for (int q = g->obeg[a]; q < g->obeg[a + 1]; q++) {
			int b = g->e[g->oedge[q]].b;
			const uint64_t *rb = g->reach + (size_t)b * g->words;
			for (int w = 0; w < g->words; w++)
				ra[w] |= rb[w];
			ra[b / 64] |= (uint64_t)1 << (b % 64);
		}
	}
	return 0;
}

int sm_graph_build(const struct gp_sched_input *in, struct sm_graph *g,
		   struct gp_err *e)
{
	*g = (struct sm_graph){ .in = in, .S = in->S, .v = in->v, .m = in->m };
	g->VS = g->S * g->v;
	g->R = g->S + (in->nlinks > 0 ? in->nlinks : 0);
	g->unit = largest_time(in, g->VS);
	size_t cells = (size_t)g->VS * g->m;
	g->t = malloc(sizeof *g->t * cells * SM_NKINDS);
	g->e = malloc(sizeof *g->e * cells * 14);   /* 4 hops, F->B, B->W, 5 orders, 2 memory */
	bool ok = g->t && g->e;
	for (int k = 0; k < SM_NKINDS && ok; k++) {
		g->id[k] = malloc(sizeof *g->id[k] * cells);
		ok = g->id[k] != NULL;
		for (size_t i = 0; ok && i < cells; i++)
			g->id[k][i] = -1;
	}
	if (ok) {
		make_tasks(g);
		make_edges(g);
		add_memory_edges(g);
		ok = make_index(g) == 0 && make_times(g) == 0 && make_reach(g) == 0;
	}
	return ok ? 0 : gp_errf(e, "schedule milp: out of memory");   /* caller frees */
}

/* ------------------------------------------------------------------ */
/* Memory                                                              */

/* What task t adds to its device's activation memory when it runs
 * (F: allocates; B and W free). */
double sm_mem_delta(const struct sm_graph *g, const struct sm_task *t)
{
	const struct gp_sched_input *in = g->in;
	double act = in->act[t->vs], wact = in->wact ? in->wact[t->vs] : 0;
	if (wact > act)
		wact = act;
	switch (t->kind) {
	case SM_F: return act;
	case SM_B: return in->split_bw ? -(act - wact) : -act;
	case SM_W: return -wact;
	default: return 0;
	}
}
