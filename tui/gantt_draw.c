/*
 * gantt_draw.c: Gantt cells into a canvas (gantt_draw.h), for the Gantt
 * screen and the compare screen alike.
 */
#include "gantt_draw.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static uint32_t kind_color(const struct gp_theme *t, int k)
{
	return k < 0 ? t->idle : t->kind[k];
}

wchar_t gp_gantt_mixed_glyph(bool plain)
{
	return plain ? '*' : 0x2592;
}

/* One cell of a row from the model's description of it. */
void gp_gantt_put_cell(struct gp_canvas *cv, int x, int y, const struct gp_gantt_cell *c,
		       const struct gp_theme *t, bool ascii)
{
	if (t->mono || ascii) {
		/* No eighths: the kind covering most of the cell, by glyph
		 * (mono) or colour; next to idle, any task at all, so short
		 * ones stay visible. */
		int k = c->mixed || c->eighths >= 4 ? c->fg_kind : c->bg_kind;
		if (c->eighths == 0)
			k = c->bg_kind;
		else if (c->eighths < 8 && (c->fg_kind < 0 || c->bg_kind < 0))
			k = c->fg_kind >= 0 ? c->fg_kind : c->bg_kind;
		wchar_t ch = c->mixed ? gp_gantt_mixed_glyph(true) : gp_kind_glyph(k, ascii);
		if (t->mono)
			gp_cv_put(cv, x, y, ch, gp_role(t, GP_R_TEXT));
		else   /* ASCII in colour: the kind's letter on its colour */
			gp_cv_put(cv, x, y, ch, (struct gp_style){ t->idle, kind_color(t, k), 0 });
		return;
	}
	if (c->mixed) {
		gp_cv_put(cv, x, y, gp_gantt_mixed_glyph(false),
			  (struct gp_style){ kind_color(t, c->fg_kind), t->idle, 0 });
	} else if (c->eighths == 0 || c->eighths >= 8) {
		int k = c->eighths == 0 ? c->bg_kind : c->fg_kind;
		gp_cv_put(cv, x, y, ' ', (struct gp_style){ kind_color(t, k), kind_color(t, k), 0 });
	} else {
		gp_cv_put(cv, x, y, gp_cv_eighth(c->eighths),
			  (struct gp_style){ kind_color(t, c->fg_kind), kind_color(t, c->bg_kind), 0 });
	}
}

void gp_gantt_draw_row(struct gp_canvas *cv, const struct gp_gantt *g, int row, int x, int y,
		       int w, double t0, double dt, const struct gp_theme *t,
		       struct gp_gantt_cell *cells)
{
	gp_gantt_cells(g, row, t0, dt, w, cells);
	for (int c = 0; c < w; c++)
		gp_gantt_put_cell(cv, x + c, y, &cells[c], t, cv->ascii);
}

/* A tick step of 1, 2 or 5 x 10^k giving about n ticks over span t. */
double gp_gantt_nice_step(double t, int n)
{
	double raw = t / n, p = pow(10, floor(log10(raw)));
	double m = raw / p;
	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* The len bytes of s in w cells: whole, or an ellipsis and its tail. */
static void cut_start(const char *s, int len, int w, const char *dots, char *out, size_t n)
{
	if (len <= w)
		snprintf(out, n, "%.*s", len, s);
	else
		snprintf(out, n, "%s%.*s", dots, w - 1, s + len - (w - 1));
}

/* label in w cells: whole, or its start and end with an ellipsis
 * between (labels are ASCII: DC and GPU names as the files spell them;
 * longer ones are cut); a link direction's ends are cut each. */
void gp_gantt_fit_label(const char *label, int w, bool ascii, char *buf, size_t n)
{
	int len = (int)strlen(label);
	if (len <= w || w < 5) {
		snprintf(buf, n, "%s", label);
		return;
	}
	const char *gt = strchr(label, '>'), *dots = ascii ? "~" : "\u2026";
	if (gt && !strchr(label, ' ') && w >= 7) {
		/* A link direction "A>B": each end keeps its own tail, where
		 * names of one region differ ("…1-a>…1-b", never two rows of
		 * "us-central1…s-central1-b" that look alike). */
		int la = (int)(gt - label), lb = len - la - 1, wa = (w - 1) / 2, wb = w - 1 - wa;
		if (la < wa)
			wb += wa - la, wa = la;
		if (lb < wb)
			wa += wb - lb, wb = lb;
		char a[128], b[128];
		cut_start(label, la, wa, dots, a, sizeof a);
		cut_start(gt + 1, lb, wb, dots, b, sizeof b);
		snprintf(buf, n, "%s>%s", a, b);
		return;
	}
	int head = (w - 1) / 2, tail = w - 1 - head;
	snprintf(buf, n, "%.*s%s%s", head, label, ascii ? "~" : "\u2026", label + len - tail);
}
