/*
 * export_svg.c: a canvas as an SVG picture of the screen.
 *
 * The grid is fixed (GP_EXPORT_CW x GP_EXPORT_CH px per cell) and each
 * run of text is stretched to its cells with textLength, so columns line
 * up whatever monospace font the viewer has (no web fonts are fetched).
 * Backgrounds are merged runs of rectangles. Block elements, box drawing
 * and braille are drawn as rectangles, not as font glyphs: fonts leave
 * seams between cells, and ▀▄▌ and the box lines must join exactly, as
 * terminals that draw them themselves do (st's boxdraw, VTE, WezTerm).
 * Coordinates are integers in thousandths of a pixel, printed by hand:
 * exact for eighths of a cell and free of the locale's decimal point.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "export.h"
#include "export_int.h"

enum { CW = GP_EXPORT_CW, CH = GP_EXPORT_CH, BASELINE = 14, FONT_PX = 15 };

struct svg {
	FILE *f;
	const struct gp_canvas *cv;
	uint32_t dfg, dbg;
	bool open;          /* a <path> is being written */
	uint32_t fill;      /* its colour */
	size_t n;           /* bytes in buf */
	char buf[8192];
};

/* Arms of the box-drawing characters U+2500-257F: left, right, up, down,
 * two bits each (1 light, 2 heavy). 0: not drawn (dashes, double lines,
 * diagonals: those stay text). */
#define A(l, r, u, d) ((l) | (r) << 2 | (u) << 4 | (d) << 6)
static const unsigned char box_arms[128] = {
	A(1, 1, 0, 0), A(2, 2, 0, 0), A(0, 0, 1, 1), A(0, 0, 2, 2), 0, 0, 0, 0, 0, 0, 0, 0,
	A(0, 1, 0, 1), A(0, 2, 0, 1), A(0, 1, 0, 2), A(0, 2, 0, 2),
	A(1, 0, 0, 1), A(2, 0, 0, 1), A(1, 0, 0, 2), A(2, 0, 0, 2),
	A(0, 1, 1, 0), A(0, 2, 1, 0), A(0, 1, 2, 0), A(0, 2, 2, 0),
	A(1, 0, 1, 0), A(2, 0, 1, 0), A(1, 0, 2, 0), A(2, 0, 2, 0),
	A(0, 1, 1, 1), A(0, 2, 1, 1), A(0, 1, 2, 1), A(0, 1, 1, 2),
	A(0, 1, 2, 2), A(0, 2, 2, 1), A(0, 2, 1, 2), A(0, 2, 2, 2),
	A(1, 0, 1, 1), A(2, 0, 1, 1), A(1, 0, 2, 1), A(1, 0, 1, 2),
	A(1, 0, 2, 2), A(2, 0, 2, 1), A(2, 0, 1, 2), A(2, 0, 2, 2),
	A(1, 1, 0, 1), A(2, 1, 0, 1), A(1, 2, 0, 1), A(2, 2, 0, 1),
	A(1, 1, 0, 2), A(2, 1, 0, 2), A(1, 2, 0, 2), A(2, 2, 0, 2),
	A(1, 1, 1, 0), A(2, 1, 1, 0), A(1, 2, 1, 0), A(2, 2, 1, 0),
	A(1, 1, 2, 0), A(2, 1, 2, 0), A(1, 2, 2, 0), A(2, 2, 2, 0),
	A(1, 1, 1, 1), A(2, 1, 1, 1), A(1, 2, 1, 1), A(2, 2, 1, 1),
	A(1, 1, 2, 1), A(1, 1, 1, 2), A(1, 1, 2, 2), A(2, 1, 2, 1),
	A(1, 2, 2, 1), A(2, 1, 1, 2), A(1, 2, 1, 2), A(2, 2, 2, 1),
	A(2, 2, 1, 2), A(2, 1, 2, 2), A(1, 2, 2, 2), A(2, 2, 2, 2),
	0, 0, 0, 0,                                                 /* 254C-254F dashes */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,             /* 2550-256C double */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	A(0, 1, 0, 1), A(1, 0, 0, 1), A(1, 0, 1, 0), A(0, 1, 1, 0), /* arcs, drawn square */
	0, 0, 0,                                                    /* diagonals */
	A(1, 0, 0, 0), A(0, 0, 1, 0), A(0, 1, 0, 0), A(0, 0, 0, 1),
	A(2, 0, 0, 0), A(0, 0, 2, 0), A(0, 2, 0, 0), A(0, 0, 0, 2),
	A(1, 2, 0, 0), A(0, 0, 1, 2), A(2, 1, 0, 0), A(0, 0, 2, 1),
};
#undef A

