/*
 * test_gantt.c: the Gantt chart's model (tui/gantt.h) on simulated
 * iterations: rows, cells, hit tests and moves against brute force over
 * every span; the critical path and slack against the closed form of a
 * 1F1B pipeline and a second, naive backward pass; the cost of a
 * viewport over 100,000 tasks.
 */
#include <time.h>
#include "testutil.h"
#include "gantt.h"
#include "gantt_draw.h"
#include "report.h"
#include "sim.h"

/* Every layer F = B = W = 1 s, no logits, free transfers inside a DC, a
 * WAN link at its nominal figures, no optimizer (as in test_sim.c). */
static void fixed_layer(void *ud, const struct gp_layer_q *q, struct gp_layer_time *o)
{
	(void)ud;
	*o = q->logits ? (struct gp_layer_time){ 0, 0, 0 } : (struct gp_layer_time){ 1, 1, 1 };
}
static void fixed_memory(void *ud, const struct gp_layer_q *q, struct gp_layer_mem *o)
{
	gp_default_cost.ops->layer_memory(ud, q, o);
}
static void fixed_state(void *ud, const struct gp_scenario *s, struct gp_state_mem *o)
{
	gp_default_cost.ops->state_memory(ud, s, o);
}
static void free_p2p(void *ud, const struct gp_channel_q *q, struct gp_comm *o)
{
	(void)ud;
	*o = q->kind == GP_CH_WAN ? (struct gp_comm){ q->latency, q->bandwidth }
				  : (struct gp_comm){ 0, HUGE_VAL };
}
static void real_allreduce(void *ud, const struct gp_channel_q *q, struct gp_comm *o)
{
	gp_default_cost.ops->allreduce(ud, q, o);
}
static double no_opt(void *ud, const struct gp_gpu *g, double params)
{
	(void)ud; (void)g; (void)params;
	return 0;
}
static const struct gp_cost_ops fixed_ops = {
	.layer_time = fixed_layer, .layer_memory = fixed_memory, .state_memory = fixed_state,
	.optimizer_time = no_opt, .p2p = free_p2p, .allreduce = real_allreduce,
};
static const struct gp_cost_model fixed = { &fixed_ops, NULL };

/* One pipeline of S stages of k layers in v chunks, m micro-batches;
 * with wan_bw > 0 the second half of the stages is behind a WAN link of
 * that bandwidth and latency lat. */
static struct gp_scenario *pipeline(int S, int k, int m, const char *sched, int v,
				    double wan_bw, double lat)
{
	char stages[8192] = "";
	for (int i = 0; i < S; i++) {
		size_t l = strlen(stages);
		snprintf(stages + l, sizeof stages - l, "{ dc = '%s', layers = { %d, %d } },",
			 wan_bw > 0 && i >= S / 2 ? "b" : "a", i * k + 1, (i + 1) * k);
	}
	return scen("return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 4096 } } },"
		    "                 { name = 'b', pools = { { gpu = 'H100', count = 4096 } } } },"
		    " links = { { 'a', 'b', bandwidth = %.17g, latency = %.17g } },"
		    " model = { layers = %d, hidden = 1024, heads = 16, vocab = 1000 },"
		    " job = { seq = 1024, global_batch = %d },"
		    " plan = { schedule = '%s', chunks = %d, pipelines = {"
		    "   { micro_batches = %d, stages = { %s } } } } }",
		    wan_bw > 0 ? wan_bw : 1e30, lat, S * k, m, sched, v, m, stages);
}

/* Two DCs, DP replicas in both (so gradient sync crosses the link),
 * pipelines crossing it both ways, the real cost model: every kind of
 * span, overlapping transfers on the link rows. */
static struct gp_scenario *mixed_scenario(const char *sched, int chunks)
{
	return scen("return { dcs = { { name = 'ams', pools = { { gpu = 'H100', count = 64 } } },"
		    "                 { name = 'fra', pools = { { gpu = 'H100', count = 64 } } } },"
		    " links = { { 'ams', 'fra', bandwidth = Gbps(10), latency = ms(3) } },"
		    " model = { layers = 8, hidden = 2048, heads = 16, vocab = 32000 },"
		    " job = { seq = 2048, global_batch = 18, micro_batch = 1 },"
		    " plan = { schedule = '%s', chunks = %d, pipelines = {"
		    "   { micro_batches = 6, replicas = 2, stages = {"
		    "     { dc = 'ams', tp = 2, layers = { 1, 3 } }, { dc = 'ams', tp = 2, layers = { 4, 5 } },"
		    "     { dc = 'fra', tp = 2, layers = { 6, 8 } } } },"
		    "   { micro_batches = 6, stages = {"
		    "     { dc = 'fra', tp = 2, layers = { 1, 4 } }, { dc = 'ams', tp = 2, layers = { 5, 8 } } } } } } }",
		    sched, chunks);
}

static struct gp_result simulate(struct gp_scenario *s, const struct gp_cost_model *cost)
{
	struct gp_result r;
	struct gp_err e = { "" };
	struct gp_sim_opts o = { .cost = cost, .record = true };
	if (gp_simulate(s, &s->plan, &o, &r, &e))
		fail_msg("%s", e.msg);
	return r;
}

