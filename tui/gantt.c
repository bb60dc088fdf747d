/*
 * gantt.c: the Gantt chart's model (gantt.h): rows as interval indexes,
 * what each cell of a viewport shows, hit tests and moves.
 *
 * A row's spans are sorted by start with a running max of their ends, so
 * the first span that can reach into a viewport is a binary search away
 * even where spans overlap (a WAN link direction is shared by all the
 * transfers on it). Cells are filled from per-kind runs: consecutive
 * spans of one kind merged while they touch, so each run is spread over
 * the columns it crosses once and a viewport costs O(log n + visible
 * spans + columns).
 * The critical path and slack are gantt_path.c's.
 */
#include "gantt.h"
#include "gantt_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

/* --- rows ------------------------------------------------------------ */

struct key {
	double t0, t1;
	int32_t i;
};

static int key_cmp(const void *pa, const void *pb)
{
	const struct key *a = pa, *b = pb;
	if (a->t0 != b->t0)
		return a->t0 < b->t0 ? -1 : 1;
	if (a->t1 != b->t1)
		return a->t1 < b->t1 ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static bool key_less(const struct gp_span *sp, int32_t a, int32_t b)
{
	struct key x = { sp[a].t0, sp[a].t1, a }, y = { sp[b].t0, sp[b].t1, b };
	return key_cmp(&x, &y) < 0;
}

/* Sorts a row's span indices by start, then end (devices record in
 * order already; link transfers are recorded as they finish). */
static int sort_row(struct gp_gantt_row *row, const struct gp_span *sp)
{
	int k = 1;
	while (k < row->n && key_less(sp, row->span[k - 1], row->span[k]))
		k++;
	if (k >= row->n)
		return 0;
	struct key *keys = malloc((size_t)row->n * sizeof *keys);
	if (!keys)
		return -1;
	for (int j = 0; j < row->n; j++) {
		int32_t i = row->span[j];
		keys[j] = (struct key){ sp[i].t0, sp[i].t1, i };
	}
	qsort(keys, (size_t)row->n, sizeof *keys, key_cmp);
	for (int j = 0; j < row->n; j++)
		row->span[j] = keys[j].i;
	free(keys);
	return 0;
}

/* The running max of ends, and the length of the spans' union. */
static void row_sweep(struct gp_gantt_row *row, const struct gp_span *sp)
{
	double m = -HUGE_VAL, cs = 0, ce = 0;
	row->busy = 0;
	for (int j = 0; j < row->n; j++) {
		const struct gp_span *p = &sp[row->span[j]];
		if (j == 0 || p->t0 > ce) {
			row->busy += ce - cs;
			cs = p->t0;
			ce = p->t1;
		} else if (p->t1 > ce) {
			ce = p->t1;
		}
		m = fmax(m, p->t1);
		row->max_end[j] = m;
	}
	row->busy += ce - cs;
}

/* A row per device, then per link direction with spans; fills `at`,
 * the row of each result row (-1: not shown). */
static int make_row_list(struct gp_gantt *g, const struct gp_scenario *sc,
			 const int *cnt, int *at)
{
	const struct gp_result *r = g->r;
	int nres = r->ndevs + r->nlinks, n = 0;
	for (int i = 0; i < nres; i++)
		at[i] = i < r->ndevs || cnt[i] ? n++ : -1;
	g->rows = gp_xcalloc((size_t)(n ? n : 1), sizeof *g->rows);
	if (!g->rows)
		return -1;
	g->nrows = n;
	for (int i = 0; i < nres; i++) {
		if (at[i] < 0)
			continue;
		struct gp_gantt_row *row = &g->rows[at[i]];
		row->link = i >= r->ndevs;
		row->index = row->link ? i - r->ndevs : i;
		row->result_row = i;
		gp_row_label(sc, r, i, row->label, sizeof row->label);
		if (i < r->ndevs && r->devs[i].replicas > 1) {   /* as the SVG's rows */
			size_t l = strlen(row->label);
			snprintf(row->label + l, sizeof row->label - l, ", %d replicas",
				 r->devs[i].replicas);
		}
		row->span = malloc((size_t)(cnt[i] ? cnt[i] : 1) * sizeof *row->span);
		row->max_end = malloc((size_t)(cnt[i] ? cnt[i] : 1) * sizeof *row->max_end);
		if (!row->span || !row->max_end)
			return -1;
	}
	return 0;
}

static int make_rows(struct gp_gantt *g, const struct gp_scenario *sc)
{
	const struct gp_result *r = g->r;
	int nres = r->ndevs + r->nlinks;
	int *cnt = gp_xcalloc((size_t)nres + 1, sizeof *cnt);
	int *at = gp_xcalloc((size_t)nres + 1, sizeof *at);
	int rc = -1;
	if (!cnt || !at)
		goto out;
	for (int64_t i = 0; i < r->nspans; i++)
		if (r->spans[i].row >= 0 && r->spans[i].row < nres)
			cnt[r->spans[i].row]++;
	if (make_row_list(g, sc, cnt, at))
		goto out;
	for (int64_t i = 0; i < r->nspans; i++) {
		int rr = r->spans[i].row;
		if (rr >= 0 && rr < nres) {
			struct gp_gantt_row *row = &g->rows[at[rr]];
			row->span[row->n++] = (int32_t)i;
		}
	}
	for (int k = 0; k < g->nrows; k++) {
		if (sort_row(&g->rows[k], r->spans))
			goto out;
		row_sweep(&g->rows[k], r->spans);
	}
	rc = 0;
out:
	free(cnt);
	free(at);
	return rc;
}

/* --- binary searches over a row ---------------------------------------- */

/* The first position whose span starts after t (strict) or at t or
 * later (!strict). */
static int start_bound(const struct gp_gantt *g, const struct gp_gantt_row *row,
		       double t, bool strict)
{
	int lo = 0, hi = row->n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		double s = g->r->spans[row->span[mid]].t0;
		if (strict ? s <= t : s < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first position whose running max of ends is above t (strict) or
 * at t or above (!strict): before it, every span ends by t. */
static int end_bound(const struct gp_gantt_row *row, double t, bool strict)
{
	int lo = 0, hi = row->n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		double m = row->max_end[mid];
		if (strict ? m <= t : m < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct gp_gantt_row *row_at(const struct gp_gantt *g, int row)
{
	return row >= 0 && row < g->nrows ? &g->rows[row] : NULL;
}

/* --- cells ----------------------------------------------------------- */

/* Columns are filled a block at a time, on the stack. */
enum { BLOCK = 128 };

/* What covers one column. */
struct col {
	double cov[GP_SPAN__N];    /* seconds each kind covers */
	double first[GP_SPAN__N];  /* where each kind's coverage begins */
	double used;               /* seconds any span covers */
	bool start_covered;        /* some span covers the column's start */
	unsigned short_kinds;      /* bit k: a span of kind k shorter than dt meets it */
};

/* Columns lo..hi-1 of the viewport (t0, dt); inv = 1 / dt. */
struct view {
	double t0, dt, inv;
	int lo, hi;
};

/* A run: the union of touching spans, of one kind or of all, and the
 * hull of its spans shorter than a column, [ss, se) (none: ss >= se).
 * Marking every column the hull meets as met by a short span marks too
 * many only where the run covers a whole column, and a kind covering a
 * whole column never needs the eighth a short span is owed. */
struct run {
	double s, e, ss, se;
	bool open;
};

static double col_start(const struct view *v, int c)
{
	return v->t0 + c * v->dt;
}

/* fmin and fmax are library calls (NaN rules) in the inner loop. */
static inline double dmin(double a, double b)
{
	return a < b ? a : b;
}

static inline double dmax(double a, double b)
{
	return a > b ? a : b;
}

/* Adds run u (within the block) to the columns it crosses: as kind, or
 * (kind < 0) as the union of all. */
static void spread(struct col *cols, const struct view *v, const struct run *u, int kind)
{
	double s = u->s, e = u->e;
	double f = (s - v->t0) * v->inv;  /* >= 0: truncation is floor */
	int c = f <= v->lo ? v->lo : f >= v->hi - 1 ? v->hi - 1 : (int)f;
	while (c > v->lo && col_start(v, c) > s)
		c--;
	for (; c < v->hi; c++) {
		double a = col_start(v, c), b = col_start(v, c + 1);
		if (a >= e)
			break;
		double lo = dmax(s, a), hi = dmin(e, b);
		if (hi <= lo)
			continue;
		struct col *x = &cols[c - v->lo];
		if (kind < 0) {
			x->used += hi - lo;
			x->start_covered |= lo == a;
			continue;
		}
		x->cov[kind] += hi - lo;
		x->first[kind] = dmin(x->first[kind], lo);
		if (dmin(u->se, b) > dmax(u->ss, a))
			x->short_kinds |= 1u << kind;
	}
}

/* Extends run u by [s, e), short or not (spans come by start), spreading
 * the run it closes. */
static void run_add(struct run *u, struct col *cols, const struct view *v, double s,
		    double e, bool is_short, int kind)
{
	if (u->open && s <= u->e) {
		u->e = dmax(u->e, e);
	} else {
		if (u->open)
			spread(cols, v, u, kind);
		*u = (struct run){ s, e, HUGE_VAL, -HUGE_VAL, true };
	}
	if (is_short) {
		u->ss = dmin(u->ss, s);
		u->se = dmax(u->se, e);
	}
}

/* Fills cols for columns v->lo..v->hi-1 from the row's spans. */
static void fill_block(const struct gp_gantt *g, const struct gp_gantt_row *row,
		       const struct view *v, struct col *cols)
{
	double A = col_start(v, v->lo), Z = col_start(v, v->hi);
	struct run kr[GP_SPAN__N] = { { 0 } }, ur = { 0 };
	for (int c = 0; c < v->hi - v->lo; c++) {
		cols[c] = (struct col){ .used = 0 };
		for (int k = 0; k < GP_SPAN__N; k++)
			cols[c].first[k] = HUGE_VAL;
	}
	for (int j = end_bound(row, A, true); j < row->n; j++) {
		const struct gp_span *p = &g->r->spans[row->span[j]];
		if (p->t0 >= Z)
			break;
		if (p->t1 <= A || p->t1 <= p->t0 || p->kind >= GP_SPAN__N)
			continue;
		double s = dmax(p->t0, A), e = dmin(p->t1, Z);
		run_add(&kr[p->kind], cols, v, s, e, p->t1 - p->t0 < v->dt, p->kind);
		run_add(&ur, cols, v, s, e, false, -1);
	}
	for (int k = 0; k < GP_SPAN__N; k++)
		if (kr[k].open)
			spread(cols, v, &kr[k], k);
	if (ur.open)
		spread(cols, v, &ur, -1);
}

static struct gp_gantt_cell plain(int kind)
{
	return (struct gp_gantt_cell){ (int8_t)kind, (int8_t)kind, 0, false };
}

/* Two kinds in a column, a < b (idle, -1, comes last): the first met
 * on the left. */
static struct gp_gantt_cell two_kinds(const struct col *x, int a, int b, double idle)
{
	int left, right;
	if (b < 0) {
		left = x->start_covered ? a : -1;
		right = x->start_covered ? -1 : a;
	} else {
		left = x->first[b] < x->first[a] ? b : a;
		right = left == a ? b : a;
	}
	double cl = left < 0 ? idle : x->cov[left], cr = right < 0 ? idle : x->cov[right];
	int e8 = (int)lround(8 * cl / (cl + cr));
	/* A span shorter than a column keeps an eighth. */
	if (e8 == 0 && left >= 0 && x->short_kinds >> left & 1)
		e8 = 1;
	if (e8 == 8 && right >= 0 && x->short_kinds >> right & 1)
		e8 = 7;
	if (e8 == 0)
		return plain(right);
	if (e8 == 8)
		return plain(left);
	return (struct gp_gantt_cell){ (int8_t)left, (int8_t)right, (uint8_t)e8, false };
}

/* Three kinds or more: the span kind covering most, then what covers
 * most of the rest (idle included). */
static struct gp_gantt_cell mixed(const struct col *x, double idle)
{
	int fg = -1, bg = -1;
	for (int k = 0; k < GP_SPAN__N; k++)
		if (fg < 0 || x->cov[k] > x->cov[fg])
			fg = k;
	double best = idle;
	for (int k = 0; k < GP_SPAN__N; k++)
		if (k != fg && x->cov[k] > best) {
			bg = k;
			best = x->cov[k];
		}
	return (struct gp_gantt_cell){ (int8_t)fg, (int8_t)bg, 0, true };
}

/* The cell of a column `width` seconds wide (gantt.h's rule). */
static struct gp_gantt_cell decide(const struct col *x, double width)
{
	double eps = 1e-9 * width, idle = width - x->used;
	int met[GP_SPAN__N + 1], n = 0;
	for (int k = 0; k < GP_SPAN__N; k++)
		if (x->cov[k] > eps)
			met[n++] = k;
	if (idle > eps)
		met[n++] = -1;
	if (n <= 1)
		return plain(n ? met[0] : -1);
	return n == 2 ? two_kinds(x, met[0], met[1], idle) : mixed(x, idle);
}

void gp_gantt_cells(const struct gp_gantt *g, int row, double t0, double dt, int w,
		    struct gp_gantt_cell *out)
{
	const struct gp_gantt_row *rw = row_at(g, row);
	bool ok = rw && dt > 0 && isfinite(dt) && isfinite(t0);
	struct col cols[BLOCK];
	for (int lo = 0; lo < w; lo += BLOCK) {
		struct view v = { t0, dt, 1 / dt, lo, lo + BLOCK < w ? lo + BLOCK : w };
		if (ok)
			fill_block(g, rw, &v, cols);
		for (int c = v.lo; c < v.hi; c++)
			out[c] = ok ? decide(&cols[c - lo], col_start(&v, c + 1) - col_start(&v, c))
				    : plain(-1);
	}
}

/* --- hit tests and moves --------------------------------------------- */

int gp_gantt_hit(const struct gp_gantt *g, int row, double t, double tol)
{
	const struct gp_gantt_row *rw = row_at(g, row);
	if (!rw || !rw->n)
		return -1;
	const struct gp_span *sp = g->r->spans;
	int u = start_bound(g, rw, t, true);
	for (int j = u - 1; j >= 0 && rw->max_end[j] > t; j--)
		if (sp[rw->span[j]].t1 > t)
			return rw->span[j];
	/* Nothing covers t: every span before u ends by t. The nearest,
	 * ties to the first in the row's order. */
	int best = -1;
	double bd = tol;
	if (u > 0 && t - rw->max_end[u - 1] <= bd) {
		bd = t - rw->max_end[u - 1];
		best = end_bound(rw, rw->max_end[u - 1], false);
	}
	if (u < rw->n && sp[rw->span[u]].t0 - t <= tol && (best < 0 || sp[rw->span[u]].t0 - t < bd))
		best = u;
	return best >= 0 ? rw->span[best] : -1;
}

int gp_gantt_step(const struct gp_gantt *g, int row, double t, int dir)
{
	const struct gp_gantt_row *rw = row_at(g, row);
	if (!rw || !dir)
		return -1;
	int j = dir > 0 ? start_bound(g, rw, t, true) : start_bound(g, rw, t, false) - 1;
	return j >= 0 && j < rw->n ? rw->span[j] : -1;
}

int gp_gantt_starting(const struct gp_gantt *g, int row, double t0, double t1, int *lo)
{
	const struct gp_gantt_row *rw = row_at(g, row);
	*lo = 0;
	if (!rw)
		return 0;
	*lo = start_bound(g, rw, t0, false);
	return start_bound(g, rw, t1, false) - *lo;
}

int gp_gantt_row_of(const struct gp_gantt *g, int span)
{
	if (span < 0 || span >= g->r->nspans)
		return -1;
	int rr = g->r->spans[span].row;
	if (rr >= 0 && rr < g->r->ndevs)
		return rr;
	for (int k = g->r->ndevs; k < g->nrows; k++)
		if (g->rows[k].result_row == rr)
			return k;
	return -1;
}

int gp_gantt_crit_pos(const struct gp_gantt *g, int span)
{
	if (span < 0 || span >= g->r->nspans)
		return -1;
	/* The path runs forward in time: search by start. */
	const struct gp_span *sp = g->r->spans;
	double t = sp[span].t0;
	int lo = 0, hi = g->ncrit;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (sp[g->crit[mid]].t0 < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < g->ncrit && sp[g->crit[lo]].t0 == t; lo++)
		if (g->crit[lo] == span)
			return lo;
	return -1;
}

/* --- building -------------------------------------------------------- */

int gp_gantt_build(struct gp_gantt *g, const struct gp_scenario *sc,
		   const struct gp_result *r, struct gp_err *e)
{
	memset(g, 0, sizeof *g);
	g->r = r;
	g->t_end = r->iteration_time;
	if (r->nspans > INT32_MAX)
		return gp_errf(e, "gantt: %lld spans are too many to chart; at most %d",
			       (long long)r->nspans, INT32_MAX);
	if (make_rows(g, sc) || gp_gantt_path(g)) {
		gp_gantt_free(g);
		return gp_errf(e, "gantt: out of memory");
	}
	return 0;
}

void gp_gantt_free(struct gp_gantt *g)
{
	for (int k = 0; g->rows && k < g->nrows; k++) {
		free(g->rows[k].span);
		free(g->rows[k].max_end);
	}
	free(g->rows);
	free(g->slack);
	free(g->crit);
	memset(g, 0, sizeof *g);
}