/* U+2580-2595 as one rectangle in eighths of the cell (x0, y0, x1, y1);
 * the shades U+2591-2593 are all zero here. */
static const unsigned char block_rect[22][4] = {
	{ 0, 0, 8, 4 }, { 0, 7, 8, 8 }, { 0, 6, 8, 8 }, { 0, 5, 8, 8 }, { 0, 4, 8, 8 },
	{ 0, 3, 8, 8 }, { 0, 2, 8, 8 }, { 0, 1, 8, 8 }, { 0, 0, 8, 8 }, { 0, 0, 7, 8 },
	{ 0, 0, 6, 8 }, { 0, 0, 5, 8 }, { 0, 0, 4, 8 }, { 0, 0, 3, 8 }, { 0, 0, 2, 8 },
	{ 0, 0, 1, 8 }, { 4, 0, 8, 8 }, { 0 }, { 0 }, { 0 }, { 0, 0, 8, 1 }, { 7, 0, 8, 8 },
};

/* U+2596-259F quadrants: 1 upper left, 2 upper right, 4 lower left, 8 lower right. */
static const unsigned char quadrants[10] = { 4, 8, 1, 13, 9, 7, 11, 2, 6, 14 };

static bool is_geometry(wchar_t ch)
{
	uint32_t c = (uint32_t)ch;
	if (c >= 0x2500 && c <= 0x257F)
		return box_arms[c - 0x2500] != 0;
	return (c >= 0x2580 && c <= 0x259F) || (c >= 0x2800 && c <= 0x28FF);
}

static void flush(struct svg *s)
{
	fwrite(s->buf, 1, s->n, s->f);
	s->n = 0;
}

static void put_str(struct svg *s, const char *str)
{
	for (; *str; str++) {
		if (s->n == sizeof s->buf)
			flush(s);
		s->buf[s->n++] = *str;
	}
}

/* m thousandths of a pixel: "4", "4.5", "1.125", "-9". */
static void put_milli(struct svg *s, long m)
{
	char d[32], *p = d + sizeof d;
	bool neg = m < 0;
	unsigned long u = neg ? 0UL - (unsigned long)m : (unsigned long)m;
	unsigned frac = (unsigned)(u % 1000);
	*--p = 0;
	if (frac) {
		int digits = 3;
		for (; frac % 10 == 0; frac /= 10)
			digits--;
		while (digits--) {
			*--p = (char)('0' + frac % 10);
			frac /= 10;
		}
		*--p = '.';
	}
	u /= 1000;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (neg)
		*--p = '-';
	put_str(s, p);
}

static void put_colour(struct svg *s, uint32_t c)
{
	static const char hex[] = "0123456789abcdef";
	char d[8] = { '#' };
	for (int i = 0; i < 6; i++)
		d[1 + i] = hex[c >> (20 - 4 * i) & 0xF];
	put_str(s, d);
}

/* A printf of our own, faster than stdio's and blind to the locale: %d an
 * int (px), %m a long (thousandths of a px), %c a colour, %s a string. */
static void put(struct svg *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			if (s->n == sizeof s->buf)
				flush(s);
			s->buf[s->n++] = *p;
			continue;
		}
		switch (*++p) {
		case 'd': put_milli(s, va_arg(ap, int) * 1000L); break;
		case 'm': put_milli(s, va_arg(ap, long)); break;
		case 'c': put_colour(s, va_arg(ap, uint32_t)); break;
		default: put_str(s, va_arg(ap, const char *)); break;
		}
	}
	va_end(ap);
}

static void path_close(struct svg *s)
{
	if (s->open)
		put_str(s, "\"/>\n");
	s->open = false;
}

/* A rectangle (in thousandths) added to the open path of its colour. */
static void rect(struct svg *s, uint32_t fill, long x, long y, long w, long h)
{
	if (!s->open || s->fill != fill) {
		path_close(s);
		put(s, "<path fill=\"%c\" d=\"", fill);
		s->open = true;
		s->fill = fill;
	}
	put(s, "M%m %mh%mv%mh%mz", x, y, w, h, -w);
}

