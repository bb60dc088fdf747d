/*
 * svg.c: the simulated iteration as an SVG Gantt chart.
 *
 * A row per device and per busy link direction, time across. The label
 * column is as wide as the longest label (at a generous 7 px a character
 * of the 11 px font, so no label is clipped), and a device row that
 * stands for several identical replicas says how many. Colours are
 * chosen to stay apart in print and for common colour-vision
 * deficiencies (Tableau 10); a task of a later model chunk (interleaved,
 * the V-shaped xdc-greedy) is hatched over its colour, one hatch per
 * chunk, so the chunks stay apart without more colours. The legend lists
 * only the kinds and chunks drawn. Spans narrower than a pixel merge
 * with their neighbours of the same kind and chunk, so a million-task
 * iteration stays a file a browser opens.
 */
#include "report.h"
#include "escape.h"
#include "fmt.h"
#include "table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *fill, *name;
} style[GP_SPAN__N] = {
	[GP_SPAN_F] = { "#4e79a7", "forward (F)" },
	[GP_SPAN_B] = { "#59a14f", "backward (B)" },
	[GP_SPAN_W] = { "#edc948", "weight gradient (W)" },
	[GP_SPAN_ACT] = { "#b07aa1", "activation transfer" },
	[GP_SPAN_GRAD] = { "#ff9da7", "gradient transfer" },
	[GP_SPAN_SYNC] = { "#9c755f", "DP gradient sync" },
	[GP_SPAN_OPT] = { "#e15759", "optimizer step" },
};

/* Hatches for chunks 2, 3, 4, ... (cycling): their SVG path in a
 * 6 x 6 tile. */
static const char *const hatch[] = { "M0,6 L6,0", "M0,0 L6,6", "M0,3 L6,3", "M3,0 L3,6" };
#define SVG_NHATCH 4
#define SVG_CHAR_PX 7.0   /* at font-size 11: wider than any DejaVu Sans glyph but W, M */

struct svg {
	FILE *f;
	const struct gp_result *r;
	double left, plotw, top, rowh, sx;
	int *rowy;
	bool kinds[GP_SPAN__N];
	bool chunks[SVG_NHATCH];   /* hatch h drawn */
};

static int by_row_time(const void *a, const void *b)
{
	const struct gp_span *x = a, *y = b;
	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	if (x->t0 != y->t0)
		return x->t0 < y->t0 ? -1 : 1;
	if (x->kind != y->kind)
		return (x->kind > y->kind) - (x->kind < y->kind);
	return (x->chunk > y->chunk) - (x->chunk < y->chunk);
}

/* A tick step of 1, 2 or 5 x 10^k giving about n ticks over span t. */
static double nice_step(double t, int n)
{
	double raw = t / n, p = pow(10, floor(log10(raw)));
	double m = raw / p;
	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* Row i's label: the device (and how many replicas it stands for) or
 * the link direction. */
static void svg_label(const struct gp_scenario *sc, const struct gp_result *r, int i,
		      char *buf, size_t n)
{
	gp_row_label(sc, r, i, buf, n);
	if (i < r->ndevs && r->devs[i].replicas > 1) {
		size_t l = strlen(buf);
		snprintf(buf + l, n - l, ", %d replicas", r->devs[i].replicas);
	}
}

static void svg_defs(FILE *f)
{
	fprintf(f, "<defs>\n");
	for (int h = 0; h < SVG_NHATCH; h++)
		fprintf(f, "<pattern id=\"chunk%d\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
			"<path d=\"%s\" stroke=\"#ffffff\" stroke-width=\"1.4\"/></pattern>\n",
			h + 2, hatch[h]);
	fprintf(f, "</defs>\n");
}

static void svg_axis(struct svg *g, double T, double axis_y)
{
	FILE *f = g->f;
	double step = nice_step(T, 10);
	double unit = T < 1e-3 ? 1e6 : T < 1 ? 1e3 : 1;
	const char *us = T < 1e-3 ? "us" : T < 1 ? "ms" : "s";
	for (double t = 0; t <= T * 1.0001; t += step) {
		double x = g->left + t * g->sx;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#dddddd\"/>\n",
			x, g->top - 4, x, axis_y);
		/* Never an exponent: "500,000" for a very long iteration. */
		char v[48];
		if (t * unit >= 1e4)
			gp_fmt_grouped(t * unit, v, sizeof v);
		else
			snprintf(v, sizeof v, "%.4g", t * unit);
		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n", x,
			axis_y + 14, v);
	}
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">time (%s)</text>\n",
		g->left + g->plotw / 2, axis_y + 30, us);
}