static void build(struct gp_gantt *g, const struct gp_scenario *s, const struct gp_result *r)
{
	struct gp_err e = { "" };
	if (gp_gantt_build(g, s, r, &e))
		fail_msg("%s", e.msg);
}

/* A uniform double in [0, 1), reproducible. */
static double rnd(uint64_t *st)
{
	*st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(*st >> 11) / 9007199254740992.0;
}

/* Spans in the row order of the header: by start, then end, then index. */
static bool before(const struct gp_span *sp, int64_t a, int64_t b)
{
	if (sp[a].t0 != sp[b].t0)
		return sp[a].t0 < sp[b].t0;
	if (sp[a].t1 != sp[b].t1)
		return sp[a].t1 < sp[b].t1;
	return a < b;
}

/* --- cells by brute force ---------------------------------------------- */

static int cmp_dbl2(const void *pa, const void *pb)
{
	const double *a = pa, *b = pb;
	return (a[0] > b[0]) - (a[0] < b[0]);
}

/* Length of the union of n intervals [iv[2i], iv[2i+1]) (sorted here). */
static double union_len(double *iv, int n)
{
	qsort(iv, (size_t)n, 2 * sizeof *iv, cmp_dbl2);
	double len = 0, s = 0, e = 0;
	for (int i = 0; i < n; i++) {
		if (i == 0 || iv[2 * i] > e) {
			len += e - s;
			s = iv[2 * i];
			e = iv[2 * i + 1];
		} else {
			e = fmax(e, iv[2 * i + 1]);
		}
	}
	return len + (e - s);
}

/* The cell rule of gantt.h, from coverage found by scanning every span
 * of the result row. */
static struct gp_gantt_cell brute_cell(const struct gp_result *r, int rrow, double a, double b,
				       double dt, double *iv)
{
	double cov[GP_SPAN__N], first[GP_SPAN__N], width = b - a;
	bool shrt[GP_SPAN__N] = { false }, start = false;
	int nall = 0;
	for (int k = 0; k < GP_SPAN__N; k++) {
		int n = 0;
		first[k] = HUGE_VAL;
		for (int64_t i = 0; i < r->nspans; i++) {
			const struct gp_span *p = &r->spans[i];
			if (p->row != rrow || p->kind != k || p->t1 <= p->t0)
				continue;
			start |= p->t0 <= a && a < p->t1;
			double lo = fmax(p->t0, a), hi = fmin(p->t1, b);
			if (hi <= lo)
				continue;
			iv[2 * n] = lo;
			iv[2 * n + 1] = hi;
			n++;
			first[k] = fmin(first[k], lo);
			shrt[k] |= p->t1 - p->t0 < dt;
		}
		cov[k] = n ? union_len(iv, n) : 0;
		nall += n;
	}
	int n = 0;
	for (int64_t i = 0; i < r->nspans; i++) {
		const struct gp_span *p = &r->spans[i];
		double lo = fmax(p->t0, a), hi = fmin(p->t1, b);
		if (p->row == rrow && hi > lo) {
			iv[2 * n] = lo;
			iv[2 * n + 1] = hi;
			n++;
		}
	}
	assert_int_equal(n, nall);
	double idle = width - (n ? union_len(iv, n) : 0), eps = 1e-9 * width;
	int kinds[GP_SPAN__N + 1], nk = 0;
	for (int k = 0; k < GP_SPAN__N; k++)
		if (cov[k] > eps)
			kinds[nk++] = k;
	if (idle > eps)
		kinds[nk++] = -1;
	if (nk <= 1) {
		int k = nk ? kinds[0] : -1;
		return (struct gp_gantt_cell){ (int8_t)k, (int8_t)k, 0, false };
	}
	if (nk >= 3) {
		int fg = kinds[0], bg = -1;
		for (int j = 0; j < nk; j++)
			if (kinds[j] >= 0 && cov[kinds[j]] > cov[fg])
				fg = kinds[j];
		double best = idle;
		for (int j = 0; j < nk; j++)
			if (kinds[j] >= 0 && kinds[j] != fg && cov[kinds[j]] > best)
				best = cov[bg = kinds[j]];
		return (struct gp_gantt_cell){ (int8_t)fg, (int8_t)bg, 0, true };
	}
	/* Two: the one met first is on the left. */
	int x = kinds[0], y = kinds[1], left;
	if (y < 0)
		left = start ? x : -1;
	else
		left = first[y] < first[x] ? y : x;
	int right = left == x ? y : x;
	double cl = left < 0 ? idle : cov[left], cr = right < 0 ? idle : cov[right];
	int e8 = (int)lround(8 * cl / (cl + cr));
	if (e8 == 0 && left >= 0 && shrt[left])
		e8 = 1;
	if (e8 == 8 && right >= 0 && shrt[right])
		e8 = 7;
	if (e8 == 0 || e8 == 8) {
		int k = e8 ? left : right;
		return (struct gp_gantt_cell){ (int8_t)k, (int8_t)k, 0, false };
	}
	return (struct gp_gantt_cell){ (int8_t)left, (int8_t)right, (uint8_t)e8, false };
}

static bool cell_eq(struct gp_gantt_cell a, struct gp_gantt_cell b)
{
	return a.fg_kind == b.fg_kind && a.bg_kind == b.bg_kind && a.eighths == b.eighths &&
	       a.mixed == b.mixed;
}

