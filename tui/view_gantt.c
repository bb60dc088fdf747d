/*
 * view_gantt.c: the Gantt chart of the simulated iteration: a row per
 * stage device and per busy WAN link direction, time across; forward,
 * backward, weight-gradient passes, transfers, DP sync and the
 * optimizer in distinct colours and, without colour, distinct glyphs;
 * boundaries inside a cell drawn with eighth blocks so short tasks stay
 * visible. A time axis above, an overview strip and a legend below, a
 * cursor (row and time) whose task the status line inspects. The model
 * (gantt.c) does the geometry; this file draws and moves.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "actions.h"
#include "app.h"
#include "costtab.h"
#include "fmt.h"
#include "gantt_draw.h"
#include "scenario.h"
#include "report.h"

/* The label column is as wide as the longest label, up to two fifths
 * of the screen (at least LABEL_MIN); a longer label loses its middle. */
#define LABEL_MIN 12

struct layout {
	int lw, cw;          /* label column, chart columns */
	int x0;              /* the chart's first column */
	int rows;            /* chart rows shown (each rh text lines) */
	int rh;              /* text lines a chart row takes: more when few rows */
};

static int label_width(const struct gp_gantt *g)
{
	int w = 8;
	for (int i = 0; i < g->nrows; i++)
		if (gp_cv_width(g->rows[i].label) > w)
			w = gp_cv_width(g->rows[i].label);
	return w;
}

static struct layout layout_of(struct gp_rect r, const struct gp_gantt *g)
{
	struct layout l;
	int nrows = g->nrows, most = r.w * 2 / 5 > LABEL_MIN ? r.w * 2 / 5 : LABEL_MIN;
	l.lw = label_width(g) < most ? label_width(g) : most;
	l.x0 = r.x + l.lw + 1;
	l.cw = r.w - l.lw - 2 > 8 ? r.w - l.lw - 2 : 8;
	int lines = r.h - 5 > 1 ? r.h - 5 : 1;   /* figures, axis; overview, legend */
	l.rh = nrows > 0 ? lines / nrows : 1;
	l.rh = l.rh < 1 ? 1 : l.rh > 3 ? 3 : l.rh;
	l.rows = lines / l.rh;
	return l;
}

/* The viewport fits the iteration; the cursor stays where it was if it
 * still falls inside. */
static void fit(struct gp_app *a, int cw)
{
	struct gp_gantt_state *g = &a->gt;
	double T = a->gantt.t_end > 0 ? a->gantt.t_end : 1;
	g->t0 = 0;
	g->dt = T / cw;
	g->zoomed = false;
	if (!(g->tc >= 0 && g->tc <= T))
		g->tc = 0;
	g->fitted = false;
}

/* Keeps the cursor's time and row in view. */
static void follow(struct gp_app *a, const struct layout *l)
{
	struct gp_gantt_state *g = &a->gt;
	if (g->tc < g->t0)
		g->t0 = g->tc - 0.1 * l->cw * g->dt;
	if (g->tc >= g->t0 + l->cw * g->dt)
		g->t0 = g->tc - 0.9 * l->cw * g->dt;
	if (g->t0 < 0)
		g->t0 = 0;
	if (g->row >= a->gantt.nrows)
		g->row = a->gantt.nrows - 1;
	if (g->row < 0)
		g->row = 0;
	if (g->row < g->top)
		g->top = g->row;
	if (g->row >= g->top + l->rows)
		g->top = g->row - l->rows + 1;
	if (g->top < 0)
		g->top = 0;
}

/* How the axis writes times: a unit and decimals for all its labels,
 * or (rel) times after base when absolute ones would need more than
 * six digits (deep zooms). */
struct axis_fmt {
	double unit, base;
	const char *name;
	int dec;
	bool rel;
};

static const struct {
	double unit;
	const char *name;
} time_units[] = { { 1, "s" }, { 1e-3, "ms" }, { 1e-6, "us" }, { 1e-9, "ns" } };