/* Rectangle in eighths of the cell at (x, y) thousandths. */
static void eighths(struct svg *s, uint32_t fill, long x, long y, const unsigned char *r)
{
	rect(s, fill, x + r[0] * CW * 125L, y + r[1] * CH * 125L, (r[2] - r[0]) * CW * 125L,
	     (r[3] - r[1]) * CH * 125L);
}

static void draw_box(struct svg *s, uint32_t fill, long x, long y, unsigned arms)
{
	int weight[4], t = 0;   /* left, right, up, down; t: the thickest, px */
	for (int i = 0; i < 4; i++) {
		weight[i] = arms >> (2 * i) & 3;
		if (weight[i] > t)
			t = weight[i];
	}
	/* The centre square all arms reach into, so corners are solid. */
	long cx = (CW - t) / 2, cy = (CH - t) / 2;
	for (int i = 0; i < 4; i++) {
		long k = weight[i];
		if (!k)
			continue;
		if (i < 2) {
			long x0 = i == 0 ? 0 : cx, x1 = i == 0 ? cx + t : CW;
			rect(s, fill, x + x0 * 1000, y + (CH - k) / 2 * 1000, (x1 - x0) * 1000, k * 1000);
		} else {
			long y0 = i == 2 ? 0 : cy, y1 = i == 2 ? cy + t : CH;
			rect(s, fill, x + (CW - k) / 2 * 1000, y + y0 * 1000, k * 1000, (y1 - y0) * 1000);
		}
	}
}

/* Braille: dots 1-3 and 7 down the left column, 4-6 and 8 the right. */
static void draw_braille(struct svg *s, uint32_t fill, long x, long y, unsigned bits)
{
	static const unsigned char col[8] = { 0, 0, 0, 1, 1, 1, 0, 1 };
	static const unsigned char row[8] = { 0, 1, 2, 0, 1, 2, 3, 3 };
	const long dot = 2000;
	for (int i = 0; i < 8; i++)
		if (bits >> i & 1)
			rect(s, fill, x + (2 * col[i] + 1) * CW * 250L - dot / 2,
			     y + (2 * row[i] + 1) * CH * 125L - dot / 2, dot, dot);
}

static void draw_block(struct svg *s, uint32_t fill, long x, long y, uint32_t c)
{
	static const unsigned char quad[4][4] = {
		{ 0, 0, 4, 4 }, { 4, 0, 8, 4 }, { 0, 4, 4, 8 }, { 4, 4, 8, 8 },
	};
	if (c >= 0x2591 && c <= 0x2593) {   /* shades: the colour at 1/4, 1/2, 3/4 */
		static const char *const opacity[] = { "0.25", "0.5", "0.75" };
		path_close(s);
		put(s, "<rect x=\"%m\" y=\"%m\" width=\"%d\" height=\"%d\" fill=\"%c\" fill-opacity=\"%s\"/>\n",
		    x, y, CW, CH, fill, opacity[c - 0x2591]);
	} else if (c <= 0x2595) {
		eighths(s, fill, x, y, block_rect[c - 0x2580]);
	} else {
		for (int q = 0; q < 4; q++)
			if (quadrants[c - 0x2596] >> q & 1)
				eighths(s, fill, x, y, quad[q]);
	}
}

static void backgrounds(struct svg *s)
{
	const struct gp_canvas *cv = s->cv;
	for (int y = 0; y < cv->h; y++)
		for (int x = 0; x < cv->w;) {
			uint32_t bg = gp_export_look(gp_cv_cell(cv, x, y), s->dfg, s->dbg).bg;
			int e = x + 1;
			while (e < cv->w && gp_export_look(gp_cv_cell(cv, e, y), s->dfg, s->dbg).bg == bg)
				e++;
			if (bg != s->dbg)
				put(s, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%c\"/>\n",
				    x * CW, y * CH, (e - x) * CW, CH, bg);
			x = e;
		}
}

