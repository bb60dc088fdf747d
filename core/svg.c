/*
 * svg.c: the simulated iteration as an SVG Gantt chart.
 *
 * A row per device and per busy link direction, time across. Colours are
 * chosen to stay apart in print and for common colour-vision deficiencies
 * (Tableau 10). Spans narrower than a pixel merge with their neighbours of
 * the same kind, so a million-task iteration stays a file a browser opens.
 */
#include "report.h"
#include "escape.h"

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

static int by_row_time(const void *a, const void *b)
{
	const struct gp_span *x = a, *y = b;
	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	if (x->t0 != y->t0)
		return x->t0 < y->t0 ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

/* A tick step of 1, 2 or 5 x 10^k giving about n ticks over span t. */
static double nice_step(double t, int n)
{
	double raw = t / n, p = pow(10, floor(log10(raw)));
	double m = raw / p;
	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

int gp_report_svg(FILE *f, const struct gp_scenario *sc,
		  const struct gp_plan *p, const struct gp_result *r)
{
	const double W = 1400, left = 170, right = 20, top = 56, rowh = 22;
	int nrows = r->ndevs + r->nlinks;
	int *rowy = malloc(sizeof *rowy * (size_t)(nrows ? nrows : 1));
	struct gp_span *sp = malloc(sizeof *sp * (size_t)(r->nspans ? r->nspans : 1));
	if (!rowy || !sp) {
		free(rowy);
		free(sp);
		return -1;
	}
	memcpy(sp, r->spans, sizeof *sp * (size_t)r->nspans);
	qsort(sp, (size_t)r->nspans, sizeof *sp, by_row_time);
	/* Links appear only if something crossed them. */
	int shown = 0;
	for (int i = 0; i < nrows; i++) {
		rowy[i] = -1;
		if (i < r->ndevs || r->links[i - r->ndevs].bytes > 0)
			rowy[i] = shown++;
	}
	double T = r->iteration_time > 0 ? r->iteration_time : 1;
	double plotw = W - left - right, sx = plotw / T;
	double H = top + shown * rowh + 90;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"11\">\n",
		W, H, W, H);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"14\" font-weight=\"bold\">", left);
	gp_esc_xml(f, sc->name);
	fprintf(f, ": %s", gp_sched_name(p->schedule));
	if (r->chunks > 1)
		fprintf(f, " x%d chunks", r->chunks);
	fprintf(f, ", iteration %.4g s, %.4g tokens/s, MFU %.1f %%, bubble %.1f %%</text>\n",
		r->iteration_time, r->tokens_per_s, 100 * r->mfu, 100 * r->bubble);
	/* Time axis. */
	double step = nice_step(T, 10);
	double unit = T < 1e-3 ? 1e6 : T < 1 ? 1e3 : 1;
	const char *us = T < 1e-3 ? "us" : T < 1 ? "ms" : "s";
	double axis_y = top + shown * rowh;
	for (double t = 0; t <= T * 1.0001; t += step) {
		double x = left + t * sx;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#dddddd\"/>\n",
			x, top - 4, x, axis_y);
		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.4g</text>\n", x,
			axis_y + 14, t * unit);
	}
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">time (%s)</text>\n",
		left + plotw / 2, axis_y + 30, us);
	/* Row labels and stripes. */
	for (int i = 0; i < nrows; i++) {
		if (rowy[i] < 0)
			continue;
		double y = top + rowy[i] * rowh;
		char label[96];
		gp_row_label(sc, r, i, label, sizeof label);
		if (rowy[i] % 2)
			fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#f6f6f6\"/>\n",
				left, y, plotw, rowh);
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">", left - 6,
			y + rowh / 2 + 4);
		gp_esc_xml(f, label);
		fprintf(f, "</text>\n");
	}
	/* Spans, merged below a pixel. */
	for (int64_t i = 0; i < r->nspans;) {
		const struct gp_span *s = &sp[i];
		double x0 = s->t0, x1 = s->t1;
		int64_t j = i + 1;
		int merged = 0;
		while (j < r->nspans && sp[j].row == s->row && sp[j].kind == s->kind &&
		       (sp[j].t0 - x1) * sx < 1 && (x1 - x0) * sx < 2) {
			x1 = fmax(x1, sp[j].t1);
			j++;
			merged = 1;
		}
		if (rowy[s->row] >= 0) {
			double y = top + rowy[s->row] * rowh + 2;
			double w = (x1 - x0) * sx, h = rowh - 4;
			/* A device's own sync runs beside its compute: a band
			 * along the row's foot. */
			if (s->kind == GP_SPAN_SYNC && s->row < r->ndevs) {
				y += h - 4;
				h = 4;
			}
			fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"0.3\"/>\n",
				left + x0 * sx, y, w < 0.3 ? 0.3 : w, h, style[s->kind].fill);
			if (!merged && s->mb >= 0 && w > 7 + 6 * log10(s->mb + 1.0))
				fprintf(f, "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\" font-size=\"9\">%d</text>\n",
					left + (x0 + x1) / 2 * sx, y + rowh / 2 + 1,
					s->kind == GP_SPAN_W || s->kind == GP_SPAN_GRAD ? "#000000" : "#ffffff",
					s->mb + 1);
		}
		i = j;
	}
	/* Legend. */
	double lx = left, ly = axis_y + 46;
	for (int k = 0; k < GP_SPAN__N; k++) {
		fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
			lx, ly, style[k].fill);
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", lx + 16, ly + 10,
			style[k].name);
		lx += 24 + 7 * strlen(style[k].name);
	}
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#555555\">numbers are micro-batches; rows: pN sM = pipeline N stage M (DC, GPU x TP); A&gt;B = WAN link direction</text>\n",
		left, ly + 30);
	fprintf(f, "</svg>\n");
	free(rowy);
	free(sp);
	return ferror(f) ? -1 : 0;
}
