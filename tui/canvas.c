/*
 * canvas.c: the cell grid every screen draws into (the contract is in
 * canvas.h). Nothing here asks the locale: UTF-8 is decoded by hand and
 * widths come from the tables below, so the same calls give the same
 * cells under LANG=C and under a UTF-8 locale, and exports of a screen
 * can be golden files.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canvas.h"
#include "escape.h"

struct range {
	uint32_t lo, hi;
};

/* Combining marks and zero-width format characters: the common blocks,
 * not all of Unicode's Mn/Me/Cf (a cell holds one character, so the marks
 * are dropped rather than stacked). Sorted, for the binary search. */
static const struct range zero_width[] = {
	{ 0x0300, 0x036F }, { 0x0483, 0x0489 }, { 0x0591, 0x05BD }, { 0x05BF, 0x05BF },
	{ 0x05C1, 0x05C2 }, { 0x05C4, 0x05C5 }, { 0x05C7, 0x05C7 }, { 0x0610, 0x061A },
	{ 0x064B, 0x065F }, { 0x0670, 0x0670 }, { 0x06D6, 0x06DC }, { 0x06DF, 0x06E4 },
	{ 0x06E7, 0x06E8 }, { 0x06EA, 0x06ED }, { 0x0E31, 0x0E31 }, { 0x0E34, 0x0E3A },
	{ 0x0E47, 0x0E4E }, { 0x1AB0, 0x1AFF }, { 0x1DC0, 0x1DFF }, { 0x200B, 0x200F },
	{ 0x202A, 0x202E }, { 0x2060, 0x2064 }, { 0x20D0, 0x20FF }, { 0xFE00, 0xFE0F },
	{ 0xFE20, 0xFE2F }, { 0xFEFF, 0xFEFF }, { 0xE0001, 0xE0001 }, { 0xE0020, 0xE007F },
	{ 0xE0100, 0xE01EF },
};

/* East Asian Wide and Fullwidth, and the emoji blocks terminals draw two
 * cells wide. Sorted. */
static const struct range wide[] = {
	{ 0x1100, 0x115F }, { 0x2E80, 0xA4CF }, { 0xAC00, 0xD7A3 }, { 0xF900, 0xFAFF },
	{ 0xFE30, 0xFE4F }, { 0xFF00, 0xFF60 }, { 0xFFE0, 0xFFE6 }, { 0x1F300, 0x1F64F },
	{ 0x1F900, 0x1F9FF }, { 0x20000, 0x3FFFD },
};

static bool in_ranges(const struct range *r, size_t n, uint32_t c)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c < r[mid].lo)
			hi = mid;
		else if (c > r[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

int gp_cv_wcwidth(wchar_t ch)
{
	uint32_t c = (uint32_t)ch;   /* the same whether wchar_t is signed or not */
	if (c < 0x20 || (c >= 0x7F && c < 0xA0) || c > 0x10FFFF)
		return -1;
	if ((c >= 0xD800 && c <= 0xDFFF) || c == 0xFFFE || c == 0xFFFF)
		return -1;
	if (c < 0x300)
		return 1;
	if (in_ranges(zero_width, sizeof zero_width / sizeof *zero_width, c))
		return 0;
	if (in_ranges(wide, sizeof wide / sizeof *wide, c))
		return 2;
	return 1;
}

int gp_cv_decode(const char *s, wchar_t *ch)
{
	uint32_t c;
	int n = gp_utf8_decode(s, &c);   /* one decoder for core and the planner */
	*ch = (wchar_t)c;
	return n ? n : 1;
}

int gp_cv_encode(wchar_t ch, char out[4])
{
	uint32_t c = (uint32_t)ch;
	if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		c = 0xFFFD;
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xC0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3F));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xE0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 0x3F));
		out[2] = (char)(0x80 | (c & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | c >> 18);
	out[1] = (char)(0x80 | (c >> 12 & 0x3F));
	out[2] = (char)(0x80 | (c >> 6 & 0x3F));
	out[3] = (char)(0x80 | (c & 0x3F));
	return 4;
}

