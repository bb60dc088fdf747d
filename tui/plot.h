/*
 * plot.h: a small line graph of up to two series in a canvas rectangle
 * (the solver's incumbent and bound over its reports): braille dots, 2
 * x 4 to a cell (U+2800 + the dots' bits), as btop and htop draw their
 * graphs; in ASCII one mark a cell. Series are told apart by glyph as
 * well as style: in ASCII the first is '*', the second '.', both '#';
 * in braille a cell both cross takes the first's style.
 *
 * Pure: no terminal. x is the point's index (the reports in order, so
 * a replay draws the same graph every time); y is scaled between the
 * smallest and largest finite value of both series (points not finite
 * are gaps).
 */
#ifndef GP_PLOT_H
#define GP_PLOT_H

#include "canvas.h"

struct gp_plot_series {
	const double *y;             /* [n] */
	struct gp_style style;
};

/* The y range of the finite values of s[0..ns) over n points: false when
 * there is none. */
bool gp_plot_range(const struct gp_plot_series *s, int ns, int n, double *lo, double *hi);
/* Draws s[0..ns) (ns 1 or 2) of n points into r, the y range [lo, hi]
 * (lo == hi: a flat line in the middle). */
void gp_plot(struct gp_canvas *cv, struct gp_rect r, const struct gp_plot_series *s, int ns,
	     int n, double lo, double hi);
/* The braille dot bit of dot column dx (0, 1) and row dy (0..3). */
int gp_plot_dot(int dx, int dy);

#endif