/* The largest unit v reaches (the smallest unit below everything). */
static int unit_for(double v)
{
	int i = 0;
	while (i < 3 && v < time_units[i].unit * (1 - 1e-9))
		i++;
	return i;
}

static int decimals_for(double step, double unit)
{
	double d = ceil(-log10(step / unit) - 1e-9);
	return d > 0 ? (int)d : 0;
}

static struct axis_fmt axis_fmt(double first, double last, double step)
{
	struct axis_fmt f = { .base = 0 };
	int u = unit_for(fmax(fabs(last), step));
	f.unit = time_units[u].unit;
	f.name = time_units[u].name;
	f.dec = decimals_for(step, f.unit);
	double digits = floor(log10(fmax(fabs(last) / f.unit, 1))) + 1 + f.dec;
	/* Times after a base only where the decimals make labels long (deep
	 * in a zoom), and a base there is: whole seconds of a very long
	 * iteration read plainly ("200000s"), never "from 0s  +200000s". */
	if (digits > 6 && f.dec > 0 && first > 0) {
		f.rel = true;
		f.base = first;
		u = unit_for(step);
		f.unit = time_units[u].unit;
		f.name = time_units[u].name;
		f.dec = decimals_for(step, f.unit);
	}
	return f;
}

static void axis_label(const struct axis_fmt *f, double x, char *buf, size_t n)
{
	double v = (f->rel ? x - f->base : x) / f->unit;
	if (fabs(v) < 1e-9 * fmax(1, fabs(x / f->unit)))
		v = 0;
	if (v == 0 && !f->rel)
		snprintf(buf, n, "0");
	else
		snprintf(buf, n, "%s%.*f%s", f->rel ? "+" : "", f->dec, v, v == 0 ? "" : f->name);
	gp_c_point(buf);
}

/* Ticks of 1, 2 or 5 x 10^k, labelled in one unit ("0.9s 1.0s 1.1s",
 * never "900ms 1000ms 1.1s"); deep in a zoom, as times after the first
 * tick, which the label column shows. A label the cursor's mark would
 * cover is left out; the tick at the view's end has its label to its
 * left. */
static void draw_axis(struct gp_app *a, struct gp_canvas *cv, const struct layout *l, int y)
{
	const struct gp_gantt_state *g = &a->gt;
	const struct gp_theme *t = a->th;
	double span = l->cw * g->dt, step = gp_gantt_nice_step(span, l->cw / 12 > 1 ? l->cw / 12 : 1);
	double first = ceil(g->t0 / step - 1e-9) * step, end = g->t0 + span;
	struct axis_fmt f = axis_fmt(first, end, step);
	int cc = (int)floor((g->tc - g->t0) / g->dt);
	if (f.rel) {
		char b[48];
		snprintf(b, sizeof b, "from %.*fs", decimals_for(step, 1) < 12 ? decimals_for(step, 1) : 12,
			 f.base);
		gp_c_point(b);
		gp_cv_text(cv, l->x0 - l->lw - 1, y, l->lw, gp_role(t, GP_R_AXIS), b);
	} else {
		gp_cv_text(cv, l->x0 - l->lw - 1, y, l->lw, gp_role(t, GP_R_DIM), "time");
	}
	/* A label always follows its tick ("|110ms"): one with no room
	 * after it is left off, the tick kept, as one read before its tick
	 * ("110ms|") names the wrong one. The cursor's marker never hides a
	 * label: over one, the label itself is drawn as the cursor. */
	int last = -100;
	bool on_label = false;
	for (int k = 0; first + k * step <= end + 1e-9 * span && k < 1000; k++) {
		double x = first + k * step;
		int c = (int)floor((x - g->t0) / g->dt + 1e-9);
		if (c >= l->cw || c < last)
			continue;
		char lab[48];
		axis_label(&f, x, lab, sizeof lab);
		int w = gp_cv_width(lab), at = c + 1;
		gp_cv_put(cv, l->x0 + c, y, cv->ascii ? '|' : 0x2502, gp_role(t, GP_R_AXIS));
		last = c + 2;
		if (at + w > l->cw)
			continue;
		bool cur = cc >= at && cc < at + w;
		on_label |= cur;
		gp_cv_text(cv, l->x0 + at, y, w, gp_role(t, cur ? GP_R_CURSOR : GP_R_AXIS), lab);
		last = at + w + 1;
	}
	if (cc >= 0 && cc < l->cw && !on_label && !a->no_cursor)
		gp_cv_put(cv, l->x0 + cc, y, cv->ascii ? 'v' : 0x25bc, gp_role(t, GP_R_CURSOR));
}