int gp_cv_width(const char *utf8)
{
	int n = 0;
	while (utf8 && *utf8) {
		wchar_t c;
		utf8 += gp_cv_decode(utf8, &c);
		int w = gp_cv_wcwidth(c);
		n += w < 0 ? 1 : w;
	}
	return n;
}

int gp_cv_init(struct gp_canvas *cv, int w, int h)
{
	cv->w = cv->h = 0;
	cv->cells = NULL;
	cv->clip = (struct gp_rect){ 0, 0, 0, 0 };
	cv->ascii = false;
	return gp_cv_resize(cv, w, h);
}

void gp_cv_free(struct gp_canvas *cv)
{
	free(cv->cells);
	cv->cells = NULL;
	cv->w = cv->h = 0;
	cv->clip = (struct gp_rect){ 0, 0, 0, 0 };
}

int gp_cv_resize(struct gp_canvas *cv, int w, int h)
{
	w = w < 1 ? 1 : w;
	h = h < 1 ? 1 : h;
	if ((size_t)w > SIZE_MAX / sizeof *cv->cells / (size_t)h)
		return -1;
	struct gp_cell *c = malloc(sizeof *c * (size_t)w * (size_t)h);
	if (!c)
		return -1;
	free(cv->cells);
	cv->cells = c;
	cv->w = w;
	cv->h = h;
	gp_cv_unclip(cv);
	gp_cv_clear(cv, (struct gp_style){ GP_CV_DEFAULT, GP_CV_DEFAULT, 0 });
	return 0;
}

void gp_cv_clear(struct gp_canvas *cv, struct gp_style st)
{
	struct gp_cell c = { L' ', st.fg, st.bg, st.attr };
	for (size_t i = 0, n = (size_t)cv->w * (size_t)cv->h; i < n; i++)
		cv->cells[i] = c;
}

/* In long long: callers may pass rectangles reaching past INT_MAX. */
static struct gp_rect intersect(struct gp_rect a, struct gp_rect b)
{
	long long x0 = a.x > b.x ? a.x : b.x, y0 = a.y > b.y ? a.y : b.y;
	long long ax1 = (long long)a.x + a.w, bx1 = (long long)b.x + b.w;
	long long ay1 = (long long)a.y + a.h, by1 = (long long)b.y + b.h;
	long long x1 = ax1 < bx1 ? ax1 : bx1, y1 = ay1 < by1 ? ay1 : by1;
	if (x1 <= x0 || y1 <= y0)
		return (struct gp_rect){ 0, 0, 0, 0 };
	return (struct gp_rect){ (int)x0, (int)y0, (int)(x1 - x0), (int)(y1 - y0) };
}

void gp_cv_clip(struct gp_canvas *cv, struct gp_rect r)
{
	cv->clip = intersect(r, (struct gp_rect){ 0, 0, cv->w, cv->h });
}

void gp_cv_unclip(struct gp_canvas *cv)
{
	cv->clip = (struct gp_rect){ 0, 0, cv->w, cv->h };
}

struct gp_cell *gp_cv_at(struct gp_canvas *cv, int x, int y)
{
	if (x < 0 || y < 0 || x >= cv->w || y >= cv->h)
		return NULL;
	return &cv->cells[(size_t)y * (size_t)cv->w + (size_t)x];
}

const struct gp_cell *gp_cv_cell(const struct gp_canvas *cv, int x, int y)
{
	if (x < 0 || y < 0 || x >= cv->w || y >= cv->h)
		return NULL;
	return &cv->cells[(size_t)y * (size_t)cv->w + (size_t)x];
}

static bool in_clip(const struct gp_canvas *cv, long long x, long long y)
{
	const struct gp_rect *c = &cv->clip;
	return x >= c->x && x < (long long)c->x + c->w && y >= c->y && y < (long long)c->y + c->h;
}

/* Before (x, y) is written: the other half of a wide character that
 * cell belongs to becomes a space, so no tail is left without its head. */
static void unlink_wide(struct gp_canvas *cv, int x, int y)
{
	struct gp_cell *row = cv->cells + (size_t)y * (size_t)cv->w;
	if (row[x].ch == GP_CV_WIDE_TAIL && x > 0)
		row[x - 1].ch = L' ';
	if (x + 1 < cv->w && row[x + 1].ch == GP_CV_WIDE_TAIL)
		row[x + 1].ch = L' ';
}