/* --- rows ------------------------------------------------------------ */

/* A row per device, then per link direction with a span; each row's
 * spans all of its result row's, in order, with the running max of ends
 * and the union's length. */
static void check_rows(const struct gp_gantt *g, const struct gp_scenario *s,
		       const struct gp_result *r)
{
	int nlinks = 0, total = 0;
	for (int l = 0; l < r->nlinks; l++) {
		bool any = false;
		for (int64_t i = 0; i < r->nspans; i++)
			any |= r->spans[i].row == r->ndevs + l;
		nlinks += any;
	}
	assert_int_equal(g->nrows, r->ndevs + nlinks);
	assert_string_equal(g->rows[0].label, "p1 s1 ams H100x2, 2 replicas");
	double *iv = malloc((size_t)(2 * r->nspans + 2) * sizeof *iv);
	for (int k = 0; k < g->nrows; k++) {
		const struct gp_gantt_row *row = &g->rows[k];
		char label[64];
		gp_row_label(s, r, row->result_row, label, sizeof label);
		if (!row->link && r->devs[row->index].replicas > 1) {   /* as the SVG says it */
			size_t l = strlen(label);
			snprintf(label + l, sizeof label - l, ", %d replicas", r->devs[row->index].replicas);
		}
		assert_string_equal(row->label, label);
		assert_int_equal(row->link, k >= r->ndevs);
		assert_int_equal(row->result_row, row->link ? r->ndevs + row->index : row->index);
		assert_true(k >= r->ndevs || row->index == k);
		assert_true(!row->link || row->n > 0);
		int n = 0;
		double m = -HUGE_VAL;
		for (int64_t i = 0; i < r->nspans; i++)
			if (r->spans[i].row == row->result_row)
				n++;
		assert_int_equal(row->n, n);
		for (int j = 0; j < row->n; j++) {
			const struct gp_span *p = &r->spans[row->span[j]];
			assert_int_equal(p->row, row->result_row);
			assert_int_equal(gp_gantt_row_of(g, row->span[j]), k);
			if (j)
				assert_true(before(r->spans, row->span[j - 1], row->span[j]));
			m = fmax(m, p->t1);
			assert_true(row->max_end[j] == m);
			iv[2 * j] = p->t0;
			iv[2 * j + 1] = p->t1;
		}
		assert_close(row->busy, n ? union_len(iv, n) : 0, 1e-12);
		total += n;
	}
	assert_int_equal(total, r->nspans);
	free(iv);
}

static void test_rows(void **state)
{
	(void)state;
	const char *scheds[] = { "1f1b", "zb-h1", "gpipe" };
	for (int a = 0; a < 3; a++) {
		struct gp_scenario *s = mixed_scenario(scheds[a], 1);
		struct gp_result r = simulate(s, NULL);
		struct gp_gantt g;
		build(&g, s, &r);
		check_rows(&g, s, &r);
		assert_true(g.t_end == r.iteration_time);
		gp_gantt_free(&g);
		gp_result_free(&r);
		gp_scenario_free(s);
	}
}

/* --- cells, hits and moves against brute force ------------------------- */

/* Random viewports; with dt1 > 0, every other one has columns of dt1
 * to 2 dt1. */
static void check_cells(const struct gp_gantt *g, const struct gp_result *r, double dt1,
			uint64_t *st)
{
	double T = r->iteration_time;
	struct gp_gantt_cell out[300];
	double *iv = malloc((size_t)(2 * r->nspans + 2) * sizeof *iv);
	for (int v = 0; v < 60; v++) {
		/* Columns from a thousandth of the iteration to a fifth, up to
		 * 300 of them, the viewport ending by 1.2 T. */
		double dt = T * pow(10, -3 + 2.3 * rnd(st)), t0 = T * (1.1 * rnd(st) - 0.1);
		if (dt1 > 0 && v % 2)
			dt = dt1 * (1 + rnd(st));
		int w = 1 + (int)(299 * rnd(st));
		while (w > 1 && t0 + w * dt > 1.2 * T)
			w /= 2;
		for (int k = 0; k < g->nrows; k++) {
			gp_gantt_cells(g, k, t0, dt, w, out);
			for (int c = 0; c < w; c++) {
				double a = t0 + c * dt, b = t0 + (c + 1) * dt;
				struct gp_gantt_cell x = brute_cell(r, g->rows[k].result_row, a, b, dt, iv);
				if (!cell_eq(out[c], x))
					fail_msg("row %d column %d of [%g, +%g x %d): fg %d bg %d %d/8%s, expected fg %d bg %d %d/8%s",
						 k, c, t0, dt, w, out[c].fg_kind, out[c].bg_kind,
						 out[c].eighths, out[c].mixed ? " mixed" : "", x.fg_kind,
						 x.bg_kind, x.eighths, x.mixed ? " mixed" : "");
			}
		}
	}
	free(iv);
}

static int brute_hit(const struct gp_result *r, int rrow, double t, double tol)
{
	int64_t cover = -1, near = -1;
	double nd = HUGE_VAL;
	for (int64_t i = 0; i < r->nspans; i++) {
		const struct gp_span *p = &r->spans[i];
		if (p->row != rrow)
			continue;
		if (p->t0 <= t && t < p->t1 && (cover < 0 || before(r->spans, cover, i)))
			cover = i;
		double d = t < p->t0 ? p->t0 - t : fmax(0, t - p->t1);
		if (d <= tol && (d < nd || (d == nd && before(r->spans, i, near)))) {
			near = i;
			nd = d;
		}
	}
	return (int)(cover >= 0 ? cover : near);
}