/* Black or white, whichever reads on rgb (ITU-R BT.601 luma). */
static uint32_t ink_on(uint32_t rgb)
{
	double y = 0.299 * (rgb >> 16 & 255) + 0.587 * (rgb >> 8 & 255) + 0.114 * (rgb & 255);
	return y > 140 ? 0x000000 : 0xffffff;
}

/* Over a row's cells, where the spans are few enough to tell apart: a
 * thin line where a task starts right after another (four forwards in
 * a row read as four), the task's name on a wide bar ("F12"), and on a
 * link row each transfer's latency after it, in flight. */
static void draw_tasks(struct gp_app *a, struct gp_canvas *cv, const struct layout *l, int row,
		       int y, bool named, const struct gp_gantt_cell *cells)
{
	const struct gp_gantt_state *g = &a->gt;
	const struct gp_theme *t = a->th;
	const struct gp_gantt_row *gr = &a->gantt.rows[row];
	const struct gp_span *sp = a->run.res.spans;
	int lo, n = gp_gantt_starting(&a->gantt, row, g->t0, g->t0 + l->cw * g->dt, &lo);
	if (t->mono || cv->ascii || n > l->cw / 2)
		return;
	double lat = gr->link && a->run.costs ? gp_costtab_wan(a->run.costs, gr->index).lat : 0;
	for (int j = lo; j < lo + n; j++) {
		const struct gp_span *s = &sp[gr->span[j]];
		int c0 = (int)floor((s->t0 - g->t0) / g->dt), c1 = (int)floor((s->t1 - g->t0) / g->dt);
		uint32_t bg = t->kind[s->kind];
		if (s->kind <= GP_SPAN_W && c1 - c0 >= 2 && c0 < l->cw) {
			const struct gp_span *p = j > 0 ? &sp[gr->span[j - 1]] : NULL;
			if (p && p->kind <= GP_SPAN_W && fabs(p->t1 - s->t0) <= 1e-12 * fmax(1, s->t0))
				gp_cv_put(cv, l->x0 + c0, y, 0x258f, (struct gp_style){ t->idle, bg, 0 });
			char name[16];
			snprintf(name, sizeof name, "%s%d", gp_kind_short(s->kind), s->mb + 1);
			if (named && c1 - c0 >= gp_cv_width(name) + 2 && s->mb >= 0)
				gp_cv_text(cv, l->x0 + c0 + 1, y, l->cw - c0 - 1,
					   (struct gp_style){ ink_on(bg), bg, 0 }, name);
		}
		if (lat > 0 && (s->kind == GP_SPAN_ACT || s->kind == GP_SPAN_GRAD))
			for (int c = c1 < 0 ? 0 : c1; c < l->cw && g->t0 + c * g->dt < s->t1 + lat; c++)
				if (cells[c].bg_kind < 0 && cells[c].eighths == 0 && !cells[c].mixed)
					gp_cv_put(cv, l->x0 + c, y, 0x2500,
						  (struct gp_style){ bg, t->idle, 0 });
	}
}

