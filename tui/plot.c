/*
 * plot.c: the line graph (plot.h). Each dot column takes the point
 * whose index it covers; consecutive dots of a series are joined
 * vertically, so a step down reads as a line, not as two dots.
 */
#include "plot.h"

#include <math.h>
#include <stdlib.h>

/* Braille dots: column 0 is 1, 2, 4, 64 from the top; column 1 is 8,
 * 16, 32, 128 (Unicode 3.0, the Braille Patterns block). */
int gp_plot_dot(int dx, int dy)
{
	static const int bits[2][4] = { { 0x01, 0x02, 0x04, 0x40 }, { 0x08, 0x10, 0x20, 0x80 } };
	return dx >= 0 && dx < 2 && dy >= 0 && dy < 4 ? bits[dx][dy] : 0;
}

bool gp_plot_range(const struct gp_plot_series *s, int ns, int n, double *lo, double *hi)
{
	*lo = HUGE_VAL;
	*hi = -HUGE_VAL;
	for (int k = 0; k < ns; k++)
		for (int i = 0; i < n; i++)
			if (isfinite(s[k].y[i])) {
				*lo = fmin(*lo, s[k].y[i]);
				*hi = fmax(*hi, s[k].y[i]);
			}
	return *lo <= *hi;
}

/* The dot row (0 at the top, rows - 1 at the bottom) of y. */
static int dot_row(double y, double lo, double hi, int rows)
{
	if (hi <= lo)
		return rows / 2;
	int d = (int)lround((hi - y) / (hi - lo) * (rows - 1));
	return d < 0 ? 0 : d >= rows ? rows - 1 : d;
}

/* The point dot column c of cols shows. */
static int point_at(int c, int cols, int n)
{
	if (n <= 1 || cols <= 1)
		return 0;
	return (int)lround((double)c * (n - 1) / (cols - 1));
}

/* One series into mask[rows][cols] (bit k set: series k has the dot). */
static void trace(unsigned char *mask, int cols, int rows, const double *y, int n, double lo,
		  double hi, int k)
{
	int last = -1;
	for (int c = 0; c < cols; c++) {
		double v = y[point_at(c, cols, n)];
		if (!isfinite(v)) {
			last = -1;
			continue;
		}
		int d = dot_row(v, lo, hi, rows);
		int a = last < 0 ? d : last < d ? last : d, b = last < 0 ? d : last > d ? last : d;
		for (int r = a; r <= b; r++)
			mask[r * cols + c] |= (unsigned char)(1 << k);
		last = d;
	}
}

static void put_braille(struct gp_canvas *cv, struct gp_rect r, const unsigned char *mask,
			const struct gp_plot_series *s, int ns)
{
	int cols = 2 * r.w;
	for (int cy = 0; cy < r.h; cy++)
		for (int cx = 0; cx < r.w; cx++) {
			int bits = 0, who = 0;
			for (int dy = 0; dy < 4; dy++)
				for (int dx = 0; dx < 2; dx++) {
					unsigned char m = mask[(cy * 4 + dy) * cols + cx * 2 + dx];
					if (m)
						bits |= gp_plot_dot(dx, dy);
					who |= m;
				}
			if (!bits)
				continue;
			struct gp_style st = who & 1 || ns < 2 ? s[0].style : s[1].style;
			gp_cv_put(cv, r.x + cx, r.y + cy, (wchar_t)(0x2800 + bits), st);
		}
}

static void put_ascii(struct gp_canvas *cv, struct gp_rect r, const unsigned char *mask,
		      const struct gp_plot_series *s, int ns)
{
	for (int cy = 0; cy < r.h; cy++)
		for (int cx = 0; cx < r.w; cx++) {
			unsigned char m = mask[cy * r.w + cx];
			if (!m)
				continue;
			wchar_t ch = m == 3 ? '#' : m == 1 ? '*' : '.';
			gp_cv_put(cv, r.x + cx, r.y + cy, ch, m & 1 || ns < 2 ? s[0].style : s[1].style);
		}
}

void gp_plot(struct gp_canvas *cv, struct gp_rect r, const struct gp_plot_series *s, int ns,
	     int n, double lo, double hi)
{
	if (r.w < 1 || r.h < 1 || n < 1 || ns < 1)
		return;
	ns = ns > 2 ? 2 : ns;
	int cols = cv->ascii ? r.w : 2 * r.w, rows = cv->ascii ? r.h : 4 * r.h;
	unsigned char *mask = calloc((size_t)cols * (size_t)rows, 1);
	if (!mask)
		return;
	for (int k = ns - 1; k >= 0; k--)
		trace(mask, cols, rows, s[k].y, n, lo, hi, k);
	if (cv->ascii)
		put_ascii(cv, r, mask, s, ns);
	else
		put_braille(cv, r, mask, s, ns);
	free(mask);
}