static int brute_step(const struct gp_result *r, int rrow, double t, int dir)
{
	int64_t best = -1;
	for (int64_t i = 0; i < r->nspans; i++) {
		const struct gp_span *p = &r->spans[i];
		if (p->row != rrow || (dir > 0 ? !(p->t0 > t) : !(p->t0 < t)))
			continue;
		if (best < 0 || (dir > 0 ? before(r->spans, i, best) : before(r->spans, best, i)))
			best = i;
	}
	return (int)best;
}

static void check_hits(const struct gp_gantt *g, const struct gp_result *r, uint64_t *st)
{
	double T = r->iteration_time;
	for (int q = 0; q < 400; q++) {
		int k = (int)(g->nrows * rnd(st)), rr = g->rows[k].result_row;
		double t = T * (1.1 * rnd(st) - 0.05), tol = q % 3 ? T * 0.02 * rnd(st) : 0;
		const struct gp_gantt_row *row = &g->rows[k];
		int j = (int)(row->n * rnd(st));
		if (q % 5 == 0 && row->n)  /* exactly on an edge */
			t = r->spans[row->span[j]].t1;
		if (q % 5 == 1 && j > 0 && r->spans[row->span[j]].t0 > row->max_end[j - 1]) {
			/* Halfway across a gap: as near the span before as after. */
			t = (r->spans[row->span[j]].t0 + row->max_end[j - 1]) / 2;
			tol = T;
		}
		assert_int_equal(gp_gantt_hit(g, k, t, tol), brute_hit(r, rr, t, tol));
		assert_int_equal(gp_gantt_step(g, k, t, 1), brute_step(r, rr, t, 1));
		assert_int_equal(gp_gantt_step(g, k, t, -1), brute_step(r, rr, t, -1));
	}
	assert_int_equal(gp_gantt_hit(g, -1, 0, 1), -1);
	assert_int_equal(gp_gantt_hit(g, g->nrows, 0, 1), -1);
	assert_int_equal(gp_gantt_row_of(g, -1), -1);
	assert_int_equal(gp_gantt_row_of(g, (int)r->nspans), -1);
}

static void test_cells_hits(void **state)
{
	(void)state;
	const char *scheds[] = { "1f1b", "zb-h1", "interleaved", "xdc-greedy" };
	uint64_t st = 42;
	for (int a = 0; a < 4; a++) {
		struct gp_scenario *s = mixed_scenario(scheds[a], a >= 2 ? 2 : 1);
		struct gp_result r = simulate(s, NULL);
		struct gp_gantt g;
		build(&g, s, &r);
		check_cells(&g, &r, 0, &st);
		check_hits(&g, &r, &st);
		gp_gantt_free(&g);
		gp_result_free(&r);
		gp_scenario_free(s);
	}
	/* Whole seconds: spans that touch, gaps with exact middles; chunks
	 * of 2 and 1 layers, so a 1 to 2 s column meets long and short
	 * forwards back to back. */
	for (int a = 0; a < 2; a++) {
		struct gp_scenario *s = a ? pipeline(2, 3, 4, "interleaved", 2, 0, 0)
					  : pipeline(4, 1, 6, "zb-h1", 1, 2.0 * 1024 * 1024 / 0.5, 0.5);
		struct gp_result r = simulate(s, &fixed);
		struct gp_gantt g;
		build(&g, s, &r);
		check_cells(&g, &r, a ? 1 : 0, &st);
		check_hits(&g, &r, &st);
		gp_gantt_free(&g);
		gp_result_free(&r);
		gp_scenario_free(s);
	}
}

/* --- critical path and slack ------------------------------------------- */

static bool is_compute(int kind)
{
	return kind <= GP_SPAN_W;
}

/* The latest finishes of the header's definition by relaxing every edge
 * until nothing changes: LF(x) = min over successors y of LF(y) - dur(y)
 * - lag, lag = y.ready - x.t1 after what y waited for (its dep), 0 after
 * the device's previous task (compute tasks in order, the optimizer
 * step after the last); a span nothing waits for LF = the iteration's
 * end. */