static void draw_rows(struct gp_app *a, struct gp_canvas *cv, const struct layout *l, int y0,
		      struct gp_gantt_cell *cells)
{
	struct gp_gantt_state *g = &a->gt;
	const struct gp_theme *t = a->th;
	int cc = (int)floor((g->tc - g->t0) / g->dt);
	for (int i = 0; i < l->rows && g->top + i < a->gantt.nrows; i++) {
		int row = g->top + i, y = y0 + i * l->rh;
		const struct gp_gantt_row *gr = &a->gantt.rows[row];
		char lab[sizeof gr->label + 4];
		gp_gantt_fit_label(gr->label, l->lw, cv->ascii, lab, sizeof lab);
		gp_cv_text(cv, l->x0 - l->lw - 1, y, l->lw,
			   gp_role(t, row == g->row ? GP_R_SELECT : gr->link ? GP_R_DIM : GP_R_TEXT),
			   lab);
		gp_gantt_cells(&a->gantt, row, g->t0, g->dt, l->cw, cells);
		/* A row of rh lines, the last one a little apart from the next
		 * row's when there is room (rh 3: two lines of the row, a gap). */
		int lines = l->rh == 3 ? 2 : l->rh;
		for (int dy = 0; dy < lines; dy++) {
			for (int c = 0; c < l->cw; c++)
				gp_gantt_put_cell(cv, l->x0 + c, y + dy, &cells[c], t, cv->ascii);
			draw_tasks(a, cv, l, row, y + dy, dy == 0, cells);
		}
		/* The cursor's row stands out where it is idle. */
		for (int dy = 0; row == g->row && !t->mono && !a->no_cursor && dy < lines; dy++)
			for (int c = 0; c < l->cw; c++) {
				struct gp_cell *k = gp_cv_at(cv, l->x0 + c, y + dy);
				if (k && k->bg == t->idle && cells[c].bg_kind < 0 && cells[c].eighths == 0)
					k->bg = gp_role(t, GP_R_SELECT_DIM).bg;
			}
		if (row == g->row && cc >= 0 && cc < l->cw && !a->no_cursor) {
			struct gp_cell *k = gp_cv_at(cv, l->x0 + cc, y);
			if (k) {
				k->attr |= GP_CV_REVERSE | GP_CV_BOLD;
				if (k->ch == ' ')
					k->ch = cv->ascii ? '+' : 0x254b;
			}
		}
	}
}

/* The whole iteration squeezed into the chart's width: how much of the
 * devices' time each column is busy, the viewport marked. */
static void draw_overview(struct gp_app *a, struct gp_canvas *cv, const struct layout *l, int y,
			  struct gp_gantt_cell *cells)
{
	const struct gp_theme *t = a->th;
	const struct gp_gantt_state *g = &a->gt;
	int n = l->cw;
	double *busy = calloc((size_t)n, sizeof *busy);
	double dt = a->gantt.t_end / n;
	int devs = 0;
	for (int row = 0; busy && dt > 0 && row < a->gantt.nrows; row++) {
		if (a->gantt.rows[row].link)
			continue;
		devs++;
		gp_gantt_cells(&a->gantt, row, 0, dt, n, cells);
		for (int c = 0; c < n; c++)
			busy[c] += cells[c].mixed ? 1 : cells[c].eighths == 0 ? cells[c].bg_kind >= 0
						: cells[c].eighths / 8.0;
	}
	static const wchar_t shade[] = { ' ', 0x2591, 0x2592, 0x2593, 0x2588 };
	static const char ashade[] = " .:#@";
	gp_cv_text(cv, l->x0 - l->lw - 1, y, l->lw, gp_role(t, GP_R_DIM), "overview");
	for (int c = 0; busy && c < n; c++) {
		double f = devs ? busy[c] / devs : 0;
		int k = (int)(f * 4 + 0.5);
		double tc0 = c * dt;
		bool in = tc0 + dt > g->t0 && tc0 < g->t0 + l->cw * g->dt;
		gp_cv_put(cv, l->x0 + c, y, cv->ascii ? ashade[k] : shade[k],
			  gp_role(t, in ? GP_R_VIEWPORT : GP_R_OVERVIEW));
	}
	free(busy);
}