static void geometry(struct svg *s)
{
	const struct gp_canvas *cv = s->cv;
	for (int y = 0; y < cv->h; y++)
		for (int x = 0; x < cv->w; x++) {
			uint32_t c = (uint32_t)gp_export_shown(cv, x, y);
			if (!is_geometry((wchar_t)c))
				continue;
			uint32_t fg = gp_export_look(gp_cv_cell(cv, x, y), s->dfg, s->dbg).fg;
			long px = x * CW * 1000L, py = y * CH * 1000L;
			if (c < 0x2580)
				draw_box(s, fg, px, py, box_arms[c - 0x2500]);
			else if (c < 0x2600)
				draw_block(s, fg, px, py, c);
			else
				draw_braille(s, fg, px, py, c - 0x2800);
		}
	path_close(s);
}

/* Text cells: 'i'nk starts a run, 'n'eutral (a plain space) joins any
 * run, 't'ail belongs to the character before, 'g'eometry ends a run. */
static char kind(const struct gp_canvas *cv, int x, int y)
{
	wchar_t c = gp_export_shown(cv, x, y);
	if (!c)
		return 't';
	if (is_geometry(c))
		return 'g';
	if (c == L' ' && !(gp_cv_cell(cv, x, y)->attr & GP_CV_UNDERLINE))
		return 'n';
	return 'i';
}

static void text_run(struct svg *s, int y, int x0, int x1, struct gp_export_look l)
{
	put(s, "<text x=\"%d\" y=\"%d\" textLength=\"%d\" lengthAdjust=\"spacingAndGlyphs\""
	    " fill=\"%c\"%s%s%s>", x0 * CW, y * CH + BASELINE, (x1 - x0) * CW, l.fg,
	    l.fl & GP_EXPORT_BOLD ? " font-weight=\"bold\"" : "",
	    l.fl & GP_EXPORT_ITALIC ? " font-style=\"italic\"" : "",
	    l.fl & GP_EXPORT_UNDERLINE ? " text-decoration=\"underline\"" : "");
	for (int x = x0; x < x1; x++) {
		wchar_t c = gp_export_shown(s->cv, x, y);
		if (!c)
			continue;
		if (s->n + 8 > sizeof s->buf)
			flush(s);
		s->n += (size_t)gp_export_xml(c, s->buf + s->n);
	}
	put_str(s, "</text>\n");
}

/* One <text> per run of one colour and weight, trimmed of plain spaces
 * at its ends; the background does not split runs (it is drawn apart). */
static void texts(struct svg *s)
{
	const struct gp_canvas *cv = s->cv;
	for (int y = 0; y < cv->h; y++)
		for (int x = 0; x < cv->w;) {
			if (kind(cv, x, y) != 'i') {
				x++;
				continue;
			}
			struct gp_export_look l = gp_export_look(gp_cv_cell(cv, x, y), s->dfg, s->dbg);
			int end = x + 1;
			for (int j = x + 1; j < cv->w; j++) {
				char k = kind(cv, j, y);
				if (k == 'g')
					break;
				if (k == 't' && end == j)
					end = j + 1;
				if (k != 'i')
					continue;
				struct gp_export_look m = gp_export_look(gp_cv_cell(cv, j, y), s->dfg, s->dbg);
				if (m.fg != l.fg || m.fl != l.fl)
					break;
				end = j + 1;
			}
			text_run(s, y, x, end, l);
			x = end;
		}
}

int gp_export_svg(FILE *f, const struct gp_canvas *cv, uint32_t dfg, uint32_t dbg,
		  const char *title)
{
	struct svg *s = malloc(sizeof *s);
	if (!s)
		return -1;
	*s = (struct svg){ .f = f, .cv = cv, .dfg = dfg, .dbg = dbg };
	int w = cv->w * CW, h = cv->h * CH;
	put(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
	    " viewBox=\"0 0 %d %d\">\n<title>", w, h, w, h);
	flush(s);
	gp_export_xml_str(f, title);
	put(s, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"%c\"/>\n"
	    "<g shape-rendering=\"crispEdges\">\n", w, h, dbg);
	backgrounds(s);
	geometry(s);
	put(s, "</g>\n<g font-family=\"%s\" font-size=\"%dpx\" xml:space=\"preserve\">\n",
	    GP_EXPORT_FONTS, FONT_PX);
	texts(s);
	put_str(s, "</g>\n</svg>\n");
	flush(s);
	free(s);
	return 0;
}