static void naive_slack(const struct gp_result *r, double *slack)
{
	const struct gp_span *sp = r->spans;
	int64_t n = r->nspans;
	int64_t *next = malloc((size_t)n * sizeof *next);
	bool *waited = calloc((size_t)n, sizeof *waited);
	double *lf = malloc((size_t)n * sizeof *lf);
	for (int64_t i = 0; i < n; i++) {
		next[i] = -1;
		lf[i] = HUGE_VAL;
		if (sp[i].dep >= 0)
			waited[sp[i].dep] = true;
		if (!is_compute(sp[i].kind))
			continue;
		/* The device's next compute task: the first after it. */
		for (int64_t j = 0; j < n; j++)
			if (j != i && is_compute(sp[j].kind) && sp[j].row == sp[i].row &&
			    before(sp, i, j) && (next[i] < 0 || before(sp, j, next[i])))
				next[i] = j;
	}
	/* The optimizer step follows the device's last compute task. */
	for (int64_t i = 0; i < n; i++)
		if (is_compute(sp[i].kind) && next[i] < 0)
			for (int64_t j = 0; j < n; j++)
				if (sp[j].kind == GP_SPAN_OPT && sp[j].row == sp[i].row)
					next[i] = j;
	for (int64_t i = 0; i < n; i++)
		if (next[i] < 0 && !waited[i])
			lf[i] = r->iteration_time;
	for (bool changed = true; changed;) {
		changed = false;
		for (int64_t y = 0; y < n; y++) {
			double ls = lf[y] - (sp[y].t1 - sp[y].t0);
			int64_t x = sp[y].dep;
			if (x >= 0 && ls - (sp[y].ready - sp[x].t1) < lf[x] - 1e-12) {
				lf[x] = ls - (sp[y].ready - sp[x].t1);
				changed = true;
			}
		}
		for (int64_t x = 0; x < n; x++) {
			int64_t y = next[x];
			if (y >= 0 && lf[y] - (sp[y].t1 - sp[y].t0) < lf[x] - 1e-12) {
				lf[x] = lf[y] - (sp[y].t1 - sp[y].t0);
				changed = true;
			}
		}
	}
	/* The transfers of one ring step (sync on link rows, one bucket,
	 * one interval, to rounding) are one collective: each finishes when
	 * the last. */
	double tol = 1e-12 * fmax(1, r->iteration_time);
	for (bool changed = true; changed;) {
		changed = false;
		for (int64_t x = 0; x < n; x++)
			for (int64_t y = 0; y < n; y++)
				if (sp[x].kind == GP_SPAN_SYNC && sp[y].kind == GP_SPAN_SYNC &&
				    sp[x].row >= r->ndevs && sp[y].row >= r->ndevs && sp[x].mb == sp[y].mb &&
				    fabs(sp[x].t0 - sp[y].t0) <= tol && fabs(sp[x].t1 - sp[y].t1) <= tol &&
				    lf[y] < lf[x] - 1e-12) {
					lf[x] = lf[y];
					changed = true;
				}
		for (bool again = true; again;) {   /* and back through the edges */
			again = false;
			for (int64_t y = 0; y < n; y++) {
				double ls = lf[y] - (sp[y].t1 - sp[y].t0);
				int64_t x = sp[y].dep;
				if (x >= 0 && ls - (sp[y].ready - sp[x].t1) < lf[x] - 1e-12) {
					lf[x] = ls - (sp[y].ready - sp[x].t1);
					again = changed = true;
				}
				int64_t z = -1;
				for (int64_t w = 0; w < n; w++)
					if (next[w] == y)
						z = w;
				if (z >= 0 && ls < lf[z] - 1e-12) {
					lf[z] = ls;
					again = changed = true;
				}
			}
		}
	}
	for (int64_t i = 0; i < n; i++)
		slack[i] = lf[i] - sp[i].t1;
	free(next);
	free(waited);
	free(lf);
}

/* Slack against the naive pass; the path runs from time 0 task to task,
 * each held by the one before it (its device's previous task ending as
 * it starts, or its input), all at zero slack; crit_pos finds them. */
static void check_critical(const struct gp_gantt *g, const struct gp_result *r)
{
	const struct gp_span *sp = r->spans;
	double *slack = malloc((size_t)r->nspans * sizeof *slack), T = r->iteration_time;
	naive_slack(r, slack);
	for (int64_t i = 0; i < r->nspans; i++) {
		if (!(fabs(g->slack[i] - slack[i]) <= 1e-9 * T))
			fail_msg("span %lld (kind %d row %d): slack %.12g, expected %.12g",
				 (long long)i, sp[i].kind, sp[i].row, g->slack[i], slack[i]);
		assert_true(g->slack[i] >= 0);
	}
	assert_true(g->ncrit > 0);
	/* It ends when the iteration does, with an optimizer step. */
	const struct gp_span *end = &sp[g->crit[g->ncrit - 1]];
	assert_int_equal(end->kind, GP_SPAN_OPT);
	assert_close(end->t1, T, 1e-12);
	for (int j = 0; j < g->ncrit; j++) {
		const struct gp_span *y = &sp[g->crit[j]];
		assert_true(g->slack[g->crit[j]] <= 1e-9 * T);
		assert_int_equal(gp_gantt_crit_pos(g, g->crit[j]), j);
		if (j == 0)
			continue;
		const struct gp_span *x = &sp[g->crit[j - 1]];
		bool device = x->row == y->row && x->row < r->ndevs && x->t1 == y->t0;
		assert_true(device || y->dep == g->crit[j - 1]);
	}
	int on = 0;
	for (int64_t i = 0; i < r->nspans; i++)
		on += gp_gantt_crit_pos(g, (int)i) >= 0;
	assert_int_equal(on, g->ncrit);
	free(slack);
}

/* 1F1B, S equal stages, m micro-batches, no communication, no
 * optimizer time: the critical path is busy from 0 to the compute end,
 * (m + S - 1)(t_f + t_b), runs from the first forward of stage 1 to its
 * last backward and its optimizer step, and tasks off it have slack. */