static void svg_rows(struct svg *g, const struct gp_scenario *sc, int nrows)
{
	FILE *f = g->f;
	for (int i = 0; i < nrows; i++) {
		if (g->rowy[i] < 0)
			continue;
		double y = g->top + g->rowy[i] * g->rowh;
		char label[160];
		svg_label(sc, g->r, i, label, sizeof label);
		if (g->rowy[i] % 2)
			fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#f6f6f6\"/>\n",
				g->left, y, g->plotw, g->rowh);
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">", g->left - 6,
			y + g->rowh / 2 + 4);
		gp_esc_xml(f, label);
		fprintf(f, "</text>\n");
	}
}

/* One (merged) span: its rectangle, the hatch of its chunk, and its
 * micro-batch when there is room. */
static void svg_span(struct svg *g, const struct gp_span *s, double x0, double x1, bool merged)
{
	FILE *f = g->f;
	const struct gp_result *r = g->r;
	double y = g->top + g->rowy[s->row] * g->rowh + 2;
	double w = (x1 - x0) * g->sx, h = g->rowh - 4;
	/* A device's own sync runs beside its compute: a band along the
	 * row's foot. */
	if (s->kind == GP_SPAN_SYNC && s->row < r->ndevs) {
		y += h - 4;
		h = 4;
	}
	double x = g->left + x0 * g->sx, ww = w < 0.3 ? 0.3 : w;
	fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"0.3\"/>\n",
		x, y, ww, h, style[s->kind].fill);
	g->kinds[s->kind] = true;
	bool chunked = s->chunk > 0 && s->kind <= GP_SPAN_GRAD;
	if (chunked) {
		int hk = (s->chunk - 1) % SVG_NHATCH;
		fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"url(#chunk%d)\"/>\n",
			x, y, ww, h, hk + 2);
		g->chunks[hk] = true;
	}
	if (!merged && s->mb >= 0 && w > 7 + 6 * log10(s->mb + 1.0))
		fprintf(f, "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\" font-size=\"9\">%d</text>\n",
			x + w / 2, y + g->rowh / 2 + 1,
			s->kind == GP_SPAN_W || s->kind == GP_SPAN_GRAD ? "#000000" : "#ffffff",
			s->mb + 1);
}

/* Spans, merged below a pixel (same row, kind and chunk). */
static void svg_spans(struct svg *g, const struct gp_span *sp, int64_t n)
{
	for (int64_t i = 0; i < n;) {
		const struct gp_span *s = &sp[i];
		double x0 = s->t0, x1 = s->t1;
		int64_t j = i + 1;
		bool merged = false;
		while (j < n && sp[j].row == s->row && sp[j].kind == s->kind &&
		       sp[j].chunk == s->chunk && (sp[j].t0 - x1) * g->sx < 1 &&
		       (x1 - x0) * g->sx < 2) {
			x1 = fmax(x1, sp[j].t1);
			j++;
			merged = true;
		}
		if (g->rowy[s->row] >= 0)
			svg_span(g, s, x0, x1, merged);
		i = j;
	}
}