static void draw_legend(struct gp_app *a, struct gp_canvas *cv, const struct layout *l, int y)
{
	const struct gp_theme *t = a->th;
	int x = l->x0 - l->lw - 1;
	/* As the chart draws them: in colour a kind is a solid cell of its
	 * colour (its glyph, sync's U+2592, would read as "mixed"); in mono
	 * or ASCII its glyph. */
	bool plain = t->mono || cv->ascii;
	/* Only the kinds the chart has (as the SVG's legend). */
	bool has[GP_SPAN__N] = { false };
	for (int64_t i = 0; i < a->run.res.nspans; i++)
		if (a->run.res.spans[i].kind < GP_SPAN__N)
			has[a->run.res.spans[i].kind] = true;
	for (int k = 0; k < GP_SPAN__N; k++) {
		if (!has[k])
			continue;
		struct gp_style st = t->mono ? gp_role(t, GP_R_TEXT)
					     : (struct gp_style){ t->kind[k], GP_CV_DEFAULT, 0 };
		gp_cv_put(cv, x, y, plain ? gp_kind_glyph(k, cv->ascii) : 0x2588, st);
		x += 1 + gp_cv_printf(cv, x + 1, y, -1, gp_role(t, GP_R_DIM), " %s ", gp_kind_short(k));
	}
	/* A cell of several kinds has a glyph of its own, not sync's. */
	gp_cv_put(cv, x, y, gp_gantt_mixed_glyph(plain), gp_role(t, GP_R_TEXT));
	x += 1 + gp_cv_printf(cv, x + 1, y, -1, gp_role(t, GP_R_DIM), " mixed ");
	char z[48], text[80];
	gp_unit_format(a->gt.dt, GP_U_TIME, z, sizeof z);
	/* Whole or not at all: never "one column: 43." for 43.5ms. */
	int room = cv->clip.x + cv->clip.w - (x + 1);
	snprintf(text, sizeof text, "  one column: %s", z);
	if (gp_cv_width(text) > room)
		snprintf(text, sizeof text, "  %s/col", z);
	if (gp_cv_width(text) <= room)
		gp_cv_text(cv, x + 1, y, -1, gp_role(t, GP_R_DIM), text);
}

/* Puts the cursor on span i (its row, its start). */
static void to_span(struct gp_app *a, int i)
{
	if (i < 0)
		return;
	const struct gp_span *s = &a->run.res.spans[i];
	int row = gp_gantt_row_of(&a->gantt, i);
	if (row >= 0)
		a->gt.row = row;
	a->gt.tc = s->t0 + fmin(a->gt.dt / 2, (s->t1 - s->t0) / 2);
	a->gt.pick = i;
	a->gt.pick_row = a->gt.row;
	a->gt.pick_tc = a->gt.tc;
}

/* The span under the cursor: the one a jump chose while the cursor has
 * not moved since (spans overlap: sync beside compute, transfers on a
 * link), else the one covering the cursor's time. */
static int cur_span(const struct gp_app *a)
{
	const struct gp_gantt_state *g = &a->gt;
	if (g->pick >= 0 && g->pick < a->run.res.nspans && g->pick_row == g->row &&
	    g->pick_tc == g->tc)
		return g->pick;
	return gp_gantt_hit(&a->gantt, g->row, g->tc, g->dt / 2);
}

/* The key figures in the plan screen's terms (its bubble and GPU idle,
 * the batch report's), so a screenshot of the chart says what it
 * shows. What does not fit the width is left off from the end, the
 * idle split first shortened: a figure is never cut. */