static void set_cell(struct gp_canvas *cv, int x, int y, wchar_t ch, struct gp_style st)
{
	unlink_wide(cv, x, y);
	cv->cells[(size_t)y * (size_t)cv->w + (size_t)x] = (struct gp_cell){ ch, st.fg, st.bg, st.attr };
}

/* A character of width w (1 or 2) at (x, y), clipped; a wide one cut by
 * the clip leaves a space in the half that shows. */
static void draw(struct gp_canvas *cv, long long x, long long y, wchar_t ch, int w,
		 struct gp_style st)
{
	bool a = in_clip(cv, x, y);
	if (w == 1) {
		if (a)
			set_cell(cv, (int)x, (int)y, ch, st);
		return;
	}
	bool b = in_clip(cv, x + 1, y);
	if (a && b) {   /* head first: its unlink must not see the new tail */
		set_cell(cv, (int)x, (int)y, ch, st);
		set_cell(cv, (int)x + 1, (int)y, GP_CV_WIDE_TAIL, st);
	} else if (a) {
		set_cell(cv, (int)x, (int)y, L' ', st);
	} else if (b) {
		set_cell(cv, (int)x + 1, (int)y, L' ', st);
	}
}

/* Controls become '?'; returns the width (0: draw nothing). */
static int printable(wchar_t *ch)
{
	int w = gp_cv_wcwidth(*ch);
	if (w < 0) {
		*ch = L'?';
		w = 1;
	}
	return w;
}

void gp_cv_put(struct gp_canvas *cv, int x, int y, wchar_t ch, struct gp_style st)
{
	int w = printable(&ch);
	if (w > 0)
		draw(cv, x, y, ch, w, st);
}

void gp_cv_fill(struct gp_canvas *cv, struct gp_rect r, wchar_t ch, struct gp_style st)
{
	int w = printable(&ch);
	struct gp_rect c = intersect(r, cv->clip);
	if (w == 0 || c.w == 0)
		return;
	long long rx1 = (long long)r.x + r.w;
	for (int y = c.y; y < c.y + c.h; y++) {
		if (w == 1) {
			for (int x = c.x; x < c.x + c.w; x++)
				set_cell(cv, x, y, ch, st);
			continue;
		}
		/* Wide characters pair up from r.x; the one cut by either
		 * edge of the clip or by r's right edge is a space. */
		for (long long x = r.x + (c.x - (long long)r.x) / 2 * 2; x < c.x + c.w; x += 2) {
			if (x + 1 < rx1)
				draw(cv, x, y, ch, 2, st);
			else
				draw(cv, x, y, L' ', 1, st);
		}
	}
}

int gp_cv_text(struct gp_canvas *cv, int x, int y, int maxw, struct gp_style st,
	       const char *utf8)
{
	long long lim = maxw >= 0 ? maxw : (long long)cv->clip.x + cv->clip.w - x;
	long long n = 0;
	while (utf8 && *utf8 && n < lim) {
		wchar_t ch;
		utf8 += gp_cv_decode(utf8, &ch);
		int w = printable(&ch);
		if (w == 0)
			continue;
		if (n + w > lim) {   /* a wide character past the limit */
			ch = L' ';
			w = 1;
		}
		draw(cv, x + n, y, ch, w, st);
		n += w;
	}
	return (int)n;
}

int gp_cv_printf(struct gp_canvas *cv, int x, int y, int maxw, struct gp_style st,
		 const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	if ((size_t)n < sizeof buf)
		return gp_cv_text(cv, x, y, maxw, st, buf);
	char *p = malloc((size_t)n + 1);
	if (!p)   /* out of memory: what fitted */
		return gp_cv_text(cv, x, y, maxw, st, buf);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	int r = gp_cv_text(cv, x, y, maxw, st, p);
	free(p);
	return r;
}

enum glyph { G_HORIZ, G_VERT, G_TL, G_TR, G_BL, G_BR };