/* The kinds and chunks drawn, then how to read the rows. */
static void svg_legend(struct svg *g, double ly)
{
	FILE *f = g->f;
	double lx = g->left;
	for (int k = 0; k < GP_SPAN__N; k++) {
		if (!g->kinds[k])
			continue;
		fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
			lx, ly, style[k].fill);
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", lx + 16, ly + 10,
			style[k].name);
		lx += 24 + SVG_CHAR_PX * strlen(style[k].name);
	}
	for (int h = 0; h < SVG_NHATCH; h++) {
		if (!g->chunks[h])
			continue;
		fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"#777777\"/>"
			"<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"url(#chunk%d)\"/>\n",
			lx, ly, lx, ly, h + 2);
		/* Chunk h + 2, and every SVG_NHATCH-th after it, shares the hatch. */
		bool more = g->r->chunks > h + 2 + SVG_NHATCH;
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">chunk %d%s</text>\n", lx + 16, ly + 10, h + 2,
			more ? ", ..." : "");
		lx += 24 + SVG_CHAR_PX * (more ? 12 : 7);
	}
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#555555\">numbers are micro-batches; rows: pN sM = pipeline N stage M (DC, GPU x TP), N replicas: the row stands for N identical ones; A&gt;B = WAN link direction</text>\n",
		g->left, ly + 30);
}

/* The label column's width: the longest label at SVG_CHAR_PX. */
static double svg_left(const struct gp_scenario *sc, const struct gp_result *r, const int *rowy,
		       int nrows)
{
	double left = 170;
	for (int i = 0; i < nrows; i++) {
		if (rowy[i] < 0)
			continue;
		char label[160];
		svg_label(sc, r, i, label, sizeof label);
		left = fmax(left, 16 + SVG_CHAR_PX * gp_text_width(label));
	}
	return ceil(left);
}

static void svg_title(FILE *f, double left, const struct gp_scenario *sc,
		      const struct gp_plan *p, const struct gp_result *r)
{
	char a[32], b[32], c[32], d[32], e[32];
	fprintf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"14\" font-weight=\"bold\">", left);
	gp_esc_xml(f, sc->name);
	fprintf(f, ": %s", gp_sched_name(p->schedule));
	if (r->chunks > 1)
		fprintf(f, " x%d chunks", r->chunks);
	/* The idle share beside the bubble: P3's bubble is 0 % while its
	 * GPUs wait two thirds of the iteration on DP sync. */
	fprintf(f, ", iteration %s, %s tokens/s, MFU %s, bubble %s, GPU idle %s</text>\n",
		gp_fmt_time(r->iteration_time, 4, a, sizeof a),
		gp_fmt_si(r->tokens_per_s, 3, "", b, sizeof b), gp_fmt_pct(r->mfu, c, sizeof c),
		gp_fmt_pct(r->bubble, d, sizeof d), gp_fmt_pct(gp_result_idle(r), e, sizeof e));
}

int gp_report_svg(FILE *f, const struct gp_scenario *sc,
		  const struct gp_plan *p, const struct gp_result *r)
{
	int nrows = r->ndevs + r->nlinks;
	struct svg g = { .f = f, .r = r, .top = 56, .rowh = 22 };
	g.rowy = malloc(sizeof *g.rowy * (size_t)(nrows ? nrows : 1));
	struct gp_span *sp = malloc(sizeof *sp * (size_t)(r->nspans ? r->nspans : 1));
	if (!g.rowy || !sp) {
		free(g.rowy);
		free(sp);
		return -1;
	}
	memcpy(sp, r->spans, sizeof *sp * (size_t)r->nspans);
	qsort(sp, (size_t)r->nspans, sizeof *sp, by_row_time);
	/* Links appear only if something crossed them. */
	int shown = 0;
	for (int i = 0; i < nrows; i++) {
		g.rowy[i] = -1;
		if (i < r->ndevs || r->links[i - r->ndevs].bytes > 0)
			g.rowy[i] = shown++;
	}
	g.left = svg_left(sc, r, g.rowy, nrows);
	double W = fmax(1400, g.left + 1000 + 20), T = r->iteration_time > 0 ? r->iteration_time : 1;
	g.plotw = W - g.left - 20;
	g.sx = g.plotw / T;
	double H = g.top + shown * g.rowh + 90, axis_y = g.top + shown * g.rowh;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"11\">\n",
		W, H, W, H);
	svg_defs(f);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
	svg_title(f, g.left, sc, p, r);
	svg_axis(&g, T, axis_y);
	svg_rows(&g, sc, nrows);
	svg_spans(&g, sp, r->nspans);
	svg_legend(&g, axis_y + 46);
	fprintf(f, "</svg>\n");
	free(g.rowy);
	free(sp);
	return ferror(f) ? -1 : 0;
}