static void draw_figures(struct gp_app *a, struct gp_canvas *cv, struct gp_rect r)
{
	const struct gp_result *res = &a->run.res;
	char t[24], x[24], part[7][96], line[400];
	gp_unit_format(res->iteration_time, GP_U_TIME, t, sizeof t);
	double sync = 0;
	for (int i = 0; i < res->ndevs; i++)
		sync = fmax(sync, res->devs[i].sync_exposed);
	gp_unit_format(sync, GP_U_TIME, x, sizeof x);
	snprintf(part[0], sizeof part[0], "iteration %s", t);
	snprintf(part[1], sizeof part[1], "MFU %.1f %%", 100 * res->mfu);
	snprintf(part[2], sizeof part[2], "bubble %.1f %%", 100 * res->bubble);
	snprintf(part[3], sizeof part[3], "GPU idle %.1f %% (%.1f %% after the last backward)",
		 100 * gp_result_idle(res), 100 * gp_result_idle_after(res));
	snprintf(part[4], sizeof part[4], "exposed DP sync %s", x);
	snprintf(part[5], sizeof part[5], "%s", gp_sched_name(res->schedule));
	snprintf(part[6], sizeof part[6], "%s", a->run.sc->name);
	for (int n = 7, pass = 0; n > 0; pass++) {
		size_t o = 0;
		for (int i = 0; i < n; i++)
			o += (size_t)snprintf(line + o, sizeof line - o, "%s%s", i ? ", " : "", part[i]);
		if (gp_cv_width(line) <= r.w)
			break;
		if (pass == 0)   /* first the split goes: "GPU idle 37.6 %" */
			*strstr(part[3], " (") = 0;
		else
			n--;
	}
	gp_cv_text(cv, r.x, r.y, r.w, gp_role(a->th, GP_R_HEADER), line);
}

static void draw(struct gp_app *a, struct gp_canvas *cv, struct gp_rect r)
{
	const struct gp_theme *t = a->th;
	if (!a->has_gantt || a->gantt.nrows == 0) {
		gp_cv_text(cv, r.x + 1, r.y + 1, r.w - 2, gp_role(t, GP_R_WARN),
			   "no simulated iteration to chart (see the status line; p plans one)");
		return;
	}
	struct layout l = layout_of(r, &a->gantt);
	if (a->gt.fitted || a->gt.dt <= 0 || (l.cw != a->gt.cols && !a->gt.zoomed))
		fit(a, l.cw);
	a->gt.cols = l.cw;
	a->gt.rows = l.rows;
	follow(a, &l);
	struct gp_gantt_cell *cells = malloc((size_t)l.cw * sizeof *cells);
	if (!cells)
		return;
	draw_figures(a, cv, r);
	draw_axis(a, cv, &l, r.y + 1);
	draw_rows(a, cv, &l, r.y + 2, cells);
	draw_overview(a, cv, &l, r.y + r.h - 2, cells);
	draw_legend(a, cv, &l, r.y + r.h - 1);
	free(cells);
	a->gt.span = cur_span(a);
}

static void zoom(struct gp_app *a, double k)
{
	struct gp_gantt_state *g = &a->gt;
	double fitdt = a->gantt.t_end / (g->cols > 0 ? g->cols : 1);
	double ndt = g->dt * k;
	if (ndt > fitdt)
		ndt = fitdt;
	/* A microsecond a column: finer than any task or message the
	 * simulator times (a NIC's latency is microseconds). */
	if (ndt < 1e-6) {
		if (g->dt <= 1e-6)
			gp_app_say(a, GP_R_WARN, "zoomed in as far as it goes: 1us a column; z fits");
		ndt = 1e-6;
	}
	g->t0 = g->tc - (g->tc - g->t0) * ndt / g->dt;
	g->dt = ndt;
	if (g->t0 < 0)
		g->t0 = 0;
}

static void status(struct gp_app *a, char *buf, size_t n);

/* The critical path from the cursor's task on: dir +1 the next, -1 the
 * previous; from a task off the path, its first (or last) task. At its
 * end the task stays inspected, the end said after it. */