static void test_critical_closed_form(void **state)
{
	(void)state;
	int Ss[] = { 2, 3, 4, 8 }, ms[] = { 2, 4, 9, 16 };
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			int S = Ss[i], m = ms[j], k = 2;
			struct gp_scenario *s = pipeline(S, k, m, "1f1b", 1, 0, 0);
			struct gp_result r = simulate(s, &fixed);
			struct gp_gantt g;
			build(&g, s, &r);
			double tf = k, tb = 2.0 * k, sum = 0, off = 0;
			assert_close(r.compute_end, (m + S - 1) * (tf + tb), 1e-12);
			for (int c = 0; c < g.ncrit; c++)
				sum += r.spans[g.crit[c]].t1 - r.spans[g.crit[c]].t0;
			assert_close(sum, r.compute_end, 1e-12);
			const struct gp_span *a = &r.spans[g.crit[0]], *z = &r.spans[g.crit[g.ncrit - 2]];
			const struct gp_span *o = &r.spans[g.crit[g.ncrit - 1]];
			assert_true(a->t0 == 0 && a->kind == GP_SPAN_F && a->row == 0 && a->mb == 0);
			assert_true(z->t1 == r.compute_end && z->kind == GP_SPAN_B && z->row == 0 &&
				    z->mb == m - 1);
			assert_true(o->kind == GP_SPAN_OPT && o->row == 0 && o->t0 == z->t1);
			assert_close(r.iteration_time, r.compute_end, 1e-12);
			for (int64_t x = 0; x < r.nspans; x++)
				if (gp_gantt_crit_pos(&g, (int)x) < 0 && r.spans[x].kind != GP_SPAN_OPT)
					off = fmax(off, g.slack[x]);
			assert_true(off >= tf);  /* at least a forward's worth */
			check_critical(&g, &r);
			gp_gantt_free(&g);
			gp_result_free(&r);
			gp_scenario_free(s);
		}
}

/* Real costs across DCs: transfers, latency and DP sync in the graph. */
static void test_critical_wan(void **state)
{
	(void)state;
	const char *scheds[] = { "1f1b", "zb-h1", "interleaved", "gpipe" };
	for (int a = 0; a < 4; a++) {
		struct gp_scenario *s = mixed_scenario(scheds[a], a == 2 ? 2 : 1);
		struct gp_result r = simulate(s, NULL);
		struct gp_gantt g;
		build(&g, s, &r);
		check_critical(&g, &r);
		bool link = false;
		for (int c = 0; c < g.ncrit; c++)
			link |= r.spans[g.crit[c]].row >= r.ndevs;
		assert_true(link);  /* the slow link is on it */
		for (int64_t i = 0; i < r.nspans; i++)
			assert_false(isnan(g.slack[i]));
		gp_gantt_free(&g);
		gp_result_free(&r);
		gp_scenario_free(s);
	}
}

/* Two DCs, two one-stage pipelines of two replicas each, 800 MB of
 * gradients over a 1 Gbit/s link: DP sync (a local phase on each
 * device's row, the ring on the link rows) is exposed and ends the
 * iteration; the critical path runs through it to the optimizer step,
 * and sync spans have slack like any other. */
static void test_critical_sync(void **state)
{
	(void)state;
	for (int hier = 0; hier < 2; hier++) {
		struct gp_scenario *s = scen(
			"return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 64 } } },"
			"                 { name = 'b', pools = { { gpu = 'H100', count = 64 } } } },"
			" links = { { 'a', 'b', bandwidth = Gbps(1), latency = ms(20) } },"
			" model = { layers = 8, hidden = 2048, heads = 16, vocab = 32000 },"
			" job = { seq = 1024, global_batch = 16, sync = { mode = '%s' } },"
			" plan = { schedule = '1f1b', pipelines = {"
			"   { micro_batches = 4, replicas = 2, stages = { { dc = 'a', layers = { 1, 8 } } } },"
			"   { micro_batches = 4, replicas = 2, stages = { { dc = 'b', layers = { 1, 8 } } } } } } }",
			hier ? "hierarchical" : "flat");
		struct gp_result r = simulate(s, NULL);
		struct gp_gantt g;
		build(&g, s, &r);
		check_critical(&g, &r);
		int on_dev = 0, on_link = 0, crit_sync = 0;
		for (int64_t i = 0; i < r.nspans; i++)
			if (r.spans[i].kind == GP_SPAN_SYNC)
				*(r.spans[i].row < r.ndevs ? &on_dev : &on_link) += 1;
		for (int c = 0; c < g.ncrit; c++)
			crit_sync += r.spans[g.crit[c]].kind == GP_SPAN_SYNC;
		assert_true(r.iteration_time > r.compute_end + 1);   /* seconds of it exposed */
		assert_true(on_link > 0 && crit_sync > 0);
		assert_true(hier ? on_dev > 0 : on_dev == 0);   /* flat: no local phase */
		gp_gantt_free(&g);
		gp_result_free(&r);
		gp_scenario_free(s);
	}
}

/* The optimizer step waits for its device's last sync phase as well as
 * its compute: on default.lua the phase ends 125 us before the step
 * (which waits for compute slowed by the sync under it), and its slack
 * is that gap, not the 3.7 ms to the iteration's end it had when the
 * step's recorded input was the compute alone. */