static wchar_t glyph(const struct gp_canvas *cv, enum glyph g)
{
	static const wchar_t uni[] = { 0x2500, 0x2502, 0x250C, 0x2510, 0x2514, 0x2518 };
	static const wchar_t asc[] = { L'-', L'|', L'+', L'+', L'+', L'+' };
	return cv->ascii ? asc[g] : uni[g];
}

void gp_cv_hline(struct gp_canvas *cv, int x, int y, int w, struct gp_style st)
{
	gp_cv_fill(cv, (struct gp_rect){ x, y, w, 1 }, glyph(cv, G_HORIZ), st);
}

void gp_cv_vline(struct gp_canvas *cv, int x, int y, int h, struct gp_style st)
{
	gp_cv_fill(cv, (struct gp_rect){ x, y, 1, h }, glyph(cv, G_VERT), st);
}

void gp_cv_box(struct gp_canvas *cv, struct gp_rect r, struct gp_style st, const char *title)
{
	if (r.w <= 0 || r.h <= 0)
		return;
	if (r.h == 1 || r.w == 1) {   /* too thin for corners: a line */
		if (r.h == 1)
			gp_cv_hline(cv, r.x, r.y, r.w, st);
		else
			gp_cv_vline(cv, r.x, r.y, r.h, st);
		return;
	}
	int x1 = r.x + r.w - 1, y1 = r.y + r.h - 1;
	gp_cv_hline(cv, r.x + 1, r.y, r.w - 2, st);
	gp_cv_hline(cv, r.x + 1, y1, r.w - 2, st);
	gp_cv_vline(cv, r.x, r.y + 1, r.h - 2, st);
	gp_cv_vline(cv, x1, r.y + 1, r.h - 2, st);
	gp_cv_put(cv, r.x, r.y, glyph(cv, G_TL), st);
	gp_cv_put(cv, x1, r.y, glyph(cv, G_TR), st);
	gp_cv_put(cv, r.x, y1, glyph(cv, G_BL), st);
	gp_cv_put(cv, x1, y1, glyph(cv, G_BR), st);
	/* " title " after the corner, cut to the edge between the corners. */
	int room = r.w - 2;
	if (!title || !*title || room < 2)
		return;
	gp_cv_put(cv, r.x + 1, r.y, L' ', st);
	int n = gp_cv_text(cv, r.x + 2, r.y, room - 1, st, title);
	if (n < room - 1)
		gp_cv_put(cv, r.x + 2 + n, r.y, L' ', st);
}

wchar_t gp_cv_eighth(int n)
{
	if (n < 1)
		return L' ';
	return (wchar_t)(0x2590 - (n > 8 ? 8 : n));
}

void gp_cv_bar(struct gp_canvas *cv, int x, int y, int w, double f, uint32_t fill,
	       uint32_t back)
{
	struct gp_style st = { fill, back, 0 };
	if (w <= 0)
		return;
	if (!(f > 0))   /* NaN too */
		f = 0;
	if (f > 1)
		f = 1;
	/* Rounded to the nearest eighth (ASCII: the nearest cell). */
	long e = lround(f * w * (cv->ascii ? 1 : 8));
	for (int i = 0; i < w; i++) {
		wchar_t ch;
		if (cv->ascii)
			ch = i < e ? L'#' : L' ';
		else
			ch = i < e / 8 ? gp_cv_eighth(8) : i == e / 8 ? gp_cv_eighth((int)(e % 8)) : L' ';
		gp_cv_put(cv, x + i, y, ch, st);
	}
}

/* Bytes of the first line of text when wrapped to w cells (at a space
 * where there is one); *next where the following line starts. */
int gp_cv_wrap(const char *text, int w, int *next)
{
	int i = 0, cells = 0, cut = -1;
	while (text[i]) {
		wchar_t ch;
		int k = gp_cv_decode(text + i, &ch), cw = gp_cv_wcwidth(ch);
		if (cells + (cw > 0 ? cw : 0) > w)
			break;
		cells += cw > 0 ? cw : 0;
		if (ch == ' ')
			cut = i;
		i += k;
	}
	if (text[i] && cut > 0)
		i = cut;
	*next = i;
	while (text[*next] == ' ')
		(*next)++;
	return i > 0 ? i : *next > 0 ? *next : (int)strlen(text);
}