static void crit_step(struct gp_app *a, int dir)
{
	const struct gp_gantt *g = &a->gantt;
	if (g->ncrit == 0) {
		gp_app_say(a, GP_R_WARN, "no critical path (no tasks?)");
		return;
	}
	int span = cur_span(a);
	int pos = span >= 0 ? gp_gantt_crit_pos(g, span) : -1;
	int next = pos < 0 ? (dir > 0 ? 0 : g->ncrit - 1) : pos + dir;
	if (next < 0 || next >= g->ncrit) {
		char task[600];
		status(a, task, sizeof task);
		gp_app_say(a, GP_R_DIM, "%s; the critical path %s here", task,
			   dir > 0 ? "ends" : "starts");
		return;
	}
	to_span(a, g->crit[next]);
}

static bool move(struct gp_app *a, int act)
{
	struct gp_gantt_state *g = &a->gt;
	int page = g->rows > 1 ? g->rows - 1 : 1;
	switch (act) {
	case GP_A_UP: g->row--; break;
	case GP_A_DOWN: g->row++; break;
	case GP_A_LEFT: g->tc -= g->dt; break;
	case GP_A_RIGHT: g->tc += g->dt; break;
	case GP_A_PAGE_UP: g->row -= page; break;
	case GP_A_PAGE_DOWN: g->row += page; break;
	case GP_A_TOP: g->row = 0; break;
	case GP_A_BOTTOM: g->row = a->gantt.nrows - 1; break;
	case GP_A_PAN_LEFT:
		g->t0 -= 0.75 * g->cols * g->dt;
		g->tc -= 0.75 * g->cols * g->dt;
		g->zoomed = true;
		break;
	case GP_A_PAN_RIGHT:
		g->t0 += 0.75 * g->cols * g->dt;
		g->tc += 0.75 * g->cols * g->dt;
		g->zoomed = true;
		break;
	case GP_A_ZOOM_IN: zoom(a, 0.5); g->zoomed = true; break;
	case GP_A_ZOOM_OUT: zoom(a, 2); g->zoomed = true; break;
	case GP_A_FIT: g->fitted = true; break;
	case GP_A_NEXT_TASK: case GP_A_PREV_TASK: {
		int dir = act == GP_A_NEXT_TASK ? 1 : -1;
		int i = gp_gantt_step(&a->gantt, g->row, dir > 0 ? g->tc : g->tc - g->dt / 2, dir);
		if (i < 0)
			gp_app_say(a, GP_R_DIM, "no %s task on this row", dir > 0 ? "later" : "earlier");
		to_span(a, i);
		break;
	}
	case GP_A_CRIT_NEXT: crit_step(a, 1); break;
	case GP_A_CRIT_PREV: crit_step(a, -1); break;
	default: return false;
	}
	double T = a->gantt.t_end;
	if (g->tc < 0)
		g->tc = 0;
	if (g->tc > T)
		g->tc = T;
	return true;
}

static bool contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = hay; *p; p++)
		if (!strncasecmp(p, needle, n))
			return true;
	return false;
}

static bool action(struct gp_app *a, int act, const struct gp_key *k)
{
	(void)k;
	if (!a->has_gantt)
		return false;
	if (act == GP_A_SEARCH_NEXT || act == GP_A_SEARCH_PREV) {
		if (!a->search[0])
			return false;
		int dir = act == GP_A_SEARCH_NEXT ? 1 : -1, n = a->gantt.nrows;
		for (int i = 1; i <= n; i++) {
			int row = ((a->gt.row + dir * i) % n + n) % n;
			if (contains(a->gantt.rows[row].label, a->search)) {
				a->gt.row = row;
				return true;
			}
		}
		gp_app_say(a, GP_R_WARN, "no row matches \"%s\"", a->search);
		return true;
	}
	return move(a, act);
}

static void click(struct gp_app *a, int x, int y)
{
	if (!a->has_gantt)
		return;
	struct layout l = layout_of((struct gp_rect){ 0, 0, a->w, a->view_rect.h }, &a->gantt);
	if (y >= 2 && y < 2 + l.rows * l.rh)
		a->gt.row = a->gt.top + (y - 2) / l.rh;
	if (x >= l.x0)
		a->gt.tc = a->gt.t0 + (x - l.x0 + 0.5) * a->gt.dt;
}