static void test_sync_before_step_slack(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load("samples/default.lua", &e);
	assert_non_null(s);
	struct gp_result r = simulate(s, NULL);
	struct gp_gantt g;
	build(&g, s, &r);
	int checked = 0;
	for (int k = 0; k < r.ndevs; k++) {
		int64_t opt = -1, sync = -1;
		for (int64_t i = 0; i < r.nspans; i++) {
			const struct gp_span *x = &r.spans[i];
			if (x->row != k)
				continue;
			if (x->kind == GP_SPAN_OPT)
				opt = i;
			else if (x->kind == GP_SPAN_SYNC && opt < 0 && (sync < 0 || x->t1 > r.spans[sync].t1))
				sync = i;
		}
		if (opt < 0 || sync < 0 || r.spans[opt].dep == sync)
			continue;
		double gap = r.spans[opt].t0 - r.spans[sync].t1;
		assert_true(gap >= 0);
		assert_true(fabs(g.slack[sync] - (g.slack[opt] + gap)) <= 1e-12 + 1e-9 * gap);
		checked++;
	}
	printf("# %d devices' last sync phase checked against their step\n", checked);
	assert_true(checked > 0);
	gp_gantt_free(&g);
	gp_result_free(&r);
	gp_scenario_free(s);
}

/* A flat ring over three DCs: a bucket's step runs on every link at
 * once, and what comes after waits for the whole step though each span
 * records one input; every transfer of a step has the step's slack (it
 * gave the ones not recorded slack to the iteration's end: 142 ms of
 * 486 on P3's ring, which sensitivity showed binding). */
static void test_ring_step_slack(void **state)
{
	(void)state;
	struct gp_scenario *s = scen(
		"return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 8 } } },"
		"                 { name = 'b', pools = { { gpu = 'H100', count = 8 } } },"
		"                 { name = 'c', pools = { { gpu = 'H100', count = 8 } } } },"
		" links = { { 'a', 'b', bandwidth = Gbps(1), latency = ms(20) },"
		"           { 'b', 'c', bandwidth = Gbps(1), latency = ms(20) },"
		"           { 'a', 'c', bandwidth = Gbps(1), latency = ms(20) } },"
		" model = { layers = 8, hidden = 2048, heads = 16, vocab = 32000 },"
		" job = { seq = 1024, global_batch = 12, sync = { mode = '%s' } },"
		" plan = { schedule = '1f1b', pipelines = {"
		"   { micro_batches = 4, stages = { { dc = 'a', layers = { 1, 8 } } } },"
		"   { micro_batches = 4, stages = { { dc = 'b', layers = { 1, 8 } } } },"
		"   { micro_batches = 4, stages = { { dc = 'c', layers = { 1, 8 } } } } } } }",
		"flat");
	struct gp_result r = simulate(s, NULL);
	struct gp_gantt g;
	build(&g, s, &r);
	check_critical(&g, &r);
	const struct gp_span *sp = r.spans;
	int shared = 0;
	for (int64_t x = 0; x < r.nspans; x++)
		for (int64_t y = x + 1; y < r.nspans; y++)
			if (sp[x].kind == GP_SPAN_SYNC && sp[y].kind == GP_SPAN_SYNC && sp[x].row >= r.ndevs &&
			    sp[y].row > sp[x].row && sp[x].mb == sp[y].mb && sp[x].t0 == sp[y].t0 &&
			    sp[x].t1 == sp[y].t1) {
				assert_close(g.slack[x], g.slack[y], 1e-12);
				shared += g.slack[x] <= 1e-9 * r.iteration_time;
			}
	assert_true(shared > 0);   /* steps on several links, binding */
	gp_gantt_free(&g);
	gp_result_free(&r);
	gp_scenario_free(s);
}

/* --- short spans ------------------------------------------------------- */

/* A transfer a twentieth of a column keeps an eighth, on whichever side
 * it falls; a long task's last 2 % of a column does not. */
