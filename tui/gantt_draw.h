/*
 * gantt_draw.h: a Gantt chart's cells drawn into a canvas, as the model
 * (gantt.h) describes them: a task kind's colour, a boundary inside a
 * cell as an eighth block between two colours; without colour (mono)
 * or in ASCII, the kind covering most of the cell by its glyph, so
 * short tasks stay visible and every kind reads without colour.
 */
#ifndef GP_GANTT_DRAW_H
#define GP_GANTT_DRAW_H

#include <stdbool.h>
#include "canvas.h"
#include "gantt.h"
#include "theme.h"

void gp_gantt_put_cell(struct gp_canvas *cv, int x, int y, const struct gp_gantt_cell *c,
		       const struct gp_theme *t, bool ascii);
/* The glyph of a cell of several kinds, the legend's "mixed": '*' in
 * ASCII or mono (beside the kinds' glyphs), else U+2592 in colour,
 * where each kind is a solid cell of its colour. */
wchar_t gp_gantt_mixed_glyph(bool plain);
/* Row `row` of g into columns [x, x + w) of line y, column c spanning
 * [t0 + c dt, t0 + (c + 1) dt); cells: scratch of w. */
void gp_gantt_draw_row(struct gp_canvas *cv, const struct gp_gantt *g, int row, int x, int y,
		       int w, double t0, double dt, const struct gp_theme *t,
		       struct gp_gantt_cell *cells);

/* A tick step of 1, 2 or 5 x 10^k giving about n ticks over span t. */
double gp_gantt_nice_step(double t, int n);
/* label in w cells: whole, or its start and end with an ellipsis
 * between. */
void gp_gantt_fit_label(const char *label, int w, bool ascii, char *buf, size_t n);

#endif