/* A task's times, four digits each with the zeros kept, so a start, an
 * end and a length read alike ("13.66ms to 26.60ms (12.94ms)"). */
static void time4(double v, char *buf, size_t n)
{
	char t[32];
	gp_fmt_time(v, 4, t, sizeof t);
	char *sp = strchr(t, ' ');
	if (sp)
		memmove(sp, sp + 1, strlen(sp));   /* "26.60ms", as the planner writes */
	snprintf(buf, n, "%s", t);
}

/* The inspector: what the cursor's task is. */
static void status(struct gp_app *a, char *buf, size_t n)
{
	if (!a->has_gantt) {
		snprintf(buf, n, "no iteration");
		return;
	}
	int i = cur_span(a);
	char t0[24], t1[24], d[24], sl[48] = "";
	if (i < 0) {
		gp_unit_format(a->gt.tc, GP_U_TIME, t0, sizeof t0);
		snprintf(buf, n, "%s at %s: idle   [ ] tasks, c critical path, +/- zoom, z fit",
			 a->gantt.rows[a->gt.row].label, t0);
		return;
	}
	const struct gp_span *s = &a->run.res.spans[i];
	time4(s->t0, t0, sizeof t0);
	time4(s->t1, t1, sizeof t1);
	time4(s->t1 - s->t0, d, sizeof d);
	double slack = a->gantt.slack ? a->gantt.slack[i] : NAN;
	if (gp_gantt_crit_pos(&a->gantt, i) >= 0)
		snprintf(sl, sizeof sl, ", critical (slack 0)");
	else if (isfinite(slack)) {
		char x[24];
		gp_unit_format(slack, GP_U_TIME, x, sizeof x);
		snprintf(sl, sizeof sl, ", slack %s", x);
	}
	char mb[32] = "";
	if (s->mb >= 0)
		snprintf(mb, sizeof mb, " micro-batch %d%s", s->mb + 1, s->chunk ? "" : "");
	if (s->mb >= 0 && s->chunk)
		snprintf(mb, sizeof mb, " micro-batch %d chunk %d", s->mb + 1, s->chunk + 1);
	char bytes[48] = "", when[64] = "";
	const struct gp_gantt_row *gr = &a->gantt.rows[a->gt.row];
	if (s->kind == GP_SPAN_ACT || s->kind == GP_SPAN_GRAD) {
		char b[24];
		snprintf(bytes, sizeof bytes, ", %s a replica",
			 gp_fmt_bytes(gp_boundary_bytes(a->run.sc), b, sizeof b));
		/* It arrives a latency after it leaves the link. */
		double lat = gr->link && a->run.costs ? gp_costtab_wan(a->run.costs, gr->index).lat : 0;
		char x[24], y[24];
		gp_unit_format(s->t1 + lat, GP_U_TIME, x, sizeof x);
		gp_unit_format(lat, GP_U_TIME, y, sizeof y);
		snprintf(when, sizeof when, ", arrives %s (latency %s)", x, y);
	} else if (s->dep >= 0 && s->ready < s->t0 - 1e-9 * fmax(1, s->t0)) {
		char x[24];
		gp_unit_format(s->ready, GP_U_TIME, x, sizeof x);
		snprintf(when, sizeof when, ", input ready at %s", x);
	} else if (s->dep >= 0 && s->kind <= GP_SPAN_W) {
		snprintf(when, sizeof when, ", started as its input came");
	}
	snprintf(buf, n, "%s%s on %s: %s to %s (%s)%s%s%s", gp_kind_long(s->kind), mb, gr->label, t0,
		 t1, d, sl, when, bytes);
}

const struct gp_view_ops gp_view_gantt = {
	"gantt", "Gantt", draw, action, click, NULL, status,
};