static void test_short_span(void **state)
{
	(void)state;
	double bytes = 2.0 * 1024 * 1024;  /* 2 b s h */
	struct gp_scenario *s = pipeline(2, 2, 4, "1f1b", 1, bytes / 0.01, 0);
	struct gp_result r = simulate(s, &fixed);
	struct gp_gantt g;
	build(&g, s, &r);
	assert_int_equal(g.nrows, 4);  /* two devices, both directions */
	const struct gp_gantt_row *act = &g.rows[2];
	const struct gp_span *x = &r.spans[act->span[0]];
	assert_int_equal(x->kind, GP_SPAN_ACT);
	double d = x->t1 - x->t0, dt = 20 * d;
	assert_close(d, 0.01, 1e-9);
	struct gp_gantt_cell c[8];
	gp_gantt_cells(&g, 2, x->t0 - 0.5 * d, dt, 3, c);
	assert_true(c[0].fg_kind == -1 && c[0].bg_kind == GP_SPAN_ACT && c[0].eighths == 7);
	assert_true(!c[0].mixed && c[1].bg_kind == -1 && c[1].eighths == 0);
	gp_gantt_cells(&g, 2, x->t0, dt, 3, c);
	assert_true(c[0].fg_kind == GP_SPAN_ACT && c[0].bg_kind == -1 && c[0].eighths == 1);
	/* Stage 1's second forward [2, 4) waits for a gradient until 8.01. */
	const struct gp_span *f = &r.spans[g.rows[0].span[1]];
	assert_true(f->kind == GP_SPAN_F && f->t0 == 2 && f->t1 == 4);
	gp_gantt_cells(&g, 0, f->t1 - 0.02, 1, 3, c);
	assert_true(c[0].fg_kind == -1 && c[0].bg_kind == -1 && c[0].eighths == 0);
	gp_gantt_cells(&g, 0, f->t1 - 0.2, 1, 3, c);
	assert_true(c[0].fg_kind == GP_SPAN_F && c[0].bg_kind == -1 && c[0].eighths == 2);
	gp_gantt_free(&g);
	gp_result_free(&r);
	gp_scenario_free(s);
	/* Chunks of 2 and 1 layers: stage 1 runs forwards [0, 2), [2, 4) and
	 * [4, 5) back to back, then waits until 6. In 1.5 s columns the
	 * first is long: its first 0.05 s of a column stays hidden; in
	 * 1.02 s columns the last is short: its last 0.05 s shows. */
	s = pipeline(2, 3, 4, "interleaved", 2, 0, 0);
	r = simulate(s, &fixed);
	build(&g, s, &r);
	const struct gp_span *f3 = &r.spans[g.rows[0].span[2]];
	assert_true(f3->kind == GP_SPAN_F && f3->t0 == 4 && f3->t1 == 5);
	gp_gantt_cells(&g, 0, -1.45, 1.5, 8, c);
	assert_true(c[0].fg_kind == -1 && c[0].bg_kind == -1 && c[0].eighths == 0);
	gp_gantt_cells(&g, 0, 4.95, 1.02, 3, c);
	assert_true(c[0].fg_kind == GP_SPAN_F && c[0].bg_kind == -1 && c[0].eighths == 1);
	gp_gantt_free(&g);
	gp_result_free(&r);
	gp_scenario_free(s);
}

/* --- cost -------------------------------------------------------------- */

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* 100,000 tasks (16 stages x 3,125 micro-batches, 1F1B, a WAN link in
 * the middle): building, and a 200-column viewport over all rows. */
static void test_cost(void **state)
{
	(void)state;
	struct gp_scenario *s = pipeline(16, 1, 3125, "1f1b", 1, 2.0 * 1024 * 1024 / 0.1, 0.01);
	struct gp_result r = simulate(s, &fixed);
	struct gp_gantt g;
	int64_t tasks = 0;
	for (int64_t i = 0; i < r.nspans; i++)
		tasks += is_compute(r.spans[i].kind);
	assert_int_equal(tasks, 100000);
	double t0 = now();
	build(&g, s, &r);
	double tb = now() - t0, T = r.iteration_time;
	struct gp_gantt_cell out[200];
	double zoom[] = { 1, 0.01 }, tc[2];
	for (int z = 0; z < 2; z++) {
		int reps = 20;
		t0 = now();
		for (int k = 0; k < reps; k++)
			for (int row = 0; row < g.nrows; row++)
				gp_gantt_cells(&g, row, T * 0.4, T * zoom[z] / 200, 200, out);
		tc[z] = (now() - t0) / reps;
	}
	printf("# %lld spans (%lld tasks), %d rows: gp_gantt_build %.1f ms; gp_gantt_cells, "
	       "200 columns, all rows: %.3f ms over the whole iteration, %.3f ms over 1 %%\n",
	       (long long)r.nspans, (long long)tasks, g.nrows, tb * 1e3, tc[0] * 1e3, tc[1] * 1e3);
	gp_gantt_free(&g);
	gp_result_free(&r);
	gp_scenario_free(s);
}

/* Row labels cut to fit: a link direction keeps each end's tail (the
 * part where one region's zones differ), anything else its start and
 * end; whole when it fits. */
static void test_fit_label(void **state)
{
	(void)state;
	char b[128];
	gp_gantt_fit_label("us-central1-a>us-central1-b", 25, false, b, sizeof b);
	assert_string_equal(b, "\u2026-central1-a>\u2026-central1-b");
	gp_gantt_fit_label("us-central1-a>us-central1-b", 25, true, b, sizeof b);
	assert_string_equal(b, "~-central1-a>~-central1-b");
	assert_int_equal(strlen(b), 25);
	/* A short end leaves the other its room. */
	gp_gantt_fit_label("ams>us-central1-b", 12, true, b, sizeof b);
	assert_string_equal(b, "ams>~tral1-b");   /* ams takes 3 of its 5 cells */
	assert_int_equal(strlen(b), 12);
	gp_gantt_fit_label("ams>fra", 7, false, b, sizeof b);
	assert_string_equal(b, "ams>fra");
	gp_gantt_fit_label("p1 s1 us-central1-a A100-40x1", 11, true, b, sizeof b);
	assert_string_equal(b, "p1 s1~-40x1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_cells_hits),
		cmocka_unit_test(test_critical_closed_form),
		cmocka_unit_test(test_critical_wan),
		cmocka_unit_test(test_critical_sync),
		cmocka_unit_test(test_sync_before_step_slack),
		cmocka_unit_test(test_ring_step_slack),
		cmocka_unit_test(test_short_span),
		cmocka_unit_test(test_cost),
		cmocka_unit_test(test_fit_label),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
